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
//!
//! This module is the front of that work: it deals the schema modules out to threads, then puts
//! each module's text, and the module `shared`, where the generator left its marker. One job each
//! sits under it: [`typing`] types one module with typify and decides what to do when typify
//! fails, [`rewrite`] turns typify's tokens into the SDK's code, [`nested`] foresees the names
//! typify gives nested types, and [`shared`] finds the types several modules have alike.

use std::collections::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use serde_json::Value;

use crate::sentinels::{MODULE_MARKER, OPEN, origin_placeholder};

mod nested;
mod rewrite;
mod shared;
// Seen by the crate for its panic message, which the validator generator's catch uses too.
pub(crate) mod typing;

use typing::Typed;

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
                            .map(|(roots, keys)| (keys, typing::render(&roots)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
