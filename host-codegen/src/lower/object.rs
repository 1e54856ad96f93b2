//! Object keywords: `properties` (each member lowered, described, and marked when it may be
//! `null` while optional) and the map of the members an object does not name, which the generated
//! type keeps unless the schema forbids them. `additionalProperties` itself is lowered as any
//! keyword holding one schema is (see `Cx::lower_each`).

use std::collections::HashMap;

use heck::ToSnakeCase;
use serde_json::{Map, Value, json};

use super::description::{describe, mark_nullable};
use super::{Cx, Draft, resolve};
use crate::sentinels::member_mark;

impl Cx<'_> {
    /// `properties`: each member lowered and described, and marked nullable when it is optional
    /// and may be `null`. The marks of members that are bare references go in the object's own
    /// description.
    pub(super) fn lower_properties(&mut self, draft: &mut Draft<'_>, value: &Value, here: &str) {
        let Value::Object(members) = value else {
            return;
        };
        let required: Vec<&str> = draft
            .map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut lowered = Map::new();
        let mut marks = String::new();
        for (name, schema) in members {
            let at = format!("{here}/{}", host_manifest::escape_token(name));
            let optional = !required.contains(&name.as_str());
            let (node, marked_on_object) = self.lower_member(name, schema, &at, optional);
            if marked_on_object {
                marks.push_str(&member_mark(name));
            }
            lowered.insert(name.clone(), node);
        }
        draft
            .out
            .insert("properties".to_owned(), Value::Object(lowered));
        if !marks.is_empty() {
            draft.add_paragraph(&marks);
        }
    }

    /// The member `name`, whose schema is at `pointer`, lowered and described; and whether, being
    /// `optional` and able to hold `null`, it is to be marked nullable in its object's description.
    fn lower_member(
        &mut self,
        name: &str,
        schema: &Value,
        pointer: &str,
        optional: bool,
    ) -> (Value, bool) {
        let mut node = self.node(schema, pointer, false);
        describe(&mut node, || {
            format!("The member `{name}`, at `{}{pointer}`.", self.at)
        });
        if !optional || !self.admits_null(schema, pointer, 0) {
            return (node, false);
        }
        // A bare reference is marked in its object's description instead: typify 0.8 panics on a
        // described `$ref` merged into an `allOf` (see UPSTREAM.md), and that would cost schemas
        // it types today.
        let bare_ref = node.as_object().is_some_and(|m| {
            m.contains_key("$ref") && m.keys().all(|k| k == "$ref" || k == "description")
        });
        if !bare_ref {
            mark_nullable(&mut node);
        }
        (node, bare_ref)
    }

    /// Whether members (named or required) of the node at `pointer` would get the same Rust field
    /// name: then the object is typed as a map instead (reported).
    pub(super) fn members_clash(&mut self, map: &Map<String, Value>, pointer: &str) -> bool {
        let Some((a, b)) = clashing_names(map) else {
            return false;
        };
        self.fallback(
            pointer,
            format!("members `{a}` and `{b}` would get the same Rust field name: the object is typed as a map of JSON values"),
        );
        true
    }

    /// Whether `node` (at `pointer`) may accept `null`. Only a `false` matters (an optional member
    /// that may be `null` is typed [`NULLABLE_MARK`](crate::sentinels::NULLABLE_MARK)-wise), so
    /// what cannot be told is `true`.
    fn admits_null(&self, node: &Value, pointer: &str, depth: usize) -> bool {
        let Value::Object(map) = node else {
            return node != &Value::Bool(false);
        };
        if depth > 32 {
            return true;
        }
        if let Some(t) = map.get("type") {
            let null = match t {
                Value::String(t) => t == "null",
                Value::Array(ts) => ts.iter().any(|t| t == "null"),
                _ => true,
            };
            if !null {
                return false;
            }
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && !values.contains(&Value::Null)
        {
            return false;
        }
        if let Some(c) = map.get("const")
            && !c.is_null()
        {
            return false;
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str)
            && let Some(target) = self.target(reference, pointer)
            && let Some(target_node) = resolve(self.root, &target)
            && !self.admits_null(target_node, &target, depth + 1)
        {
            return false;
        }
        let branches = |key: &str| -> Vec<(String, &Value)> {
            map.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, b)| (format!("{pointer}/{key}/{i}"), b))
                .collect()
        };
        if branches("allOf")
            .iter()
            .any(|(p, b)| !self.admits_null(b, p, depth + 1))
        {
            return false;
        }
        for key in ["anyOf", "oneOf"] {
            let of = branches(key);
            if !of.is_empty() && !of.iter().any(|(p, b)| self.admits_null(b, p, depth + 1)) {
                return false;
            }
        }
        true
    }
}

/// Opens the map of other members to every value where more than the members the schema names
/// go in it: all of them, when their names `clash` as fields, or those `patternProperties` admits.
pub(super) fn widen_other_members(draft: &mut Draft<'_>, clash: bool) {
    let out = &mut draft.out;
    if clash {
        out.remove("required");
        // The map holds every member, the named ones included: one that forbade other members
        // would refuse all of them.
        out.insert("additionalProperties".to_owned(), json!({}));
    }
    // Members matching `patternProperties` are allowed beside the named ones, whatever
    // `additionalProperties` says of the rest: the map of other members takes any value.
    if draft.map.contains_key("patternProperties") && out.contains_key("additionalProperties") {
        out.insert("additionalProperties".to_owned(), json!({}));
    }
}

/// Members the schema does not name are kept (in a flattened map) unless it forbids them.
pub(super) fn keep_other_members(out: &mut Map<String, Value>) {
    if is_object_typed(out) && !out.contains_key("additionalProperties") {
        out.insert("additionalProperties".to_owned(), json!({}));
    }
}

/// The Rust field name typify gives a member, as far as telling two apart goes: typify writes the
/// name in snake case (words split where the case changes or a character no identifier takes
/// stands), spells `+1` and `-1` as `plus1` and `minus1` (GitHub's reaction counts), puts `x` before
/// a name no identifier may start with, and `_` after a keyword. Trailing `_`s are left out, since a
/// keyword and the same word with a `_` become one field.
fn field_key(member: &str) -> String {
    let words = match member {
        "+1" => "plus1".to_owned(),
        "-1" => "minus1".to_owned(),
        _ => member
            .replace('\'', "")
            .replace(|c: char| !unicode_ident::is_xid_continue(c), "-")
            .to_snake_case(),
    };
    let key = match words.chars().next() {
        Some(c) if unicode_ident::is_xid_start(c) => words,
        _ => format!("x{words}"),
    };
    key.trim_end_matches('_').to_owned()
}

/// Two member names that typify would give the same Rust field name ([`field_key`]), or a member
/// named like the map of other members (`extra`) where the object keeps one: every object but one
/// whose `additionalProperties` is `false` (without `patternProperties`).
fn clashing_names(node: &Map<String, Value>) -> Option<(String, String)> {
    let mut names: Vec<&str> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for r in node
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(r) = r.as_str()
            && !names.contains(&r)
        {
            names.push(r);
        }
    }
    let mut seen: HashMap<String, &str> = HashMap::new();
    let closed = node.get("additionalProperties") == Some(&Value::Bool(false))
        && !node.contains_key("patternProperties");
    if !closed {
        seen.insert("extra".to_owned(), "(other members)");
    }
    for name in names {
        if let Some(other) = seen.insert(field_key(name), name) {
            return Some((other.to_owned(), name.to_owned()));
        }
    }
    None
}

/// Whether a node takes objects by its `type` (`"object"`, or a list with `"object"` in it, such as
/// GitHub's `["object", "null"]`).
fn is_object_typed(out: &Map<String, Value>) -> bool {
    match out.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    }
}
