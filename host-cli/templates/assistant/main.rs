//! {{name}}: a vendor server for the host's assistant: tools, an approved action, a mention picker
//! and a context provider, over notes kept in memory per install.
//!
//! `cargo run` serves it on 127.0.0.1:8787; `cargo host call action save-note --input '{"text":
//! "Ship on Friday"}'` calls it as the host would, and `cargo host check` runs the host's
//! publish-time checks. Notes live in memory: a real server keeps them in its database.

host_runtime::host_extension!("host.extension.json");

mod config;

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Mutex;

use host_runtime::answer::{Table, Value};
use host_runtime::events::InstallCreated;
use host_runtime::serde_json::{self, json};
use host_runtime::{ContextBlock, ContextCall, HostError, MentionCall, MentionItem, MentionItems};

/// One saved note.
#[derive(Debug, Clone)]
struct Note {
    id: String,
    text: String,
}

/// The extension: notes by install id.
#[derive(Debug, Default)]
struct Server {
    notes: Mutex<HashMap<String, Vec<Note>>>,
}

impl Server {
    /// The install's notes, newest first.
    fn notes(&self, install: &str) -> Vec<Note> {
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes
            .get(install)
            .into_iter()
            .flatten()
            .rev()
            .cloned()
            .collect()
    }
}

impl Tools for Server {
    async fn greet(&self, call: ToolCall<tools::greet::Input>) -> Result<Value, HostError> {
        Ok(Value::new(format!("Hello, {}!", call.input.name.as_str())))
    }

    async fn recent_notes(
        &self,
        call: ToolCall<tools::recent_notes::Input>,
    ) -> Result<Table, HostError> {
        let limit = call
            .input
            .limit
            .map_or(10, |n| usize::try_from(n.get()).unwrap_or(50));
        let mut table = Table::new().column("id", "Id").column("text", "Note");
        for note in self.notes(&call.install.id).into_iter().take(limit) {
            table = table.row([("id", note.id), ("text", note.text)]);
        }
        Ok(table)
    }
}

impl Actions for Server {
    async fn save_note(
        &self,
        call: Approved<actions::save_note::Input>,
    ) -> Result<serde_json::Value, HostError> {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let list = notes.entry(call.install.id.clone()).or_default();
        let id = format!("note-{}", list.len() + 1);
        list.push(Note {
            id: id.clone(),
            text: call.input.text.as_str().to_owned(),
        });
        Ok(json!({ "saved": true, "id": id }))
    }
}

impl Mentions for Server {
    async fn note(&self, call: MentionCall) -> Result<MentionItems, HostError> {
        let q = call.q.to_lowercase();
        let items = self
            .notes(&call.install.id)
            .into_iter()
            .filter(|n| n.text.to_lowercase().contains(&q))
            .map(|n| MentionItem::new(n.id, n.text))
            .collect();
        Ok(MentionItems { items })
    }
}

impl ContextProviders for Server {
    async fn notes_summary(&self, call: ContextCall) -> Result<ContextBlock, HostError> {
        let notes = self.notes(&call.install.id);
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

impl Events for Server {
    async fn install_created(&self, call: EventCall<InstallCreated>) -> Result<(), HostError> {
        println!("installed: {}", call.install.id);
        Ok(())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let config = match config::Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    config::serve(config.apply(handler(Server::default())), &config).await
}
