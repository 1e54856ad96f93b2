//! The schema modules of the handler methods' inputs and outputs (`tools::<id>`, `actions::<id>`,
//! `procedures::<name>`) and of the prompts' owner forms (`prompts::<id>`), each with its constants
//! and the types of its schemas. Also the list of every schema the manifest embeds, for typing.

use host_manifest::escape_token as esc;
use host_manifest::model::Manifest;
use proc_macro2::TokenStream;
use quote::quote;

use super::Notes;
use super::methods::{Trait, path};
use crate::docs::{doc, doc_with};
use crate::names::{ident, snake};
use crate::types::{Job, Types};

/// Every schema module to type, keyed as the generators look them up, with where each schema sits
/// in the manifest.
pub(super) fn jobs(m: &Manifest) -> Vec<Job<'_>> {
    let c = &m.contributes;
    let mut jobs = Vec::new();
    let mut one = |key: String, schema, root, pointer: String, origin: String| {
        jobs.push(Job {
            key,
            roots: vec![(schema, root, pointer)],
            origins: vec![origin],
        });
    };
    for (name, coll) in &c.storage {
        one(
            format!("storage/{name}"),
            &coll.schema,
            "Document",
            format!("/contributes/storage/{}/schema", esc(name)),
            format!("One document of the storage collection `{name}`"),
        );
    }
    if let Some(settings) = &c.settings {
        one(
            "settings".to_owned(),
            &settings.schema,
            "Settings",
            "/contributes/settings/schema".to_owned(),
            "The values of the settings panel".to_owned(),
        );
    }
    for (i, t) in c.ai.tools.iter().enumerate() {
        one(
            format!("tools/{}", t.id),
            &t.input,
            "Input",
            format!("/contributes/ai/tools/{i}/input"),
            format!("The input of the tool `{}`", t.id),
        );
    }
    for (i, a) in c.ai.actions.iter().enumerate() {
        one(
            format!("actions/{}", a.id),
            &a.input,
            "Input",
            format!("/contributes/ai/actions/{i}/input"),
            format!("The input of the action `{}`", a.id),
        );
    }
    for (i, p) in c.ai.prompts.iter().enumerate() {
        if let Some(input) = &p.input {
            one(
                format!("prompts/{}", p.id),
                input,
                "Input",
                format!("/contributes/ai/prompts/{i}/input"),
                format!("The owner form of the prompt `{}`", p.id),
            );
        }
    }
    for (i, w) in c.webhooks.iter().enumerate() {
        one(
            format!("webhooks/{}", w.event),
            &w.payload,
            "Payload",
            format!("/contributes/webhooks/{i}/payload"),
            format!("The payload of the event `{}`", w.event),
        );
    }
    for (name, p) in m.server.iter().flat_map(|s| s.procedures.iter()) {
        let at = format!("/server/procedures/{}", esc(name));
        jobs.push(Job {
            key: format!("procedures/{name}"),
            roots: vec![
                (&p.input, "Input", format!("{at}/input")),
                (&p.output, "Output", format!("{at}/output")),
            ],
            origins: vec![
                format!("The input of the procedure `{name}`"),
                format!("The output of the procedure `{name}`"),
            ],
        });
    }
    jobs
}

/// One contribution's schema module: its doc, its constants (`(name, doc, value)`) and its types.
struct Module {
    name: String,
    doc: TokenStream,
    constants: Vec<(&'static str, &'static str, String)>,
    items: TokenStream,
}

/// `pub mod <kind> { ... }` holding `modules`, or nothing when there are none.
fn group(kind: &str, doc: &str, modules: Vec<Module>) -> TokenStream {
    if modules.is_empty() {
        return TokenStream::new();
    }
    let modules = modules.into_iter().map(|m| {
        let (name, module_doc, items) = (ident(&snake(&m.name)), m.doc, m.items);
        let constants = m.constants.into_iter().map(|(constant, doc, value)| {
            let (constant, doc) = (ident(constant), format!(" {doc}"));
            // Named for the vendor's convenience; a crate that never reads one must not get a warning.
            quote! { #[doc = #doc] #[allow(dead_code)] pub const #constant: &str = #value; }
        });
        quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #name {
                #(#constants)*
                #items
            }
        }
    });
    let (kind, doc) = (ident(kind), crate::docs::doc(doc));
    quote! {
        #doc
        pub mod #kind { #(#modules)* }
    }
}

/// `tools`, `actions`, `prompts` and `procedures`: one module per contribution.
pub(super) fn modules(m: &Manifest, types: &Types, notes: &mut Notes) -> TokenStream {
    let ai = &m.contributes.ai;
    let tools = ai
        .tools
        .iter()
        .map(|t| {
            let route = path(Trait::Tools, &t.id);
            Module {
                name: t.id.clone(),
                doc: doc_with(
                    &t.description,
                    &[format!(
                        "Types of the tool `{}`, called as `POST {route}`.",
                        t.id
                    )],
                ),
                constants: vec![
                    ("ID", "The tool id.", t.id.clone()),
                    ("ROUTE", "The route the host calls.", route),
                ],
                items: notes.take(types.items(&format!("tools/{}", t.id), &["Input"])),
            }
        })
        .collect();
    let actions = ai
        .actions
        .iter()
        .map(|a| {
            let route = path(Trait::Actions, &a.id);
            Module {
                name: a.id.clone(),
                doc: doc_with(
                    &a.description,
                    &[format!(
                        "Types of the action `{}`, called as `POST {route}`.",
                        a.id
                    )],
                ),
                constants: vec![
                    ("ID", "The action id.", a.id.clone()),
                    ("ROUTE", "The route the host calls.", route),
                    ("SCOPE", "The scope the action needs.", a.scope.clone()),
                ],
                items: notes.take(types.items(&format!("actions/{}", a.id), &["Input"])),
            }
        })
        .collect();
    let prompts = ai
        .prompts
        .iter()
        .filter(|p| p.input.is_some())
        .map(|p| Module {
            name: p.id.clone(),
            doc: doc(&format!(
                "The owner form of the prompt `{}` ({}).\n\nThe host fills the prompt's `{{{{input.*}}}}` placeholders with these values; the vendor server never receives them, so the type is for tests and tools that build them.",
                p.id, p.title
            )),
            constants: vec![("ID", "The prompt id.", p.id.clone())],
            items: notes.take(types.items(&format!("prompts/{}", p.id), &["Input"])),
        })
        .collect();
    let procedures = m
        .server
        .iter()
        .flat_map(|s| s.procedures.keys())
        .map(|name| {
            let route = path(Trait::Procedures, name);
            Module {
                name: name.clone(),
                doc: doc(&format!(
                    "Types of the procedure `{name}`, called as `POST {route}`."
                )),
                constants: vec![
                    ("NAME", "The procedure name.", name.clone()),
                    ("ROUTE", "The route the host calls.", route),
                ],
                items: notes.take(types.items(&format!("procedures/{name}"), &["Input", "Output"])),
            }
        })
        .collect();
    let mut out = group(
        "tools",
        "Input types of the assistant tools (`contributes.ai.tools`), one module per tool.",
        tools,
    );
    out.extend(group(
        "actions",
        "Input types of the owner-approved actions (`contributes.ai.actions`), one module per action.",
        actions,
    ));
    out.extend(group(
        "prompts",
        "Input types of the prompts' owner forms (`contributes.ai.prompts[].input`).",
        prompts,
    ));
    out.extend(group(
        "procedures",
        "Input and output types of the procedures (`server.procedures`), one module per procedure.",
        procedures,
    ));
    out
}
