//! Object keywords: `properties` (each member lowered, described, and marked when it may be
//! `null` while optional) and the map of the members an object does not name, which the generated
//! type keeps unless the schema forbids them. `additionalProperties` itself is lowered as any
//! keyword holding one schema is (see `Cx::lower_each`).

use std::collections::{HashMap, HashSet};

use heck::ToSnakeCase;
use serde_json::{Map, Value, json};

use super::description::{describe, mark_nullable};
use super::{Cx, Draft, resolve};
use crate::sentinels::{member_mark, renamed_json_name, renamed_member};

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
/// go in it: those `patternProperties` admits.
pub(super) fn widen_other_members(draft: &mut Draft<'_>) {
    let out = &mut draft.out;
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

/// The fields the generator writes itself in an object that keeps the members it does not name:
/// the flattened map `extra` (typify's name), and the member that stands for that map in a variant
/// of a tagged union until the map is put back ([`OTHER_MEMBERS`](crate::sentinels::OTHER_MEMBERS),
/// as typify names it; it is added after every member is named).
const MAP_FIELDS: [&str; 2] = ["extra", "host_sdk_other_members"];

/// Rust's keywords, strict and reserved, as typify 0.8 lists them: a member named like one is
/// the keyword followed by `_` (`type_`).
const KEYWORDS: [&str; 53] = [
    "_", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "Self", "self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The Rust field name typify gives a member (its `sanitize`): the name in snake case (words split
/// where the case changes or a character no identifier takes stands, `'` left out), `+1` and `-1`
/// spelled `plus1` and `minus1` (GitHub's reaction counts), `x` before a name no identifier may
/// start with, and `_` after a keyword.
pub(crate) fn typify_field(member: &str) -> String {
    let words = match member {
        "+1" => "plus1".to_owned(),
        "-1" => "minus1".to_owned(),
        _ => member
            .replace('\'', "")
            .replace(|c: char| !unicode_ident::is_xid_continue(c), "-")
            .to_snake_case(),
    };
    let name = match words.chars().next() {
        None => "x".to_owned(),
        Some(c) if unicode_ident::is_xid_start(c) => words,
        Some(_) => format!("x{words}"),
    };
    if KEYWORDS.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

/// Gives each member (named or required) of a lowered object a Rust field name of its own. A
/// member whose field name typify would also give an earlier member (`a-b` and `a_b`, `self` and
/// `Self`, `type` and `type_`), or that the generator writes itself where the object keeps other
/// members (`extra`, see [`MAP_FIELDS`]), is handed to typify under a [`renamed_member`] name: a
/// field name free in the object (`a_b_2`, `extra_member`) that carries the JSON name, which the
/// field is renamed to. The object stays typed, with its `additionalProperties`.
///
/// Members renamed by an earlier pass (an `allOf` merged from renamed parts) are read by their
/// JSON names and named again for the object they are in now; of two parts naming one member, the
/// first is kept, as `one_schema_per_member` keeps it.
pub(super) fn name_members_apart(out: &mut Map<String, Value>) {
    let json_name = |key: &str| renamed_json_name(key).map_or_else(|| key.to_owned(), |(_, j)| j);
    // The names alone are read first: nothing is copied unless a member is to be named anew,
    // since this runs for every object the lowering pass writes.
    let properties = out.get("properties").and_then(Value::as_object);
    let required = || {
        out.get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
    };
    let names = || {
        properties
            .into_iter()
            .flat_map(Map::keys)
            .map(String::as_str)
            .chain(required())
    };
    let named_before = names().any(|k| renamed_json_name(k).is_some());
    // Every member once, by its JSON name, in order: the named ones, then those only required.
    let mut members: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for key in names() {
        let json = json_name(key);
        if seen.insert(json.clone()) {
            members.push(json);
        }
    }
    let mut taken: HashSet<String> = HashSet::new();
    if out.get("additionalProperties") != Some(&Value::Bool(false)) {
        taken.extend(MAP_FIELDS.iter().map(|f| (*f).to_owned()));
    }
    let natural: Vec<String> = members.iter().map(|j| typify_field(j)).collect();
    let mut keys: HashMap<String, String> = HashMap::new();
    let mut renamed = false;
    for (json, field) in members.into_iter().zip(&natural) {
        let key = if taken.insert(field.clone()) {
            json.clone()
        } else {
            renamed = true;
            let own = free_field(field, &taken, &natural);
            taken.insert(own.clone());
            renamed_member(&own, &json)
        };
        keys.insert(json, key);
    }
    if !named_before && !renamed {
        return;
    }
    let key_of = |name: &str| {
        let json = json_name(name);
        keys.get(&json).cloned().unwrap_or(json)
    };
    if let Some(Value::Object(properties)) = out.get_mut("properties") {
        // Of two parts naming one member, the first is kept.
        for (name, schema) in std::mem::take(properties) {
            properties.entry(key_of(&name)).or_insert(schema);
        }
    }
    if let Some(Value::Array(required)) = out.get_mut("required") {
        let mut kept: Vec<Value> = Vec::with_capacity(required.len());
        for name in required.iter().filter_map(Value::as_str) {
            let key = Value::String(key_of(name));
            if !kept.contains(&key) {
                kept.push(key);
            }
        }
        *required = kept;
    }
}

/// A field name for a member whose own, `field`, is taken: `extra_member` for a field the
/// generator writes itself, else `field` numbered (`a_b_2`), the first that is neither `taken`
/// nor the own name of any member of the object (`natural`).
fn free_field(field: &str, taken: &HashSet<String>, natural: &[String]) -> String {
    let base = if MAP_FIELDS.contains(&field) {
        format!("{field}_member")
    } else {
        field.trim_end_matches('_').to_owned()
    };
    let free = |name: &String| !taken.contains(name) && !natural.contains(name);
    if MAP_FIELDS.contains(&field) && free(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}_{n}"))
        .find(free)
        .unwrap_or(base)
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
