//! What a manifest change means for the installs of the published version.
//!
//! [`diff`] compares two valid manifests, as the typed [`Manifest`] model, and classifies every
//! change:
//!
//! - [`Class::Breaking`]: installs of the old version stop working as they did: a removed tool,
//!   action, procedure, mention, context provider, webhook, metric or subscribed event; an input
//!   that accepts less than before (a new required property, a narrower type, tighter bounds, a
//!   removed enum value, a new pattern); a changed `installScope` or `id`.
//! - [`Class::Risky`]: installs keep working but someone must act or may be surprised: a new scope
//!   (owners approve the update before it reaches their installs), an output or event payload that
//!   may now carry what its consumers did not expect, a schema change this comparison cannot
//!   reason about, any other change to how the host calls the server.
//! - [`Class::Safe`]: additions and text: a new tool, an optional input property, a looser input,
//!   a new description.
//!
//! Each embedded schema's change is classified by the JSON Schema compatibility checker beside this
//! module (`schema_compat`), according to who reads the schema. A schema is an **input** when
//! installed callers send values to it (tool, action and procedure inputs) or when stored values
//! must still fit it (settings and storage schemas): accepting less breaks them. It is an
//! **output** when consumers read what it describes (procedure outputs, webhook payloads):
//! allowing more may surprise them.
//!
//! Lists of contributions are matched by their id (name, key, event), so reordering one is not a
//! change. A member without a rule of its own is compared as a whole: a change to a text owners
//! read (`description`, `label`, `title`, ...) or to a member of the directory listing is safe,
//! any other change risky. Pointers are built from the model (list indexes, names) and point into
//! the manifest that [`Change::side`] names; values in messages are shown as the manifest's JSON.
//! The model does not tell an empty list from one left out, so neither does the comparison.
//!
//! One file per subject; this one holds the public types and what they share:
//!
//! | compares                                                             | file           |
//! |----------------------------------------------------------------------|----------------|
//! | `id`, `installScope`, `scopes`, the listing, other top-level members | `manifest.rs`  |
//! | `server`: addresses, subscribed events, procedures                   | `server.rs`    |
//! | `contributes.ai`: tools, actions, mentions, context providers        | `ai.rs`        |
//! | `contributes.webhooks`                                               | `webhooks.rs`  |
//! | `contributes.connector`: metrics, auth, sync                         | `connector.rs` |
//! | `contributes.work`                                                   | `work.rs`      |
//! | `contributes.settings` and `contributes.storage`                     | `stored.rs`    |
//! | pages, tabs, widgets, series, banners, row actions, markers          | `surfaces.rs`  |
//! | an embedded schema, by who reads it                                  | `schemas.rs`   |

mod ai;
mod connector;
mod manifest;
mod schemas;
mod server;
mod stored;
mod surfaces;
mod webhooks;
mod work;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::Manifest;
use crate::schema_compat::short;

/// How a change affects the installs of the old version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Installs of the old version break.
    Breaking,
    /// Installs keep working, but someone must act or may be surprised.
    Risky,
    /// Nothing changes for installs.
    Safe,
}

impl Class {
    /// `breaking`, `risky` or `safe`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Risky => "risky",
            Class::Safe => "safe",
        }
    }
}

/// Which manifest a pointer points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The old manifest (for something removed).
    Old,
    /// The new manifest.
    New,
}

impl Side {
    /// `old` or `new`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Old => "old",
            Side::New => "new",
        }
    }
}

/// One classified change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// How it affects installs.
    pub class: Class,
    /// A JSON pointer to the changed member, in the manifest `side` names.
    pub pointer: String,
    /// The manifest the pointer points into.
    pub side: Side,
    /// One sentence: what changed and what it means for installed users.
    pub message: String,
}

/// Every change from `old` to `new`, breaking ones first, then by pointer. Both are validated
/// manifests (for example from [`Report::into_manifest`](crate::Report::into_manifest)).
pub fn diff(old: &Manifest, new: &Manifest) -> Vec<Change> {
    let mut d = Diff::default();
    d.manifest(old, new);
    d.server(old.server.as_ref(), new.server.as_ref());
    d.ai(&old.contributes.ai, &new.contributes.ai);
    d.webhooks(&old.contributes.webhooks, &new.contributes.webhooks);
    d.connector(
        old.contributes.connector.as_ref(),
        new.contributes.connector.as_ref(),
    );
    d.work(old.contributes.work.as_ref(), new.contributes.work.as_ref());
    d.stored(&old.contributes, &new.contributes);
    d.surfaces(&old.contributes, &new.contributes);
    let mut changes = d.changes;
    changes.sort_by(|a, b| (a.class, &a.pointer).cmp(&(b.class, &b.pointer)));
    changes
}

/// The changes found so far.
#[derive(Default)]
struct Diff {
    changes: Vec<Change>,
}

/// `a/b` -> `a~1b`: a name as one JSON pointer segment.
fn seg(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// A value for a message, as the manifest writes it in JSON, cut short.
fn show<T: Serialize + ?Sized>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(v) => short(&v),
        // The model's types always serialize; an error would be an SDK bug, not the user's.
        Err(_) => "(a value that cannot be shown)".to_owned(),
    }
}

/// A string as a JSON string literal (`"text"`), as messages quote names and enum values.
fn quoted(s: &str) -> String {
    Value::from(s).to_string()
}

/// An optional list as the manifest writes it: an empty one is left out.
fn some<T>(list: &[T]) -> Option<&[T]> {
    (!list.is_empty()).then_some(list)
}

/// Members whose change is only text owners read.
fn is_text(key: &str) -> bool {
    matches!(
        key,
        "description"
            | "name"
            | "label"
            | "title"
            | "help"
            | "icon"
            | "justification"
            | "placeholder"
            | "$schema"
            | "examples"
            | "glyph"
    )
}

/// One item of a list of contributions: its id, where it is, and the item.
struct Item<'m, T> {
    /// Its key (id, name, event).
    id: &'m str,
    /// Where it is in its manifest.
    pointer: String,
    value: &'m T,
}

/// The items of an array at `base`, each keyed by `id` and pointed to by index.
fn listed<'m, T>(items: &'m [T], base: &str, id: fn(&T) -> &str) -> Vec<Item<'m, T>> {
    items
        .iter()
        .enumerate()
        .map(|(i, value)| Item {
            id: id(value),
            pointer: format!("{base}/{i}"),
            value,
        })
        .collect()
}

/// The members of an object at `base` (absent when `None`), each keyed by its name.
fn named<'m, T>(items: Option<&'m BTreeMap<String, T>>, base: &str) -> Vec<Item<'m, T>> {
    items
        .into_iter()
        .flatten()
        .map(|(name, value)| Item {
            id: name,
            pointer: format!("{base}/{}", seg(name)),
            value,
        })
        .collect()
}

/// One item in both manifests, matched by its key.
struct Pair<'m, T> {
    /// Its key (id, name, event).
    id: &'m str,
    /// Where it is in the new manifest.
    pointer: String,
    old: &'m T,
    new: &'m T,
}

impl Diff {
    fn push(&mut self, class: Class, side: Side, pointer: String, message: String) {
        self.changes.push(Change {
            class,
            pointer,
            side,
            message,
        });
    }

    /// Matches the items of two versions of a list by key. A removed item is reported with
    /// `removed` ("{what} `id` is removed: {gone}"), an added one as safe; the items in both come
    /// back for their own comparison.
    fn pairs<'m, T>(
        &mut self,
        was: Vec<Item<'m, T>>,
        now: Vec<Item<'m, T>>,
        what: &str,
        removed: Class,
        gone: &str,
    ) -> Vec<Pair<'m, T>> {
        let mut both = Vec::new();
        for a in &was {
            match now.iter().find(|b| b.id == a.id) {
                Some(b) => both.push(Pair {
                    id: a.id,
                    pointer: b.pointer.clone(),
                    old: a.value,
                    new: b.value,
                }),
                None => self.push(
                    removed,
                    Side::Old,
                    a.pointer.clone(),
                    format!("{what} `{}` is removed: {gone}", a.id),
                ),
            }
        }
        for b in &now {
            if !was.iter().any(|a| a.id == b.id) {
                self.push(
                    Class::Safe,
                    Side::New,
                    b.pointer.clone(),
                    format!("new {what} `{}`", b.id),
                );
            }
        }
        both
    }

    /// A member `key` of an item matched in both manifests (at `item` in the new one), compared as a
    /// whole: safe for text owners read, risky otherwise. `what` names the item in the message.
    fn member<T: Serialize + PartialEq + ?Sized>(
        &mut self,
        what: &str,
        item: &str,
        key: &str,
        a: Option<&T>,
        b: Option<&T>,
    ) {
        let message = match (a, b) {
            (Some(x), Some(y)) if x == y => return,
            (None, None) => return,
            (Some(x), Some(y)) => format!("{what} changes `{key}` from {} to {}", show(x), show(y)),
            (None, Some(y)) => format!("{what} gains `{key}`: {}", show(y)),
            (Some(x), None) => format!("{what} drops `{key}` (was {})", show(x)),
        };
        let class = if is_text(key) {
            Class::Safe
        } else {
            Class::Risky
        };
        let side = if b.is_some() { Side::New } else { Side::Old };
        self.push(class, side, format!("{item}/{}", seg(key)), message);
    }

    /// A member no rule covers, at `pointer`, compared as a whole and named by its pointer: safe
    /// for text owners read and for the listing, risky otherwise.
    fn loose<T: Serialize + PartialEq + ?Sized>(
        &mut self,
        pointer: &str,
        a: Option<&T>,
        b: Option<&T>,
    ) {
        let message = match (a, b) {
            (Some(x), Some(y)) if x == y => return,
            (None, None) => return,
            (Some(x), Some(y)) => format!("`{pointer}` changes from {} to {}", show(x), show(y)),
            (None, Some(y)) => format!("`{pointer}` is added: {}", show(y)),
            (Some(x), None) => format!("`{pointer}` is removed (was {})", show(x)),
        };
        let key = pointer.rsplit('/').next().unwrap_or_default();
        let class = if is_text(key) || pointer.starts_with("/listing/") {
            Class::Safe
        } else {
            Class::Risky
        };
        let side = if b.is_some() { Side::New } else { Side::Old };
        self.push(class, side, pointer.to_owned(), message);
    }
}
