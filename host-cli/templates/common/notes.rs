//! Notes kept in memory per install, and the contributions that only read or write them: the
//! approved action that saves one, the mention picker, the context provider, and the table the
//! `recent-notes` tool answers with. A real server keeps its notes in its database.
//!
//! `Server` (in `main.rs`) keeps them in its `notes` field.

use std::collections::HashMap;
use std::sync::Mutex;

use host_runtime::answer::Table;
use host_runtime::serde_json::{self, json};
use host_runtime::{ContextBlock, ContextCall, HostError, MentionCall, MentionItem, MentionItems};

use crate::{Actions, Approved, ContextProviders, Mentions, Server, ToolCall, actions, tools};

/// One saved note.
#[derive(Debug, Clone)]
pub struct Note {
    /// `note-1`, `note-2`, ... in the order the install saved them.
    pub id: String,
    /// What the owner wrote.
    pub text: String,
}

/// Every install's notes, by install id.
#[derive(Debug, Default)]
pub struct Notes {
    by_install: Mutex<HashMap<String, Vec<Note>>>,
}

impl Notes {
    /// The install's notes, newest first.
    pub fn newest_first(&self, install: &str) -> Vec<Note> {
        let notes = self.by_install.lock().unwrap_or_else(|e| e.into_inner());
        notes
            .get(install)
            .into_iter()
            .flatten()
            .rev()
            .cloned()
            .collect()
    }

    /// Saves a note for the install; gives its id.
    fn save(&self, install: &str, text: String) -> String {
        let mut notes = self.by_install.lock().unwrap_or_else(|e| e.into_inner());
        let list = notes.entry(install.to_owned()).or_default();
        let id = format!("note-{}", list.len() + 1);
        list.push(Note {
            id: id.clone(),
            text,
        });
        id
    }

    /// The `recent-notes` tool's answer: the install's newest notes, 10 unless it asks for more.
    pub fn recent(&self, call: &ToolCall<tools::recent_notes::Input>) -> Table {
        let limit = call
            .input
            .limit
            .map_or(10, |n| usize::try_from(n.get()).unwrap_or(50));
        let mut table = Table::new().column("id", "Id").column("text", "Note");
        for note in self.newest_first(&call.install.id).into_iter().take(limit) {
            table = table.row([("id", note.id), ("text", note.text)]);
        }
        table
    }
}

impl Actions for Server {
    async fn save_note(
        &self,
        call: Approved<actions::save_note::Input>,
    ) -> Result<serde_json::Value, HostError> {
        let id = self
            .notes
            .save(&call.install.id, call.input.text.as_str().to_owned());
        Ok(json!({ "saved": true, "id": id }))
    }
}

impl Mentions for Server {
    async fn note(&self, call: MentionCall) -> Result<MentionItems, HostError> {
        let q = call.q.to_lowercase();
        let items = self
            .notes
            .newest_first(&call.install.id)
            .into_iter()
            .filter(|n| n.text.to_lowercase().contains(&q))
            .map(|n| MentionItem::new(n.id, n.text))
            .collect();
        Ok(MentionItems { items })
    }
}

impl ContextProviders for Server {
    async fn notes_summary(&self, call: ContextCall) -> Result<ContextBlock, HostError> {
        let notes = self.notes.newest_first(&call.install.id);
        Ok(match notes.first() {
            Some(latest) => ContextBlock::new(format!(
                "{} notes saved; the latest: {}",
                notes.len(),
                latest.text
            )),
            None => ContextBlock::new("No notes saved yet."),
        })
    }
}
