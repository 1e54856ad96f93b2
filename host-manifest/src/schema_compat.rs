//! Whether a JSON Schema accepts more, less or other values after a change: the compatibility
//! checker [`crate::diff`] asks about every embedded schema it finds changed.
//!
//! JSON Schemas are compared keyword by keyword (`type`, `properties`, `required`,
//! `additionalProperties`, `enum`, `const`, numeric and length bounds, `pattern`, `format`,
//! `items`, `multipleOf`, `uniqueItems`), recursing into properties and items. A new property that is not required counts as an addition,
//! even when the old schema did not close the object. Combinators (`anyOf`, `oneOf`, `allOf`,
//! `not`, `if`), `$ref` and other keywords are not reasoned about: a change to them is risky, with
//! a note to check it by hand.

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

fn type_text(t: &Option<BTreeSet<String>>) -> String {
    match t {
        None => "any type".to_owned(),
        Some(set) => set.iter().cloned().collect::<Vec<_>>().join(" or "),
    }
}

pub(crate) fn compare(old: &Value, new: &Value, pointer: &str, out: &mut Vec<Delta>) {
    compare_at(old, new, pointer, "", out);
}

fn compare_at(old: &Value, new: &Value, pointer: &str, at: &str, out: &mut Vec<Delta>) {
    if old == new {
        return;
    }
    let mut push = |member: &str, effect: Effect, sentence: String| {
        out.push(Delta {
            pointer: if member.is_empty() {
                pointer.to_owned()
            } else {
                format!("{pointer}/{member}")
            },
            at: at.to_owned(),
            effect,
            sentence,
        });
    };
    let (a, b) = match (old, new) {
        (Value::Object(a), Value::Object(b)) => (a, b),
        (Value::Bool(true), _) | (_, Value::Bool(false)) => {
            return push(
                "",
                Effect::Narrows,
                format!("the schema becomes {}", short(new)),
            );
        }
        _ => {
            return push(
                "",
                Effect::Widens,
                format!("the schema becomes {}", short(new)),
            );
        }
    };

    // type
    let (ta, tb) = (types(a), types(b));
    if ta != tb {
        let effect = match (types_cover(&ta, &tb), types_cover(&tb, &ta)) {
            (true, false) => Effect::Narrows,
            (false, true) => Effect::Widens,
            (true, true) => Effect::Text,
            (false, false) => Effect::Both,
        };
        push(
            "type",
            effect,
            format!(
                "the type changes from {} to {}",
                type_text(&ta),
                type_text(&tb)
            ),
        );
    }

    // required
    let req = |s: &Map<String, Value>| -> BTreeSet<String> {
        s.get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let (ra, rb) = (req(a), req(b));
    for name in rb.difference(&ra) {
        push(
            "required",
            Effect::Narrows,
            format!("`{name}` becomes required"),
        );
    }
    for name in ra.difference(&rb) {
        push(
            "required",
            Effect::Widens,
            format!("`{name}` is no longer required"),
        );
    }

    // additionalProperties
    let closed =
        |s: &Map<String, Value>| s.get("additionalProperties") == Some(&Value::Bool(false));
    match (a.get("additionalProperties"), b.get("additionalProperties")) {
        (x, y) if x == y => {}
        (Some(x @ Value::Object(_)), Some(y @ Value::Object(_))) => {
            compare_at(
                x,
                y,
                &format!("{pointer}/additionalProperties"),
                &format!("{at}/*"),
                out,
            );
        }
        _ if !closed(a) && closed(b) => push(
            "additionalProperties",
            Effect::Narrows,
            "members it does not name are no longer accepted".to_owned(),
        ),
        _ if closed(a) && !closed(b) => push(
            "additionalProperties",
            Effect::Widens,
            "members it does not name are now accepted".to_owned(),
        ),
        _ => push(
            "additionalProperties",
            Effect::Unknown,
            "`additionalProperties` changes".to_owned(),
        ),
    }

    // properties
    let none = Map::new();
    let pa = a
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&none);
    let pb = b
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&none);
    for (name, x) in pa {
        let p = format!("{pointer}/properties/{}", crate::escape_token(name));
        let here = format!("{at}/{}", crate::escape_token(name));
        match pb.get(name) {
            Some(y) => compare_at(x, y, &p, &here, out),
            None if closed(b) => out.push(Delta {
                pointer: format!("{pointer}/properties"),
                at: at.to_owned(),
                effect: Effect::Narrows,
                sentence: format!("`{name}` is removed and no longer accepted"),
            }),
            None => out.push(Delta {
                pointer: format!("{pointer}/properties"),
                at: at.to_owned(),
                effect: Effect::Widens,
                sentence: format!("`{name}` is no longer described, so any value is accepted"),
            }),
        }
    }
    for name in pb.keys().filter(|n| !pa.contains_key(*n)) {
        out.push(Delta {
            pointer: format!("{pointer}/properties/{}", crate::escape_token(name)),
            at: at.to_owned(),
            effect: Effect::Widens,
            sentence: if rb.contains(name) {
                format!("new property `{name}`")
            } else {
                format!("new optional property `{name}`")
            },
        });
    }

    // items
    match (a.get("items"), b.get("items")) {
        (Some(x), Some(y)) => {
            compare_at(x, y, &format!("{pointer}/items"), &format!("{at}/*"), out)
        }
        (None, Some(_)) => out.push(Delta {
            pointer: format!("{pointer}/items"),
            at: at.to_owned(),
            effect: Effect::Narrows,
            sentence: "array items gain a schema".to_owned(),
        }),
        (Some(_), None) => out.push(Delta {
            pointer: format!("{pointer}/items"),
            at: at.to_owned(),
            effect: Effect::Widens,
            sentence: "array items lose their schema".to_owned(),
        }),
        (None, None) => {}
    }

    let mut push = |member: &str, effect: Effect, sentence: String| {
        out.push(Delta {
            pointer: format!("{pointer}/{member}"),
            at: at.to_owned(),
            effect,
            sentence,
        });
    };

    // enum and const
    let values = |s: &Map<String, Value>| -> Option<Vec<Value>> {
        match (s.get("enum"), s.get("const")) {
            (Some(Value::Array(e)), _) => Some(e.clone()),
            (_, Some(c)) => Some(vec![c.clone()]),
            _ => None,
        }
    };
    if a.get("enum") != b.get("enum") || a.get("const") != b.get("const") {
        let member = if b.contains_key("const") || a.contains_key("const") {
            "const"
        } else {
            "enum"
        };
        match (values(a), values(b)) {
            (None, Some(v)) => push(
                member,
                Effect::Narrows,
                format!("only {} accepted now", list_values(&v)),
            ),
            (Some(_), None) => push(
                member,
                Effect::Widens,
                "any value of the type is accepted now".to_owned(),
            ),
            (Some(va), Some(vb)) => {
                let removed: Vec<Value> = va.iter().filter(|v| !vb.contains(v)).cloned().collect();
                let added: Vec<Value> = vb.iter().filter(|v| !va.contains(v)).cloned().collect();
                if !removed.is_empty() {
                    push(
                        member,
                        Effect::Narrows,
                        format!("{} no longer accepted", list_values(&removed)),
                    );
                }
                if !added.is_empty() {
                    push(
                        member,
                        Effect::Widens,
                        format!("{} now accepted", list_values(&added)),
                    );
                }
            }
            (None, None) => {}
        }
    }

    // Lower bounds: a larger one accepts less.
    for key in [
        "minimum",
        "exclusiveMinimum",
        "minLength",
        "minItems",
        "minProperties",
    ] {
        bound(a, b, key, true, &mut push);
    }
    for key in [
        "maximum",
        "exclusiveMaximum",
        "maxLength",
        "maxItems",
        "maxProperties",
    ] {
        bound(a, b, key, false, &mut push);
    }

    for key in ["pattern", "format", "multipleOf"] {
        match (a.get(key), b.get(key)) {
            (x, y) if x == y => {}
            (None, Some(y)) => push(key, Effect::Narrows, format!("`{key}` {y} is now required")),
            (Some(x), None) => push(
                key,
                Effect::Widens,
                format!("`{key}` {x} is no longer required"),
            ),
            (Some(x), Some(y)) => push(
                key,
                Effect::Both,
                format!("`{key}` changes from {x} to {y}"),
            ),
            (None, None) => {}
        }
    }
    match (a.get("uniqueItems"), b.get("uniqueItems")) {
        (x, y) if x == y => {}
        (_, Some(Value::Bool(true))) => push(
            "uniqueItems",
            Effect::Narrows,
            "repeated items are no longer accepted".to_owned(),
        ),
        (Some(Value::Bool(true)), _) => push(
            "uniqueItems",
            Effect::Widens,
            "repeated items are now accepted".to_owned(),
        ),
        _ => {}
    }
    for key in ["description", "title", "examples", "default", "deprecated"] {
        if a.get(key) != b.get(key) {
            push(key, Effect::Text, format!("`{key}` changes"));
        }
    }

    // Whatever else differs is not reasoned about.
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for key in keys.into_iter().filter(|k| !KNOWN.contains(&k.as_str())) {
        if a.get(key) != b.get(key) {
            push(key, Effect::Unknown, format!("`{key}` changes"));
        }
    }
}

fn bound(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
    key: &str,
    lower: bool,
    push: &mut impl FnMut(&str, Effect, String),
) {
    let (x, y) = (
        a.get(key).and_then(Value::as_f64),
        b.get(key).and_then(Value::as_f64),
    );
    let tighter = |from: f64, to: f64| if lower { to > from } else { to < from };
    match (x, y) {
        (None, Some(to)) => push(
            key,
            Effect::Narrows,
            format!("`{key}` {} is added", num(to)),
        ),
        (Some(from), None) => push(
            key,
            Effect::Widens,
            format!("`{key}` {} is removed", num(from)),
        ),
        (Some(from), Some(to)) if from != to => push(
            key,
            if tighter(from, to) {
                Effect::Narrows
            } else {
                Effect::Widens
            },
            format!("`{key}` goes from {} to {}", num(from), num(to)),
        ),
        _ => {}
    }
}

fn num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn list_values(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
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
