//! Rust types from the JSON Schemas a manifest embeds, through `typify`, rewritten so that the code
//! needs no dependency in the vendor's crate but `host-runtime`.
//!
//! Each schema becomes one module of its own (`tools::keyword_ranks`), whose root type has a fixed name
//! (`Input`, `Output`, `Payload`, `Document`, `Settings`); typify names nested types after it.
//!
//! Speed matters here: the macro runs in debug builds and a manifest at every limit embeds about 120
//! schemas, which typify turns into a megabyte of code. So the schemas are typed on worker threads,
//! typify's output is rewritten token by token (parsing it into a syntax tree cost more than typify
//! itself), and each module stays text: the generator leaves a marker where it goes and the final
//! text is read once, by the compiler's own lexer.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::quote;
use serde_json::Value;

use crate::sentinels::{CLOSE, MODULE_MARKER, OPEN, origin_placeholder};

mod nested;
mod shared;

/// The crates typify's output refers to, re-exported by the runtime's hidden module ([`crate::runtime`]).
/// (The lowering pass drops `format` and `pattern`, so typify no longer writes `chrono`, `uuid` or
/// `regress` paths.)
const REEXPORTED: [&str; 2] = ["serde", "serde_json"];

/// One schema module to type: its roots (schema, fixed type name).
pub(crate) struct Job<'a> {
    /// Where the module goes, for looking the result up.
    pub key: String,
    /// The schemas, their root type names and where each sits in the manifest (a JSON pointer).
    pub roots: Vec<(&'a Value, &'static str, String)>,
    /// What each root is, for its doc (`The input of the tool `greet``).
    pub origins: Vec<String>,
}

/// A string for the inside of a Rust string literal.
fn literal_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The schemas of one module with their root type names.
type Roots<'a> = Vec<(&'a Value, &'static str)>;

/// What stands for one schema module in the generated code, with what typing it found.
pub(crate) struct Items {
    /// The module's items (a marker for [`Types::splice`]).
    pub tokens: TokenStream,
    /// Nodes typed as `serde_json::Value`: `(absolute pointer, what could not be typed)`.
    pub fallbacks: Vec<(String, String)>,
    /// The schema could not be typed at all: `(pointer of its root, message)`.
    pub failed: Option<(String, String)>,
}

/// The message of a schema that could not be typed at all.
fn failure(why: &str) -> String {
    format!(
        "no Rust type could be generated for this schema ({why}); this is a bug in the SDK's generator, please report it with the schema. Meanwhile, a schema written more simply (or `{{}}`, typed as `serde_json::Value`) compiles"
    )
}

/// One module's typing: its text, why it could not be typed at all (with the root that failed), and
/// the nodes left untyped.
#[derive(Clone)]
struct Typed {
    /// The module's items by the type each is of ([`shared::split`]); their texts, in order, are
    /// the module's text ([`Typed::text`]).
    groups: Vec<shared::Named>,
    failed: Option<(usize, String)>,
    /// Each with the index of the root it is in; its pointer is from that root.
    fallbacks: Vec<(usize, crate::lower::Fallback)>,
}

/// Typed schema modules, by job key, as text.
pub(crate) struct Types {
    done: HashMap<String, Typed>,
    /// The types several modules have alike, written once in `shared`.
    sharing: shared::Sharing,
    /// Where each job's roots sit in the manifest: modules with equal schemas share one typing.
    pointers: HashMap<String, Vec<String>>,
    /// What each job's roots are, for their docs.
    origins: HashMap<String, Vec<String>>,
}

impl Types {
    /// Types every job, spread over the machine's cores. Jobs with identical schemas (thirty
    /// procedures taking `{}` are common) are typed once.
    pub(crate) fn build(jobs: Vec<Job<'_>>) -> Types {
        // (signature, roots, every key that shares them)
        let mut unique: Vec<(String, Roots<'_>, Vec<String>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut pointers = HashMap::new();
        let mut origins = HashMap::new();
        for job in jobs {
            origins.insert(job.key.clone(), job.origins);
            let signature = job
                .roots
                .iter()
                .map(|(schema, root, _)| format!("{root}={schema}"))
                .collect::<Vec<_>>()
                .join("\u{1}");
            let roots: Roots<'_> = job.roots.iter().map(|(s, r, _)| (*s, *r)).collect();
            pointers.insert(
                job.key.clone(),
                job.roots.into_iter().map(|(_, _, p)| p).collect(),
            );
            match index.get(&signature) {
                Some(&i) => unique[i].2.push(job.key),
                None => {
                    index.insert(signature.clone(), unique.len());
                    unique.push((signature, roots, vec![job.key]));
                }
            }
        }
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(unique.len().max(1));
        // Deal the largest first so the threads finish together.
        unique.sort_by_key(|(signature, _, _)| std::cmp::Reverse(signature.len()));
        let mut chunks: Vec<Vec<(Roots<'_>, Vec<String>)>> =
            (0..threads).map(|_| Vec::new()).collect();
        for (i, (_, roots, keys)) in unique.into_iter().enumerate() {
            chunks[i % threads].push((roots, keys));
        }
        let mut done = HashMap::new();
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .into_iter()
                .map(|chunk| {
                    scope.spawn(move || {
                        chunk
                            .into_iter()
                            .map(|(roots, keys)| (keys, render(&roots)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for handle in handles {
                let Ok(results) = handle.join() else { continue };
                for (keys, result) in results {
                    for key in keys {
                        done.insert(key, result.clone());
                    }
                }
            }
        });
        let modules: std::collections::BTreeMap<&str, &[shared::Named]> = done
            .iter()
            .filter(|(_, t)| t.failed.is_none())
            .map(|(key, t)| (key.as_str(), t.groups.as_slice()))
            .collect();
        let sharing = shared::share(&modules);
        Types {
            done,
            sharing,
            pointers,
            origins,
        }
    }

    /// What stands for the module `shared` in the generated tokens, at the top level: a marker that
    /// [`Types::splice`] replaces with the module, or with nothing when no type is shared.
    pub(crate) fn shared_module(&self) -> TokenStream {
        let marker = marker("");
        quote!(#marker)
    }

    /// What stands for the module `key` in the generated tokens: a marker that [`Types::splice`]
    /// replaces with the module's text, or, when typing failed, `serde_json::Value` aliases for the
    /// roots and a located error.
    pub(crate) fn items(&self, key: &str, roots: &[&str]) -> Items {
        let at = |root: usize| {
            self.pointers
                .get(key)
                .and_then(|p| p.get(root))
                .cloned()
                .unwrap_or_default()
        };
        match self.done.get(key) {
            Some(Typed {
                failed: None,
                fallbacks,
                ..
            }) => Items {
                tokens: {
                    let marker = marker(key);
                    quote!(#marker)
                },
                fallbacks: fallbacks
                    .iter()
                    .map(|(root, f)| (format!("{}{}", at(*root), f.pointer), f.construct.clone()))
                    .collect(),
                failed: None,
            },
            Some(Typed {
                failed: Some((root, why)),
                ..
            }) => Items {
                tokens: untyped(roots),
                fallbacks: Vec::new(),
                failed: Some((at(*root), failure(why))),
            },
            None => Items {
                tokens: untyped(roots),
                fallbacks: Vec::new(),
                failed: Some((at(0), failure("the type generator stopped unexpectedly"))),
            },
        }
    }

    /// Replaces each marker in `text` (the generated tokens as text) with its module's items, in one
    /// pass over the text.
    pub(crate) fn splice(&self, text: String) -> String {
        let mut by_marker: HashMap<String, String> = self
            .done
            .iter()
            .filter(|(_, t)| t.failed.is_none())
            .map(|(key, t)| {
                (
                    marker(key).to_string(),
                    self.placed(key, &self.local(key, t)),
                )
            })
            .collect();
        by_marker.insert(marker("").to_string(), self.shared_text());
        let mut out =
            String::with_capacity(text.len() + by_marker.values().map(|t| t.len()).sum::<usize>());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(MODULE_MARKER) {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            let name = &tail[..end];
            out.push_str(by_marker.get(name).map_or(name, String::as_str));
            rest = &tail[end..];
        }
        out.push_str(rest);
        out
    }
}

impl Typed {
    /// The module's items as text.
    fn text(&self) -> String {
        let groups: Vec<&str> = self.groups.iter().map(|g| g.text.as_str()).collect();
        groups.join(" ")
    }
}

impl Types {
    /// The text of module `key` (typed as `t`): its own items, and a `pub use` of those `shared`
    /// holds for it.
    fn local(&self, key: &str, t: &Typed) -> String {
        let Some(shared) = self.sharing.by_module.get(key) else {
            return t.text();
        };
        let mut text = String::new();
        for g in &t.groups {
            if !shared.iter().any(|(local, _)| *local == g.name) {
                text.push_str(&g.text);
                text.push(' ');
            }
        }
        let up = "super::".repeat(key.split('/').count());
        let names: Vec<String> = shared
            .iter()
            .map(|(local, name)| match local == name {
                true => name.clone(),
                false => format!("{name} as {local}"),
            })
            .collect();
        text.push_str(&format!(
            "#[doc(inline)] pub use {up}shared::{{{}}};",
            names.join(", ")
        ));
        text
    }

    /// The module `shared`, with each shared type written from the first module that has it, and
    /// a doc line naming every module that has it; empty when no type is shared.
    fn shared_text(&self) -> String {
        if self.sharing.shared.is_empty() {
            return String::new();
        }
        let mut items = String::new();
        for (name, shared) in &self.sharing.shared {
            let mut paths: Vec<String> = shared
                .places
                .iter()
                .map(|(key, local)| match local == name {
                    true => format!("`{}`", module_path(key)),
                    false => format!("`{}` (as `{local}`)", module_path(key)),
                })
                .collect();
            let last = paths.pop().unwrap_or_default();
            let line = format!(
                " The same type in {} and {last}: their schemas define it alike, so it is written \
                 once here and each of those modules names it.",
                paths.join(", ")
            );
            let (docs, rest) = shared.text.split_at(shared.docs_end.min(shared.text.len()));
            let blank = if docs.is_empty() { "" } else { "#[doc = \"\"]" };
            let text = format!("{docs} {blank} #[doc = \"{}\"] {rest}", literal_text(&line));
            items.push_str(&self.placed(&shared.first, &text));
            items.push(' ');
        }
        let doc = literal_text(
            " Types that several of the manifest's schemas define alike, each written once. Every \
             module whose schema has one names it with a `pub use`, at the path it would have on its \
             own, so one function can take the type from each of them.",
        );
        format!(
            "#[doc = \"{doc}\"] #[allow(clippy::all, clippy::pedantic, clippy::nursery, unreachable_pub)] pub mod shared {{ {items} }}"
        )
    }

    /// A module's text with the pointers and origins of the job `key` in its docs.
    fn placed(&self, key: &str, text: &str) -> String {
        if !text.contains(OPEN) {
            return text.to_owned();
        }
        let mut text = text.to_owned();
        let pointers = self.pointers.get(key).map_or(&[][..], Vec::as_slice);
        let origins = self.origins.get(key).map_or(&[][..], Vec::as_slice);
        for (i, pointer) in pointers.iter().enumerate() {
            let origin = origins.get(i).map_or("The value", String::as_str);
            let line = format!("{origin}, typed from the schema at `{pointer}` in the manifest.");
            text = text
                .replace(&origin_placeholder(i), &literal_text(&line))
                .replace(&crate::sentinels::at_placeholder(i), &literal_text(pointer));
        }
        text
    }
}

/// The Rust path of the module of job `key` (`procedures/list-items` is `procedures::list_items`).
fn module_path(key: &str) -> String {
    key.split('/')
        .enumerate()
        .map(|(i, part)| match i {
            0 => part.to_owned(),
            _ => crate::names::ident(&crate::names::snake(part)).to_string(),
        })
        .collect::<Vec<_>>()
        .join("::")
}

/// A marker identifier unique to a job key.
fn marker(key: &str) -> Ident {
    let mut name = String::from(MODULE_MARKER);
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() {
            name.push(b as char);
        } else {
            name.push_str(&format!("_{b:02x}"));
        }
    }
    Ident::new(&name, Span::call_site())
}

fn untyped(roots: &[&str]) -> TokenStream {
    let names = roots.iter().map(|root| Ident::new(root, Span::call_site()));
    quote! {
        #(
            /// Untyped: the generator could not derive a Rust type from this schema.
            pub type #names = ::host_runtime::serde_json::Value;
        )*
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
fn render(roots: &[(&Value, &'static str)]) -> Typed {
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

/// The doc of a root type whose schema has no description: what the value is in the call.
fn role_doc(root: &str) -> String {
    match root {
        "Input" => " The call's `input`, typed from the `input` schema.".to_owned(),
        "Output" => " The answer, typed from the `output` schema.".to_owned(),
        "Document" => " One document of the collection, typed from its `schema`.".to_owned(),
        "Settings" => " The settings panel's values, typed from its `schema`.".to_owned(),
        "Payload" => " The event's payload, typed from its `payload` schema.".to_owned(),
        other => format!(" `{other}`, typed from its schema."),
    }
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

/// Rewrites typify's tokens:
/// - `::serde::...` (and the other re-exported crates) becomes `<runtime>::serde::...` ([`crate::runtime::PATH`]),
///   also inside serde's string attributes (`skip_serializing_if = "::serde_json::Map::is_empty"`);
/// - a type deriving serde's traits learns where serde is (`#[serde(crate = "...")]`);
/// - the schema each type repeats in its docs (`<details>` blocks) is dropped: it is the manifest's own
///   text, a fifth of the output, and the item docs keep the descriptions;
/// - typify's `defaults` helper module is hidden from docs, and its `error` module, repeated in every
///   schema module, is replaced by the runtime's one `ConversionError`;
/// - its doc of an undescribed type (the type's own name in backticks) becomes, for a root, what
///   the value is in the call, and for any other type, where its doc would come from;
/// - fields and variants the schema does not describe get a doc line naming their JSON member.
pub(crate) fn rewrite(stream: TokenStream) -> TokenStream {
    rewrite_in(stream, false)
}

/// [`rewrite`], knowing whether the tokens are inside a `#[serde(...)]` attribute (the only place
/// typify writes paths in strings).
fn rewrite_in(stream: TokenStream, in_serde: bool) -> TokenStream {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut in_details = false;
    let mut i = 0;
    while i < tokens.len() {
        if let Some(text) = doc_text(&tokens, i) {
            // typify's doc for a type the schema does not describe is its own name in backticks:
            // a root says what it is in the call instead, any other type where a doc would come from.
            if let Some(name) = title_only(&text) {
                let doc = if ROOTS.contains(&name) {
                    role_doc(name)
                } else {
                    " Typed from a part of the schema without a `description`; add one in the manifest to document it here.".to_owned()
                };
                out.extend(quote!(#[doc = #doc]));
                i += 2;
                continue;
            }
            // typify writes `#[doc = "Text"]`; a doc comment reads `/// Text`.
            if text.starts_with('"')
                && !text.starts_with("\" ")
                && text.len() > 2
                && let Ok(spaced) = format!("\" {}", &text[1..]).parse::<Literal>()
                && !text.contains("<details>")
                && !in_details
            {
                out.push(tokens[i].clone());
                out.push(TokenTree::Group(Group::new(
                    Delimiter::Bracket,
                    quote!(doc = #spaced),
                )));
                i += 2;
                continue;
            }
            let opens = text.contains("<details>");
            let drop = in_details || opens;
            in_details = (in_details || opens) && !text.contains("</details>");
            if drop {
                i += 2;
                continue;
            }
        }
        match &tokens[i] {
            TokenTree::Punct(p)
                if p.as_char() == ':'
                    && p.spacing() == Spacing::Joint
                    && is_reexported_path(&tokens, i) =>
            {
                out.push(tokens[i].clone());
                out.push(tokens[i + 1].clone());
                push_path_prefix(&mut out);
                i += 2;
                continue;
            }
            TokenTree::Ident(id)
                if id == "pub"
                    && is_ident(&tokens, i + 1, "mod")
                    && is_ident(&tokens, i + 2, "defaults") =>
            {
                out.extend(quote!(#[doc(hidden)]));
            }
            // typify's `error` module, repeated in every schema module: its one type is the
            // runtime's `ConversionError`, so the module goes, with its doc.
            TokenTree::Ident(id)
                if id == "pub"
                    && is_ident(&tokens, i + 1, "mod")
                    && is_ident(&tokens, i + 2, "error")
                    && matches!(tokens.get(i + 3), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace) =>
            {
                if out.len() >= 2 && doc_text(&out, out.len() - 2).is_some() {
                    out.truncate(out.len() - 2);
                }
                i += 4;
                continue;
            }
            // `self::error::ConversionError` -> `::host_runtime::ConversionError`.
            TokenTree::Ident(id)
                if id == "self"
                    && is_punct(&tokens, i + 1, ':')
                    && is_punct(&tokens, i + 2, ':')
                    && is_ident(&tokens, i + 3, "error")
                    && is_punct(&tokens, i + 4, ':')
                    && is_punct(&tokens, i + 5, ':')
                    && is_ident(&tokens, i + 6, "ConversionError") =>
            {
                out.extend(quote!(::host_runtime::ConversionError));
                i += 7;
                continue;
            }
            TokenTree::Literal(lit) if in_serde => {
                out.push(reroot_literal(lit));
                i += 1;
                continue;
            }
            TokenTree::Group(g) => {
                let kind = if g.delimiter() == Delimiter::Brace {
                    item_kind(&out)
                } else {
                    None
                };
                let serde_attr = in_serde || is_serde_attribute(g);
                let inner = match kind {
                    Some(is_enum) => {
                        let nullable = if is_enum {
                            Vec::new()
                        } else {
                            marked_members(&out)
                        };
                        document_members(rewrite_in(g.stream(), false), is_enum, &nullable)
                    }
                    None => rewrite_in(g.stream(), serde_attr),
                };
                // A tagged union whose variants keep their other members: serde cannot deny
                // unknown members beside a flattened map (and the variants take them all).
                if kind == Some(true) && inner.to_string().contains(OTHER_MEMBERS_MAP) {
                    allow_unknown_fields(&mut out);
                }
                let mut group = Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                let is_attr = g.delimiter() == Delimiter::Bracket
                    && is_punct(&out, out.len().wrapping_sub(1), '#');
                out.push(TokenTree::Group(group));
                // After `#[derive(..Serialize..)]`, tell serde where it lives.
                if is_attr && derives_serde(g) {
                    let serde = crate::runtime::SERDE;
                    out.extend(quote!(#[serde(crate = #serde)]));
                }
                i += 1;
                continue;
            }
            _ => {}
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out.into_iter().collect()
}

/// The fixed names of schema roots.
const ROOTS: [&str; 5] = ["Input", "Output", "Document", "Settings", "Payload"];

/// `Name` when a doc literal is only `` `Name` ``, typify's doc of an undescribed type.
fn title_only(literal: &str) -> Option<&str> {
    let name = literal.strip_prefix("\"`")?.strip_suffix("`\"")?;
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    plain.then_some(name)
}

/// The string of `# [doc = "..."]` starting at `i`, if that is what is there.
fn doc_text(tokens: &[TokenTree], i: usize) -> Option<String> {
    let (TokenTree::Punct(hash), Some(TokenTree::Group(g))) = (&tokens[i], tokens.get(i + 1))
    else {
        return None;
    };
    if hash.as_char() != '#' || g.delimiter() != Delimiter::Bracket {
        return None;
    }
    let mut inner = g.stream().into_iter();
    match (inner.next(), inner.next(), inner.next(), inner.next()) {
        (
            Some(TokenTree::Ident(doc)),
            Some(TokenTree::Punct(eq)),
            Some(TokenTree::Literal(lit)),
            None,
        ) if doc == "doc" && eq.as_char() == '=' => Some(lit.to_string()),
        _ => None,
    }
}

/// `::` at `i` followed by one of the re-exported crates. typify writes these crates only as leading
/// paths (`::serde::Deserialize`, `<D::Error as ::serde::de::Error>`), never as a later segment.
fn is_reexported_path(tokens: &[TokenTree], i: usize) -> bool {
    matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
        && matches!(tokens.get(i + 2), Some(TokenTree::Ident(id)) if REEXPORTED.iter().any(|c| id == c))
}

fn push_path_prefix(out: &mut Vec<TokenTree>) {
    out.push(TokenTree::Ident(Ident::new(
        "host_runtime",
        Span::call_site(),
    )));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Joint)));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Alone)));
    out.push(TokenTree::Ident(Ident::new(
        crate::runtime::MODULE,
        Span::call_site(),
    )));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Joint)));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Alone)));
}

fn is_ident(tokens: &[TokenTree], i: usize, want: &str) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Ident(id)) if id == want)
}

fn is_punct(tokens: &[TokenTree], i: usize, want: char) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == want)
}

fn reroot_literal(lit: &Literal) -> TokenTree {
    let text = lit.to_string();
    if !text.starts_with('"')
        || !REEXPORTED
            .iter()
            .any(|c| text.contains(&format!("\"::{c}::")))
    {
        return TokenTree::Literal(lit.clone());
    }
    let mut new = text;
    for c in REEXPORTED {
        new = new.replace(
            &format!("\"::{c}::"),
            &format!("\"{}::{c}::", crate::runtime::PATH),
        );
    }
    match new
        .parse::<TokenStream>()
        .ok()
        .and_then(|ts| ts.into_iter().next())
    {
        Some(TokenTree::Literal(mut l)) => {
            l.set_span(lit.span());
            TokenTree::Literal(l)
        }
        _ => TokenTree::Literal(lit.clone()),
    }
}

fn derives_serde(g: &Group) -> bool {
    let mut tokens = g.stream().into_iter();
    matches!(tokens.next(), Some(TokenTree::Ident(id)) if id == "derive")
        && tokens.any(|t| match t {
            TokenTree::Group(args) => args.stream().into_iter().any(
                |a| matches!(&a, TokenTree::Ident(id) if id == "Serialize" || id == "Deserialize"),
            ),
            _ => false,
        })
}

/// `Some(is_enum)` when the tokens end with `struct Name` or `enum Name`: the brace group that follows
/// is the body. Generic parameters do not occur in typify's output.
fn item_kind(out: &[TokenTree]) -> Option<bool> {
    match out {
        [.., TokenTree::Ident(kw), TokenTree::Ident(_)] if kw == "struct" => Some(false),
        [.., TokenTree::Ident(kw), TokenTree::Ident(_)] if kw == "enum" => Some(true),
        _ => None,
    }
}

/// Each [`crate::sentinels::NULLABLE_MEMBER_MARK`] in `text`: the whole mark and the hex between its
/// opening and its closing `@@`.
fn member_marks(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let open = crate::sentinels::NULLABLE_MEMBER_MARK;
    let mut rest = text;
    std::iter::from_fn(move || {
        let at = rest.find(open)?;
        let tail = &rest[at + open.len()..];
        let end = tail.find(CLOSE)?;
        let found = (&rest[at..at + open.len() + end + CLOSE.len()], &tail[..end]);
        rest = &tail[end + CLOSE.len()..];
        Some(found)
    })
}

/// The members named by [`crate::sentinels::NULLABLE_MEMBER_MARK`]s in the docs of the item `out` ends
/// with (a struct's header: its attributes, `pub struct Name`).
fn marked_members(out: &[TokenTree]) -> Vec<String> {
    let mut names = Vec::new();
    for i in (0..out.len()).rev() {
        match &out[i] {
            TokenTree::Punct(p) if p.as_char() == ';' => break,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
            _ => {}
        }
        let Some(text) = doc_text(out, i) else {
            continue;
        };
        for (_, hex) in member_marks(&text) {
            let bytes: Option<Vec<u8>> = (0..hex.len())
                .step_by(2)
                .map(|k| {
                    hex.get(k..k + 2)
                        .and_then(|b| u8::from_str_radix(b, 16).ok())
                })
                .collect();
            if let Some(name) = bytes.and_then(|b| String::from_utf8(b).ok()) {
                names.push(name);
            }
        }
    }
    names
}

/// Adds `#[doc = " `member`."]` to each public field or variant of a body that has no doc of its own;
/// a struct's members named in `nullable` become `Nullable<T>`.
fn document_members(body: TokenStream, is_enum: bool, nullable: &[String]) -> TokenStream {
    let mut out = TokenStream::new();
    let mut member: Vec<TokenTree> = Vec::new();
    let flush = |member: &mut Vec<TokenTree>, out: &mut TokenStream| {
        if member.is_empty() {
            return;
        }
        if !is_enum {
            let renamed = renamed_field(member);
            let named = member_name(member).is_some_and(|name| nullable.contains(&name));
            nullable_member(member, named);
            if let Some(json) = renamed {
                document_renamed(member, &json);
            }
        }
        let has_doc = (0..member.len()).any(|i| doc_text(member, i).is_some());
        let public = is_enum
            || member
                .iter()
                .any(|t| matches!(t, TokenTree::Ident(id) if id == "pub"));
        if !has_doc
            && public
            && let Some(name) = member_name(member)
        {
            let flattened = member.iter().any(
                |t| matches!(t, TokenTree::Group(g) if g.stream().to_string().contains("flatten")),
            );
            let doc = if flattened && name == "extra" {
                " The members the schema does not name, as they were sent.".to_owned()
            } else {
                format!(" `{name}`.")
            };
            out.extend(quote!(#[doc = #doc]));
        }
        if is_enum {
            // A struct-like variant's fields.
            for t in member.iter_mut() {
                if let TokenTree::Group(g) = t
                    && g.delimiter() == Delimiter::Brace
                {
                    *g = Group::new(Delimiter::Brace, optional_collections(g.stream()));
                }
            }
        } else {
            optional_collection(member);
        }
        out.extend(member.drain(..));
    };
    let mut depth = 0usize;
    for t in body {
        let end = top_level_comma(&t, &mut depth);
        member.push(t);
        if end {
            flush(&mut member, &mut out);
        }
    }
    flush(&mut member, &mut out);
    out
}

/// Whether `t` is a comma between members, not one inside a type's angle brackets (`Map<K, V>`),
/// which are no token group. `depth` follows the brackets.
fn top_level_comma(t: &TokenTree, depth: &mut usize) -> bool {
    match t {
        TokenTree::Punct(p) if p.as_char() == '<' => *depth += 1,
        TokenTree::Punct(p) if p.as_char() == '>' => *depth = depth.saturating_sub(1),
        TokenTree::Punct(p) if p.as_char() == ',' => return *depth == 0,
        _ => {}
    }
    false
}

/// [`optional_collection`] on each field of a brace-delimited field list (a struct-like variant's),
/// a doc line naming the JSON member of each undescribed field, and the member standing
/// for a variant's other members ([`crate::sentinels::OTHER_MEMBERS`]) back into the map `extra`.
fn optional_collections(fields: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut field = Vec::new();
    let mut depth = 0usize;
    let mut other_members = false;
    let mut finish = |field: &mut Vec<TokenTree>, out: &mut Vec<TokenTree>| {
        if field.iter().any(|t| {
            matches!(t, TokenTree::Group(g) if g.stream().to_string().contains(crate::sentinels::OTHER_MEMBERS))
        }) {
            other_members = true;
            field.clear();
            return;
        }
        let renamed = renamed_field(field);
        nullable_member(field, false);
        if let Some(json) = renamed {
            document_renamed(field, &json);
        }
        let has_doc = (0..field.len()).any(|i| doc_text(field, i).is_some());
        if !has_doc && let Some(name) = member_name(field) {
            let doc = format!(" `{name}`.");
            out.extend(quote!(#[doc = #doc]));
        }
        optional_collection(field);
        out.append(field);
    };
    for t in fields {
        let end = top_level_comma(&t, &mut depth);
        field.push(t);
        if end {
            finish(&mut field, &mut out);
        }
    }
    finish(&mut field, &mut out);
    if other_members {
        if !out.is_empty() && !matches!(out.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',')
        {
            out.extend(quote!(,));
        }
        let rt = crate::runtime::path();
        out.extend(quote! {
            #[doc = " The members the schema does not name, as they were sent."]
            #[serde(flatten)]
            extra: #rt::serde_json::Map<::std::string::String, #rt::serde_json::Value>,
        });
    }
    out.into_iter().collect()
}

/// A field typify named after a [`renamed_member`](crate::sentinels::renamed_member) name (the
/// lowering pass gives one to a member whose own Rust field name is taken): its
/// `#[serde(rename = "...")]` becomes the member's JSON name again, and a line of its doc is to say
/// which JSON member it holds ([`document_renamed`]). Returns that JSON name.
fn renamed_field(field: &mut [TokenTree]) -> Option<String> {
    let mut json = None;
    for t in field.iter_mut() {
        let TokenTree::Group(g) = t else { continue };
        if !is_serde_attribute(g) {
            continue;
        }
        let mut inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let Some(TokenTree::Group(args)) = inner.get(1) else {
            continue;
        };
        let mut args: Vec<TokenTree> = args.stream().into_iter().collect();
        for k in 2..args.len() {
            if let (TokenTree::Ident(key), TokenTree::Literal(lit)) = (&args[k - 2], &args[k])
                && key == "rename"
                && let Some((_, name)) =
                    crate::sentinels::renamed_json_name(lit.to_string().trim_matches('"'))
            {
                let mut spelled = Literal::string(&name);
                spelled.set_span(lit.span());
                args[k] = TokenTree::Literal(spelled);
                json = Some(name);
            }
        }
        if json.is_some() {
            inner[1] = TokenTree::Group(Group::new(
                Delimiter::Parenthesis,
                args.into_iter().collect(),
            ));
            *g = Group::new(Delimiter::Bracket, inner.into_iter().collect());
            break;
        }
    }
    json
}

/// Adds to the docs of a renamed field which JSON member, `json`, it holds.
fn document_renamed(field: &mut Vec<TokenTree>, json: &str) {
    let mut at = 0;
    while doc_text(field, at).is_some() {
        at += 2;
    }
    let own = crate::lower::typify_field(json);
    let line = format!(
        " Holds the JSON member `{json}`: its own Rust name, `{own}`, is taken by another member or by a field the generator writes."
    );
    let doc: Vec<TokenTree> = if at == 0 {
        quote!(#[doc = #line]).into_iter().collect()
    } else {
        quote!(#[doc = ""] #[doc = #line]).into_iter().collect()
    };
    field.splice(at..at, doc);
}

/// How a variant's other members read once [`optional_collections`] made them the map `extra`.
const OTHER_MEMBERS_MAP: &str = "# [serde (flatten)] extra";

/// Drops `deny_unknown_fields` from the `#[serde(...)]` attributes of the item `out` ends with.
fn allow_unknown_fields(out: &mut [TokenTree]) {
    for t in out.iter_mut().rev() {
        match t {
            TokenTree::Punct(p) if p.as_char() == ';' => break,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
            TokenTree::Group(g) if is_serde_attribute(g) => {
                let inner: TokenStream = g
                    .stream()
                    .into_iter()
                    .map(|t| match t {
                        TokenTree::Group(args) if args.delimiter() == Delimiter::Parenthesis => {
                            let kept: Vec<TokenTree> = args
                                .stream()
                                .into_iter()
                                .filter(|a| !matches!(a, TokenTree::Ident(id) if id == "deny_unknown_fields"))
                                .collect();
                            // A comma left at either end or doubled goes too.
                            let is_comma = |t: Option<&TokenTree>| {
                                matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ',')
                            };
                            let mut tidy: Vec<TokenTree> = Vec::new();
                            for a in kept {
                                if is_comma(Some(&a)) && (tidy.is_empty() || is_comma(tidy.last())) {
                                    continue;
                                }
                                tidy.push(a);
                            }
                            if is_comma(tidy.last()) {
                                tidy.pop();
                            }
                            TokenTree::Group(Group::new(Delimiter::Parenthesis, tidy.into_iter().collect()))
                        }
                        other => other,
                    })
                    .collect();
                *g = Group::new(Delimiter::Bracket, inner);
            }
            _ => {}
        }
    }
}

/// Whether `g` is the bracketed body of a `#[serde(...)]` attribute.
fn is_serde_attribute(g: &proc_macro2::Group) -> bool {
    g.delimiter() == Delimiter::Bracket
        && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "serde")
}

/// typify writes an optional array or map member as the collection, skipped when empty: an empty
/// array sent by the host would come back absent. The member becomes an `Option` of the collection,
/// so absent and empty stay apart.
fn optional_collection(member: &mut Vec<TokenTree>) {
    let mut skips_empty = false;
    for t in member.iter_mut() {
        let TokenTree::Group(g) = t else { continue };
        if !is_serde_attribute(g) {
            continue;
        }
        let inner: Vec<TokenTree> = g
            .stream()
            .into_iter()
            .map(|t| match t {
                TokenTree::Group(args) => {
                    let delimiter = args.delimiter();
                    let args: TokenStream = args
                        .stream()
                        .into_iter()
                        .map(|a| match &a {
                            TokenTree::Literal(lit)
                                if lit.to_string().ends_with("::is_empty\"") =>
                            {
                                skips_empty = true;
                                TokenTree::Literal(Literal::string(
                                    "::std::option::Option::is_none",
                                ))
                            }
                            _ => a,
                        })
                        .collect();
                    TokenTree::Group(Group::new(delimiter, args))
                }
                other => other,
            })
            .collect();
        *g = Group::new(Delimiter::Bracket, inner.into_iter().collect());
    }
    if !skips_empty {
        return;
    }
    // The type follows the first lone `:` (not part of a `::` path).
    let colon = (0..member.len()).find(|&i| {
        matches!(&member[i], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
            && !matches!(i.checked_sub(1).map(|j| &member[j]), Some(TokenTree::Punct(p)) if p.as_char() == ':')
    });
    let Some(colon) = colon else { return };
    let end = if matches!(member.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
        member.len() - 1
    } else {
        member.len()
    };
    let ty: TokenStream = member[colon + 1..end].iter().cloned().collect();
    let wrapped: Vec<TokenTree> = quote!(::std::option::Option<#ty>).into_iter().collect();
    member.splice(colon + 1..end, wrapped);
}

/// The [`crate::sentinels::NULLABLE_MARK`]s left in docs (of the types made for marked members),
/// removed from the module's text.
fn without_nullable_marks(text: String) -> String {
    let mark = crate::sentinels::NULLABLE_MARK;
    let open = crate::sentinels::NULLABLE_MEMBER_MARK;
    if !text.contains(mark) && !text.contains(open) {
        return text;
    }
    let mut text = text.replace(&format!("\\n\\n{mark}"), "").replace(mark, "");
    // Member marks, each `open` + hex + `@@`, with the blank line before the first of a run.
    let mut out = String::with_capacity(text.len());
    while let Some(at) = text.find(open) {
        let end = text[at + open.len()..]
            .find(CLOSE)
            .map_or(text.len(), |e| at + open.len() + e + CLOSE.len());
        out.push_str(text[..at].strip_suffix("\\n\\n").unwrap_or(&text[..at]));
        text.replace_range(..end, "");
    }
    out.push_str(&text);
    out
}

/// An optional member whose schema may be `null` (its doc holds [`crate::sentinels::NULLABLE_MARK`]):
/// typify types it `Option<T>`, which reads `null` as absent. It becomes
/// the runtime's `Nullable<T>`, defaulted when absent and skipped when serialized only
/// when absent; the mark leaves its doc. `named` says its object's doc named it (a bare `$ref`).
fn nullable_member(member: &mut Vec<TokenTree>, named: bool) {
    let mark = crate::sentinels::NULLABLE_MARK;
    let mut marked = named;
    let mut i = 0;
    while i < member.len() {
        if let Some(text) = doc_text(member, i)
            && text.contains(mark)
        {
            marked = true;
            let cleaned = without_nullable_marks(text);
            let empty = cleaned.trim_matches('"').trim().is_empty();
            match cleaned.parse::<Literal>() {
                Ok(lit) if !empty => {
                    member[i + 1] =
                        TokenTree::Group(Group::new(Delimiter::Bracket, quote!(doc = #lit)));
                }
                _ => {
                    member.drain(i..i + 2);
                    continue;
                }
            }
        }
        i += 1;
    }
    // A member that must be present is `Option<T>` read by `Option::deserialize` (typify's way
    // for a required member that may be `null`), whatever the marks say: a merge (an `allOf`, a
    // union's branch with its node's members) can require a member another part left optional.
    if !marked || required_nullable(member) {
        return;
    }
    let is_absent = format!("{}::Nullable::is_absent", crate::runtime::PATH);
    // typify may write `default` in an attribute of its own.
    let defaulted = serde_arguments(member).any(|args| {
        args.iter()
            .any(|x| matches!(x, TokenTree::Ident(id) if id == "default"))
    });
    let mut skips = false;
    for t in member.iter_mut() {
        let TokenTree::Group(g) = t else { continue };
        if !is_serde_attribute(g) {
            continue;
        }
        let inner: Vec<TokenTree> = g
            .stream()
            .into_iter()
            .map(|t| match t {
                TokenTree::Group(args) if args.delimiter() == Delimiter::Parenthesis => {
                    let mut has_default = defaulted;
                    let mut this_skips = false;
                    let mut args: Vec<TokenTree> = args
                        .stream()
                        .into_iter()
                        .map(|a| match &a {
                            TokenTree::Ident(id) if id == "default" => {
                                has_default = true;
                                a
                            }
                            TokenTree::Literal(lit)
                                if lit.to_string().ends_with("::is_none\"")
                                    || lit.to_string().ends_with("::is_empty\"") =>
                            {
                                this_skips = true;
                                TokenTree::Literal(Literal::string(&is_absent))
                            }
                            _ => a,
                        })
                        .collect();
                    if this_skips && !has_default {
                        let mut with: Vec<TokenTree> = quote!(default,).into_iter().collect();
                        with.append(&mut args);
                        args = with;
                    }
                    skips |= this_skips;
                    TokenTree::Group(Group::new(
                        Delimiter::Parenthesis,
                        args.into_iter().collect(),
                    ))
                }
                other => other,
            })
            .collect();
        *g = Group::new(Delimiter::Bracket, inner.into_iter().collect());
    }
    // The type follows the first lone `:` (not part of a `::` path).
    let colon = (0..member.len()).find(|&i| {
        matches!(&member[i], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
            && !matches!(i.checked_sub(1).map(|j| &member[j]), Some(TokenTree::Punct(p)) if p.as_char() == ':')
    });
    let Some(colon) = colon else { return };
    if !skips {
        // Attributes go before the visibility or the name.
        let attr = if defaulted {
            quote!(#[serde(skip_serializing_if = #is_absent)])
        } else {
            quote!(#[serde(default, skip_serializing_if = #is_absent)])
        };
        let at = (0..colon)
            .find(|&i| matches!(&member[i], TokenTree::Ident(_)))
            .unwrap_or(0);
        let attr: Vec<TokenTree> = attr.into_iter().collect();
        let n = attr.len();
        member.splice(at..at, attr);
        return nullable_type(member, colon + n);
    }
    nullable_type(member, colon);
}

/// The arguments of each `#[serde(...)]` attribute of `member`, as tokens.
fn serde_arguments(member: &[TokenTree]) -> impl Iterator<Item = Vec<TokenTree>> + '_ {
    member.iter().flat_map(|t| match t {
        TokenTree::Group(g) if is_serde_attribute(g) => g
            .stream()
            .into_iter()
            .filter_map(|a| match a {
                TokenTree::Group(args) => Some(args.stream().into_iter().collect()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    })
}

/// Whether typify typed `member` as one that must be present and may be `null`: its serde
/// attributes read it with `deserialize_with = "::std::option::Option::deserialize"`.
fn required_nullable(member: &[TokenTree]) -> bool {
    serde_arguments(member).any(|args| {
        args.windows(3).any(|w| {
            matches!((&w[0], &w[2]), (TokenTree::Ident(key), TokenTree::Literal(lit))
                if key == "deserialize_with" && lit.to_string().ends_with("Option::deserialize\""))
        })
    })
}

/// Replaces the type after `member[colon]` (`Option<T>`, `Option<Option<T>>` or `T`) with
/// `Nullable<T>`.
fn nullable_type(member: &mut Vec<TokenTree>, colon: usize) {
    let end = if matches!(member.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
        member.len() - 1
    } else {
        member.len()
    };
    let mut ty: Vec<TokenTree> = member[colon + 1..end].to_vec();
    // `:: std :: option :: Option <` is ten tokens.
    while ty.len() > 11
        && TokenStream::from_iter(ty[..10].iter().cloned()).to_string()
            == ":: std :: option :: Option <"
        && matches!(ty.last(), Some(TokenTree::Punct(p)) if p.as_char() == '>')
    {
        ty = ty[10..ty.len() - 1].to_vec();
    }
    let ty: TokenStream = ty.into_iter().collect();
    let rt = crate::runtime::path();
    let wrapped: Vec<TokenTree> = quote!(#rt::Nullable<#ty>).into_iter().collect();
    member.splice(colon + 1..end, wrapped);
}

/// The JSON name of a member: its `#[serde(rename = "...")]`, else its identifier.
fn member_name(member: &[TokenTree]) -> Option<String> {
    for t in member {
        let TokenTree::Group(g) = t else { continue };
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        if !matches!(inner.first(), Some(TokenTree::Ident(id)) if id == "serde") {
            continue;
        }
        let Some(TokenTree::Group(args)) = inner.get(1) else {
            continue;
        };
        let args: Vec<TokenTree> = args.stream().into_iter().collect();
        for w in args.windows(3) {
            if let [
                TokenTree::Ident(k),
                TokenTree::Punct(eq),
                TokenTree::Literal(v),
            ] = w
                && k == "rename"
                && eq.as_char() == '='
            {
                return Some(v.to_string().trim_matches('"').to_owned());
            }
        }
    }
    // Otherwise the first identifier after the attributes and `pub`.
    member.iter().find_map(|t| match t {
        TokenTree::Ident(id) if id != "pub" => {
            Some(id.to_string().trim_start_matches("r#").to_owned())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render_one(schema: Value) -> String {
        let typed = render(&[(&schema, "Input")]);
        assert_eq!(typed.failed, None);
        typed.text()
    }

    #[test]
    fn paths_point_at_the_runtime() {
        let out = render_one(
            json!({ "type": "object", "properties": { "c": { "type": "string", "minLength": 2 } } }),
        );
        assert!(
            out.contains(&format!(
                ":: host_runtime :: {} :: serde :: Deserialize",
                crate::runtime::MODULE
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!("crate = \"{}\"", crate::runtime::SERDE)),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "< D :: Error as :: host_runtime :: {} :: serde :: de :: Error >",
                crate::runtime::MODULE
            )),
            "{out}"
        );
        assert!(
            !out.contains("(:: serde ::") && !out.contains("< :: serde ::"),
            "{out}"
        );
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
    fn members_without_descriptions_get_docs_and_schema_dumps_go() {
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "type": { "type": "string" },
                "kind": { "enum": ["a-b", "c"] },
                "described": { "type": "string", "description": "Has its own." }
            }
        }));
        assert!(out.contains("\" `type`.\""), "{out}");
        assert!(out.contains("\" `a-b`.\""), "{out}");
        assert!(out.contains("Has its own."), "{out}");
        assert!(!out.contains("\" `described`.\""), "{out}");
        assert!(
            !out.contains("<details>") && !out.contains("JSON schema"),
            "{out}"
        );
    }

    #[test]
    fn jobs_come_back_by_key_and_splice_into_place() {
        let a = json!({ "type": "object", "properties": { "x": { "type": "integer" } } });
        let b = json!({ "type": "strnig" });
        let types = Types::build(vec![
            Job {
                key: "tools/a-b".into(),
                roots: vec![(&a, "Input", "/a".into())],
                origins: vec!["The input of the tool `a-b`".into()],
            },
            Job {
                key: "tools/b".into(),
                roots: vec![(&b, "Input", "/b".into())],
                origins: vec!["The input of the tool `b`".into()],
            },
        ]);
        let typed = types.items("tools/a-b", &["Input"]);
        assert_eq!(typed.failed, None);
        let marker = typed.tokens;
        let text = types.splice(format!("pub mod a {{ {marker} }}"));
        assert!(text.contains("pub struct Input"), "{text}");
        assert!(
            text.contains(
                "The input of the tool `a-b`, typed from the schema at `/a` in the manifest."
            ),
            "{text}"
        );
        assert!(!text.contains("@@host-"), "{text}");
        assert!(text.parse::<TokenStream>().is_ok());
        let typed = types.items("tools/b", &["Input"]);
        let (pointer, message) = typed.failed.expect("a failure");
        assert_eq!(pointer, "/b");
        assert!(message.contains("the schema cannot be read"), "{message}");
        let items = typed.tokens;
        assert!(items.to_string().contains("serde_json :: Value"));
    }

    #[test]
    fn a_definition_several_modules_carry_alike_is_one_type_named_in_each() {
        let owner = json!({
            "type": "object",
            "description": "Who owns it.",
            "properties": { "login": { "type": "string" } },
            "required": ["login"]
        });
        let with = |member: &str| {
            json!({
                "type": "object",
                "properties": { member: { "$ref": "#/$defs/owner" } },
                "$defs": { "owner": owner.clone() }
            })
        };
        let (a, b) = (with("owner"), with("by"));
        // Another `Owner`, unlike the others: it stays apart.
        let c = json!({
            "type": "object",
            "properties": { "owner": { "$ref": "#/$defs/owner" } },
            "$defs": { "owner": { "type": "object", "properties": { "id": { "type": "integer" } } } }
        });
        let job = |key: &str, schema| Job {
            key: key.into(),
            roots: vec![(schema, "Input", format!("/{key}"))],
            origins: vec![format!("The input of `{key}`")],
        };
        let types = Types::build(vec![
            job("tools/a", &a),
            job("procedures/b-c", &b),
            job("tools/c", &c),
        ]);
        let body = |key: &str| types.items(key, &["Input"]).tokens;
        let (ma, mb, mc, shared) = (
            body("tools/a"),
            body("procedures/b-c"),
            body("tools/c"),
            types.shared_module(),
        );
        let text = types.splice(format!(
            "pub mod tools {{ pub mod a {{ {ma} }} pub mod c {{ {mc} }} }} \
             pub mod procedures {{ pub mod b_c {{ {mb} }} }} {shared}"
        ));
        assert!(!text.contains("@@host-"), "{text}");
        let file = syn::parse_file(&text).expect("the modules parse");
        let pretty = prettyplease::unparse(&file);
        assert_eq!(pretty.matches("pub struct Owner").count(), 2, "{pretty}");
        assert_eq!(
            pretty
                .matches("pub use super::super::shared::Owner;")
                .count(),
            2,
            "{pretty}"
        );
        assert!(
            pretty.contains(
                "The same type in `procedures::b_c` and `tools::a`: their schemas define it alike"
            ),
            "{pretty}"
        );
        // The shared type keeps its docs; `tools::c` keeps its own `Owner`.
        assert!(pretty.contains("/// Who owns it."), "{pretty}");
        assert!(
            pretty.contains("pub id: ::std::option::Option<i64>"),
            "{pretty}"
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
    fn an_optional_member_that_may_be_null_is_nullable() {
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "q": { "type": ["string", "null"], "description": "The query." },
                "any": {},
                "u": { "anyOf": [{ "type": "integer" }, { "type": "null" }] },
                "r": { "$ref": "#/$defs/R" },
                "plain": { "type": "string" },
                "nothing": { "type": "null" },
                "req": { "type": ["string", "null"] }
            },
            "required": ["req"],
            "$defs": { "R": { "type": ["object", "null"], "properties": { "a": { "type": "string" } } } }
        }));
        let field = |name: &str| {
            let at = out.find(&format!("pub {name} :")).expect(name);
            let end = out[at..].find(',').map_or(out.len(), |e| at + e);
            out[at..end].to_owned()
        };
        // A bare `$ref` is named in its object's doc (marking it trips typify; see UPSTREAM.md).
        assert!(
            !out.contains(crate::sentinels::NULLABLE_MEMBER_MARK),
            "{out}"
        );
        for name in ["q", "any", "u", "r"] {
            assert!(
                field(name).contains("Nullable <"),
                "{name}: {}",
                field(name)
            );
        }
        assert!(
            field("q").contains("Nullable < :: std :: string :: String >"),
            "{}",
            field("q")
        );
        assert!(!field("plain").contains("Nullable"), "{out}");
        assert!(
            field("nothing").contains("Nullable <"),
            "{}",
            field("nothing")
        );
        assert!(!field("req").contains("Nullable"), "{out}");
        assert!(
            out.contains("\" The query.\""),
            "the member keeps its doc: {out}"
        );
        assert!(
            out.contains(&format!(
                "skip_serializing_if = \"{}::Nullable::is_absent\"",
                crate::runtime::PATH
            )),
            "{out}"
        );
        assert!(!out.contains(crate::sentinels::NULLABLE_MARK), "{out}");
    }

    #[test]
    fn members_whose_rust_names_are_taken_are_renamed_fields_with_their_json_names() {
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "extra": { "type": "string" },
                "a-b": { "type": "string" },
                "a_b": { "type": ["integer", "null"] },
                "tagged": { "oneOf": [
                    { "type": "object", "properties": { "kind": { "const": "a" },
                        "extra": { "type": "string" }, "__host_sdk_other_members__": { "type": "integer" } },
                      "required": ["kind"] },
                    { "type": "object", "properties": { "kind": { "const": "b" } }, "required": ["kind"] }
                ] }
            },
            "required": ["extra"]
        }));
        assert!(!out.contains("@@="), "{out}");
        let text = crate::expansion::pretty(&out);
        for (field, json) in [
            ("pub extra_member: ::std::string::String", "extra"),
            ("pub a_b_2: ", "a_b"),
            ("extra_member: ::std::option::Option<", "extra"),
            (
                "host_sdk_other_members_member: ",
                "__host_sdk_other_members__",
            ),
        ] {
            // The field's last doc line names its JSON member, and its attributes rename it.
            let at = text
                .find(field)
                .unwrap_or_else(|| panic!("{field}: {text}"));
            let doc = text[..at].rfind("///").unwrap_or(0);
            let tail = &text[doc..at];
            assert!(
                tail.starts_with(&format!("/// Holds the JSON member `{json}`:")),
                "{field}: {tail}"
            );
            assert!(
                tail.contains(&format!("rename = \"{json}\"")),
                "{field}: {tail}"
            );
        }
        assert!(
            text.contains("pub a_b: ::std::option::Option<::std::string::String>"),
            "{text}"
        );
        // The member that may be `null` is still told apart from an absent one.
        assert!(text.contains("pub a_b_2: ::host_runtime::"), "{text}");
        // The maps of other members keep their name.
        assert_eq!(
            text.matches("extra: ::host_runtime::__private_0_1_0::serde_json::Map")
                .count(),
            3,
            "{text}"
        );
    }

    #[test]
    fn bare_refs_that_may_be_null_are_nullable_whatever_their_names_and_docs() {
        let out = render_one(json!({
            "type": "object",
            "description": "Holds references.",
            "properties": {
                "first-ref": { "$ref": "#/$defs/N" },
                "ünïcode": { "$ref": "#/$defs/N" },
                "@@odd@@": { "$ref": "#/$defs/N" },
                "closed": { "$ref": "#/$defs/S" }
            },
            "$defs": {
                "N": { "anyOf": [{ "type": "integer" }, { "type": "null" }] },
                "S": { "type": "string" }
            }
        }));
        assert!(
            !out.contains(crate::sentinels::NULLABLE_MEMBER_MARK),
            "{out}"
        );
        assert!(
            out.contains("\" Holds references.\\n\\n@@host-root"),
            "the doc is kept: {out}"
        );
        let nullable = out.matches("Nullable <").count();
        assert_eq!(
            nullable, 3,
            "the three that may be null, not `closed`: {out}"
        );
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
    fn a_member_that_may_be_null_stays_nullable_in_an_all_of() {
        // GitHub's `pull-request-webhook`: a pull request and some more members.
        let out = render_one(json!({
            "type": "object",
            "properties": { "pull_request": { "$ref": "#/$defs/PullRequestWebhook" } },
            "$defs": {
                "PullRequest": { "type": "object", "properties": {
                    "active_lock_reason": { "type": ["string", "null"] } } },
                "PullRequestWebhook": { "allOf": [
                    { "$ref": "#/$defs/PullRequest" },
                    { "type": "object", "properties": { "allow_auto_merge": { "type": "boolean" } } }
                ] }
            }
        }));
        let at = out
            .find("pub active_lock_reason :")
            .expect("the member is typed");
        let field = &out[at..at + out[at..].find(',').unwrap_or(0)];
        assert!(field.contains("Nullable <"), "{field}");
        assert!(out.contains("pub allow_auto_merge :"), "{out}");
    }

    #[test]
    fn a_member_one_part_leaves_optional_and_another_requires_is_an_option_read_as_required() {
        // The GitHub workflow schema's `step`: members beside a `oneOf` whose branches each
        // require one of them; and the same through an `allOf`, with a bare `$ref` member too.
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "step": {
                    "type": "object",
                    "properties": {
                        "wait-all": { "anyOf": [{ "type": "boolean" }, { "type": "null" }] },
                        "run": { "type": "string" }
                    },
                    "oneOf": [
                        { "type": "object", "properties": { "wait-all": true }, "required": ["wait-all"] },
                        { "type": "object", "properties": { "run": true }, "required": ["run"] }
                    ]
                },
                "merged": { "allOf": [
                    { "type": "object", "properties": {
                        "a": { "type": ["string", "null"] }, "n": { "$ref": "#/$defs/N" } } },
                    { "type": "object", "required": ["a", "n"] }
                ] }
            },
            "$defs": { "N": { "type": ["integer", "null"] } }
        }));
        let text = crate::expansion::pretty(&out);
        // A required bare `$ref` to a type that takes `null` is that type.
        assert!(text.contains("    pub n: N,\n"), "{text}");
        for field in ["wait_all: ", "pub a: "] {
            let fields: Vec<&str> = text
                .match_indices(field)
                .map(|(at, _)| {
                    let attrs = text[..at].rfind("///").unwrap_or(0);
                    &text[attrs..at + text[at..].find(',').unwrap_or(0)]
                })
                .collect();
            assert!(!fields.is_empty(), "{field}: {text}");
            // Where the member is required it must be sent, `null` or not; where it is optional
            // it may be absent, `null` or a value.
            assert!(
                fields.iter().any(|f| f.contains("Option::deserialize")),
                "{field}: {text}"
            );
            for f in fields {
                let required = f.contains("Option::deserialize");
                assert_eq!(!required, f.contains("Nullable<"), "{f}");
                assert!(!(required && f.contains("default")), "{f}");
            }
        }
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
