//! `type`: which JSON types a schema allows, compared as sets (`integer` lies within `number`).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Effect, Node};

impl Node<'_> {
    /// `type`: allowing fewer types narrows, more widens; a swap of one type for another is both.
    /// Spelling the same set another way (`integer` beside `number`) changes nothing accepted.
    pub(super) fn compare_type(&mut self) {
        let (old, new) = (types(self.old), types(self.new));
        if old == new {
            return;
        }
        let effect = match (types_cover(&old, &new), types_cover(&new, &old)) {
            (true, false) => Effect::Narrows,
            (false, true) => Effect::Widens,
            (true, true) => Effect::Text,
            (false, false) => Effect::Both,
        };
        self.push(
            "type",
            effect,
            format!(
                "the type changes from {} to {}",
                type_text(&old),
                type_text(&new)
            ),
        );
    }
}

/// The type names a schema allows; `None` for any.
fn types(s: &Map<String, Value>) -> Option<BTreeSet<String>> {
    match s.get("type")? {
        Value::String(t) => Some(BTreeSet::from([t.clone()])),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
        ),
        _ => None,
    }
}

/// Whether type set `a` allows everything `b` does (`integer` is within `number`).
fn types_cover(a: &Option<BTreeSet<String>>, b: &Option<BTreeSet<String>>) -> bool {
    match (a, b) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => b
            .iter()
            .all(|t| a.contains(t) || (t == "integer" && a.contains("number"))),
    }
}

/// A type set for a sentence: "string or null", "any type".
fn type_text(t: &Option<BTreeSet<String>>) -> String {
    match t {
        None => "any type".to_owned(),
        Some(set) => set.iter().cloned().collect::<Vec<_>>().join(" or "),
    }
}
