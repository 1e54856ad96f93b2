//! The files a manifest names (`icon`, `entry`, knowledge and skill `file`, listing `screenshots`):
//! one list, [`FileKind::ALL`], that the engine's file rules walk in the raw manifest and
//! [`Manifest::named_files`] walks in the typed model (the code generator tracks those files, so the
//! crate is rebuilt when one changes).

use serde_json::Value;

use crate::model::Manifest;
use crate::places::Place;

/// A kind of file a manifest names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// `icon`.
    Icon,
    /// `contributes.pages[].entry`.
    PageEntry,
    /// `contributes.tabs[].entry`.
    TabEntry,
    /// `contributes.widgets[].entry`.
    WidgetEntry,
    /// `contributes.rowActions[].entry`.
    RowActionEntry,
    /// `contributes.settings.entry`.
    SettingsEntry,
    /// `contributes.ai.knowledge[].file`.
    Knowledge,
    /// `contributes.ai.skills[].file`.
    Skill,
    /// `listing.screenshots[]`.
    Screenshot,
}

impl FileKind {
    /// Every kind, in document order.
    pub const ALL: [FileKind; 9] = [
        FileKind::Icon,
        FileKind::PageEntry,
        FileKind::TabEntry,
        FileKind::WidgetEntry,
        FileKind::RowActionEntry,
        FileKind::SettingsEntry,
        FileKind::Knowledge,
        FileKind::Skill,
        FileKind::Screenshot,
    ];

    /// Where files of this kind are written in the raw manifest.
    pub(crate) fn place(self) -> Place {
        use Place::{Items, Strings, Value};
        match self {
            FileKind::Icon => Value("/icon"),
            FileKind::PageEntry => Items("/contributes/pages", "entry"),
            FileKind::TabEntry => Items("/contributes/tabs", "entry"),
            FileKind::WidgetEntry => Items("/contributes/widgets", "entry"),
            FileKind::RowActionEntry => Items("/contributes/rowActions", "entry"),
            FileKind::SettingsEntry => Value("/contributes/settings/entry"),
            FileKind::Knowledge => Items("/contributes/ai/knowledge", "file"),
            FileKind::Skill => Items("/contributes/ai/skills", "file"),
            FileKind::Screenshot => Strings("/listing/screenshots"),
        }
    }

    /// The paths of this kind in a typed manifest, as written.
    pub fn in_manifest(self, m: &Manifest) -> Vec<&str> {
        let c = &m.contributes;
        match self {
            FileKind::Icon => vec![m.icon.as_str()],
            FileKind::PageEntry => c.pages.iter().map(|p| p.entry.as_str()).collect(),
            FileKind::TabEntry => c.tabs.iter().map(|p| p.entry.as_str()).collect(),
            FileKind::WidgetEntry => c.widgets.iter().map(|p| p.entry.as_str()).collect(),
            FileKind::RowActionEntry => c.row_actions.iter().map(|p| p.entry.as_str()).collect(),
            FileKind::SettingsEntry => c.settings.iter().map(|s| s.entry.as_str()).collect(),
            FileKind::Knowledge => c.ai.knowledge.iter().map(|k| k.file.as_str()).collect(),
            FileKind::Skill => c.ai.skills.iter().map(|k| k.file.as_str()).collect(),
            FileKind::Screenshot => m
                .listing
                .iter()
                .flat_map(|l| l.screenshots.iter().map(String::as_str))
                .collect(),
        }
    }
}

/// Every file the raw manifest names, with its pointer, in document order (what the file rules check).
pub(crate) fn named_in(root: &Value) -> Vec<(String, &str)> {
    FileKind::ALL
        .iter()
        .flat_map(|kind| kind.place().strings(root))
        .collect()
}

impl Manifest {
    /// Every file the manifest names, as written (relative to the manifest's folder), in document order.
    pub fn named_files(&self) -> Vec<&str> {
        FileKind::ALL
            .iter()
            .flat_map(|kind| kind.in_manifest(self))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The raw walk and the typed walk of one list agree on a manifest that names every kind of file.
    #[test]
    fn the_raw_and_typed_walks_name_the_same_files() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/valid");
        let mut kinds_seen = std::collections::HashSet::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path().join("host.extension.json");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let raw: Value = serde_json::from_str(&text).unwrap();
            let Ok(typed) = serde_json::from_value::<Manifest>(raw.clone()) else {
                continue;
            };
            let from_raw: Vec<&str> = named_in(&raw).into_iter().map(|(_, f)| f).collect();
            assert_eq!(from_raw, typed.named_files(), "{}", path.display());
            for kind in FileKind::ALL {
                if !kind.in_manifest(&typed).is_empty() {
                    kinds_seen.insert(kind);
                }
            }
        }
        assert!(
            kinds_seen.len() >= 5,
            "the fixtures name few kinds: {kinds_seen:?}"
        );
    }
}
