//! From a typed manifest to the items `host_extension!` emits: schema modules, `Credentials` and
//! `Documents`, the `manifest` constants, one handler trait per kind of contribution, the typed
//! `Webhooks` sender, the private dispatcher and the `handler` entry point.
//!
//! Everything at the call site names `::core`, `::std` and `::host_runtime` paths in full, so a vendor's
//! own `Result`, `Option`, `String` or `Box` cannot change its meaning.

use host_manifest::catalogue;
use host_manifest::model::{AuthMethod, Manifest, Returns, WebhookKind};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::docs::{doc, doc_with};
use crate::names::{camel, collisions, ident, snake};
use crate::types::{Job, Types};

/// What generation produced besides code: problems that stop it being correct (errors) or that the
/// vendor should know (warnings).
#[derive(Debug, Default)]
pub struct Notes {
    /// Errors, as messages.
    pub errors: Vec<String>,
    /// Warnings, as messages.
    pub warnings: Vec<String>,
    /// Warnings about one place in the manifest: `(JSON pointer, message)`.
    pub located: Vec<(String, String)>,
}

/// Types the schemas `m` embeds: what [`generate`] needs first and what takes it longest, so the macro
/// starts it while the engine is still validating.
pub fn schema_types(m: &Manifest) -> Types {
    Types::build(schema_jobs(&without_repeats(m)))
}

/// The generated items, as Rust source text, for a manifest whose typed model could be read.
/// `types` is [`schema_types`] of `m` when the caller already has it.
pub fn generate(m: &Manifest, types: Option<Types>, notes: &mut Notes) -> String {
    check_names(m, notes);
    // An invalid manifest may repeat an id (reported by the engine); generating both would add
    // compiler errors that say nothing new, so later repeats are left out.
    let unique = without_repeats(m);
    let m = &unique;
    let json = serde_json::to_string(m).unwrap_or_default();
    let phase = crate::Phase::start();
    let types = types.unwrap_or_else(|| Types::build(schema_jobs(m)));
    phase.done("types");
    let mut out = TokenStream::new();
    out.extend(manifest_module(m));
    out.extend(credentials(m, notes));
    out.extend(documents(m, &types, notes));
    out.extend(call_aliases(m));
    for section in [
        tools(m, &types, notes),
        actions(m, &types, notes),
        mentions(m),
        context_providers(m),
        procedures(m, &types, notes),
        connector(m),
        work(m),
        events(m),
    ] {
        out.extend(arc_impls(&section));
        out.extend(section);
    }
    out.extend(webhooks(m, &types, notes));
    out.extend(dispatcher(m, &json));
    phase.done("items");
    let text = types.splice(out.to_string());
    phase.done("splice");
    text
}

/// Every schema module to type, keyed as the sections below look them up.
fn schema_jobs(m: &Manifest) -> Vec<Job<'_>> {
    use host_manifest::escape_token as esc;
    let c = &m.contributes;
    let mut jobs = Vec::new();
    for (name, coll) in &c.storage {
        jobs.push(Job {
            key: format!("storage/{name}"),
            roots: vec![(
                &coll.schema,
                "Document",
                format!("/contributes/storage/{}/schema", esc(name)),
            )],
        });
    }
    if let Some(settings) = &c.settings {
        jobs.push(Job {
            key: "settings".to_owned(),
            roots: vec![(
                &settings.schema,
                "Settings",
                "/contributes/settings/schema".to_owned(),
            )],
        });
    }
    for (i, t) in c.ai.tools.iter().enumerate() {
        jobs.push(Job {
            key: format!("tools/{}", t.id),
            roots: vec![(
                &t.input,
                "Input",
                format!("/contributes/ai/tools/{i}/input"),
            )],
        });
    }
    for (i, a) in c.ai.actions.iter().enumerate() {
        jobs.push(Job {
            key: format!("actions/{}", a.id),
            roots: vec![(
                &a.input,
                "Input",
                format!("/contributes/ai/actions/{i}/input"),
            )],
        });
    }
    for (name, p) in m.server.iter().flat_map(|s| s.procedures.iter()) {
        let at = format!("/server/procedures/{}", esc(name));
        jobs.push(Job {
            key: format!("procedures/{name}"),
            roots: vec![
                (&p.input, "Input", format!("{at}/input")),
                (&p.output, "Output", format!("{at}/output")),
            ],
        });
    }
    for (i, w) in c.webhooks.iter().enumerate() {
        jobs.push(Job {
            key: format!("webhooks/{}", w.event),
            roots: vec![(
                &w.payload,
                "Payload",
                format!("/contributes/webhooks/{i}/payload"),
            )],
        });
    }
    jobs
}

/// The manifest without the later of two items that would get the same Rust name.
fn without_repeats(m: &Manifest) -> Manifest {
    fn keep_first<T>(items: &mut Vec<T>, name: impl Fn(&T) -> String) {
        let mut seen = std::collections::HashSet::new();
        items.retain(|item| seen.insert(name(item)));
    }
    let mut m = m.clone();
    let ai = &mut m.contributes.ai;
    keep_first(&mut ai.tools, |t| snake(&t.id));
    keep_first(&mut ai.actions, |a| snake(&a.id));
    keep_first(&mut ai.mentions, |x| snake(&x.id));
    keep_first(&mut ai.context, |x| snake(&x.id));
    keep_first(&mut m.contributes.webhooks, |w| snake(&w.event));
    if let Some(c) = &mut m.contributes.connector {
        keep_first(&mut c.metrics, |x| camel(&x.key));
        if let Some(auth) = &mut c.auth {
            keep_first(&mut auth.fields, |f| snake(&f.name));
        }
    }
    if let Some(server) = &mut m.server {
        let mut seen = std::collections::HashSet::new();
        server.procedures.retain(|name, _| seen.insert(snake(name)));
        keep_first(&mut server.events, |e| snake(e));
    }
    m
}

/// For each handler trait in `section`, an implementation for `Arc<T>` that forwards to `T`, so a
/// vendor can hand `handler` an `Arc` of state shared with the rest of the server.
fn arc_impls(section: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut item: Vec<proc_macro2::TokenTree> = Vec::new();
    for tree in section.clone() {
        let ends = matches!(&tree, proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace)
            || matches!(&tree, proc_macro2::TokenTree::Punct(p) if p.as_char() == ';');
        item.push(tree);
        if !ends {
            continue;
        }
        let tokens: TokenStream = item.drain(..).collect();
        let is_trait = tokens
            .clone()
            .into_iter()
            .any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "trait"));
        if !is_trait {
            continue;
        }
        let Ok(tr) = syn::parse2::<syn::ItemTrait>(tokens) else {
            continue;
        };
        let name = &tr.ident;
        let methods = tr.items.iter().filter_map(|item| match item {
            syn::TraitItem::Fn(f) => {
                let mut sig = f.sig.clone();
                let method = &sig.ident;
                let args: Vec<TokenStream> = sig
                    .inputs
                    .iter_mut()
                    .filter_map(|arg| match arg {
                        syn::FnArg::Typed(pat) => {
                            // `_call` in a default method becomes a used argument here.
                            let ident = quote::format_ident!("call");
                            *pat.pat = syn::parse_quote!(#ident);
                            Some(quote!(#ident))
                        }
                        syn::FnArg::Receiver(_) => None,
                    })
                    .collect();
                Some(quote! { #sig { <T as #name>::#method(&**self, #(#args),*) } })
            }
            _ => None,
        });
        out.extend(quote! {
            // Forwards to the shared `T`, so `handler` can take an `Arc` of state the server shares.
            impl<T: #name + ?::core::marker::Sized> #name for ::std::sync::Arc<T> {
                #(#methods)*
            }
        });
    }
    out
}

/// Traits a manifest needs, in a fixed order.
fn needed_traits(m: &Manifest) -> Vec<Ident> {
    let ai = &m.contributes.ai;
    let mut out = Vec::new();
    let mut need = |yes: bool, name: &str| {
        if yes {
            out.push(format_ident!("{name}"));
        }
    };
    need(!ai.tools.is_empty(), "Tools");
    need(!ai.actions.is_empty(), "Actions");
    need(!ai.mentions.is_empty(), "Mentions");
    need(!ai.context.is_empty(), "ContextProviders");
    need(
        m.server.as_ref().is_some_and(|s| !s.procedures.is_empty()),
        "Procedures",
    );
    need(has_sync(m), "Connector");
    need(m.contributes.work.is_some(), "Work");
    need(!m.subscribed_events().is_empty(), "Events");
    out
}

fn has_sync(m: &Manifest) -> bool {
    m.contributes
        .connector
        .as_ref()
        .is_some_and(|c| !c.metrics.is_empty())
}

fn check_names(m: &Manifest, notes: &mut Notes) {
    let ai = &m.contributes.ai;
    let mut namespaces: Vec<(&str, Vec<(&str, String)>)> = vec![
        (
            "tools",
            ai.tools
                .iter()
                .map(|t| (t.id.as_str(), snake(&t.id)))
                .collect(),
        ),
        (
            "actions",
            ai.actions
                .iter()
                .map(|t| (t.id.as_str(), snake(&t.id)))
                .collect(),
        ),
        (
            "mentions",
            ai.mentions
                .iter()
                .map(|t| (t.id.as_str(), snake(&t.id)))
                .collect(),
        ),
        (
            "context providers",
            ai.context
                .iter()
                .map(|t| (t.id.as_str(), snake(&t.id)))
                .collect(),
        ),
        (
            "webhooks",
            m.contributes
                .webhooks
                .iter()
                .map(|w| (w.event.as_str(), snake(&w.event)))
                .collect(),
        ),
        (
            "storage collections",
            m.contributes
                .storage
                .keys()
                .map(|k| (k.as_str(), snake(k)))
                .collect(),
        ),
        (
            "subscribed events",
            m.subscribed_events()
                .iter()
                .map(|e| (e.as_str(), snake(e)))
                .collect(),
        ),
    ];
    if let Some(server) = &m.server {
        namespaces.push((
            "procedures",
            server
                .procedures
                .keys()
                .map(|k| (k.as_str(), snake(k)))
                .collect(),
        ));
    }
    if let Some(c) = &m.contributes.connector {
        namespaces.push((
            "metrics",
            c.metrics
                .iter()
                .map(|x| (x.key.as_str(), camel(&x.key)))
                .collect(),
        ));
        if let Some(auth) = &c.auth {
            let mut fields: Vec<(&str, String)> = auth
                .fields
                .iter()
                .map(|f| (f.name.as_str(), snake(&f.name)))
                .collect();
            if auth.method == AuthMethod::Oauth {
                fields.push(("oauth (the OAuth token, D7)", "oauth".to_owned()));
            }
            namespaces.push(("credentials", fields));
        }
    }
    for (space, names) in namespaces {
        // Identical names are the engine's `duplicate-id` errors already.
        for (a, b, rust) in collisions(names).into_iter().filter(|(a, b, _)| a != b) {
            notes.errors.push(format!(
                "the {space} `{a}` and `{b}` would both be named `{rust}` in Rust; rename one in the manifest"
            ));
        }
    }
}

fn str_list(items: impl IntoIterator<Item = String>) -> TokenStream {
    let items: Vec<String> = items.into_iter().collect();
    quote! { &[ #(#items),* ] }
}

/// `manifest`: constants and enums for what the manifest declares.
fn manifest_module(m: &Manifest) -> TokenStream {
    let id = &m.id;
    let name = &m.name;
    let sdk = &m.sdk;
    let module_doc = doc(&format!(
        "What `host.extension.json` declares for `{id}` ({name}), as constants and enums.\n\n{}",
        m.description
    ));
    let scopes = string_enum(
        "Scope",
        "A scope the manifest declares under `scopes`.",
        m.scopes.iter().map(|s| {
            let mut text = format!("`{}`", s.key);
            if let Some(j) = &s.justification {
                text.push_str(&format!(": {j}"));
            }
            (s.key.clone(), text)
        }),
    );
    let events = string_enum(
        "SubscribedEvent",
        "A host event the vendor server subscribes to under `server.events`.",
        m.subscribed_events().iter().map(|e| {
            let published = catalogue::event(e).is_some_and(|ev| ev.published);
            let note = if published {
                "delivered to `POST /host/events`"
            } else {
                "reserved: not delivered yet"
            };
            (e.clone(), format!("`{e}`: {note}."))
        }),
    );
    let telemetry = string_enum(
        "Telemetry",
        "A telemetry name the extension may report (`telemetry`).",
        m.telemetry.iter().map(|t| (t.clone(), format!("`{t}`."))),
    );
    let metrics: Vec<_> = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| c.metrics.iter())
        .collect();
    let metric_enum = if metrics.is_empty() {
        TokenStream::new()
    } else {
        let variants: Vec<Ident> = metrics.iter().map(|x| ident(&camel(&x.key))).collect();
        let keys: Vec<&str> = metrics.iter().map(|x| x.key.as_str()).collect();
        let docs: Vec<TokenStream> = metrics
            .iter()
            .map(|x| {
                let dims: Vec<String> = x
                    .dimensions
                    .iter()
                    .map(|d| format!("`{}` ({})", d.key, d.label))
                    .collect();
                let dims = if dims.is_empty() {
                    "no dimensions".to_owned()
                } else {
                    format!("dimensions {}", dims.join(", "))
                };
                doc(&format!(
                    "`{}`: {} ({}, {}); {dims}.",
                    x.key, x.label, x.unit, x.kind
                ))
            })
            .collect();
        let dims: Vec<TokenStream> = metrics
            .iter()
            .map(|x| str_list(x.dimensions.iter().map(|d| d.key.clone())))
            .collect();
        quote! {
            /// A metric key the connector declares under `contributes.connector.metrics`.
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash, ::host_runtime::codegen::serde::Serialize, ::host_runtime::codegen::serde::Deserialize)]
            #[serde(crate = "::host_runtime::codegen::serde")]
            pub enum Metric {
                #( #docs #[serde(rename = #keys)] #variants, )*
            }

            impl Metric {
                /// Every declared metric, in manifest order.
                pub const ALL: &'static [Metric] = &[ #(Metric::#variants),* ];

                /// The key as written in the manifest.
                pub fn as_str(self) -> &'static str {
                    match self { #( Metric::#variants => #keys, )* }
                }

                /// The dimension keys the metric declares.
                pub fn dimensions(self) -> &'static [&'static str] {
                    match self { #( Metric::#variants => #dims, )* }
                }
            }
        }
    };
    quote! {
        #module_doc
        pub mod manifest {
            /// The extension id.
            pub const EXTENSION_ID: &str = #id;
            /// The name shown to owners.
            pub const NAME: &str = #name;
            /// The SDK range the manifest targets.
            pub const SDK: &str = #sdk;
            #scopes
            #events
            #telemetry
            #metric_enum
        }
    }
}

/// A fieldless enum of manifest strings with `as_str` and `ALL`.
fn string_enum(
    name: &str,
    what: &str,
    values: impl Iterator<Item = (String, String)>,
) -> TokenStream {
    let values: Vec<(String, String)> = values.collect();
    let name = format_ident!("{name}");
    if values.is_empty() {
        let doc = doc(&format!("{what}\n\nThe manifest declares none."));
        return quote! {
            #doc
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
            pub enum #name {}
            impl #name {
                /// Every value, in manifest order (none).
                pub const ALL: &'static [#name] = &[];
                /// The value as written in the manifest.
                pub fn as_str(self) -> &'static str { match self {} }
            }
        };
    }
    let enum_doc = doc(what);
    let variants: Vec<Ident> = values
        .iter()
        .map(|(v, _)| ident(&camel(&v.replace(':', "_"))))
        .collect();
    let texts: Vec<&str> = values.iter().map(|(v, _)| v.as_str()).collect();
    let docs: Vec<TokenStream> = values.iter().map(|(_, d)| doc(d)).collect();
    quote! {
        #enum_doc
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
        pub enum #name {
            #( #docs #variants, )*
        }
        impl #name {
            /// Every value, in manifest order.
            pub const ALL: &'static [#name] = &[ #(#name::#variants),* ];
            /// The value as written in the manifest.
            pub fn as_str(self) -> &'static str {
                match self { #( #name::#variants => #texts, )* }
            }
        }
    }
}

/// `Credentials`, typed from `connector.auth.fields` (D7).
fn credentials(m: &Manifest, _notes: &mut Notes) -> TokenStream {
    let Some(auth) = m
        .contributes
        .connector
        .as_ref()
        .and_then(|c| c.auth.as_ref())
    else {
        return quote! {
            /// Connector credentials: the manifest declares no connector auth, so there are none.
            pub type Credentials = ::host_runtime::NoCredentials;
        };
    };
    let mut fields = Vec::new();
    for f in &auth.fields {
        let name = ident(&snake(&f.name));
        let json = &f.name;
        let mut text = format!("{} (`{json}`, a {} input).", f.label, f.kind);
        if let Some(help) = &f.help {
            text.push_str(&format!("\n\n{help}"));
        }
        if !f.required {
            text.push_str("\n\nOptional: `None` when the owner left it empty.");
        }
        let d = doc(&text);
        fields.push(if f.required {
            quote! { #d #[serde(rename = #json)] pub #name: ::std::string::String, }
        } else {
            quote! { #d #[serde(rename = #json, default)] pub #name: ::core::option::Option<::std::string::String>, }
        });
    }
    if auth.method == AuthMethod::Oauth {
        fields.push(quote! {
            /// The OAuth token the host keeps for this install (`credentials.oauth`).
            pub oauth: ::host_runtime::OAuthToken,
        });
    }
    quote! {
        /// Connector credentials the owner entered at install (`contributes.connector.auth`), sent on
        /// every call with a body.
        #[derive(::core::clone::Clone, ::host_runtime::codegen::serde::Deserialize)]
        #[serde(crate = "::host_runtime::codegen::serde")]
        pub struct Credentials {
            #(#fields)*
        }

        impl ::core::fmt::Debug for Credentials {
            // Credentials are secrets: never print them.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str("Credentials(..)")
            }
        }
    }
}

/// `Documents`, typed from storage collections and the settings panel (D7), with their schema modules.
fn documents(m: &Manifest, types: &Types, notes: &mut Notes) -> TokenStream {
    let mut modules = Vec::new();
    let mut fields = Vec::new();
    for (name, coll) in &m.contributes.storage {
        let module = ident(&snake(name));
        let (items, why, fallbacks) = types.items(&format!("storage/{name}"), &["Document"]);
        notes.located.extend(fallbacks);
        if let Some(why) = why {
            notes.warnings.push(format!(
                "storage collection `{name}`: {why}; its documents are untyped JSON"
            ));
        }
        let module_doc = doc(&format!(
            "Documents of the storage collection `{name}` (owned per {}).",
            coll.scope
        ));
        modules.push(quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #module { #items }
        });
        let singleton = coll.singleton == Some(true);
        let d = doc(&format!(
            "The `{name}` collection{}.",
            if singleton {
                ", which holds one document (`None` until it is written)"
            } else {
                ""
            }
        ));
        fields.push(if singleton {
            quote! { #d #[serde(rename = #name, default)] pub #module: ::core::option::Option<storage::#module::Document>, }
        } else {
            quote! { #d #[serde(rename = #name, default)] pub #module: ::std::vec::Vec<::host_runtime::Document<storage::#module::Document>>, }
        });
    }
    let mut settings_module = TokenStream::new();
    if m.contributes.settings.is_some() {
        let (items, why, fallbacks) = types.items("settings", &["Settings"]);
        notes.located.extend(fallbacks);
        if let Some(why) = why {
            notes.warnings.push(format!(
                "the settings schema: {why}; settings are untyped JSON"
            ));
        }
        settings_module = quote! {
            /// The values owners fill in on the settings panel (`contributes.settings.schema`).
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod settings { #items }
        };
        fields.push(quote! {
            /// The settings panel's values (the reserved `settings` collection); `None` until saved.
            #[serde(default)]
            pub settings: ::core::option::Option<settings::Settings>,
        });
    }
    if fields.is_empty() {
        return quote! {
            /// Hosted storage documents: the manifest declares no storage and no settings panel.
            pub type Documents = ::host_runtime::NoDocuments;
        };
    }
    let storage_module = if modules.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            /// Types of the hosted storage collections (`contributes.storage`).
            pub mod storage { #(#modules)* }
        }
    };
    quote! {
        #storage_module
        #settings_module

        /// Hosted storage documents sent with every call that has a body (D7).
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::host_runtime::codegen::serde::Deserialize)]
        #[serde(crate = "::host_runtime::codegen::serde")]
        pub struct Documents {
            #(#fields)*
        }
    }
}

/// The call types handlers receive, named with this manifest's credentials and documents.
fn call_aliases(m: &Manifest) -> TokenStream {
    let ai = &m.contributes.ai;
    let mut out = TokenStream::new();
    let typed_call =
        !ai.tools.is_empty() || m.server.as_ref().is_some_and(|s| !s.procedures.is_empty());
    if typed_call {
        out.extend(quote! {
            /// A call to a tool or procedure, with its typed `input`.
            pub type ToolCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
        });
    }
    if !ai.actions.is_empty() {
        out.extend(quote! {
            /// An action call the owner approved; only the runtime can make one.
            pub type Approved<I> = ::host_runtime::Approved<I, Credentials, Documents>;
        });
    }
    if !m.subscribed_events().is_empty() {
        out.extend(quote! {
            /// A host event delivery, with its typed payload as `input`.
            pub type EventCall<P> = ::host_runtime::Call<P, Credentials, Documents>;
        });
    }
    if has_sync(m) {
        out.extend(quote! {
            /// A metrics sync call (`POST /host/metrics`).
            pub type SyncCall = ::host_runtime::Call<::host_runtime::metrics::SyncRequest<manifest::Metric>, Credentials, Documents>;
        });
    }
    if m.contributes.work.is_some() {
        out.extend(quote! {
            /// A work destination call, with its typed body as `input`.
            pub type WorkCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
            /// The container list call (`GET`): its query as `input`. A GET carries no body, so it
            /// has no credentials or documents; its install comes from the verified token.
            pub type ContainersCall = ::host_runtime::Call<::host_runtime::work::ContainerQuery, ::host_runtime::NoCredentials, ::host_runtime::NoDocuments>;
        });
    }
    out
}

fn future_of(output: TokenStream) -> TokenStream {
    quote! {
        impl ::core::future::Future<Output = ::core::result::Result<#output, ::host_runtime::HostError>> + ::core::marker::Send
    }
}

fn answer_type(returns: Returns) -> (TokenStream, &'static str) {
    match returns {
        Returns::Value => (
            quote!(::host_runtime::answer::Value),
            "a value card: `{ value, label?, unit?, change? }`",
        ),
        Returns::List => (
            quote!(::host_runtime::answer::List),
            "a list card: `{ items: [{ title, subtitle?, url?, value? }] }`",
        ),
        Returns::Table => (
            quote!(::host_runtime::answer::Table),
            "a table card: `{ columns, rows }`; row keys must be columns",
        ),
        Returns::Series => (
            quote!(::host_runtime::answer::Series),
            "a series card: `{ series: [{ key, label, unit?, points }] }`",
        ),
        Returns::Comparison => (
            quote!(::host_runtime::answer::Comparison),
            "a comparison card: `{ subjects, rows }` with one value per subject",
        ),
    }
}

fn tools(m: &Manifest, types: &Types, notes: &mut Notes) -> TokenStream {
    let tools = &m.contributes.ai.tools;
    if tools.is_empty() {
        return TokenStream::new();
    }
    let mut modules = Vec::new();
    let mut methods = Vec::new();
    for t in tools {
        let name = ident(&snake(&t.id));
        let id = &t.id;
        let route = format!("/host/tools/{id}");
        let (items, why, fallbacks) = types.items(&format!("tools/{id}"), &["Input"]);
        notes.located.extend(fallbacks);
        if let Some(why) = why {
            notes
                .warnings
                .push(format!("tool `{id}`: {why}; its input is untyped JSON"));
        }
        let module_doc = doc_with(
            &t.description,
            &[format!(
                "Types of the tool `{id}`, called as `POST {route}`."
            )],
        );
        modules.push(quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #name {
                /// The tool id.
                pub const ID: &str = #id;
                /// The route the host calls.
                pub const ROUTE: &str = #route;
                #items
            }
        });
        let (answer, shape) = answer_type(t.returns);
        let mut extra = vec![
            format!(
                "Called by the host as `POST {route}`, never retried; answers within 30 s and 1 MB."
            ),
            format!("Returns {shape}. Cost: {}.", t.cost),
        ];
        if let Some(cache) = t.cache {
            extra.push(format!(
                "The host may serve an identical call from cache for {cache}."
            ));
        }
        let d = doc_with(&t.description, &extra);
        let fut = future_of(answer);
        methods.push(quote! { #d fn #name(&self, call: ToolCall<tools::#name::Input>) -> #fut; });
    }
    quote! {
        /// Input types of the assistant tools (`contributes.ai.tools`), one module per tool.
        pub mod tools { #(#modules)* }

        /// The assistant tools this extension declares (`contributes.ai.tools`): one method per tool.
        pub trait Tools: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }
    }
}

fn actions(m: &Manifest, types: &Types, notes: &mut Notes) -> TokenStream {
    let actions = &m.contributes.ai.actions;
    if actions.is_empty() {
        return TokenStream::new();
    }
    let mut modules = Vec::new();
    let mut methods = Vec::new();
    for a in actions {
        let name = ident(&snake(&a.id));
        let id = &a.id;
        let route = format!("/host/actions/{id}");
        let (items, why, fallbacks) = types.items(&format!("actions/{id}"), &["Input"]);
        notes.located.extend(fallbacks);
        if let Some(why) = why {
            notes
                .warnings
                .push(format!("action `{id}`: {why}; its input is untyped JSON"));
        }
        let scope = &a.scope;
        let module_doc = doc_with(
            &a.description,
            &[format!(
                "Types of the action `{id}`, called as `POST {route}`."
            )],
        );
        modules.push(quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #name {
                /// The action id.
                pub const ID: &str = #id;
                /// The route the host calls.
                pub const ROUTE: &str = #route;
                /// The scope the action needs.
                pub const SCOPE: &str = #scope;
                #items
            }
        });
        let d = doc_with(
            &a.description,
            &[
                format!(
                    "Called by the host as `POST {route}`, only after the owner approved it on the approval card."
                ),
                format!(
                    "Needs the scope `{scope}`. {} Any 2xx answer marks the run succeeded and the answer is stored.",
                    if a.reversible {
                        "The owner can undo it."
                    } else {
                        "It cannot be undone."
                    }
                ),
            ],
        );
        let fut = future_of(quote!(::host_runtime::serde_json::Value));
        methods.push(quote! { #d fn #name(&self, call: Approved<actions::#name::Input>) -> #fut; });
    }
    quote! {
        /// Input types of the owner-approved actions (`contributes.ai.actions`), one module per action.
        pub mod actions { #(#modules)* }

        /// The owner-approved actions this extension declares (`contributes.ai.actions`).
        pub trait Actions: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }
    }
}

fn mentions(m: &Manifest) -> TokenStream {
    let mentions = &m.contributes.ai.mentions;
    if mentions.is_empty() {
        return TokenStream::new();
    }
    let methods = mentions.iter().map(|x| {
        let name = ident(&snake(&x.id));
        let d = doc(&format!(
            "The `{}` mention picker ({}).\n\nCalled by the host as `GET /host/mentions/{}?q=<text>`; the host keeps the first 20 items and cuts labels to 80 characters.",
            x.id, x.label, x.id
        ));
        let fut = future_of(quote!(::host_runtime::MentionItems));
        quote! { #d fn #name(&self, call: ::host_runtime::MentionCall) -> #fut; }
    });
    quote! {
        /// The mention pickers this extension declares (`contributes.ai.mentions`).
        pub trait Mentions: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }
    }
}

fn context_providers(m: &Manifest) -> TokenStream {
    let providers = &m.contributes.ai.context;
    if providers.is_empty() {
        return TokenStream::new();
    }
    let methods = providers.iter().map(|x| {
        let name = ident(&snake(&x.id));
        let when: Vec<String> = x.when.iter().map(|w| format!("`{w}`")).collect();
        let d = doc_with(
            &x.description,
            &[format!(
                "Called by the host as `GET /host/context/{}` (asked at {}); the block is at most 2 KB once rendered.",
                x.id,
                when.join(" and ")
            )],
        );
        let fut = future_of(quote!(::host_runtime::ContextBlock));
        quote! { #d fn #name(&self, call: ::host_runtime::ContextCall) -> #fut; }
    });
    quote! {
        /// The context providers this extension declares (`contributes.ai.context`).
        pub trait ContextProviders: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }
    }
}

fn procedures(m: &Manifest, types: &Types, notes: &mut Notes) -> TokenStream {
    let Some(server) = m.server.as_ref().filter(|s| !s.procedures.is_empty()) else {
        return TokenStream::new();
    };
    let mut modules = Vec::new();
    let mut methods = Vec::new();
    for (pname, p) in &server.procedures {
        let name = ident(&snake(pname));
        let route = format!("/host/procedures/{pname}");
        let (items, why, fallbacks) =
            types.items(&format!("procedures/{pname}"), &["Input", "Output"]);
        notes.located.extend(fallbacks);
        if let Some(why) = why {
            notes.warnings.push(format!(
                "procedure `{pname}`: {why}; its input and output are untyped JSON"
            ));
        }
        let module_doc = doc(&format!(
            "Types of the procedure `{pname}`, called as `POST {route}`."
        ));
        modules.push(quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #name {
                /// The procedure name.
                pub const NAME: &str = #pname;
                /// The route the host calls.
                pub const ROUTE: &str = #route;
                #items
            }
        });
        let mut extra = vec![format!(
            "Called by the host as `POST {route}`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema."
        )];
        if let Some(kind) = p.kind {
            extra.push(format!("Kind: {kind}."));
        }
        if let Some(cache) = p.cache {
            extra.push(format!(
                "Identical calls may be served from cache for {cache}."
            ));
        }
        let d = doc_with(&format!("The procedure `{pname}`."), &extra);
        let fut = future_of(quote!(procedures::#name::Output));
        methods
            .push(quote! { #d fn #name(&self, call: ToolCall<procedures::#name::Input>) -> #fut; });
    }
    quote! {
        /// Input and output types of the procedures (`server.procedures`), one module per procedure.
        pub mod procedures { #(#modules)* }

        /// The procedures the host may call (`server.procedures`).
        pub trait Procedures: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }
    }
}

fn connector(m: &Manifest) -> TokenStream {
    if !has_sync(m) {
        return TokenStream::new();
    }
    let schedule = m
        .contributes
        .connector
        .as_ref()
        .and_then(|c| c.sync)
        .map_or("when the host needs data".to_owned(), |s| {
            format!("every {s}")
        });
    let d = doc(&format!(
        "Syncs metrics into the host's metrics store.\n\nCalled by the host as `POST /host/metrics` ({schedule}); answer points of the asked metrics only, with the metric's declared dimensions, and a `cursor` when more pages follow."
    ));
    let fut = future_of(quote!(
        ::host_runtime::metrics::SyncAnswer<manifest::Metric>
    ));
    quote! {
        /// The connector's metrics sync (`contributes.connector`).
        pub trait Connector: ::core::marker::Send + ::core::marker::Sync + 'static {
            #d
            fn sync(&self, call: SyncCall) -> #fut;
        }
    }
}

fn work(m: &Manifest) -> TokenStream {
    let Some(w) = &m.contributes.work else {
        return TokenStream::new();
    };
    let list = &w.container.list;
    let containers_doc = doc(&format!(
        "Lists the selectable {} (`work.container`).\n\nCalled by the host as `GET {list}?q=<text>`.",
        w.container.label
    ));
    let creates: Vec<String> = w.creates.iter().map(|c| format!("`{c}`")).collect();
    let item_doc = doc(&format!(
        "Creates an item ({}) in the {} destination, as the {}.\n\nCalled by the host as `POST /host/work/items`.",
        creates.join(", "),
        w.kind,
        w.identity
    ));
    let comments = if w.comments == host_manifest::model::CommentSync::TwoWay {
        let fut = future_of(quote!(::host_runtime::work::CreatedComment));
        quote! {
            /// Adds a comment to an item; the item id is `call.input.0`.
            ///
            /// Called by the host as `POST /host/work/items/<id>/comments` (`comments: "two-way"`).
            fn create_comment(&self, call: WorkCall<(::std::string::String, ::host_runtime::work::NewComment)>) -> #fut;
        }
    } else {
        TokenStream::new()
    };
    let fut_containers = future_of(quote!(::host_runtime::work::Containers));
    let fut_item = future_of(quote!(::host_runtime::work::CreatedItem));
    quote! {
        /// The work destination (`contributes.work`).
        pub trait Work: ::core::marker::Send + ::core::marker::Sync + 'static {
            #containers_doc
            fn containers(&self, call: ContainersCall) -> #fut_containers;
            #item_doc
            fn create_item(&self, call: WorkCall<::host_runtime::work::NewItem>) -> #fut_item;
            #comments
        }
    }
}

fn events(m: &Manifest) -> TokenStream {
    let names = m.subscribed_events();
    if names.is_empty() {
        return TokenStream::new();
    }
    let methods = names.iter().filter_map(|name| catalogue::event(name)).map(|e| {
        let method = ident(&snake(e.name));
        let scope = e.scope.map_or("no scope".to_owned(), |s| format!("the scope `{s}`"));
        if e.published {
            let ty = format_ident!("{}", camel(e.name));
            let d = doc(&format!(
                "Handles `{}`.\n\nDelivered as `POST /host/events` to installs granted {scope}; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.",
                e.name
            ));
            let fut = future_of(quote!(()));
            quote! { #d fn #method(&self, call: EventCall<::host_runtime::events::#ty>) -> #fut; }
        } else {
            let d = doc(&format!(
                "Handles `{}`, a reserved event: the host does not deliver it yet, so the default does nothing.\n\nIt will need {scope}.",
                e.name
            ));
            let fut = future_of(quote!(()));
            quote! {
                #d
                fn #method(&self, _call: EventCall<::host_runtime::events::Unpublished>) -> #fut {
                    async { ::core::result::Result::Ok(()) }
                }
            }
        }
    });
    quote! {
        /// The host events the vendor server subscribes to (`server.events`): one method per event.
        pub trait Events: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }
    }
}

fn webhooks(m: &Manifest, types: &Types, notes: &mut Notes) -> TokenStream {
    let hooks = &m.contributes.webhooks;
    if hooks.is_empty() {
        return TokenStream::new();
    }
    let mut modules = Vec::new();
    let mut methods = Vec::new();
    for w in hooks {
        let name = ident(&snake(&w.event));
        let event = &w.event;
        let (items, why, fallbacks) = types.items(&format!("webhooks/{event}"), &["Payload"]);
        notes.located.extend(fallbacks);
        if let Some(why) = why {
            notes.warnings.push(format!(
                "webhook `{event}`: {why}; its payload is untyped JSON"
            ));
        }
        let what = match w.kind {
            WebhookKind::Alert => "an inbox alert showing the payload's `why`",
            WebhookKind::Banner => "a page banner showing the payload's `why`",
            WebhookKind::Event => "an event for chart markers and client subscriptions",
        };
        let module_doc = doc(&format!("The payload of `{event}` (`as: \"{}\"`).", w.kind));
        modules.push(quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #name {
                /// The event name.
                pub const EVENT: &str = #event;
                #items
            }
        });
        let d = doc(&format!(
            "Signs `{event}` for the install `source`: the host turns it into {what}.\n\n`dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`)."
        ));
        methods.push(quote! {
            #d
            pub fn #name(
                &self,
                source: &str,
                dedupe_key: &str,
                payload: &webhooks::#name::Payload,
            ) -> ::core::result::Result<::host_runtime::webhook::OutboundEvent, ::host_runtime::webhook::WebhookError> {
                self.sender.event(#event, source, dedupe_key, payload)
            }
        });
    }
    quote! {
        /// Payload types of the events the vendor server posts (`contributes.webhooks`).
        pub mod webhooks { #(#modules)* }

        /// Typed sender for the events this extension declares under `contributes.webhooks`: one method
        /// per event, taking that event's payload type.
        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        pub struct Webhooks {
            sender: ::host_runtime::EventSender,
        }

        impl Webhooks {
            /// Wraps a configured event sender.
            pub fn new(sender: ::host_runtime::EventSender) -> Self {
                Webhooks { sender }
            }

            #(#methods)*
        }
    }
}

/// The private dispatcher and the public `handler` entry point.
fn dispatcher(m: &Manifest, json: &str) -> TokenStream {
    let traits = needed_traits(m);
    let ai = &m.contributes.ai;
    let mut arms = Vec::new();
    for t in &ai.tools {
        let (id, name) = (&t.id, ident(&snake(&t.id)));
        arms.push(quote! {
            __rt::Route::Tool(#id) => ::std::boxed::Box::pin(async move {
                let call = __rt::call::<tools::#name::Input, Credentials, Documents>(call)?;
                __rt::tool_answer(<S as Tools>::#name(&self.0, call).await?)
            }),
        });
    }
    for a in &ai.actions {
        let (id, name) = (&a.id, ident(&snake(&a.id)));
        arms.push(quote! {
            __rt::Route::Action(#id) => ::std::boxed::Box::pin(async move {
                let call = __rt::approved::<actions::#name::Input, Credentials, Documents>(call)?;
                __rt::json_answer(<S as Actions>::#name(&self.0, call).await?)
            }),
        });
    }
    for x in &ai.mentions {
        let (id, name) = (&x.id, ident(&snake(&x.id)));
        arms.push(quote! {
            __rt::Route::Mention(#id) => ::std::boxed::Box::pin(async move {
                let call = __rt::mention(call)?;
                __rt::mention_answer(<S as Mentions>::#name(&self.0, call).await?)
            }),
        });
    }
    for x in &ai.context {
        let (id, name) = (&x.id, ident(&snake(&x.id)));
        arms.push(quote! {
            __rt::Route::Context(#id) => ::std::boxed::Box::pin(async move {
                let call = __rt::context(call)?;
                __rt::context_answer(<S as ContextProviders>::#name(&self.0, call).await?)
            }),
        });
    }
    if let Some(server) = &m.server {
        for pname in server.procedures.keys() {
            let name = ident(&snake(pname));
            arms.push(quote! {
                __rt::Route::Procedure(#pname) => ::std::boxed::Box::pin(async move {
                    let call = __rt::call::<procedures::#name::Input, Credentials, Documents>(call)?;
                    __rt::procedure_answer(<S as Procedures>::#name(&self.0, call).await?)
                }),
            });
        }
    }
    if has_sync(m) {
        arms.push(quote! {
            __rt::Route::Sync => ::std::boxed::Box::pin(async move {
                let call = __rt::call::<::host_runtime::metrics::SyncRequest<manifest::Metric>, Credentials, Documents>(call)?;
                __rt::json_answer(<S as Connector>::sync(&self.0, call).await?)
            }),
        });
    }
    if let Some(w) = &m.contributes.work {
        arms.push(quote! {
            __rt::Route::WorkContainers => ::std::boxed::Box::pin(async move {
                let call = __rt::call::<::host_runtime::work::ContainerQuery, ::host_runtime::NoCredentials, ::host_runtime::NoDocuments>(call)?;
                __rt::json_answer(<S as Work>::containers(&self.0, call).await?)
            }),
            __rt::Route::WorkItem => ::std::boxed::Box::pin(async move {
                let call = __rt::call::<::host_runtime::work::NewItem, Credentials, Documents>(call)?;
                __rt::json_answer(<S as Work>::create_item(&self.0, call).await?)
            }),
        });
        if w.comments == host_manifest::model::CommentSync::TwoWay {
            arms.push(quote! {
                __rt::Route::WorkComment(item) => ::std::boxed::Box::pin(async move {
                    let item = ::std::string::String::from(item);
                    let call = __rt::work_comment::<Credentials, Documents>(item, call)?;
                    __rt::json_answer(<S as Work>::create_comment(&self.0, call).await?)
                }),
            });
        }
    }
    for name in m.subscribed_events() {
        let Some(e) = catalogue::event(name) else {
            continue;
        };
        let method = ident(&snake(e.name));
        let ty = if e.published {
            let ty = format_ident!("{}", camel(e.name));
            quote!(::host_runtime::events::#ty)
        } else {
            quote!(::host_runtime::events::Unpublished)
        };
        arms.push(quote! {
            __rt::Route::Event(#name) => ::std::boxed::Box::pin(async move {
                let call = __rt::event::<#ty, Credentials, Documents>(call)?;
                __rt::event_answer(<S as Events>::#method(&self.0, call).await?)
            }),
        });
    }
    let bounds = if traits.is_empty() {
        quote!(::core::marker::Send + ::core::marker::Sync + 'static)
    } else {
        quote!(#(#traits)+*)
    };
    let required: Vec<String> = traits.iter().map(|t| format!("`{t}`")).collect();
    let entry_doc = doc(&format!(
        "Builds the host handler of `{}` from your server value.\n\nThe value must implement {}: exactly the traits this manifest needs.",
        m.id,
        if required.is_empty() {
            "no trait".to_owned()
        } else {
            required.join(", ")
        }
    ));
    quote! {
        struct __HostDispatch<S>(S);

        impl<S: #bounds> ::host_runtime::codegen::Dispatch for __HostDispatch<S> {
            fn dispatch<'a>(
                &'a self,
                route: ::host_runtime::codegen::Route<'a>,
                call: ::host_runtime::codegen::RawCall,
            ) -> ::host_runtime::codegen::BoxFuture<'a, ::core::result::Result<::host_runtime::codegen::Reply, ::host_runtime::HostError>> {
                use ::host_runtime::codegen as __rt;
                #[allow(unreachable_patterns)]
                match route {
                    #(#arms)*
                    route => {
                        let _ = call;
                        __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
                    }
                }
            }
        }

        #entry_doc
        pub fn handler<S: #bounds>(server: S) -> ::host_runtime::Handler {
            ::host_runtime::codegen::handler(#json, __HostDispatch(server))
        }
    }
}

/// Empty stubs for an invalid manifest whose model could not be read, so that the vendor sees the
/// manifest's errors and not a cascade of unresolved names.
pub fn stubs() -> String {
    let traits = [
        "Tools",
        "Actions",
        "Mentions",
        "ContextProviders",
        "Procedures",
        "Connector",
        "Work",
        "Events",
    ]
    .map(|t| format_ident!("{t}"));
    quote! {
        /// Unavailable: the manifest is invalid (see the errors above).
        pub mod manifest {}
        /// Unavailable: the manifest is invalid (see the errors above).
        pub mod tools {}
        /// Unavailable: the manifest is invalid (see the errors above).
        pub mod actions {}
        /// Unavailable: the manifest is invalid (see the errors above).
        pub mod procedures {}
        /// Unavailable: the manifest is invalid (see the errors above).
        pub mod webhooks {}
        /// Unavailable: the manifest is invalid (see the errors above).
        pub type Credentials = ::host_runtime::NoCredentials;
        /// Unavailable: the manifest is invalid (see the errors above).
        pub type Documents = ::host_runtime::NoDocuments;
        #(
            /// Unavailable: the manifest is invalid (see the errors above).
            pub trait #traits {}
        )*
    }
    .to_string()
}
