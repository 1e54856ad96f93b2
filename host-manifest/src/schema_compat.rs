//! Whether a JSON Schema accepts more, less or other values after a change: the compatibility
//! checker [`crate::diff`] asks about every embedded schema it finds changed.
//!
//! JSON Schemas are compared keyword by keyword (`type`, `properties`, `required`,
//! `additionalProperties`, `enum`, `const`, numeric and length bounds, `pattern`, `format`,
//! `items`, `multipleOf`, `uniqueItems`), recursing into properties and items. A new property that is not required counts as an addition,
//! even when the old schema did not close the object. Combinators (`anyOf`, `oneOf`, `allOf`,
//! `not`, `if`), `$ref` and other keywords are not reasoned about: a change to them is risky, with
//! a note to check it by hand.
//!
//! `compare_at` compares one schema in its two versions as a [`Node`], one family of keywords
//! after another, each in a file of its own: [`types`] (`type`), [`objects`] (`required`,
//! `additionalProperties`, `properties`), [`arrays`] (`items`, `uniqueItems`), [`values`] (`enum`,
//! `const`), [`bounds`] (the numeric, length and count bounds) and [`constraints`] (`pattern`,
//! `format`, `multipleOf`). Documentation keywords and the keywords not reasoned about are
//! compared here.

mod arrays;
mod bounds;
mod constraints;
mod objects;
mod types;
mod values;

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// A value for a message, cut short.
pub(crate) fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// What a schema change does to the set of values the schema accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Accepts less.
    Narrows,
    /// Accepts more.
    Widens,
    /// Accepts some values it did not and refuses some it accepted.
    Both,
    /// Documentation only (`description`, `title`, `examples`).
    Text,
    /// Not compared.
    Unknown,
}

/// One change inside a schema, with what it does to the values the schema accepts.
pub(crate) struct Delta {
    /// Pointer inside the schema document.
    pub(crate) pointer: String,
    /// Where in the instance: `/keyword`, `/items/*`.
    pub(crate) at: String,
    /// What the change does to the accepted values.
    pub(crate) effect: Effect,
    /// The change in a sentence.
    pub(crate) sentence: String,
}

/// The keywords a family of this module compares, and those that change nothing a value is checked
/// against (`$schema`, `$comment`, `readOnly`, `writeOnly`); a change to any other keyword is
/// [`Effect::Unknown`].
const KNOWN: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "pattern",
    "format",
    "items",
    "multipleOf",
    "uniqueItems",
    "default",
    "description",
    "title",
    "examples",
    "$schema",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Appends to `out` every change between the `old` and `new` versions of the schema at `pointer`.
pub(crate) fn compare(old: &Value, new: &Value, pointer: &str, out: &mut Vec<Delta>) {
    compare_at(old, new, pointer, "", out);
}

/// Compares one schema in two versions: the schema at `pointer` in the schema document, which
/// applies at `at` in the instance. Object schemas go keyword family by keyword family, in the
/// order their changes are reported; anything else (a boolean schema) changes as a whole.
fn compare_at(old: &Value, new: &Value, pointer: &str, at: &str, out: &mut Vec<Delta>) {
    if old == new {
        return;
    }
    let (Value::Object(old_map), Value::Object(new_map)) = (old, new) else {
        out.push(Delta {
            pointer: pointer.to_owned(),
            at: at.to_owned(),
            effect: replacement(old, new),
            sentence: format!("the schema becomes {}", short(new)),
        });
        return;
    };
    let mut node = Node {
        old: old_map,
        new: new_map,
        pointer,
        at,
        out,
    };
    node.compare_type();
    node.compare_required();
    node.compare_additional_properties();
    node.compare_properties();
    node.compare_items();
    node.compare_enum_and_const();
    node.compare_bounds();
    node.compare_constraints();
    node.compare_unique_items();
    node.compare_annotations();
    node.compare_other_keywords();
}

/// What a change does when the two versions are not both object schemas (one is a boolean
/// schema): `true` accepts every value and `false` none, so leaving `true` or arriving at `false`
/// narrows, and any other such change widens.
fn replacement(old: &Value, new: &Value) -> Effect {
    match (old, new) {
        (Value::Bool(true), _) | (_, Value::Bool(false)) => Effect::Narrows,
        _ => Effect::Widens,
    }
}

/// One object schema in its old and new versions: where it sits in the schema document
/// (`pointer`) and in the instance (`at`), and the list its changes go to. Each keyword family
/// compares it with a method of its own.
struct Node<'a> {
    old: &'a Map<String, Value>,
    new: &'a Map<String, Value>,
    pointer: &'a str,
    at: &'a str,
    out: &'a mut Vec<Delta>,
}

impl Node<'_> {
    /// Records a change at `member`, a path below this schema (`type`, `properties/name`).
    fn push(&mut self, member: &str, effect: Effect, sentence: String) {
        self.out.push(Delta {
            pointer: format!("{}/{member}", self.pointer),
            at: self.at.to_owned(),
            effect,
            sentence,
        });
    }

    /// Compares the subschemas `old` and `new` found at `member` of this schema, which apply at
    /// `at` in the instance; their changes are reported where they are, not as this schema's.
    fn descend(&mut self, member: &str, old: &Value, new: &Value, at: &str) {
        compare_at(
            old,
            new,
            &format!("{}/{member}", self.pointer),
            at,
            self.out,
        );
    }

    /// `description`, `title`, `examples`, `default`, `deprecated`: documentation, reported so a
    /// reader sees the text moved, never as a change to what is accepted.
    fn compare_annotations(&mut self) {
        for key in ["description", "title", "examples", "default", "deprecated"] {
            if self.old.get(key) != self.new.get(key) {
                self.push(key, Effect::Text, format!("`{key}` changes"));
            }
        }
    }

    /// Every keyword outside [`KNOWN`] (combinators, `$ref`, vocabularies of others): whether its
    /// change accepts more or less is not worked out, so it is reported for a person to judge.
    fn compare_other_keywords(&mut self) {
        let (old, new) = (self.old, self.new);
        let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for key in keys.into_iter().filter(|k| !KNOWN.contains(&k.as_str())) {
            if old.get(key) != new.get(key) {
                self.push(key, Effect::Unknown, format!("`{key}` changes"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema_effects(old: Value, new: Value) -> Vec<(Effect, String)> {
        let mut out = Vec::new();
        compare(&old, &new, "", &mut out);
        out.into_iter().map(|d| (d.effect, d.sentence)).collect()
    }

    #[test]
    fn schema_changes_have_a_direction() {
        let base = json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 1, "maximum": 10 } }, "required": [] });
        let cases = [
            (
                json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 2, "maximum": 10 } }, "required": [] }),
                Effect::Narrows,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 0, "maximum": 10 } }, "required": [] }),
                Effect::Widens,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "number", "minimum": 1, "maximum": 10 } }, "required": [] }),
                Effect::Widens,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 1, "maximum": 10 } }, "required": ["n"] }),
                Effect::Narrows,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "string", "minimum": 1, "maximum": 10 } }, "required": [] }),
                Effect::Both,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 1, "maximum": 10 } }, "required": [], "additionalProperties": false }),
                Effect::Narrows,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 1, "maximum": 10 }, "m": { "type": "string" } }, "required": [] }),
                Effect::Widens,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 1, "maximum": 10, "description": "n" } }, "required": [] }),
                Effect::Text,
            ),
            (
                json!({ "type": "object", "properties": { "n": { "type": "integer", "minimum": 1, "maximum": 10 } }, "required": [], "anyOf": [] }),
                Effect::Unknown,
            ),
        ];
        for (new, effect) in cases {
            let got = schema_effects(base.clone(), new.clone());
            assert_eq!(got.len(), 1, "{new}: {got:?}");
            assert_eq!(got[0].0, effect, "{new}: {got:?}");
        }
        let e = schema_effects(json!({ "enum": ["a", "b"] }), json!({ "enum": ["a", "c"] }));
        assert_eq!(
            e,
            vec![
                (Effect::Narrows, "\"b\" no longer accepted".to_owned()),
                (Effect::Widens, "\"c\" now accepted".to_owned())
            ]
        );
        assert!(
            schema_effects(json!({ "type": "string" }), json!({ "type": "string" })).is_empty()
        );
    }
}
