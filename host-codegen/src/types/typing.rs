//! Running typify on one schema module: its roots lowered (`crate::lower`), handed to typify, and
//! what typify makes of them, or why it made nothing.
//!
//! Separate from [`super::rewrite`] because the two fail differently: typify may refuse a schema,
//! panic on it, or give two types one name, and this module decides what to try next (lower again
//! with more names reserved, type a root again without its descriptions, or make it a JSON value),
//! while the rewrite is a plain pass over tokens that always succeeds. Separate from [`super`]
//! because that module deals out modules to threads and splices their text; this one types one.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::quote;
use serde_json::Value;

use super::rewrite::{rewrite, without_nullable_marks};
use super::{nested, shared};
use crate::sentinels::{member_marks, origin_placeholder};

/// One module's typing: its text, why it could not be typed at all (with the root that failed), and
/// the nodes left untyped.
#[derive(Clone)]
pub(super) struct Typed {
    /// The module's items by the type each is of ([`shared::split`]); their texts, in order, are
    /// the module's text ([`Typed::text`]).
    pub groups: Vec<shared::Named>,
    /// Why the module could not be typed at all, with the index of the root that failed.
    pub failed: Option<(usize, String)>,
    /// Each with the index of the root it is in; its pointer is from that root.
    pub fallbacks: Vec<(usize, crate::lower::Fallback)>,
}

impl Typed {
    /// The module's items as text.
    pub(super) fn text(&self) -> String {
        let groups: Vec<&str> = self.groups.iter().map(|g| g.text.as_str()).collect();
        groups.join(" ")
    }
}

/// How many times a module is lowered again with more names kept from its definitions.
const NAMING_ROUNDS: usize = 4;

/// Types one module's roots and renders the rewritten items as text.
///
/// typify names the types it makes for nested schemas after their parents (`InputUser`,
/// `UserTagsItem`) without looking at the names of the definitions it is given, so a definition
/// named like a nested type would take its place ([`nested`]). Then the module is lowered again
/// with those names kept from the definitions, until no definition has one.
pub(super) fn render(roots: &[(&Value, &'static str)]) -> Typed {
    let mut reserved = std::collections::BTreeSet::new();
    for _ in 0..NAMING_ROUNDS {
        let lowered = lower_roots(roots, &reserved);
        let clashing = nested::clashing(
            lowered
                .0
                .iter()
                .filter(|(_, _, same, untyped)| same.is_none() && untyped.is_none())
                .map(|(schema, root, _, _)| (schema, *root)),
        );
        if !clashing.is_empty() {
            reserved.extend(clashing);
            continue;
        }
        match type_lowered(lowered) {
            Ok(typed) => return typed,
            Err(names) => reserved.extend(names),
        }
    }
    let names: Vec<String> = reserved.into_iter().collect();
    Typed {
        groups: Vec::new(),
        failed: Some((
            0,
            format!("typify named several types alike: {}", names.join(", ")),
        )),
        fallbacks: Vec::new(),
    }
}

/// Lowers one module's roots, keeping the names in `reserved` from their definitions.
fn lower_roots(
    roots: &[(&Value, &'static str)],
    reserved: &std::collections::BTreeSet<String>,
) -> (Vec<LoweredRoot>, Vec<(usize, crate::lower::Fallback)>) {
    let mut fallbacks = Vec::new();
    let mut lowered = Vec::new();
    for (i, (schema, root)) in roots.iter().enumerate() {
        // A root equal to an earlier one (a procedure whose output is its input) is that type.
        if let Some((_, same)) = roots[..i].iter().find(|(s, _)| s == schema) {
            lowered.push((Value::Null, *root, Some(*same), None));
            continue;
        }
        let prefix = if i == 0 { "" } else { root };
        let mut l = crate::lower::lower_reserving(schema, root, prefix, i, reserved);
        fallbacks.extend(l.fallbacks.into_iter().map(|f| (i, f)));
        // The root's doc says what it is and where: on its definition when it is recursive.
        let recursive = l.schema.get("$ref").is_some();
        let target = if recursive {
            l.schema
                .get_mut("definitions")
                .and_then(|d| d.get_mut(*root))
        } else {
            Some(&mut l.schema)
        };
        if let Some(Value::Object(map)) = target
            && !map.is_empty()
        {
            crate::lower::add_to_description(map, &origin_placeholder(i));
        }
        lowered.push((l.schema, *root, None, None));
    }
    (lowered, fallbacks)
}

/// Types lowered roots, falling back root by root where typify cannot type one. `Err` holds the
/// names typify gave to more than one type.
fn type_lowered(
    (mut lowered, mut fallbacks): (Vec<LoweredRoot>, Vec<(usize, crate::lower::Fallback)>),
) -> Result<Typed, Vec<String>> {
    // typify may fail (or panic) on a schema the engine accepts: then that root is typed again
    // without its descriptions (the failures seen come from typify's merging of `allOf` with
    // documented branches), and failing that it becomes a JSON value, validated by the runtime as
    // before. Either is a warning naming the root; the rest of the module stays typed.
    let mut retried = vec![false; lowered.len()];
    loop {
        match typify_items(&lowered) {
            Ok(items) => {
                return Ok(Typed {
                    groups: shared::split(items, without_nullable_marks),
                    failed: None,
                    fallbacks,
                });
            }
            Err(TypifyFailure::Unreadable(root, why)) => {
                return Ok(Typed {
                    groups: Vec::new(),
                    failed: Some((root, why)),
                    fallbacks: Vec::new(),
                });
            }
            Err(TypifyFailure::NamedAlike(names)) => return Err(names),
            Err(TypifyFailure::Typify(root, why)) => {
                let Some(entry) = lowered.get_mut(root) else {
                    return Ok(Typed {
                        groups: Vec::new(),
                        failed: Some((root, why)),
                        fallbacks: Vec::new(),
                    });
                };
                let construct = if retried[root] {
                    entry.0 = Value::Null;
                    entry.2 = None;
                    entry.3 = Some(why.clone());
                    // What was said of its nodes no longer applies.
                    fallbacks.retain(|(r, _)| *r != root);
                    format!(
                        "the type generator (typify) cannot type this schema ({why}): `{}` is a JSON value (a `serde_json::Value` newtype), still validated against the schema by the runtime; this is a bug in the generator, please report it with the schema",
                        entry.1
                    )
                } else {
                    retried[root] = true;
                    strip_docs(&mut entry.0);
                    format!(
                        "the type generator (typify) cannot type this schema with its descriptions ({why}): typed without them, so its types carry no docs from the schema; this is a bug in the generator, please report it with the schema"
                    )
                };
                fallbacks.push((
                    root,
                    crate::lower::Fallback {
                        pointer: String::new(),
                        construct,
                    },
                ));
            }
        }
    }
}

/// Drops `description` and `title` from every schema node of a lowered schema (not from member
/// names or values).
fn strip_docs(node: &mut Value) {
    let Value::Object(map) = node else { return };
    map.remove("title");
    // A member marked as one that may be `null` keeps its mark, and only that.
    let mark = crate::sentinels::NULLABLE_MARK;
    if let Some(Value::String(d)) = map.remove("description") {
        let mut kept = String::new();
        if d.contains(mark) {
            kept.push_str(mark);
        }
        for (whole, _) in member_marks(&d) {
            kept.push_str(whole);
        }
        if !kept.is_empty() {
            map.insert("description".to_owned(), Value::String(kept));
        }
    }
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "properties" | "definitions" | "$defs" | "patternProperties" => {
                if let Value::Object(children) = value {
                    children.values_mut().for_each(strip_docs);
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(children) = value {
                    children.iter_mut().for_each(strip_docs);
                }
            }
            "items" => match value {
                Value::Array(children) => children.iter_mut().for_each(strip_docs),
                other => strip_docs(other),
            },
            "additionalProperties"
            | "additionalItems"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames" => strip_docs(value),
            _ => {}
        }
    }
}

/// A lowered root: its schema, its type name, the earlier root it equals, and, once typify gave
/// up on it, why (it is then a JSON value).
type LoweredRoot = (Value, &'static str, Option<&'static str>, Option<String>);

/// Why typify produced no items for a module, with the root it happened in.
#[derive(Debug)]
enum TypifyFailure {
    /// The schema is no schema schemars can read (the engine reports it already).
    Unreadable(usize, String),
    /// typify returned an error or panicked.
    Typify(usize, String),
    /// typify gave these names to more than one type.
    NamedAlike(Vec<String>),
}

/// The message of a panic caught while typing.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned());
    match text {
        Some(text) => format!("typify stopped: {text}"),
        None => "typify stopped".to_owned(),
    }
}

/// The type of a root typify could not type: the JSON value as it was sent, in a newtype that
/// says so in its docs. Written as typify writes (`::serde`, `::serde_json`): [`rewrite`] reroots
/// it with typify's own items.
fn untyped_root(root: &str, index: usize, why: &str) -> TokenStream {
    let name = Ident::new(root, Span::call_site());
    let origin = format!(" {}", origin_placeholder(index));
    let doc = format!(
        " Untyped: the SDK's type generator could not derive a Rust type from this schema ({why}), so the value is the JSON as it was sent. The runtime still validates it against the schema, so it is a valid instance; read it with `serde_json` (`.0`), or deserialize it into a type of your own."
    );
    quote! {
        #[doc = #origin]
        #[doc = ""]
        #[doc = #doc]
        #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
        #[serde(transparent)]
        pub struct #name(
            /// The value as JSON.
            pub ::serde_json::Value,
        );
        impl ::std::convert::From<::serde_json::Value> for #name {
            fn from(value: ::serde_json::Value) -> Self {
                Self(value)
            }
        }
        impl ::std::convert::From<#name> for ::serde_json::Value {
            fn from(value: #name) -> Self {
                value.0
            }
        }
    }
}

/// Types lowered roots: `(schema, name, Some(earlier), _)` is an alias of an earlier root,
/// `(_, name, _, Some(why))` a JSON value ([`untyped_root`]). A failure names the index of the root
/// it happened in.
fn typify_items(roots: &[LoweredRoot]) -> Result<TokenStream, TypifyFailure> {
    let mut parsed = Vec::new();
    let mut same = TokenStream::new();
    for (i, (schema, root, earlier, untyped)) in roots.iter().enumerate() {
        if let Some(why) = untyped {
            same.extend(untyped_root(root, i, why));
            continue;
        }
        if let Some(earlier) = earlier {
            let (name, earlier) = (
                Ident::new(root, Span::call_site()),
                Ident::new(earlier, Span::call_site()),
            );
            let doc = format!(" The same schema as [`{earlier}`].");
            same.extend(quote! { #[doc = #doc] pub type #name = #earlier; });
            continue;
        }
        let root_schema: schemars::schema::RootSchema = serde_json::from_value(schema.clone())
            .map_err(|e| TypifyFailure::Unreadable(i, format!("the schema cannot be read: {e}")))?;
        parsed.push((i, root_schema, *root));
    }
    let mut settings = typify::TypeSpaceSettings::default();
    settings.with_struct_builder(false);
    let mut space = typify::TypeSpace::new(&settings);
    // typify may panic on a schema it does not support: that becomes a located error, not a crash
    // of the compiler. `current` is the root being typed when it happens.
    let mut current = 0;
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut aliases = TokenStream::new();
        for (i, root_schema, root) in parsed {
            current = i;
            let failed = |e: typify::Error| TypifyFailure::Typify(i, e.to_string());
            space
                .add_ref_types(root_schema.definitions.clone())
                .map_err(failed)?;
            let id = space
                .add_type_with_name(
                    &schemars::schema::Schema::Object(root_schema.schema.clone()),
                    Some(root.to_owned()),
                )
                .map_err(failed)?;
            // A root that is no struct or enum of its own (a map, a list, a string, `null`, any JSON)
            // still gets its fixed name.
            let ident = space.get_type(&id).map_err(failed)?.ident();
            if ident.to_string() != root {
                let name = Ident::new(root, Span::call_site());
                let description = root_schema
                    .schema
                    .metadata
                    .as_ref()
                    .and_then(|m| m.description.clone());
                let doc = match description {
                    Some(d) => format!(" {}", d.replace('\n', "\n ")),
                    None => format!(" {}", origin_placeholder(i)),
                };
                aliases.extend(quote! {
                    #[doc = #doc]
                    pub type #name = #ident;
                });
            }
        }
        current = 0;
        let mut stream = space.to_stream();
        let alike = names_given_twice(&stream);
        if !alike.is_empty() {
            return Err(TypifyFailure::NamedAlike(alike));
        }
        stream.extend(aliases);
        stream.extend(same);
        Ok::<_, TypifyFailure>(rewrite(stream))
    }))
    .map_err(|payload| TypifyFailure::Typify(current, panic_message(payload.as_ref())))??;
    Ok(generated)
}

/// The names of the items (`struct`, `enum`, `type`) that `stream` defines more than once.
fn names_given_twice(stream: &TokenStream) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut twice = std::collections::BTreeSet::new();
    let mut tokens = stream.clone().into_iter().peekable();
    while let Some(t) = tokens.next() {
        if let TokenTree::Ident(kw) = &t
            && (kw == "struct" || kw == "enum" || kw == "type")
            && let Some(TokenTree::Ident(name)) = tokens.peek()
        {
            let name = name.to_string();
            if !seen.insert(name.clone()) {
                twice.insert(name);
            }
        }
    }
    twice.into_iter().collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    /// One schema typed as the root `Input` of a module, as text: what the tests of the typing and
    /// of the rewrite read.
    pub(in crate::types) fn render_one(schema: Value) -> String {
        let typed = render(&[(&schema, "Input")]);
        assert_eq!(typed.failed, None);
        typed.text()
    }

    #[test]
    fn defs_are_read_as_definitions() {
        let out = render_one(json!({
            "type": "object",
            "properties": { "a": { "$ref": "#/$defs/Thing" } },
            "$defs": { "Thing": { "type": "object", "properties": { "b": { "type": "number" } } } }
        }));
        assert!(out.contains("pub struct Thing"), "{out}");
    }

    #[test]
    fn a_titled_root_keeps_its_fixed_name() {
        let out = render_one(
            json!({ "title": "Report query", "type": "object", "properties": { "m": { "type": "object" } } }),
        );
        assert!(out.contains("pub struct Input"), "{out}");
        assert!(out.contains("Report query"), "{out}");
        assert!(
            !out.contains("\"::serde_json::"),
            "paths in serde attributes are rerooted: {out}"
        );
    }

    #[test]
    fn a_panic_in_typify_is_a_failure_of_the_root_it_typed() {
        let fine = json!({ "type": "string" });
        let panics = json!({ "$ref": "#/definitions/absent" });
        let roots = [(fine, "Input", None, None), (panics, "Output", None, None)];
        let failure = typify_items(&roots).expect_err("typify cannot type it");
        let TypifyFailure::Typify(root, message) = failure else {
            panic!("{failure:?}")
        };
        assert_eq!(root, 1);
        assert!(message.starts_with("typify stopped: "), "{message}");
    }

    #[test]
    fn a_schema_typify_panics_on_is_typed_without_its_descriptions() {
        // typify 0.8 asserts `merged_schema.metadata.is_none()` here (see UPSTREAM.md).
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {
                    "anyOf": [{ "type": ["object", "string"] }],
                    "properties": { "t": { "$ref": "#/$defs/T", "description": "d" } },
                    "required": ["t"]
                }
            },
            "$defs": { "T": {} }
        });
        let typed = render(&[(&schema, "Input")]);
        assert_eq!(typed.failed, None);
        assert!(
            typed.text().contains("pub struct Input"),
            "{}",
            typed.text()
        );
        let [(0, fallback)] = typed.fallbacks.as_slice() else {
            panic!("{:?}", typed.fallbacks)
        };
        assert_eq!(fallback.pointer, "");
        assert!(
            fallback
                .construct
                .contains("merged_schema.metadata.is_none()")
                && fallback.construct.contains("typed without them"),
            "{}",
            fallback.construct
        );
    }

    #[test]
    fn copies_of_a_subschema_are_one_type_and_a_nullable_copy_stays_nullable() {
        let user = json!({ "title": "User", "type": ["object", "null"],
            "properties": { "login": { "type": "string" }, "+1": { "type": "integer" },
                "-1": { "type": "integer" } },
            "required": ["login"] });
        let out = render_one(json!({
            "type": "object",
            "properties": { "sender": user, "assignee": user,
                "issue": { "type": "object", "properties": { "user": user } } },
            "required": ["sender"]
        }));
        // typify types a definition that may be `null` as a newtype over an `Option`.
        assert_eq!(out.matches("pub struct User ").count(), 1, "{out}");
        assert_eq!(out.matches("pub struct UserInner ").count(), 1, "{out}");
        assert_eq!(out.matches("pub struct").count(), 4, "{out}");
        assert!(
            out.contains("pub plus1 :") && out.contains("pub minus1 :"),
            "{out}"
        );
        let field = |name: &str| {
            let at = out.find(&format!("pub {name} :")).expect(name);
            let end = out[at..].find(',').map_or(out.len(), |e| at + e);
            out[at..end].to_owned()
        };
        assert!(
            field("assignee").contains("Nullable < User >"),
            "{}",
            field("assignee")
        );
        // An object whose only doc was the mark of its nullable member still says where it is.
        assert!(out.contains("The member `issue`"), "{out}");
        assert!(!field("sender").contains("Nullable"), "{}", field("sender"));
    }

    #[test]
    fn a_definition_named_like_a_nested_type_is_renamed() {
        // typify names the object at `/properties/foo` `InputFoo`, as the lowering pass first
        // names the definition `InputFoo`.
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "foo": { "type": "object", "properties": { "a": { "type": "string" } } },
                "bar": { "$ref": "#/$defs/InputFoo" }
            },
            "$defs": { "InputFoo": { "type": "object", "properties": { "b": { "type": "integer" } } } }
        }));
        assert_eq!(out.matches("pub struct InputFoo ").count(), 1, "{out}");
        assert!(out.contains("pub struct InputFoo2 "), "{out}");
        assert!(
            out.contains("pub bar : :: std :: option :: Option < InputFoo2 >"),
            "{out}"
        );
    }

    #[test]
    fn a_union_with_a_branch_written_twice_is_an_enum_that_takes_strings() {
        // The shape of a published MCP server's `children` (Notion's `API-post-page`).
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "children": {
                    "type": "array",
                    "items": { "anyOf": [
                        { "type": "string" }, { "type": "string" },
                        { "type": "object", "additionalProperties": true }
                    ] }
                }
            }
        }));
        assert!(out.contains("pub enum InputChildrenItem"), "{out}");
        assert!(out.contains("String (:: std :: string :: String)"), "{out}");
    }

    #[test]
    fn a_union_of_objects_and_a_string_is_an_enum_that_takes_strings() {
        // Notion's `API-patch-block-children` `children`, and its `rich_text` items.
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "children": { "type": "array", "items": { "anyOf": [
                    { "$ref": "#/$defs/Block" },
                    { "type": "string" },
                    { "type": "object", "additionalProperties": true }
                ] } },
                "rich_text": { "type": "array", "items": { "anyOf": [
                    {
                        "type": "object",
                        "properties": { "text": { "type": "string" } },
                        "required": ["text"],
                        "additionalProperties": true
                    },
                    { "type": "string" },
                    { "type": "object", "additionalProperties": true }
                ] } }
            },
            "$defs": { "Block": { "anyOf": [
                { "type": "object", "properties": { "p": { "type": "string" } }, "additionalProperties": false },
                { "type": "object", "properties": { "q": { "type": "string" } }, "additionalProperties": false }
            ] } }
        }));
        for name in ["InputChildrenItem", "InputRichTextItem"] {
            let at = out
                .find(&format!("pub enum {name}"))
                .unwrap_or_else(|| panic!("{name} is no enum: {out}"));
            let body = &out[at..at + out[at..].find("impl").unwrap_or(out.len() - at)];
            assert!(body.contains("(:: std :: string :: String)"), "{body}");
        }
    }

    #[test]
    fn a_schema_typed_without_descriptions_keeps_null_apart_from_absent() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {
                    "anyOf": [{ "type": ["object", "string"] }],
                    "properties": { "t": { "$ref": "#/$defs/T", "description": "d" } },
                    "required": ["t"]
                },
                "n": { "type": ["string", "null"], "description": "Kept apart." }
            },
            "$defs": { "T": {} }
        });
        let typed = render(&[(&schema, "Input")]);
        assert_eq!(typed.fallbacks.len(), 1, "{:?}", typed.fallbacks);
        assert!(
            typed.text().contains(&format!(
                "pub n : :: host_runtime :: {} :: Nullable <",
                crate::runtime::MODULE
            )),
            "{}",
            typed.text()
        );
        assert!(!typed.text().contains("Kept apart."), "{}", typed.text());
    }

    #[test]
    fn a_root_typify_cannot_type_at_all_is_a_json_newtype_and_the_others_stay_typed() {
        let fine = json!({ "type": "object", "properties": { "x": { "type": "integer" } } });
        // typify panics on a reference to no definition, with or without descriptions.
        let panics = json!({ "$ref": "#/definitions/absent" });
        let typed = type_lowered((
            vec![(fine, "Input", None, None), (panics, "Output", None, None)],
            Vec::new(),
        ))
        .expect("no two types named alike");
        assert_eq!(typed.failed, None);
        let text = crate::expansion::pretty(&typed.text());
        assert!(text.contains("pub struct Input {"), "{text}");
        let newtype = &text[text.find("pub struct Output(").expect(&text)..];
        assert!(
            newtype.contains(&format!(
                "pub {}::serde_json::Value,\n);",
                crate::runtime::PATH
            )),
            "{text}"
        );
        assert!(text.contains("Untyped: the SDK's type generator"), "{text}");
        let messages: Vec<&str> = typed
            .fallbacks
            .iter()
            .filter(|(root, _)| *root == 1)
            .map(|(_, f)| f.construct.as_str())
            .collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].contains("is a JSON value") && messages[0].contains("typify stopped"),
            "{messages:?}"
        );
    }
}
