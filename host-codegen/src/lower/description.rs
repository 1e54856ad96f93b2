//! The description a lowered node carries: the schema's own text (`title`, `description`,
//! `default`) and the sentences the lowering pass adds to it (where the node is, that it may be
//! `null`, how many copies share it).
//!
//! Every sentence is added by [`with_paragraph`]: after the text already there, a blank line
//! between them.

use serde_json::{Map, Value};

use crate::sentinels::{NULLABLE_MARK, NULLABLE_MEMBER_MARK, RESERVED};

/// `description` with `paragraph` after it, a blank line between them, or `paragraph` alone when
/// there is no description. Every sentence a lowered node's docs gain is added by this function.
fn with_paragraph(description: Option<&str>, paragraph: &str) -> String {
    match description {
        Some(d) => format!("{d}\n\n{paragraph}"),
        None => paragraph.to_owned(),
    }
}

/// Adds `paragraph` to a description being built.
pub(super) fn add_paragraph(description: &mut Option<String>, paragraph: &str) {
    *description = Some(with_paragraph(description.as_deref(), paragraph));
}

/// Adds `paragraph` to the description of a lowered node.
pub(crate) fn add_to_description(node: &mut Map<String, Value>, paragraph: &str) {
    let text = with_paragraph(node.get("description").and_then(Value::as_str), paragraph);
    node.insert("description".to_owned(), Value::String(text));
}

/// The description of a node from its own keywords: its `title`, its `description`, and its
/// `default`, which is documented rather than filled in.
///
/// The schema's own text is written with [`RESERVED`] apart (a word joiner between each two `@`s
/// in a row), so that no mark can be written by the schema.
pub(super) fn own_description(node: &Map<String, Value>) -> Option<String> {
    let mut description = None;
    if let Some(title) = node.get("title").and_then(Value::as_str) {
        add_paragraph(&mut description, title);
    }
    if let Some(text) = node.get("description").and_then(Value::as_str) {
        add_paragraph(&mut description, text);
    }
    if let Some(default) = node.get("default") {
        let line = format!("Default: `{default}` (not filled in when absent).");
        add_paragraph(&mut description, &line);
    }
    description.map(|d| written_apart(&d))
}

/// `text` with a word joiner between each two `@`s in a row: it holds no [`RESERVED`].
pub(crate) fn written_apart(text: &str) -> String {
    if !text.contains(RESERVED) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut after_at = false;
    for c in text.chars() {
        if c == '@' && after_at {
            out.push('\u{2060}');
        }
        after_at = c == '@';
        out.push(c);
    }
    out
}

/// Marks a lowered member schema with [`NULLABLE_MARK`].
pub(super) fn mark_nullable(node: &mut Value) {
    if let Value::Object(map) = node {
        add_to_description(map, NULLABLE_MARK);
    }
}

/// Whether a lowered node becomes a Rust type of its own (a struct or an enum).
fn makes_type(node: &Value) -> bool {
    ["properties", "enum", "oneOf", "anyOf", "allOf"]
        .iter()
        .any(|k| node.get(k).is_some())
}

/// Gives an undescribed node that becomes a type a description saying where it is in the manifest.
/// A description that is only the marks of its nullable members (which go before the docs are
/// written) counts as none: the text goes before the marks.
pub(super) fn describe(node: &mut Value, text: impl FnOnce() -> String) {
    if !makes_type(node) {
        return;
    }
    let Value::Object(map) = node else { return };
    let description = match map.get("description").and_then(Value::as_str) {
        None => text(),
        Some(marks) if marks.starts_with(NULLABLE_MEMBER_MARK) => {
            with_paragraph(Some(&text()), marks)
        }
        Some(_) => return,
    };
    map.insert("description".to_owned(), Value::String(description));
}
