//! `allOf`, `anyOf` and `oneOf`: the branches that shape a value are lowered, each once; an
//! `allOf` of plain objects is merged into one object, and a union becomes an enum where typify's
//! struct of optional parts would lose values (see [`Cx::lower_union`]).

use serde_json::{Map, Value, json};

use super::description::add_to_description;
use super::object::name_members_apart;
use super::{
    ARRAY_KEYWORDS, Cx, Draft, NUMBER_KEYWORDS, OBJECT_KEYWORDS, STRING_KEYWORDS, is_shape, resolve,
};
use crate::sentinels::{NULLABLE_MEMBER_MARK, OTHER_MEMBERS, member_mark};

/// The branches of a composition that shape a value, lowered.
struct Branches {
    /// The lowered branches, each once.
    lowered: Vec<Value>,
    /// Whether some branch only validates: for a union, the union then takes every value its
    /// parent takes.
    accepts_all: bool,
    /// Whether every branch lowered is a closed object ([`Cx::closed_object`]).
    all_closed: bool,
}

impl Cx<'_> {
    /// `allOf`: the branches that shape a value, each member typed by the first branch that names
    /// it (see [`one_schema_per_member`]).
    pub(super) fn lower_all_of(&mut self, draft: &mut Draft<'_>, value: &Value, here: &str) {
        let Value::Array(branches) = value else {
            return;
        };
        let mut lowered = self
            .lower_branches(draft.map, branches, here, false)
            .lowered;
        if lowered.is_empty() {
            return;
        }
        one_schema_per_member(&mut lowered);
        draft.out.insert("allOf".to_owned(), Value::Array(lowered));
    }

    /// `anyOf` or `oneOf` (`key`): the branches that shape a value, or nothing when a branch only
    /// validates (then the union takes every value the parent takes).
    pub(super) fn lower_union(
        &mut self,
        draft: &mut Draft<'_>,
        key: &str,
        value: &Value,
        here: &str,
    ) {
        let Value::Array(branches) = value else {
            return;
        };
        let Branches {
            lowered,
            accepts_all,
            all_closed,
        } = self.lower_branches(draft.map, branches, here, true);
        if accepts_all || lowered.is_empty() {
            return;
        }
        // typify types an `anyOf` with an object branch as a struct of optional parts, which
        // refuses the strings (or other scalars) another branch accepts. As `oneOf` it is an
        // untagged enum: each value takes the first branch whose type reads it, and every branch's
        // type keeps what it does not name, so the value encodes back the same (the runtime has
        // already validated it against the `anyOf`). The same goes for an `anyOf` of closed
        // objects only: as a struct of optional parts, each flattened, none of them can refuse a
        // member it does not name, so an object meant for another branch of an enclosing union
        // would be read by this one and lose those members; as an enum, each branch's type
        // refuses what it does not name, and a value it reads it keeps whole.
        let key = if draft.map.contains_key("oneOf") {
            key
        } else {
            enum_keyword(key, &lowered, all_closed)
        };
        draft.out.insert(key.to_owned(), Value::Array(lowered));
    }

    /// Where a union (`anyOf`, `oneOf`) stands beside keywords of its own node, typify merges
    /// those keywords into each branch, and the merge drops the docs of the branches' members,
    /// with the marks that keep a member's `null` apart from its absence (an optional
    /// `website_url` that may be `null` came back absent from the branch that read it). So the
    /// SDK leaves typify nothing to merge: a `type` that each branch keeps to already goes (the
    /// branches stay the named types they refer to), and object keywords (`type`, `properties`,
    /// `required`, ...) are merged into each branch that is a plain object as an `allOf` of plain
    /// objects is (see [`Cx::merge_parts`]). A union with a branch of another kind, or beside other
    /// keywords, is left to typify. Then open object branches told apart by a constant member
    /// are closed for typify to tag them ([`tag_open_variants`]).
    pub(super) fn lower_union_beside_keywords(&mut self, draft: &mut Draft<'_>) {
        let out = &mut draft.out;
        let key = match (out.get("anyOf"), out.get("oneOf")) {
            (Some(Value::Array(_)), None) => "anyOf",
            (None, Some(Value::Array(_))) => "oneOf",
            _ => return,
        };
        let own: Vec<String> = out
            .keys()
            .filter(|k| OBJECT_KEYWORDS.contains(&k.as_str()) || *k == "type")
            .cloned()
            .collect();
        let others = out
            .keys()
            .any(|k| is_shape(k) && k != key && !own.contains(k));
        if !own.is_empty() && !others {
            self.merge_into_branches(out, key, &own);
        }
        if let Some(Value::Array(branches)) = out.get_mut(key) {
            tag_open_variants(branches);
        }
    }

    /// [`Cx::lower_union_beside_keywords`] for one node: `out`, whose union is `key`, with the
    /// keywords `own` beside it.
    fn merge_into_branches(&mut self, out: &mut Map<String, Value>, key: &str, own: &[String]) {
        let Some(Value::Array(branches)) = out.get(key) else {
            return;
        };
        let branches = branches.clone();
        let parent = json_types(out.get("type"));
        if own == ["type"] {
            let kept_to = |branch: &Value| {
                self.branch_types(branch, 0).is_some_and(|types| {
                    parent.as_ref().is_some_and(|parent| {
                        types.iter().all(|t| {
                            parent.contains(t)
                                || (t == "integer" && parent.iter().any(|p| p == "number"))
                        })
                    })
                })
            };
            if branches.iter().all(kept_to) {
                out.remove("type");
            }
            return;
        }
        let mut keywords: Map<String, Value> = own
            .iter()
            .filter_map(|k| Some((k.clone(), out.get(k)?.clone())))
            .collect();
        // Object keywords alone take every other JSON value too; the branches (all objects or
        // `null`, or this is left to typify) decide which.
        keywords
            .entry("type".to_owned())
            .or_insert_with(|| json!(["object", "null"]));
        let takes_null =
            json_types(keywords.get("type")).is_some_and(|t| t.iter().any(|t| t == "null"));
        let mut merged = Vec::with_capacity(branches.len());
        for branch in branches {
            if self.branch_types(&branch, 0).as_deref() == Some(&["null".to_owned()][..]) {
                if takes_null {
                    merged.push(branch);
                    continue;
                }
                return;
            }
            let mut part = keywords.clone();
            part.insert("allOf".to_owned(), Value::Array(vec![branch]));
            let Some(marks) = self.merge_parts(&mut part) else {
                return;
            };
            if !marks.is_empty() {
                add_to_description(&mut part, &marks);
            }
            name_members_apart(&mut part);
            merged.push(Value::Object(part));
        }
        out.retain(|k, _| !own.contains(k));
        // The branches are closed now where the node was: the choice `lower_union` made on the
        // branches as they were is made again.
        let closed = |b: &Value| b.get("additionalProperties") == Some(&Value::Bool(false));
        let chosen = enum_keyword(key, &merged, merged.iter().all(closed));
        if chosen != key {
            out.remove(key);
        }
        out.insert(chosen.to_owned(), Value::Array(merged));
    }

    /// The JSON types a lowered branch takes, where its `type` (or that of the definition it
    /// refers to) says; `None` where that cannot be told.
    fn branch_types(&self, branch: &Value, depth: usize) -> Option<Vec<String>> {
        if let Some(types) = json_types(branch.get("type")) {
            return Some(types);
        }
        let name = branch
            .get("$ref")
            .and_then(Value::as_str)?
            .strip_prefix("#/definitions/")?;
        if depth > 8 {
            return None;
        }
        if let Some(body) = self.definitions.get(name) {
            return self.branch_types(body, depth + 1);
        }
        let pointer = self.names.iter().find(|(_, n)| n.as_str() == name)?.0;
        let node = resolve(self.root, pointer)?;
        if node.get("$ref").is_some() || node.get("allOf").is_some() {
            return None;
        }
        json_types(node.get("type"))
    }

    /// The branches (at `here`) of a composition in `node` that shape a value, lowered, each once;
    /// `union` for `anyOf` and `oneOf`.
    fn lower_branches(
        &mut self,
        node: &Map<String, Value>,
        branches: &[Value],
        here: &str,
        union: bool,
    ) -> Branches {
        let parent = node.get("type").and_then(Value::as_str);
        let mut lowered = Vec::new();
        let mut accepts_all = false;
        let mut all_closed = true;
        for (i, branch) in branches.iter().enumerate() {
            let branch = typed_like(branch, parent);
            if !has_shape(&branch)
                || only_validates(&branch, parent)
                || union && only_requires(&branch, parent)
            {
                // Only validates: for `allOf` it adds no shape, for `anyOf`/`oneOf` the union then
                // takes every value the parent takes. A union branch that only requires some of
                // the parent's members is such a branch: typed as a variant of its own beside a
                // closed parent, a value with the members of two branches would fit neither
                // variant.
                accepts_all = true;
                continue;
            }
            let at = format!("{here}/{i}");
            all_closed &= self.closed_object(&branch, &at, 0);
            lowered.push(self.node(&branch, &at, false));
        }
        Branches {
            lowered: each_once(lowered),
            accepts_all,
            all_closed,
        }
    }

    /// Whether `node` (at `pointer`) takes only objects whose every member it names: a schema of
    /// `type` `object` with `additionalProperties: false` and no `patternProperties`, or a `$ref`
    /// to one. What cannot be told is `false`.
    fn closed_object(&self, node: &Value, pointer: &str, depth: usize) -> bool {
        let Value::Object(map) = node else {
            return false;
        };
        if depth > 32 {
            return false;
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let only_reference = map.keys().all(|k| k == "$ref" || !is_shape(k));
            return only_reference
                && self
                    .target(reference, pointer)
                    .and_then(|target| {
                        resolve(self.root, &target)
                            .map(|node| self.closed_object(node, &target, depth + 1))
                    })
                    .unwrap_or(false);
        }
        let object_typed = match map.get("type") {
            Some(Value::String(t)) => t == "object",
            None => map.contains_key("properties"),
            Some(_) => false,
        };
        object_typed
            && map.get("additionalProperties") == Some(&Value::Bool(false))
            && !map.contains_key("patternProperties")
            && ["allOf", "anyOf", "oneOf", "if", "dependentSchemas"]
                .iter()
                .all(|k| !map.contains_key(*k))
    }

    /// Merges the node's lowered `allOf` into it when every part is a plain object (see
    /// [`Cx::merge_parts`]); the marks of the parts' nullable members go to its description.
    pub(super) fn merge_all_of(&mut self, draft: &mut Draft<'_>) {
        let Some(marks) = self.merge_parts(&mut draft.out) else {
            return;
        };
        if !marks.is_empty() {
            draft.add_paragraph(&marks);
        }
        // A merged node keeps no empty description.
        draft.description = draft.description.take().filter(|d| !d.is_empty());
    }

    /// An `allOf` of objects (the node's own members, inline branches and references to
    /// definitions), merged into the node as one object: the members of all (each typed by the first
    /// part that names it, see [`one_schema_per_member`]), every member any part requires, and `null`
    /// only when every part takes it. typify merges an `allOf` itself, but drops the docs of the
    /// members it merges, and with them the marks that keep a `null` member apart from an absent
    /// one (GitHub's `pull_request.active_lock_reason` came back absent). Returns the marks of the
    /// parts' nullable members for the node's description, or `None` when some part is no plain
    /// object (then typify merges).
    fn merge_parts(&mut self, out: &mut Map<String, Value>) -> Option<String> {
        let Some(Value::Array(branches)) = out.get("allOf") else {
            return None;
        };
        let mut parts = Vec::with_capacity(branches.len() + 1);
        let own: Map<String, Value> = out
            .iter()
            .filter(|(k, _)| OBJECT_KEYWORDS.contains(&k.as_str()) || k.as_str() == "type")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !own.is_empty() {
            parts.push(own);
        }
        for branch in branches.clone() {
            let body = self.definition_body(branch, 0)?;
            parts.push(body.as_object()?.clone());
        }
        // Objects, or objects and `null`: a part that also takes strings (say) would lose them.
        let plain = |part: &Map<String, Value>| {
            let object_typed = match part.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => {
                    ts.iter().any(|t| t == "object")
                        && ts.iter().all(|t| t == "object" || t == "null")
                }
                _ => false,
            };
            object_typed
                && part.keys().all(|k| {
                    OBJECT_KEYWORDS.contains(&k.as_str()) || k == "type" || k == "description"
                })
        };
        if parts.len() < 2 || !parts.iter().all(plain) {
            return None;
        }
        let mut properties: Vec<Value> = Vec::new();
        let mut required: Vec<Value> = Vec::new();
        let mut marks = String::new();
        let mut null = true;
        let mut closed = false;
        for part in &parts {
            properties.push(part.get("properties").cloned().unwrap_or_else(|| json!({})));
            for r in part
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !required.contains(r) {
                    required.push(r.clone());
                }
            }
            null &= match part.get("type") {
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
                _ => false,
            };
            closed |= part.get("additionalProperties") == Some(&Value::Bool(false));
            let description = part.get("description").and_then(Value::as_str);
            if let Some(at) = description.and_then(|d| d.find(NULLABLE_MEMBER_MARK)) {
                marks.push_str(&description.unwrap_or_default()[at..]);
            }
        }
        // A member some part requires must be present, `null` or not: the marks that let it be
        // absent go (a member's own mark is left to the rewrite, which reads typify's type).
        for r in required.iter().filter_map(Value::as_str) {
            marks = marks.replace(&member_mark(r), "");
        }
        let mut wrapped: Vec<Value> = properties
            .into_iter()
            .map(|p| json!({ "properties": p }))
            .collect();
        one_schema_per_member(&mut wrapped);
        let mut members = Map::new();
        for part in wrapped {
            if let Some(Value::Object(p)) = part.get("properties") {
                for (name, schema) in p {
                    members
                        .entry(name.clone())
                        .or_insert_with(|| schema.clone());
                }
            }
        }
        out.retain(|k, _| !(k == "allOf" || k == "type" || OBJECT_KEYWORDS.contains(&k.as_str())));
        out.insert(
            "type".to_owned(),
            if null {
                json!(["object", "null"])
            } else {
                json!("object")
            },
        );
        out.insert("properties".to_owned(), Value::Object(members));
        if !required.is_empty() {
            out.insert("required".to_owned(), Value::Array(required));
        }
        out.insert(
            "additionalProperties".to_owned(),
            if closed {
                Value::Bool(false)
            } else {
                json!({})
            },
        );
        Some(marks)
    }

    /// A lowered `allOf` branch with a reference to a definition followed (the definition lowered
    /// here if it was not yet), or `None` where the reference leads back to a definition being
    /// merged (a recursive schema, left to typify).
    fn definition_body(&mut self, branch: Value, depth: usize) -> Option<Value> {
        let Some(name) = branch
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/definitions/"))
            .filter(|_| branch.as_object().is_some_and(|m| m.len() == 1))
        else {
            return Some(branch);
        };
        if depth > 8 {
            return None;
        }
        if let Some(body) = self.definitions.get(name) {
            let body = body.clone();
            return self.definition_body(body, depth + 1);
        }
        let pointer = self
            .names
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|(p, _)| p.clone())?;
        if self.merging.contains(&pointer) || pointer.is_empty() {
            return None;
        }
        let node = resolve(self.root, &pointer)?;
        self.merging.push(pointer.clone());
        let fallbacks = self.fallbacks.len();
        let body = self.node(node, &pointer, true);
        // Its nodes are reported when the definition itself is lowered.
        self.fallbacks.truncate(fallbacks);
        self.merging.pop();
        self.definition_body(body, depth + 1)
    }
}

/// The keyword typify is to read a union's lowered `branches` under (`key`, `anyOf` or `oneOf`):
/// an `anyOf` with a branch that is no object, or whose branches are all closed objects
/// (`all_closed`), as `oneOf` (see [`Cx::lower_union`]).
fn enum_keyword<'k>(key: &'k str, branches: &[Value], all_closed: bool) -> &'k str {
    if key == "anyOf" && (branches.iter().any(not_an_object) || all_closed) {
        "oneOf"
    } else {
        key
    }
}

/// The JSON types a `type` keyword names, or `None` without one.
fn json_types(t: Option<&Value>) -> Option<Vec<String>> {
    match t? {
        Value::String(t) => Some(vec![t.clone()]),
        Value::Array(ts) => ts.iter().map(|t| t.as_str().map(str::to_owned)).collect(),
        _ => None,
    }
}

/// The branches without a second copy of any. A branch written twice adds nothing a type needs
/// (for `oneOf` a value valid against both is invalid, which the runtime decides), and typify
/// reads `anyOf` of equal branches as an object of optional parts.
fn each_once(branches: Vec<Value>) -> Vec<Value> {
    let mut unique: Vec<Value> = Vec::with_capacity(branches.len());
    for branch in branches {
        if !unique.contains(&branch) {
            unique.push(branch);
        }
    }
    unique
}

/// Whether a lowered branch is typed as something other than an object (`{"type": "string"}`,
/// `{"type": ["null", "integer"]}`); a reference or an untyped branch is not known to be.
fn not_an_object(branch: &Value) -> bool {
    match branch.get("type") {
        Some(Value::String(t)) => t != "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t != "object"),
        _ => false,
    }
}

/// The branches of an `allOf` with each member typed by the first branch that names it.
///
/// typify merges the branches member by member, and where two branches type a member differently
/// (GitHub's `fork` payload: `language` is `["string", "null"]` in one and `["null"]` in the other,
/// `owner` a user object in one and a shorter object in the other) it may find that no value is
/// valid and type the whole node as an enum without variants, which refuses everything the
/// runtime accepts. Every valid value satisfies the first branch's schema for the member, so that
/// schema alone types it faithfully; later branches leave the member out (a member they type the
/// same way stays).
fn one_schema_per_member(branches: &mut [Value]) {
    let mut first: Map<String, Value> = Map::new();
    for branch in branches {
        let Some(Value::Object(members)) = branch.get_mut("properties") else {
            continue;
        };
        members.retain(|name, schema| match first.get(name) {
            Some(typed) => typed == schema,
            None => {
                first.insert(name.clone(), schema.clone());
                true
            }
        });
    }
}

/// A union whose branches are objects told apart by one required member of a distinct constant
/// string (`{"kind": {"const": "circle"}, ...}`) becomes a Rust enum tagged by that member. typify
/// does that for closed branches only; open ones get [`OTHER_MEMBERS`] and are closed.
fn tag_open_variants(branches: &mut [Value]) {
    let constant = |schema: &Value| -> Option<String> {
        if let Some(c) = schema.get("const") {
            return c.as_str().map(str::to_owned);
        }
        match schema
            .get("enum")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([one]) => one.as_str().map(str::to_owned),
            _ => None,
        }
    };
    let tags_of = |branch: &Value| -> Vec<(String, String)> {
        let required: Vec<&str> = branch
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        branch
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(name, _)| required.contains(&name.as_str()))
            .filter_map(|(name, schema)| Some((name.clone(), constant(schema)?)))
            .collect()
    };
    if branches.len() < 2
        || branches
            .iter()
            .any(|b| b.get("type") != Some(&json!("object")))
    {
        return;
    }
    let first = tags_of(&branches[0]);
    let tag = first.iter().map(|(name, _)| name).find(|name| {
        let mut values = std::collections::HashSet::new();
        branches.iter().all(|b| {
            tags_of(b)
                .into_iter()
                .find(|(n, _)| n == *name)
                .is_some_and(|(_, v)| values.insert(v))
        })
    });
    if tag.is_none() {
        return;
    }
    for branch in branches.iter_mut() {
        let Some(map) = branch.as_object_mut() else {
            continue;
        };
        if map.get("additionalProperties") == Some(&json!({})) {
            map.insert("additionalProperties".to_owned(), Value::Bool(false));
            if let Some(Value::Object(props)) = map.get_mut("properties") {
                props.insert(OTHER_MEMBERS.to_owned(), json!({ "type": "object" }));
            }
        }
    }
}

/// Whether a subschema says what shape a value has (rather than only validating it): a branch
/// without `type`, `enum`, `const`, `$ref` or a composition of its own accepts values of every JSON
/// type, whatever else it checks.
fn has_shape(branch: &Value) -> bool {
    let Value::Object(map) = branch else {
        return false;
    };
    [
        "type",
        "enum",
        "const",
        "$ref",
        "allOf",
        "anyOf",
        "oneOf",
        "$dynamicRef",
    ]
    .iter()
    .any(|k| map.contains_key(*k))
}

/// A branch of the parent's own single type that adds nothing but validation of that type.
fn only_validates(branch: &Value, parent: Option<&str>) -> bool {
    let (Value::Object(map), Some(parent)) = (branch, parent) else {
        return false;
    };
    map.get("type").and_then(Value::as_str) == Some(parent)
        && !map
            .keys()
            .any(|k| k == "$ref" || (k != "type" && is_shape(k)))
}

/// A union branch of the parent's own object type that only lists `required` members: the parent
/// already types those members, and which of them must be present is the validator's to decide.
pub(super) fn only_requires(branch: &Value, parent: Option<&str>) -> bool {
    let (Value::Object(map), Some("object")) = (branch, parent) else {
        return false;
    };
    map.get("type").and_then(Value::as_str) == Some("object")
        && map.contains_key("required")
        && !map
            .keys()
            .any(|k| !matches!(k.as_str(), "type" | "required") && (k == "$ref" || is_shape(k)))
}

/// A branch of a composition inside a node of one `type`: a branch whose keywords all apply to that
/// type describes that type (the node's own `type` already excludes the rest).
fn typed_like(branch: &Value, parent: Option<&str>) -> Value {
    let (Value::Object(map), Some(parent)) = (branch, parent) else {
        return branch.clone();
    };
    if has_shape(branch) {
        return branch.clone();
    }
    let own: &[&str] = match parent {
        "object" => &OBJECT_KEYWORDS,
        "array" => &ARRAY_KEYWORDS,
        "string" => &STRING_KEYWORDS,
        "number" | "integer" => &NUMBER_KEYWORDS,
        _ => &[],
    };
    let other_type = [
        &OBJECT_KEYWORDS[..],
        &ARRAY_KEYWORDS,
        &STRING_KEYWORDS,
        &NUMBER_KEYWORDS,
    ]
    .iter()
    .filter(|group| !std::ptr::eq(**group, own))
    .any(|group| group.iter().any(|k| map.contains_key(*k)));
    if own.iter().any(|k| map.contains_key(*k)) && !other_type {
        let mut typed = map.clone();
        typed.insert("type".to_owned(), json!(parent));
        return Value::Object(typed);
    }
    branch.clone()
}
