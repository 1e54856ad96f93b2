//! Lowering a manifest's JSON Schema (draft 2020-12) to the dialect `typify` types faithfully.
//!
//! The generated types must keep one promise: a value valid against the schema decodes into the type
//! and encodes back to an equal value (the runtime validates every input against the schema itself
//! before decoding, so the type need not enforce what only validation decides). This pass rewrites
//! each schema so that typify produces such a type, and leaves a node untyped (`serde_json::Value`)
//! only where no faithful type exists, saying so:
//!
//! - references: `$defs` and `definitions` anywhere, `$ref` to any local pointer (`#`, `#/...`) or
//!   `$anchor` become typify's `#/definitions/Name`, so recursive schemas become recursive types;
//!   `$ref` beside shape keywords becomes `allOf` of the two;
//! - members the schema does not name are kept: an object's other members land in a flattened map
//!   (`additionalProperties: {}`), unless `additionalProperties` is `false`;
//! - keywords that only validate are dropped, since the runtime checks them: `not`, `if`/`then`/`else`,
//!   `dependentSchemas`, `dependentRequired`, `contains`, `propertyNames`, `unevaluated*`,
//!   `patternProperties` (its members go to the map), `format` (an annotation in 2020-12: any string
//!   is valid, so a date type would refuse valid values);
//! - `default` is documented, not filled in (filling it would change the value a host sent);
//! - keywords that apply to one JSON type but come without `type` (`{"properties": ...}` also accepts
//!   a string) keep the other types: the node becomes an untagged choice between the typed form and
//!   `serde_json::Value`;
//! - an `enum` of mixed JSON types becomes the union of those types;
//! - `prefixItems` becomes a tuple when the array has exactly those items, otherwise an array of JSON
//!   values (reported);
//! - `$dynamicRef`, references that leave the schema and other constructs without a faithful Rust
//!   type become `serde_json::Value` for that node only, each reported with its pointer;
//! - a subschema written out again, the same, elsewhere in the schema is typed once: every later
//!   copy refers to the definition of the first (see [`copies`]).
//!
//! `Cx::node` lowers one node, keyword by keyword; each family of keywords has a file of its own:
//! [`refs`] (`$ref`, `$dynamicRef`), [`object`] (`properties`, the map of other members),
//! [`arrays`] (`prefixItems`) and [`combinators`] (`allOf`, `anyOf`, `oneOf`). [`description`]
//! writes every sentence a lowered node's docs gain.

use std::collections::{BTreeMap, HashMap};

use heck::ToUpperCamelCase;
use referencing::Uri;
use referencing::uri::resolve_against;
use serde_json::{Map, Value, json};

use crate::sentinels::{at_placeholder, opens_a_mark};
use description::{add_paragraph, describe, own_description};
use object::{keep_other_members, name_members_apart, widen_other_members};
use refs::to_definition;

mod arrays;
mod combinators;
mod copies;
mod description;
mod object;
mod refs;

pub(crate) use description::add_to_description;
pub(crate) use object::typify_field;

/// A node typed as `serde_json::Value` (or loosely) because no faithful type exists for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fallback {
    /// RFC 6901 pointer from the schema's root.
    pub pointer: String,
    /// What was found there and what became of it.
    pub construct: String,
}

/// A schema lowered for typify: its draft-7 form with every referenced node under `definitions`.
#[derive(Debug)]
pub(crate) struct Lowered {
    /// The root schema.
    pub schema: Value,
    /// Nodes left untyped, with reasons.
    pub fallbacks: Vec<Fallback>,
}

/// Keywords that only validate: dropped, since the runtime validates the original schema.
const VALIDATION_ONLY: [&str; 18] = [
    "not",
    "pattern",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "patternProperties",
    "format",
    "uniqueItems",
    "multipleOf",
];

/// Keywords that are neither shape nor validation typify uses.
const ANNOTATIONS: [&str; 14] = [
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$comment",
    "$vocabulary",
    "$defs",
    "definitions",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentMediaType",
    "contentEncoding",
];

/// Keywords that apply to objects only.
const OBJECT_KEYWORDS: [&str; 5] = [
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
];
/// Keywords that apply to arrays only.
const ARRAY_KEYWORDS: [&str; 4] = ["items", "prefixItems", "minItems", "maxItems"];
/// Keywords that apply to strings only.
const STRING_KEYWORDS: [&str; 3] = ["minLength", "maxLength", "pattern"];
/// Keywords that apply to numbers only.
const NUMBER_KEYWORDS: [&str; 4] = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

/// Lowers `schema`, root number `index` of its module, whose root type is called `root`. Definition
/// names start with `prefix` (a module with two roots keeps their definitions apart).
#[cfg(test)]
pub(crate) fn lower(schema: &Value, root: &str, prefix: &str, index: usize) -> Lowered {
    lower_reserving(schema, root, prefix, index, &Default::default())
}

/// [`lower`], naming no definition with a name in `reserved` (typify's names for nested types).
pub(crate) fn lower_reserving(
    schema: &Value,
    root: &str,
    prefix: &str,
    index: usize,
    reserved: &std::collections::BTreeSet<String>,
) -> Lowered {
    if let Some(pointer) = reserved_text_at(schema) {
        // The marks ride in names and strings through typify: one written by the schema would
        // be read as the generator's own (a member renamed, a value replaced by a pointer).
        return Lowered {
            schema: json!({}),
            fallbacks: vec![Fallback {
                pointer,
                construct: "a name or value holding `@@host-` or `@@=`, which the generator reserves for its own marks: the schema is typed as JSON".to_owned(),
            }],
        };
    }
    let resources = Resources::index(schema);
    let copies = copies::Copies::find(schema, &|pointer| {
        resources
            .base_at(pointer)
            .map(|base| base.as_str().to_owned())
            .unwrap_or_default()
    });
    let mut cx = Cx {
        at: at_placeholder(index),
        root: schema,
        root_name: root.to_owned(),
        prefix: prefix.to_owned(),
        resources,
        copies,
        merging: Vec::new(),
        names: BTreeMap::new(),
        taken: Default::default(),
        definitions: Map::new(),
        fallbacks: Vec::new(),
    };
    cx.taken.insert(root.to_owned());
    cx.taken.extend(reserved.iter().cloned());
    // Every reference target gets a definition name first, so lowering can point at it.
    for (reference, from) in std::mem::take(&mut cx.resources.refs) {
        if let Some(target) = cx.target(&reference, &from) {
            cx.name_for(&target);
        }
    }
    // So does the first of each set of copies (in document order, so names do not depend on
    // hashing).
    let mut firsts: Vec<String> = cx.copies.places.keys().cloned().collect();
    firsts.sort_by_cached_key(|p| host_manifest::pointer_tokens(p).collect::<Vec<_>>());
    for pointer in firsts {
        cx.shared_name_for(&pointer);
    }
    // Lowering a definition can name more targets (a `$dynamicRef` resolved on the way): until
    // every named target has its definition.
    let mut out_root = None;
    loop {
        let pending: Vec<(String, String)> = cx
            .names
            .iter()
            .filter(|(_, n)| !cx.definitions.contains_key(n.as_str()))
            .map(|(p, n)| (p.clone(), n.clone()))
            .collect();
        if pending.is_empty() {
            if out_root.is_some() {
                break;
            }
            out_root = Some(if cx.names.contains_key("") {
                to_definition(root)
            } else {
                cx.node(schema, "", false)
            });
            continue;
        }
        for (pointer, name) in pending {
            let mut body = match resolve(schema, &pointer) {
                Some(node) => cx.node(node, &pointer, true),
                None => json!({}),
            };
            if let Some(places) = cx.copies.places.get(&pointer)
                && let Value::Object(map) = &mut body
            {
                let line = format!(
                    "Written the same at {places} places in the schema, the first at `{}{pointer}`.",
                    cx.at
                );
                add_to_description(map, &line);
            } else if !pointer.is_empty() {
                describe(&mut body, || format!("Defined at `{}{pointer}`.", cx.at));
            }
            cx.definitions.insert(name, body);
        }
    }
    let mut out = out_root.unwrap_or_default();
    if let (Value::Object(map), false) = (&mut out, cx.definitions.is_empty()) {
        map.insert(
            "definitions".to_owned(),
            Value::Object(std::mem::take(&mut cx.definitions)),
        );
    }
    Lowered {
        schema: out,
        fallbacks: cx.fallbacks,
    }
}

/// Keywords whose value is a schema.
const SCHEMA_KEYWORDS: [&str; 12] = [
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "contentSchema",
];

/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAP_KEYWORDS: [&str; 6] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose text only documents: written apart in docs (`description::own_description`),
/// never read as a mark.
const DOC_KEYWORDS: [&str; 5] = ["description", "title", "default", "examples", "$comment"];

/// The pointer (from `schema`) of the first name or string value in it that
/// [opens a mark](crate::sentinels::opens_a_mark), its docs aside. The pointer is written on the
/// way back from a find only: every schema is searched, and almost none holds one.
fn reserved_text_at(schema: &Value) -> Option<String> {
    let Value::Object(map) = schema else {
        return None;
    };
    map.iter().find_map(|(key, value)| {
        let k = key.as_str();
        let inner = if opens_a_mark(key) {
            Some(String::new())
        } else if DOC_KEYWORDS.contains(&k) {
            None
        } else if SCHEMA_KEYWORDS.contains(&k) {
            match value {
                Value::Array(items) => in_each(items, reserved_text_at),
                _ => reserved_text_at(value),
            }
        } else if SCHEMA_MAP_KEYWORDS.contains(&k)
            && let Value::Object(members) = value
        {
            members.iter().find_map(|(name, member)| {
                let inner = if opens_a_mark(name) {
                    Some(String::new())
                } else if member.is_array() {
                    // `dependencies` may list required names.
                    value_reserved_at(member)
                } else {
                    reserved_text_at(member)
                };
                inner.map(|rest| format!("/{}{rest}", host_manifest::escape_token(name)))
            })
        } else if SCHEMA_LIST_KEYWORDS.contains(&k)
            && let Value::Array(items) = value
        {
            in_each(items, reserved_text_at)
        } else {
            value_reserved_at(value)
        };
        inner.map(|rest| format!("/{}{rest}", host_manifest::escape_token(key)))
    })
}

/// [`reserved_text_at`] for a JSON value: the pointer of its first string or member name that
/// [opens a mark](crate::sentinels::opens_a_mark).
fn value_reserved_at(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if opens_a_mark(s) => Some(String::new()),
        Value::Array(items) => in_each(items, value_reserved_at),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let inner = if opens_a_mark(k) {
                Some(String::new())
            } else {
                value_reserved_at(v)
            };
            inner.map(|rest| format!("/{}{rest}", host_manifest::escape_token(k)))
        }),
        _ => None,
    }
}

/// The first find of `find` among `items`, under its index.
fn in_each(items: &[Value], find: fn(&Value) -> Option<String>) -> Option<String> {
    items
        .iter()
        .enumerate()
        .find_map(|(i, item)| find(item).map(|rest| format!("/{i}{rest}")))
}

struct Cx<'a> {
    /// [`at_placeholder`] of this root.
    at: String,
    root: &'a Value,
    root_name: String,
    prefix: String,
    /// Where `$id`s and `$anchor`s are, for resolving references.
    resources: Resources,
    /// Subschemas written out more than once: each later copy is typed as the first.
    copies: copies::Copies,
    /// Pointers of the definitions being lowered into an `allOf` that is merged.
    merging: Vec<String>,
    /// Pointer of a referenced node -> its definition name.
    names: BTreeMap<String, String>,
    taken: std::collections::HashSet<String>,
    definitions: Map<String, Value>,
    fallbacks: Vec<Fallback>,
}

impl Cx<'_> {
    fn fallback(&mut self, pointer: &str, construct: String) {
        self.fallbacks.push(Fallback {
            pointer: pointer.to_owned(),
            construct,
        });
    }

    fn name_for(&mut self, pointer: &str) -> String {
        if let Some(name) = self.names.get(pointer) {
            return name.clone();
        }
        let name = if pointer.is_empty() {
            self.root_name.clone()
        } else {
            let anchor = self
                .resources
                .anchors
                .iter()
                .find(|(_, p)| p.as_str() == pointer)
                .map(|((_, a), _)| a.clone());
            let last = anchor.unwrap_or_else(|| {
                host_manifest::pointer_tokens(pointer)
                    .last()
                    .unwrap_or_default()
            });
            let mut base = format!("{}{}", self.prefix, last.to_upper_camel_case());
            if base.is_empty() || !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
                base = format!("Def{base}");
            }
            let mut name = base.clone();
            let mut n = 2;
            while self.taken.contains(&name) {
                name = format!("{base}{n}");
                n += 1;
            }
            name
        };
        self.taken.insert(name.clone());
        self.names.insert(pointer.to_owned(), name.clone());
        name
    }

    /// Names the definition of the first of a set of copies, unless it has a name already (as a
    /// reference target): after its `title` when it has one (GitHub's copies of a user object are
    /// titled `User`), else after the members that lead to it (`pull_request.user` is
    /// `PullRequestUser`).
    fn shared_name_for(&mut self, pointer: &str) {
        if self.names.contains_key(pointer) {
            return;
        }
        let title = resolve(self.root, pointer)
            .and_then(|node| node.get("title"))
            .and_then(Value::as_str)
            .map(str::to_upper_camel_case)
            .filter(|t| t.starts_with(|c: char| c.is_ascii_alphabetic()));
        let base = title.unwrap_or_else(|| path_name(pointer));
        let base = format!("{}{base}", self.prefix);
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        self.names.insert(pointer.to_owned(), name);
    }

    /// Lowers the node at `pointer`: keyword by keyword, then its reference, then what typify
    /// needs of the whole. A later copy of a subschema becomes a reference to the first's
    /// definition; a node that is a reference target becomes a reference to its own, except when
    /// its definition is being written (`defining`).
    fn node(&mut self, node: &Value, pointer: &str, defining: bool) -> Value {
        if let Some(reference) = self.typed_elsewhere(pointer, defining) {
            return reference;
        }
        let Value::Object(map) = node else {
            return json!({});
        };
        let Ok(dynamic) = self.dynamic_ref(map, pointer) else {
            return json!({});
        };
        let mut draft = Draft {
            map,
            pointer,
            out: Map::new(),
            description: own_description(map),
        };
        self.lower_keywords(&mut draft);
        if self.lower_ref(&mut draft, dynamic).is_err() {
            return json!({});
        }
        self.merge_all_of(&mut draft);
        self.lower_union_beside_keywords(&mut draft);
        widen_other_members(&mut draft);
        name_members_apart(&mut draft.out);
        whole_bounds(&mut draft.out);
        self.lower_prefix_items(&mut draft);
        mixed_enum(&mut draft.out);
        implied_type(&mut draft.out);
        keep_other_members(&mut draft.out);
        draft.finish()
    }

    /// Lowers the node's keywords one by one, in the schema's order: each keyword that holds
    /// schemas by its own method, every other keyword that typify reads copied as it is.
    fn lower_keywords(&mut self, draft: &mut Draft<'_>) {
        let map = draft.map;
        for (key, value) in map {
            let here = format!("{}/{}", draft.pointer, host_manifest::escape_token(key));
            match key.as_str() {
                // Read by `own_description` and `lower_ref`.
                "description" | "title" | "default" | "$ref" | "$dynamicRef" => {}
                k if VALIDATION_ONLY.contains(&k) || ANNOTATIONS.contains(&k) => {}
                "properties" => self.lower_properties(draft, value, &here),
                "additionalProperties" => {
                    self.lower_each(draft, key, value, &here, "A member not named by the object");
                }
                // With `prefixItems`, `items` is the rest of the array: both typed by
                // `lower_prefix_items`.
                "items" if map.contains_key("prefixItems") => {}
                "prefixItems" => {}
                "items" => self.lower_each(draft, key, value, &here, "An item of the array"),
                "allOf" => self.lower_all_of(draft, value, &here),
                "anyOf" | "oneOf" => self.lower_union(draft, key, value, &here),
                _ => {
                    draft.out.insert(key.clone(), value.clone());
                }
            }
        }
    }

    /// `additionalProperties` or `items` (`key`, at `here`): the one schema every member the
    /// object does not name, or every item, takes (`what`, in its description). `false` stays;
    /// `true` goes, as it says what leaving the keyword out says.
    fn lower_each(
        &mut self,
        draft: &mut Draft<'_>,
        key: &str,
        value: &Value,
        here: &str,
        what: &str,
    ) {
        match value {
            Value::Bool(false) => {
                draft.out.insert(key.to_owned(), Value::Bool(false));
            }
            Value::Bool(true) => {}
            schema => {
                let mut lowered = self.node(schema, here, false);
                describe(&mut lowered, || {
                    format!("{what} at `{}{}`.", self.at, draft.pointer)
                });
                draft.out.insert(key.to_owned(), lowered);
            }
        }
    }
}

/// A schema node being lowered: its keywords, and what they have become so far.
struct Draft<'n> {
    /// The node's keywords, as the schema writes them.
    map: &'n Map<String, Value>,
    /// Where the node is: an RFC 6901 pointer from the schema's root.
    pointer: &'n str,
    /// The lowered keywords.
    out: Map<String, Value>,
    /// The lowered node's description.
    description: Option<String>,
}

impl Draft<'_> {
    /// Adds `paragraph` to the node's description.
    fn add_paragraph(&mut self, paragraph: &str) {
        add_paragraph(&mut self.description, paragraph);
    }

    /// The lowered node, with its description unless it takes any JSON value (`{}`).
    fn finish(self) -> Value {
        let mut out = self.out;
        if let Some(d) = self.description
            && !out.is_empty()
        {
            out.insert("description".to_owned(), Value::String(d));
        }
        Value::Object(out)
    }
}

/// A type name from the members, items and definitions a pointer goes through: its last two
/// (`/properties/pull_request/properties/user` is `PullRequestUser`, an array's items are `Item`).
fn path_name(pointer: &str) -> String {
    let tokens: Vec<String> = host_manifest::pointer_tokens(pointer).collect();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "properties" | "$defs" | "definitions" if i + 1 < tokens.len() => {
                parts.push(tokens[i + 1].clone());
                i += 1;
            }
            "items" | "prefixItems" => parts.push("item".to_owned()),
            "additionalProperties" => parts.push("value".to_owned()),
            _ => {}
        }
        i += 1;
    }
    let start = parts.len().saturating_sub(2);
    let name = parts[start..].join("_").to_upper_camel_case();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("Def{name}")
    }
}

/// An `enum` whose values are of several JSON types becomes the union of the types.
fn mixed_enum(out: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = out.get("enum") else {
        return;
    };
    if values.is_empty() {
        // No value is valid; the runtime refuses every one before it is decoded.
        out.remove("enum");
        return;
    }
    let mut kinds: Vec<&'static str> = values.iter().map(json_type).collect();
    kinds.sort_unstable();
    kinds.dedup();
    if (kinds == ["string"] || kinds == ["null", "string"]) && !clashing_variants(values) {
        return;
    }
    // typify types enums of strings; any other enum is typed by its values' JSON types (the
    // runtime checks the values themselves).
    out.remove("enum");
    if !out.contains_key("type") {
        let types: Vec<Value> = kinds
            .iter()
            .map(|k| Value::String((*k).to_owned()))
            .collect();
        out.insert("type".to_owned(), Value::Array(types));
    }
}

/// Keywords of one JSON type without `type`: the node also accepts every other type.
fn implied_type(out: &mut Map<String, Value>) {
    if out.contains_key("type")
        || out.contains_key("enum")
        || out.contains_key("const")
        || out.contains_key("$ref")
        || out.contains_key("allOf")
        || out.contains_key("anyOf")
        || out.contains_key("oneOf")
    {
        return;
    }
    let groups: [(&[&str], &str); 4] = [
        (&OBJECT_KEYWORDS, "object"),
        (&ARRAY_KEYWORDS, "array"),
        (&STRING_KEYWORDS, "string"),
        (&NUMBER_KEYWORDS, "number"),
    ];
    let present: Vec<(&[&str], &str)> = groups
        .into_iter()
        .filter(|(keys, _)| keys.iter().any(|k| out.contains_key(*k)))
        .collect();
    if present.is_empty() {
        return;
    }
    // Keep only the keywords typify can type, under their type; every other value stays JSON.
    let mut typed = Vec::new();
    for (keys, kind) in &present {
        let mut part = Map::new();
        part.insert("type".to_owned(), json!(kind));
        for k in *keys {
            if let Some(v) = out.remove(*k) {
                part.insert((*k).to_owned(), v);
            }
        }
        if *kind == "object" && !part.contains_key("additionalProperties") {
            part.insert("additionalProperties".to_owned(), json!({}));
        }
        typed.push(Value::Object(part));
    }
    let kinds: Vec<&str> = present.iter().map(|(_, k)| *k).collect();
    let mut others: Vec<Value> = ["null", "boolean", "object", "array", "string", "number"]
        .iter()
        .filter(|k| !kinds.contains(k))
        .map(|k| json!(k))
        .collect();
    if kinds.contains(&"number") {
        // `number` covers integers.
        others.retain(|k| k != "integer");
    }
    typed.push(json!({ "type": others }));
    out.insert("anyOf".to_owned(), Value::Array(typed));
}

/// Bounds on a count written as a whole float (`2.0`) become the integer: schemars reads these
/// bounds as integers only, and `2.0` is the same bound.
fn whole_bounds(out: &mut Map<String, Value>) {
    for k in [
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
    ] {
        if let Some(f) = out.get(k).and_then(Value::as_f64)
            && f.fract() == 0.0
            && f >= 0.0
        {
            out.insert(k.to_owned(), json!(f as u64));
        }
    }
}

/// String enum values that Rust variant names cannot tell apart (or that hold control characters).
fn clashing_variants(values: &[Value]) -> bool {
    let mut seen = std::collections::HashSet::new();
    values.iter().filter_map(Value::as_str).any(|v| {
        let key: String = v
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        v.chars().any(char::is_control) || !seen.insert(key)
    })
}

/// Keywords that shape the Rust type (as opposed to annotating or validating it).
fn is_shape(key: &str) -> bool {
    matches!(
        key,
        "type"
            | "properties"
            | "additionalProperties"
            | "items"
            | "prefixItems"
            | "enum"
            | "const"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "required"
    )
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The node at an RFC 6901 pointer.
fn resolve<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// The schema's resources: each `$id` (resolved against the one around it) and each `$anchor`, with
/// the pointer of the node that carries it. References resolve against the resource they are made in,
/// as JSON Schema resolves them; nothing outside the schema is fetched.
struct Resources {
    /// Absolute URI without fragment -> pointer.
    ids: HashMap<String, String>,
    /// (resource URI, anchor name) -> pointer. Ordered: a node may carry several anchors (an
    /// `$anchor` and a `$dynamicAnchor`), and the first is its definition's name in every build.
    anchors: BTreeMap<(String, String), String>,
    /// Pointer of each node with an `$id` -> its absolute URI, to find the base at any pointer.
    bases: BTreeMap<String, Uri<String>>,
    /// How many nodes declare each `$dynamicAnchor` name.
    dynamic: HashMap<String, usize>,
    /// Every `$ref`, with the pointer of the node that makes it.
    refs: Vec<(String, String)>,
}

impl Resources {
    /// The base of a schema without `$id`: a name that cannot clash with a real address.
    const DEFAULT_BASE: &str = "https://host-sdk.invalid/schema.json";

    fn index(schema: &Value) -> Resources {
        let mut r = Resources {
            ids: HashMap::new(),
            anchors: BTreeMap::new(),
            bases: BTreeMap::new(),
            dynamic: HashMap::new(),
            refs: Vec::new(),
        };
        if let Ok(base) = Uri::parse(Self::DEFAULT_BASE.to_owned()) {
            r.visit(schema, "", &base, 0);
        }
        r
    }

    fn visit(&mut self, node: &Value, pointer: &str, base: &Uri<String>, depth: usize) {
        if depth > 160 {
            return;
        }
        match node {
            Value::Object(map) => {
                let mut base = base.clone();
                if let Some(id) = map.get("$id").and_then(Value::as_str)
                    && let Ok(abs) = resolve_against(&base.borrow(), id)
                {
                    base = abs.strip_fragment().to_owned();
                }
                if pointer.is_empty() || map.contains_key("$id") {
                    self.ids
                        .entry(base.as_str().to_owned())
                        .or_insert_with(|| pointer.to_owned());
                    self.bases.insert(pointer.to_owned(), base.clone());
                }
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    self.refs.push((r.to_owned(), pointer.to_owned()));
                }
                if let Some(a) = map.get("$anchor").and_then(Value::as_str) {
                    self.anchors
                        .entry((base.as_str().to_owned(), a.to_owned()))
                        .or_insert_with(|| pointer.to_owned());
                }
                // A dynamic anchor is also a plain one; where several resources declare the same
                // name, which one a `$dynamicRef` reaches depends on the path of evaluation.
                if let Some(a) = map.get("$dynamicAnchor").and_then(Value::as_str) {
                    self.anchors
                        .entry((base.as_str().to_owned(), a.to_owned()))
                        .or_insert_with(|| pointer.to_owned());
                    *self.dynamic.entry(a.to_owned()).or_default() += 1;
                }
                for (k, v) in map {
                    if matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                        continue;
                    }
                    let p = format!("{pointer}/{}", host_manifest::escape_token(k));
                    self.visit(v, &p, &base, depth + 1);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    self.visit(v, &format!("{pointer}/{i}"), base, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// The base URI in force at `pointer`: that of the nearest enclosing node with an `$id`.
    fn base_at(&self, pointer: &str) -> Option<&Uri<String>> {
        self.bases
            .iter()
            .filter(|(p, _)| {
                p.is_empty() || pointer == p.as_str() || pointer.starts_with(&format!("{p}/"))
            })
            .max_by_key(|(p, _)| p.len())
            .map(|(_, u)| u)
    }

    /// Where a `$dynamicRef` leads when that does not depend on the path of evaluation: its anchor
    /// is declared once in the schema, or it names no dynamic anchor at all (then it is a `$ref`).
    fn resolve_dynamic(&self, reference: &str, from: &str) -> Option<String> {
        let name = reference.rsplit_once('#').map_or("", |(_, f)| f);
        if self.dynamic.get(name).copied().unwrap_or(0) > 1 {
            return None;
        }
        self.resolve(reference, from)
    }

    fn resolve(&self, reference: &str, from: &str) -> Option<String> {
        let base = self.base_at(from)?;
        let (resource, fragment) = match reference.strip_prefix('#') {
            // Within the current resource: the fragment as written (a pointer may hold characters
            // a URI may not, which the validator reads the same way).
            Some(fragment) => (base.as_str().to_owned(), fragment.to_owned()),
            None => {
                let abs = resolve_against(&base.borrow(), reference).ok()?;
                let fragment = abs.fragment().map(|f| f.as_str()).unwrap_or_default();
                (
                    abs.strip_fragment().as_str().to_owned(),
                    fragment.to_owned(),
                )
            }
        };
        let fragment = percent_encoding::percent_decode_str(&fragment)
            .decode_utf8_lossy()
            .into_owned();
        let root = self.ids.get(&resource)?;
        if fragment.is_empty() {
            Some(root.clone())
        } else if fragment.starts_with('/') {
            Some(format!("{root}{fragment}"))
        } else {
            self.anchors.get(&(resource, fragment)).cloned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::combinators::only_requires;
    use super::*;
    use crate::sentinels::{NULLABLE_MARK, member_mark, renamed_json_name};

    fn lowered(schema: Value) -> Value {
        lower(&schema, "Input", "", 0).schema
    }

    #[test]
    fn defs_anywhere_and_any_local_pointer_become_definitions() {
        let out = lowered(json!({
            "type": "object",
            "properties": {
                "a": { "$ref": "#/$defs/Color" },
                "b": { "$ref": "#/properties/a" },
                "c": { "$ref": "#here" }
            },
            "$defs": { "Color": { "enum": ["red", "green"] }, "X": { "$anchor": "here", "type": "string" } }
        }));
        // `a` is itself referenced, so it is a definition too.
        assert_eq!(out["properties"]["a"], json!({ "$ref": "#/definitions/A" }));
        assert_eq!(out["properties"]["b"], json!({ "$ref": "#/definitions/A" }));
        assert_eq!(
            out["properties"]["c"],
            json!({ "$ref": "#/definitions/Here" })
        );
        assert_eq!(
            out["definitions"]["Color"],
            json!({ "enum": ["red", "green"], "description": "Defined at `@@host-at-0@@/$defs/Color`." })
        );
        assert_eq!(
            out["definitions"]["A"],
            json!({ "$ref": "#/definitions/Color" })
        );
        assert_eq!(out["definitions"]["Here"], json!({ "type": "string" }));
    }

    #[test]
    fn a_recursive_root_is_its_own_definition() {
        let out = lowered(json!({
            "type": "object",
            "properties": { "replies": { "type": "array", "items": { "$ref": "#" } } }
        }));
        assert_eq!(out["$ref"], "#/definitions/Input");
        assert_eq!(
            out["definitions"]["Input"]["properties"]["replies"]["items"],
            json!({ "$ref": "#/definitions/Input" })
        );
    }

    #[test]
    fn unnamed_members_are_kept_and_validation_only_keywords_go() {
        let out = lowered(json!({
            "type": "object",
            "properties": { "n": { "type": "integer", "default": 3, "not": { "const": 4 } } },
            "if": { "required": ["n"] }, "then": { "required": ["m"] },
            "patternProperties": { "^x": { "type": "string" } }
        }));
        assert_eq!(out["additionalProperties"], json!({}));
        assert!(out.get("if").is_none() && out.get("patternProperties").is_none());
        assert_eq!(out["properties"]["n"]["type"], "integer");
        assert!(out["properties"]["n"].get("default").is_none());
        assert!(
            out["properties"]["n"]["description"]
                .as_str()
                .is_some_and(|d| d.contains("`3`"))
        );
    }

    #[test]
    fn an_object_that_may_be_null_keeps_unnamed_members() {
        let out = lowered(json!({
            "type": ["object", "null"], "properties": { "login": { "type": "string" } }
        }));
        assert_eq!(out["additionalProperties"], json!({}), "{out}");
    }

    #[test]
    fn branches_written_twice_are_one() {
        let l = lower(
            &json!({ "anyOf": [{ "type": "string" }, { "type": "string" }, { "type": "object" }] }),
            "Input",
            "",
            0,
        );
        // And, with a branch that is no object, a `oneOf` (an untagged enum, not a struct).
        let branches = l.schema["oneOf"].as_array().expect("oneOf");
        assert_eq!(branches.len(), 2, "{}", l.schema);
    }

    #[test]
    fn an_any_of_closed_objects_is_an_enum_and_one_of_open_objects_stays_a_struct() {
        let closed = |name: &str| {
            json!({ "type": "object", "properties": { name: { "type": "string" } },
                    "additionalProperties": false })
        };
        let schema = json!({
            "type": "object",
            "properties": {
                "closed": { "anyOf": [{ "$ref": "#/$defs/A" }, closed("b")] },
                "open": { "anyOf": [{ "$ref": "#/$defs/A" }, { "type": "object" }] },
                "patterned": { "anyOf": [closed("c"), {
                    "type": "object", "additionalProperties": false,
                    "patternProperties": { "^x": {} } }] }
            },
            "$defs": { "A": closed("a") }
        });
        let l = lower(&schema, "Input", "", 0);
        let member = |name: &str| &l.schema["properties"][name];
        assert!(member("closed")["oneOf"].is_array(), "{}", l.schema);
        assert!(member("open")["anyOf"].is_array(), "{}", l.schema);
        assert!(member("patterned")["anyOf"].is_array(), "{}", l.schema);
    }

    #[test]
    fn remote_and_dynamic_references_fall_back_where_they_are() {
        let l = lower(
            &json!({
                "type": "object",
                "properties": {
                    "a": { "$ref": "https://example.com/other.json" },
                    "b": { "$dynamicRef": "#meta" },
                    "c": { "type": "string" }
                }
            }),
            "Input",
            "",
            0,
        );
        // Any JSON, `null` too: optional, so marked as a member that may be `null`.
        let any = json!({ "description": NULLABLE_MARK });
        assert_eq!(l.schema["properties"]["a"], any);
        assert_eq!(l.schema["properties"]["b"], any);
        assert_eq!(l.schema["properties"]["c"]["type"], "string");
        let pointers: Vec<&str> = l.fallbacks.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(pointers, ["/properties/a/$ref", "/properties/b"]);
    }

    #[test]
    fn mixed_enums_become_their_types_and_implied_types_keep_the_others() {
        let out = lowered(json!({ "enum": [1, "a", null] }));
        assert_eq!(out, json!({ "type": ["integer", "null", "string"] }));
        let out = lowered(json!({ "properties": { "a": { "type": "integer" } } }));
        assert_eq!(out["anyOf"][0]["type"], "object");
        assert_eq!(
            out["anyOf"][1]["type"],
            json!(["null", "boolean", "array", "string", "number"])
        );
    }

    #[test]
    fn members_typify_names_apart_are_typed_and_those_it_would_merge_are_renamed() {
        // GitHub's reaction counts: typify spells `+1` and `-1` `plus1` and `minus1`.
        let l = lower(
            &json!({ "type": "object", "properties": {
                "+1": { "type": "integer" }, "-1": { "type": "integer" }, "ab": { "type": "integer" },
                "a_b": { "type": "integer" } } }),
            "Input",
            "",
            0,
        );
        assert!(l.fallbacks.is_empty(), "{:?}", l.fallbacks);
        assert_eq!(l.schema["properties"]["+1"]["type"], "integer");
        assert_eq!(l.schema["properties"]["a_b"]["type"], "integer");
        for (a, b, field) in [
            ("a-b", "a_b", "a_b_2"),
            ("fooBar", "foo_bar", "foo_bar_2"),
            ("type", "type_", "type_2"),
            ("1a", "x1a", "x1a_2"),
            ("Self", "self", "self_2"),
            ("extra", "n", "extra_member"),
        ] {
            for closed in [false, true] {
                let mut schema = json!({ "type": "object",
                    "properties": { a: { "type": "string" }, b: {} }, "required": [b] });
                if closed {
                    schema["additionalProperties"] = json!(false);
                }
                let l = lower(&schema, "Input", "", 0);
                assert!(l.fallbacks.is_empty(), "{a} and {b}: {:?}", l.fallbacks);
                let out = &l.schema;
                assert_eq!(
                    out["additionalProperties"],
                    if closed { json!(false) } else { json!({}) },
                    "{out}"
                );
                let members = out["properties"].as_object().expect("typed members");
                let renamed: Vec<(String, String)> = members
                    .keys()
                    .filter_map(|k| renamed_json_name(k).map(|(f, j)| (f.to_owned(), j)))
                    .collect();
                if a == "extra" && closed {
                    // A closed object keeps no map: `extra` is free.
                    assert!(renamed.is_empty(), "{out}");
                    continue;
                }
                assert_eq!(members.len(), 2, "{out}");
                let json = if a == "extra" { a } else { b };
                assert_eq!(renamed, [(field.to_owned(), json.to_owned())], "{out}");
                // `required` names the member as `properties` does.
                let required = out["required"][0].as_str().expect("required");
                assert!(members.contains_key(required), "{out}");
            }
        }
    }

    #[test]
    fn a_node_with_two_anchors_is_named_the_same_in_every_run() {
        // The JSON Schema Test Suite's unmatched dynamic anchor: `items` is an `$anchor` and its
        // node's `$dynamicAnchor` is `foo`. Each lowering indexes the anchors afresh (a hash map
        // was seeded anew each time), so twenty runs must agree.
        let schema = json!({
            "$id": "https://example.invalid/root", "$ref": "list",
            "$defs": {
                "foo": { "$dynamicAnchor": "items", "type": "string" },
                "list": { "$id": "list", "type": "array", "items": { "$dynamicRef": "#items" },
                    "$defs": { "items": { "$anchor": "items", "$dynamicAnchor": "foo" } } }
            }
        });
        let first = lowered(schema.clone());
        assert!(first["definitions"].get("Foo").is_some(), "{first}");
        for _ in 0..20 {
            assert_eq!(lowered(schema.clone()), first);
        }
    }

    #[test]
    fn a_schema_that_writes_a_mark_is_typed_as_json_at_the_place_it_does() {
        for (schema, pointer) in [
            (
                json!({ "properties": { "a@@=&!=@@": {} } }),
                "/properties/a@@=&!=@@",
            ),
            (json!({ "enum": ["x", "@@host-at-0@@"] }), "/enum/1"),
            (json!({ "const": { "k": "@@host-nullable@@" } }), "/const/k"),
            (json!({ "required": ["@@=x"] }), "/required/0"),
            (
                json!({ "allOf": [{}, { "$defs": { "D": { "$ref": "#/x@@host-" } } }] }),
                "/allOf/1/$defs/D/$ref",
            ),
            (
                json!({ "items": { "propertyNames": { "pattern": "^@@=" } } }),
                "/items/propertyNames/pattern",
            ),
            (
                json!({ "dependencies": { "a": ["b@@host-"] } }),
                "/dependencies/a/0",
            ),
            (json!({ "x-vendor": { "@@=k": 1 } }), "/x-vendor/@@=k"),
        ] {
            let l = lower(&schema, "Input", "", 0);
            assert_eq!(l.schema, json!({}), "{schema}");
            assert_eq!(l.fallbacks.len(), 1, "{schema}");
            assert_eq!(l.fallbacks[0].pointer, pointer, "{schema}");
            assert!(l.fallbacks[0].construct.contains("reserves"), "{schema}");
        }
        // Docs may hold it, written apart; a member named `description` is a name like any;
        // `@@` alone opens no mark.
        let schema = json!({
            "title": "@@host-at-0@@", "description": "a@@=b", "default": "@@host-", "examples": ["@@="],
            "$comment": "@@=", "properties": { "@@odd@@": {}, "description": { "enum": ["@@host-x"] } }
        });
        let l = lower(&schema, "Input", "", 0);
        assert_eq!(l.fallbacks[0].pointer, "/properties/description/enum/0");
        let l = lower(
            &json!({ "type": "object", "properties": { "a": {} },
                "title": "@@host-at-0@@", "description": "a@@@b", "default": "@@" }),
            "Input",
            "",
            0,
        );
        assert!(l.fallbacks.is_empty(), "{:?}", l.fallbacks);
        let text = l.schema["description"].as_str().expect("described");
        assert!(!text.contains("@@"), "{text}");
        assert_eq!(
            text.replace('\u{2060}', ""),
            "@@host-at-0@@\n\na@@@b\n\nDefault: `\"@@\"` (not filled in when absent)."
        );
    }

    #[test]
    fn a_member_renamed_in_a_merged_part_is_named_again_for_the_whole() {
        let out = lowered(json!({
            "allOf": [
                { "$ref": "#/$defs/Open" },
                { "type": "object", "properties": { "extra_member": { "type": "integer" } } }
            ],
            "$defs": { "Open": { "type": "object", "properties": { "extra": { "type": "string" } } } }
        }));
        let members = out["properties"].as_object().expect("merged");
        assert_eq!(members.len(), 2, "{out}");
        assert!(members.contains_key("extra_member"), "{out}");
        let renamed: Vec<(&str, String)> = members
            .keys()
            .filter_map(|k| renamed_json_name(k))
            .collect();
        assert_eq!(renamed, [("extra_member_2", "extra".to_owned())], "{out}");
    }

    #[test]
    fn a_union_beside_its_nodes_keywords_leaves_typify_nothing_to_merge() {
        let defs = json!({
            "user": { "type": "object", "properties": { "url": { "type": ["string", "null"] } } },
            "org": { "type": "object", "properties": { "slug": { "type": "string" } } }
        });
        let branches = json!([{ "$ref": "#/$defs/user" }, { "$ref": "#/$defs/org" }]);
        // A `type` each branch keeps to goes: the branches stay references.
        let out = lowered(json!({ "type": ["null", "object"], "anyOf": branches, "$defs": defs }));
        assert!(out.get("type").is_none(), "{out}");
        assert_eq!(
            out["anyOf"][0],
            json!({ "$ref": "#/definitions/User" }),
            "{out}"
        );
        // Members beside the union are merged into each branch, with their marks.
        let out = lowered(json!({
            "properties": { "id": { "type": ["integer", "null"] } },
            "anyOf": branches, "$defs": defs
        }));
        assert!(out.get("properties").is_none(), "{out}");
        for branch in out["anyOf"].as_array().expect("branches") {
            let id = &branch["properties"]["id"];
            assert!(
                id["description"]
                    .as_str()
                    .is_some_and(|d| d.contains(NULLABLE_MARK)),
                "{out}"
            );
            assert_eq!(branch["type"], "object", "{out}");
        }
        assert!(
            out["anyOf"][0]["properties"]["url"]["description"]
                .as_str()
                .is_some_and(|d| d.contains(NULLABLE_MARK)),
            "{out}"
        );
        // A closed node's members merged into branches that only require: an enum of closed
        // objects (as a struct of optional parts, neither part could refuse the other's value).
        let out = lowered(json!({
            "type": "object", "additionalProperties": false,
            "properties": { "name": { "type": "string" }, "kind": { "type": "string" } },
            "anyOf": [
                { "properties": { "name": { "type": "string" } }, "required": ["name"] },
                { "properties": { "kind": { "type": "string" } }, "required": ["kind"] }
            ]
        }));
        assert!(out.get("anyOf").is_none(), "{out}");
        for branch in out["oneOf"].as_array().expect("an enum") {
            assert_eq!(branch["additionalProperties"], false, "{out}");
            assert_eq!(
                branch["properties"].as_object().map(Map::len),
                Some(2),
                "{out}"
            );
        }
        // A branch of another type than the node's is left to typify.
        let out = lowered(
            json!({ "type": "object", "anyOf": [{ "type": "string" }, { "$ref": "#/$defs/org" }], "$defs": defs }),
        );
        assert_eq!(out["type"], "object", "{out}");
    }

    #[test]
    fn copies_of_a_subschema_are_typed_as_the_first() {
        let user = json!({ "title": "User", "type": ["object", "null"],
            "properties": { "login": { "type": "string" } }, "required": ["login"] });
        let state = json!({ "type": "string", "enum": ["open", "closed"] });
        let l = lower(
            &json!({
                "type": "object",
                "properties": {
                    "issue": { "type": "object", "properties": { "user": user, "state": state } },
                    "sender": user,
                    "assignee": user,
                    "state": state
                },
                "required": ["sender"]
            }),
            "Input",
            "",
            0,
        );
        let out = &l.schema;
        let user_ref = json!({ "$ref": "#/definitions/User" });
        assert_eq!(out["properties"]["issue"]["properties"]["user"], user_ref);
        assert_eq!(out["properties"]["sender"], user_ref);
        assert_eq!(out["properties"]["assignee"], user_ref);
        assert_eq!(
            out["properties"]["state"],
            json!({ "$ref": "#/definitions/IssueState" })
        );
        let user = &out["definitions"]["User"];
        assert_eq!(user["properties"]["login"]["type"], "string");
        assert!(
            user["description"]
                .as_str()
                .is_some_and(|d| d.contains("at 3 places")),
            "{user}"
        );
        // `assignee` is optional and may be `null`: a bare reference, named in its object's doc.
        let marks = out["description"].as_str().unwrap_or_default();
        assert!(marks.contains(&member_mark("assignee")), "{out}");
        assert!(!marks.contains(&member_mark("sender")), "{out}");
    }

    #[test]
    fn an_all_of_of_objects_is_one_object_typed_by_the_first_part_naming_each_member() {
        let out = lowered(json!({
            "type": "object",
            "properties": { "own": { "type": "string" } },
            "allOf": [
                { "$ref": "#/$defs/Repository" },
                { "type": "object", "properties": {
                    "language": { "type": ["null"] }, "id": { "type": "integer" },
                    "fork": { "type": "boolean" } }, "required": ["fork"] }
            ],
            "$defs": { "Repository": { "type": ["object", "null"],
                "properties": { "language": { "type": ["string", "null"] }, "id": { "type": "integer" } },
                "required": ["id"] } }
        }));
        assert!(out.get("allOf").is_none(), "{out}");
        assert_eq!(out["type"], "object", "not every part takes null: {out}");
        let members = &out["properties"];
        assert_eq!(members["own"]["type"], "string");
        assert_eq!(members["language"]["type"], json!(["string", "null"]));
        assert_eq!(members["id"]["type"], "integer");
        assert_eq!(members["fork"]["type"], "boolean");
        assert_eq!(out["required"], json!(["id", "fork"]));
        // The member that may be `null` keeps its mark.
        assert!(
            members["language"]["description"]
                .as_str()
                .is_some_and(|d| d.contains(NULLABLE_MARK)),
            "{out}"
        );
    }

    #[test]
    fn an_all_of_with_a_part_that_is_no_plain_object_is_left_to_typify() {
        let out = lowered(json!({
            "allOf": [
                { "type": "object", "properties": { "a": { "type": "string" } } },
                { "anyOf": [{ "required": ["a"] }, { "type": "object", "properties": { "b": {} } }] }
            ]
        }));
        assert!(out.get("allOf").is_some(), "{out}");
        let strings_too = lowered(json!({
            "allOf": [
                { "type": ["object", "string"], "properties": { "a": { "type": "string" } } },
                { "type": ["object", "string"], "properties": { "b": { "type": "string" } } }
            ]
        }));
        assert!(strings_too.get("allOf").is_some(), "{strings_too}");
        let recursive = lowered(json!({
            "$defs": { "Node": { "allOf": [{ "$ref": "#/$defs/Node" },
                { "type": "object", "properties": { "n": { "type": "integer" } } }] } },
            "type": "object", "properties": { "node": { "$ref": "#/$defs/Node" } }
        }));
        assert!(
            recursive["definitions"]["Node"].get("allOf").is_some(),
            "{recursive}"
        );
    }

    #[test]
    fn a_union_of_branches_that_only_require_members_is_left_to_the_validator() {
        let out = lowered(json!({
            "type": "object",
            "properties": { "tools": { "type": "array" }, "commands": { "type": "array" } },
            "additionalProperties": false,
            "anyOf": [{ "required": ["tools"] }, { "required": ["commands"] }]
        }));
        assert!(
            out.get("anyOf").is_none() && out.get("oneOf").is_none(),
            "{out}"
        );
        assert_eq!(out["additionalProperties"], json!(false), "{out}");
        // A branch that also shapes a member, or of another type, is not such a branch.
        let object = Some("object");
        assert!(only_requires(
            &json!({ "type": "object", "required": ["a"] }),
            object
        ));
        assert!(!only_requires(
            &json!({ "type": "object", "required": ["a"], "properties": { "a": {} } }),
            object
        ));
        assert!(!only_requires(
            &json!({ "type": "object", "required": ["a"] }),
            None
        ));
        assert!(!only_requires(&json!({ "type": "object" }), object));
    }

    #[test]
    fn ref_beside_shape_keywords_is_all_of() {
        let out = lowered(json!({
            "$defs": { "A": { "type": "object", "properties": { "a": { "type": "integer" } } } },
            "$ref": "#/$defs/A",
            "properties": { "b": { "type": "string" } },
            "description": "both"
        }));
        assert_eq!(out["allOf"][0], json!({ "$ref": "#/definitions/A" }));
        assert_eq!(out["allOf"][1]["properties"]["b"]["type"], "string");
    }

    #[test]
    fn a_description_is_title_description_default_then_what_the_pass_adds() {
        let out = lowered(json!({
            "title": "Query",
            "description": "What to look for.",
            "default": { "q": "" },
            "type": "object",
            "properties": {
                "next": { "$ref": "#/$defs/Page" },
                "n": { "type": ["string", "null"], "description": "Kept." }
            },
            "$defs": { "Page": { "type": ["object", "null"] } }
        }));
        let default = "Default: `{\"q\":\"\"}` (not filled in when absent).";
        assert_eq!(
            out["description"],
            format!(
                "Query\n\nWhat to look for.\n\n{default}\n\n{}",
                member_mark("next")
            )
        );
        assert_eq!(
            out["properties"]["n"]["description"],
            format!("Kept.\n\n{NULLABLE_MARK}")
        );
    }
}
