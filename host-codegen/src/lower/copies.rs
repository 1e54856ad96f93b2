//! Subschemas written out the same at several places of one schema.
//!
//! Published schemas repeat themselves: a GitHub webhook payload spells its user object out at
//! every member that holds a user, and typify makes a Rust type of each copy (the largest payload
//! schema, `pull-request-review-requested`, made 170 types, 59 once its copies share them). The
//! lowering pass types every copy after the first as the first ([`Copies::first_of`]), so the
//! module has one type per distinct shape.
//!
//! Copies are found by equality of the whole subschema, descriptions included: nodes that differ
//! only in their docs stay apart, so every type keeps the docs its schema gave it. Only nodes that
//! become a type of their own (an object with `properties`, a union, an enum of two values or more)
//! at a place that holds one schema (a member, a definition, `items`, `additionalProperties`, a
//! `prefixItems` entry) are shared. Not shared:
//!
//! - branches of `allOf`/`anyOf`/`oneOf`, which the lowering pass reads together (tags, closed
//!   objects);
//! - single constants, which tell the variants of a tagged union apart;
//! - nodes whose meaning depends on where they are: holding an `$id`, an anchor, a dynamic or
//!   recursive reference, or a `$ref` that is not a fragment of the document; and nodes under
//!   keywords that only validate, which the lowering pass drops;
//! - anything inside a copy that is itself typed as another: it is never lowered.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde_json::Value;

/// Keywords that hold no schema: their values are data.
const DATA: [&str; 5] = ["enum", "const", "default", "examples", "example"];

/// Keywords whose meaning depends on the resource a node is in.
const PLACE_BOUND: [&str; 6] = [
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$recursiveRef",
    "$recursiveAnchor",
];

/// The copies found in one schema.
#[derive(Debug, Default)]
pub(super) struct Copies {
    /// Pointer of each later copy -> pointer of the first.
    pub first_of: HashMap<String, String>,
    /// Pointer of each first copy that has later ones -> how many places hold that subschema.
    pub places: HashMap<String, usize>,
}

/// What a value is, seen from the node that holds it.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A schema; `shareable` when it sits where one schema is typed on its own.
    Schema { shareable: bool },
    /// An object whose every member is a schema (`properties`, `$defs`).
    SchemaMap { shareable: bool },
    /// An array whose every item is a schema (`prefixItems`, `anyOf`).
    SchemaList { shareable: bool },
    /// JSON data, or a schema the lowering pass drops.
    Other,
}

/// The kind of the value of `key` in a schema node.
fn kind_of(key: &str, value: &Value) -> Kind {
    match key {
        "properties" | "$defs" | "definitions" => Kind::SchemaMap { shareable: true },
        "items" | "additionalProperties" if value.is_object() => Kind::Schema { shareable: true },
        "prefixItems" => Kind::SchemaList { shareable: true },
        "allOf" | "anyOf" | "oneOf" => Kind::SchemaList { shareable: false },
        _ => Kind::Other,
    }
}

/// Whether a node becomes a Rust type of its own whose sharing keeps its meaning.
fn makes_shared_type(node: &serde_json::Map<String, Value>) -> bool {
    let has_shape = ["type", "$ref", "allOf", "anyOf", "oneOf", "enum"]
        .iter()
        .any(|k| node.contains_key(*k));
    let many_values = node
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| values.len() > 1);
    let typed = node.contains_key("properties")
        || ["allOf", "anyOf", "oneOf"]
            .iter()
            .any(|k| node.contains_key(*k))
        || many_values;
    has_shape && typed && !node.contains_key("const")
}

struct Finder<'a> {
    base_at: &'a dyn Fn(&str) -> String,
    /// (hash, base) -> the shareable nodes with that hash, in document order.
    buckets: HashMap<(u64, String), Vec<(String, &'a Value)>>,
    /// The nodes that may be shared, in document order (parents before children); those found
    /// bound to their place are in no bucket.
    order: Vec<String>,
}

impl Copies {
    /// The copies in `schema`. `base_at` gives the base URI in force at a pointer: two equal nodes
    /// under different bases are not copies.
    pub(super) fn find(schema: &Value, base_at: &dyn Fn(&str) -> String) -> Copies {
        let mut finder = Finder {
            base_at,
            buckets: HashMap::new(),
            order: Vec::new(),
        };
        finder.visit(schema, "", Kind::Schema { shareable: false }, 0);
        // The first of each set of equal nodes, by pointer of any member.
        let mut first: HashMap<&str, &str> = HashMap::new();
        for nodes in finder.buckets.values() {
            let mut classes: Vec<Vec<&(String, &Value)>> = Vec::new();
            for entry in nodes {
                match classes.iter_mut().find(|c| c[0].1 == entry.1) {
                    Some(class) => class.push(entry),
                    None => classes.push(vec![entry]),
                }
            }
            for class in classes.iter().filter(|c| c.len() > 1) {
                for (pointer, _) in class {
                    first.insert(pointer, &class[0].0);
                }
            }
        }
        // In document order, so a copy is seen before the nodes inside it; the first copy of a
        // class seen there (and not inside a later copy) leads it.
        let mut copies = Copies::default();
        let mut lead_of: HashMap<&str, String> = HashMap::new();
        for pointer in &finder.order {
            let Some(&class) = first.get(pointer.as_str()) else {
                continue;
            };
            if inside_any(pointer, &copies.first_of) {
                continue;
            }
            match lead_of.get(class) {
                Some(lead) => {
                    *copies.places.entry(lead.clone()).or_default() += 1;
                    copies.first_of.insert(pointer.clone(), lead.clone());
                }
                None => {
                    lead_of.insert(class, pointer.clone());
                    copies.places.insert(pointer.clone(), 1);
                }
            }
        }
        copies.places.retain(|_, n| *n > 1);
        copies
    }
}

/// Whether `pointer` lies inside (below) a pointer that is a key of `copies`.
fn inside_any(pointer: &str, copies: &HashMap<String, String>) -> bool {
    let mut at = pointer;
    while let Some((parent, _)) = at.rsplit_once('/') {
        if copies.contains_key(parent) {
            return true;
        }
        at = parent;
    }
    false
}

impl<'a> Finder<'a> {
    /// Hashes the value at `pointer`, recording shareable nodes; the `bool` says whether the value
    /// means the same wherever it stands.
    fn visit(&mut self, value: &'a Value, pointer: &str, kind: Kind, depth: usize) -> (u64, bool) {
        let mut hasher = DefaultHasher::new();
        if depth > 160 {
            return (0, false);
        }
        match (value, kind) {
            (Value::Object(map), Kind::Schema { shareable }) => {
                let candidate = shareable && makes_shared_type(map);
                if candidate {
                    // Before the children: parents come first in document order.
                    self.order.push(pointer.to_owned());
                }
                let mut portable = true;
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                for key in keys {
                    let child = &map[key];
                    key.hash(&mut hasher);
                    let here = format!("{pointer}/{}", host_manifest::escape_token(key));
                    let (h, p) = if DATA.contains(&key.as_str()) {
                        (data_hash(child), true)
                    } else {
                        self.visit(child, &here, kind_of(key, child), depth + 1)
                    };
                    h.hash(&mut hasher);
                    portable &= p
                        && !PLACE_BOUND.contains(&key.as_str())
                        && (key != "$ref" || child.as_str().is_some_and(|r| r.starts_with('#')));
                }
                let hash = hasher.finish();
                if candidate && portable {
                    let base = (self.base_at)(pointer);
                    self.buckets
                        .entry((hash, base))
                        .or_default()
                        .push((pointer.to_owned(), value));
                }
                (hash, portable)
            }
            (Value::Object(map), Kind::SchemaMap { shareable }) => {
                let mut portable = true;
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                for key in keys {
                    key.hash(&mut hasher);
                    let here = format!("{pointer}/{}", host_manifest::escape_token(key));
                    let (h, p) =
                        self.visit(&map[key], &here, Kind::Schema { shareable }, depth + 1);
                    h.hash(&mut hasher);
                    portable &= p;
                }
                (hasher.finish(), portable)
            }
            (Value::Array(items), Kind::SchemaList { shareable }) => {
                let mut portable = true;
                for (i, item) in items.iter().enumerate() {
                    let (h, p) = self.visit(
                        item,
                        &format!("{pointer}/{i}"),
                        Kind::Schema { shareable },
                        depth + 1,
                    );
                    h.hash(&mut hasher);
                    portable &= p;
                }
                (hasher.finish(), portable)
            }
            // Schemas under keywords the lowering pass drops (`not`, `if`, ...) are hashed as
            // data, so they still tell their parents apart; anything holding an `$id` or anchor
            // there still counts as bound to its place.
            _ => (data_hash(value), !holds_place_bound(value, depth)),
        }
    }
}

/// A hash of any JSON value, object members in key order.
fn data_hash(value: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    hash_into(value, &mut hasher);
    hasher.finish()
}

fn hash_into(value: &Value, hasher: &mut DefaultHasher) {
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(b) => (1u8, b).hash(hasher),
        Value::Number(n) => (2u8, n.to_string()).hash(hasher),
        Value::String(s) => (3u8, s).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            items.iter().for_each(|v| hash_into(v, hasher));
        }
        Value::Object(map) => {
            (5u8, map.len()).hash(hasher);
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                key.hash(hasher);
                hash_into(&map[key], hasher);
            }
        }
    }
}

/// Whether `value` holds, at any depth, a keyword bound to its place (`$id`, an anchor) or a `$ref`
/// that leaves the document.
fn holds_place_bound(value: &Value, depth: usize) -> bool {
    if depth > 160 {
        return true;
    }
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| {
            PLACE_BOUND.contains(&k.as_str())
                || (k == "$ref" && !v.as_str().is_some_and(|r| r.starts_with('#')))
                || holds_place_bound(v, depth + 1)
        }),
        Value::Array(items) => items.iter().any(|v| holds_place_bound(v, depth + 1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn copies(schema: &Value) -> Copies {
        Copies::find(schema, &|_| String::new())
    }

    #[test]
    fn equal_members_are_copies_of_the_first() {
        let user = json!({ "type": "object", "properties": { "login": { "type": "string" } } });
        let schema = json!({
            "type": "object",
            "properties": { "owner": user, "sender": user, "other": { "type": "object",
                "properties": { "login": { "type": "string", "description": "Another doc." } } } }
        });
        let c = copies(&schema);
        // Keys are visited in order: `other`, `owner`, `sender`.
        assert_eq!(
            c.first_of,
            HashMap::from([("/properties/sender".into(), "/properties/owner".into())])
        );
        assert_eq!(c.places, HashMap::from([("/properties/owner".into(), 2)]));
    }

    #[test]
    fn nodes_inside_a_copy_are_not_counted_again() {
        let inner = json!({ "type": "object", "properties": { "n": { "type": "integer" } } });
        let outer = json!({ "type": "object", "properties": { "inner": inner } });
        let schema = json!({ "properties": { "a": outer, "b": outer, "c": inner } });
        let c = copies(&schema);
        assert_eq!(c.first_of.len(), 2, "{c:?}");
        assert_eq!(c.first_of["/properties/b"], "/properties/a");
        assert_eq!(
            c.first_of["/properties/c"],
            "/properties/a/properties/inner"
        );
        assert_eq!(c.places["/properties/a"], 2);
        assert_eq!(c.places["/properties/a/properties/inner"], 2);
    }

    #[test]
    fn branches_constants_and_place_bound_nodes_are_never_shared() {
        let object = json!({ "type": "object", "properties": { "n": { "type": "integer" } } });
        let tag = json!({ "enum": ["created"] });
        let anchored = json!({ "$anchor": "x", "type": "object", "properties": {} });
        let remote = json!({ "type": "object", "properties": { "r": { "$ref": "other.json" } } });
        let schema = json!({
            "anyOf": [object, object],
            "properties": {
                "t1": tag, "t2": tag,
                "a1": anchored, "a2": anchored,
                "r1": remote, "r2": remote,
                "n1": { "not": object }, "n2": { "not": object }
            }
        });
        let c = copies(&schema);
        assert!(c.first_of.is_empty(), "{c:?}");
    }

    #[test]
    fn equal_nodes_under_different_bases_are_not_copies() {
        let object = json!({ "type": "object", "properties": { "n": { "$ref": "#/$defs/N" } } });
        let schema = json!({ "properties": { "a": object, "b": object } });
        let c = Copies::find(&schema, &|p: &str| {
            if p.starts_with("/properties/b") {
                "https://b.example/".to_owned()
            } else {
                String::new()
            }
        });
        assert!(c.first_of.is_empty(), "{c:?}");
    }
}
