//! From a typed manifest to the items `host_extension!` emits.
//!
//! Generation starts from one model, [`methods::methods`]: every handler method the manifest asks for,
//! with its trait, docs, call and answer types and the route that reaches it. The traits, their `Arc`
//! impls, the dispatcher and the `handler` bounds are all written from that list. Each kind of
//! generated item has its own file:
//!
//! | item                                                    | file            |
//! |---------------------------------------------------------|-----------------|
//! | `manifest::*` (constants, `Scope`, `Metric`, ...)       | `manifest.rs`   |
//! | `Credentials`                                           | `credentials.rs`|
//! | `Documents`, `storage::*`, `settings`                   | `documents.rs`  |
//! | `tools::*`, `actions::*`, `procedures::*`, `prompts::*` | `schemas.rs`    |
//! | `ToolCall`, `ProcedureCall`, `Approved`, ... (aliases)  | `calls.rs`      |
//! | `Tools`, `Actions`, ... `Events` and their `Arc` impls  | `traits.rs`     |
//! | `webhooks::*` and the `Webhooks` sender                 | `webhooks.rs`   |
//! | the private dispatcher and `handler`                    | `dispatch.rs`   |
//! | stand-ins for a manifest that cannot be read            | `stubs.rs`      |
//! | handler stubs for a vendor to start from (`cargo host stubs`) | `handlers.rs` |
//!
//! Everything at the call site names `::core`, `::std` and `::host_runtime` paths in full, so a vendor's
//! own `Result`, `Option`, `String` or `Box` cannot change its meaning.

mod calls;
mod credentials;
mod dispatch;
mod documents;
mod handlers;
mod manifest;
mod methods;
mod schemas;
mod stubs;
mod traits;
mod webhooks;

use std::collections::{BTreeMap, HashSet};

use host_manifest::model::Manifest;
use host_manifest::names::NameKind;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

use crate::types::Types;

pub use handlers::{StubsError, handler_stubs};
pub(crate) use stubs::stubs;

/// What generation found besides code, each about one place in the manifest: `(JSON pointer,
/// message)`.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    /// Schemas that could not be typed at all: the build must fail.
    pub errors: Vec<(String, String)>,
    /// Nodes typed as `serde_json::Value` because no faithful Rust type exists for them.
    pub warnings: Vec<(String, String)>,
}

impl Notes {
    /// Keeps what typing one schema module found and hands back its items.
    fn take(&mut self, typed: crate::types::Items) -> TokenStream {
        self.warnings.extend(typed.fallbacks);
        self.errors.extend(typed.failed);
        typed.tokens
    }
}

/// Types the schemas `m` embeds: what [`generate`] needs first and what takes it longest, so the macro
/// starts it while the engine is still validating.
pub(crate) fn schema_types(m: &Manifest) -> Types {
    Types::build(schemas::jobs(&without_repeats(m)))
}

/// The generated items, as Rust source text, for a manifest whose typed model could be read.
/// `types` is [`schema_types`] of `m` when the caller already has it.
pub(crate) fn generate(
    m: &Manifest,
    types: Option<Types>,
    notes: &mut Notes,
    validators: bool,
) -> String {
    // An invalid manifest may repeat a name (reported by the engine); generating both would add
    // compiler errors that say nothing new, so later repeats are left out.
    let unique = without_repeats(m);
    let m = &unique;
    let phase = crate::timing::Phase::start();
    let types = types.unwrap_or_else(|| Types::build(schemas::jobs(m)));
    phase.done("types");
    let methods = methods::methods(m);
    let mut out = TokenStream::new();
    out.extend(manifest::module(m));
    out.extend(credentials::credentials(m));
    out.extend(documents::documents(m, &types, notes));
    out.extend(schemas::modules(m, &types, notes));
    out.extend(types.shared_module());
    out.extend(calls::aliases(m));
    out.extend(traits::traits(&methods));
    let mut validators = crate::validators::Validators::new(validators);
    out.extend(webhooks::webhooks(m, &types, notes, &mut validators));
    out.extend(dispatch::dispatcher(m, &methods, &mut validators));
    out.extend(validators.module());
    let out = reachable_or_not(out);
    phase.done("items");
    let text = types.splice(out.to_string());
    phase.done("splice");
    text
}

/// `items` with `#[allow(unreachable_pub)]` on each top-level item that is `pub` or an `impl` (whose
/// `pub` methods the lint reads apart from their type). The items are public so that a vendor's
/// crate may export them, but a crate that calls the macro inside a private module (most do) and
/// keeps the lint on, as the SDK's own crates do, would be told to narrow items it did not write.
/// The allow on a module covers what it holds, so only the top level needs it.
fn reachable_or_not(items: TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    // Whether the next token that is not an attribute starts an item: at the start, and after an
    // item's closing `;` or `{ ... }`.
    let mut item_start = true;
    let mut attribute = false;
    for tree in items {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == '#' && item_start => attribute = true,
            TokenTree::Group(g) if attribute && g.delimiter() == Delimiter::Bracket => {
                attribute = false;
            }
            TokenTree::Ident(i) if item_start && (i == "pub" || i == "impl") => {
                out.extend(quote! { #[allow(unreachable_pub)] });
                item_start = false;
            }
            // A typed module's marker stands for whole items (which say what they allow).
            TokenTree::Ident(i) if i.to_string().starts_with(crate::sentinels::MODULE_MARKER) => {}
            _ => item_start = false,
        }
        let ends_item = match &tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
            _ => false,
        };
        if ends_item {
            item_start = true;
        }
        out.extend([tree]);
    }
    out
}

/// The manifest without the later of two names of one kind that would get the same Rust name: an
/// invalid manifest may repeat one (the engine's `rust-name` and `duplicate-id`), and generating both
/// would add compiler errors that say nothing new. The kinds are the engine's [`NameKind::ALL`]; the
/// match is exhaustive, so a kind added there must be handled here.
fn without_repeats(m: &Manifest) -> Manifest {
    fn keep_first<T>(kind: NameKind, items: &mut Vec<T>, name: impl Fn(&T) -> &str) {
        let mut seen = HashSet::new();
        items.retain(|item| seen.insert(kind.rust_name(name(item))));
    }
    fn keep_first_key<T>(
        kind: NameKind,
        map: &mut BTreeMap<String, T>,
        seen: &mut HashSet<String>,
    ) {
        map.retain(|name, _| seen.insert(kind.rust_name(name)));
    }
    let mut m = m.clone();
    for kind in NameKind::ALL {
        let c = &mut m.contributes;
        let ai = &mut c.ai;
        match kind {
            NameKind::Tools => keep_first(kind, &mut ai.tools, |t| &t.id),
            NameKind::Actions => keep_first(kind, &mut ai.actions, |a| &a.id),
            NameKind::Mentions => keep_first(kind, &mut ai.mentions, |x| &x.id),
            NameKind::ContextProviders => keep_first(kind, &mut ai.context, |x| &x.id),
            NameKind::Prompts => keep_first(kind, &mut ai.prompts, |x| &x.id),
            NameKind::Webhooks => keep_first(kind, &mut c.webhooks, |w| &w.event),
            // `settings` is the settings panel's reserved collection (the engine's `storage-reserved`).
            NameKind::StorageCollections => {
                let mut seen = HashSet::from(["settings".to_owned()]);
                keep_first_key(kind, &mut c.storage, &mut seen);
            }
            NameKind::Procedures => {
                if let Some(server) = &mut m.server {
                    keep_first_key(kind, &mut server.procedures, &mut HashSet::new());
                }
            }
            NameKind::SubscribedEvents => {
                if let Some(server) = &mut m.server {
                    keep_first(kind, &mut server.events, |e| e);
                }
            }
            NameKind::Metrics => {
                if let Some(connector) = &mut c.connector {
                    keep_first(kind, &mut connector.metrics, |x| &x.key);
                }
            }
            NameKind::AuthFields => {
                if let Some(auth) = c.connector.as_mut().and_then(|c| c.auth.as_mut()) {
                    keep_first(kind, &mut auth.fields, |f| &f.name);
                }
            }
            NameKind::Telemetry => keep_first(kind, &mut m.telemetry, |t| t),
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_items_and_impls_at_the_top_level_allow_unreachable_pub() {
        let items = quote! {
            /// Docs.
            #[allow(dead_code)]
            pub mod a { pub struct Inner; }
            impl A { pub fn new() -> A { A } }
            pub(crate) fn f(x: impl Sized) -> impl Sized { x }
            const _: &[u8] = &[];
            fn private() {}
            pub type B = C;
        };
        let out = reachable_or_not(items).to_string();
        let allow = "# [allow (unreachable_pub)]";
        assert_eq!(out.matches(allow).count(), 4, "{out}");
        for item in ["pub mod a", "impl A", "pub (crate) fn f", "pub type B"] {
            assert!(out.contains(&format!("{allow} {item}")), "{item}: {out}");
        }
        // Not inside the module, nor before a return type's `impl`.
        assert!(out.contains("{ pub struct Inner ; }"), "{out}");
        assert!(out.contains("-> impl Sized"), "{out}");
    }
}
