//! The model the generator works from: every handler method the manifest asks for. Each [`Method`]
//! knows its trait, its docs, the call it receives, the answer it returns and the route that reaches
//! it; `traits.rs`, `dispatch.rs` and `stubs.rs` only write this list out.

use host_manifest::catalogue;
use host_manifest::limits::{self, bytes_text, seconds_text};
use host_manifest::model::{CommentSync, Manifest, Returns};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::docs::{doc, doc_with};
use crate::names::{camel, ident, snake};

/// One handler trait, in the order the generated code declares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trait {
    Tools,
    Actions,
    Mentions,
    ContextProviders,
    Procedures,
    Connector,
    Work,
    Events,
}

impl Trait {
    /// Every trait, in declaration order.
    pub(super) const ALL: [Trait; 8] = [
        Trait::Tools,
        Trait::Actions,
        Trait::Mentions,
        Trait::ContextProviders,
        Trait::Procedures,
        Trait::Connector,
        Trait::Work,
        Trait::Events,
    ];

    /// The trait's name in Rust.
    pub(super) fn ident(self) -> Ident {
        format_ident!("{self:?}")
    }

    /// The trait's doc: what it stands for in the manifest.
    pub(super) fn doc(self) -> &'static str {
        match self {
            Trait::Tools => {
                "The assistant tools this extension declares (`contributes.ai.tools`): one method per tool.\n\nAnswers are checked against the card shape of each tool's `returns` kind and the size limit; see [`host_runtime::interface`](::host_runtime::interface#answer-shapes), \"Answer shapes\" and \"Limits\"."
            }
            Trait::Actions => {
                "The owner-approved actions this extension declares (`contributes.ai.actions`): one method per action.\n\nSee [`host_runtime::interface`](::host_runtime::interface#routes), \"Routes\", for the scopes a call needs."
            }
            Trait::Mentions => {
                "The mention pickers this extension declares (`contributes.ai.mentions`): one method per picker.\n\nAnswers are trimmed to the limits in [`host_runtime::interface`](::host_runtime::interface#answer-shapes), \"Answer shapes\"."
            }
            Trait::ContextProviders => {
                "The context providers this extension declares (`contributes.ai.context`): one method per provider.\n\nThe block's size limit is in [`host_runtime::interface`](::host_runtime::interface#answer-shapes), \"Answer shapes\"."
            }
            Trait::Procedures => {
                "The procedures the host may call (`server.procedures`): one method per procedure.\n\nAnswers are checked against each procedure's `output` schema; see [`host_runtime::interface`](::host_runtime::interface#answer-shapes), \"Answer shapes\"."
            }
            Trait::Connector => {
                "The connector's metrics sync (`contributes.connector`).\n\nSee [`host_runtime::interface`](::host_runtime::interface#answer-shapes), \"Answer shapes\", for what a sync answer may hold."
            }
            Trait::Work => {
                "The work destination (`contributes.work`).\n\nSee [`host_runtime::interface`](::host_runtime::interface#answer-shapes), \"Answer shapes\", for the checks on items and links."
            }
            Trait::Events => {
                "The host events the vendor server subscribes to (`server.events`): one method per event.\n\nWhat a 4xx and a 5xx mean to the host, retries and deduplication: [`host_runtime::interface`](::host_runtime::interface#events-and-deduplication), \"Events and deduplication\"."
            }
        }
    }
}

/// How the dispatcher turns the raw call into the method's call type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decode {
    /// The runtime's `call`: body with `input`, credentials and documents.
    Call,
    /// The runtime's `approved`: an action call the owner approved.
    Approved,
    /// The runtime's `mention`: the query of a mention picker.
    Mention,
    /// The runtime's `context`: a context provider's call.
    Context,
    /// The runtime's `event`: a host event delivery.
    Event,
    /// The runtime's `work_comment`: a comment on the item the route names.
    WorkComment,
}

/// How the dispatcher turns the method's answer into the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reply {
    /// A card of the tool's `returns` kind, checked against the card shapes and size limit.
    Tool,
    /// A procedure's output, checked against its `output` schema.
    Procedure,
    /// Mention items, trimmed to the host's limits.
    Mention,
    /// A context block, checked against its size limit.
    Context,
    /// A host event handled: 204.
    Event,
    /// Any JSON answer.
    Json,
}

/// One handler method.
pub(super) struct Method {
    /// The trait it belongs to.
    pub owner: Trait,
    /// The method name.
    pub name: Ident,
    /// Its doc attributes.
    pub doc: TokenStream,
    /// The call type it receives.
    pub call: TokenStream,
    /// The `Ok` type of its answer.
    pub answer: TokenStream,
    /// The `host_runtime::route::Route` pattern that reaches it (as `__rt::Route::...`).
    pub route: TokenStream,
    pub decode: Decode,
    pub reply: Reply,
    /// A reserved event: the host does not deliver it yet, so the method has a default that does
    /// nothing and a vendor need not write it.
    pub reserved: bool,
}

/// The route a contribution is called at, as its docs and `ROUTE` constant write it.
pub(super) fn path(owner: Trait, id: &str) -> String {
    match owner {
        Trait::Tools => format!("/host/tools/{id}"),
        Trait::Actions => format!("/host/actions/{id}"),
        Trait::Mentions => format!("/host/mentions/{id}"),
        Trait::ContextProviders => format!("/host/context/{id}"),
        Trait::Procedures => format!("/host/procedures/{id}"),
        Trait::Connector => "/host/metrics".to_owned(),
        Trait::Work => format!("/host/work/{id}"),
        Trait::Events => "/host/events".to_owned(),
    }
}

/// Every handler method `m` asks for, grouped by trait in [`Trait::ALL`] order.
pub(super) fn methods(m: &Manifest) -> Vec<Method> {
    let mut out = Vec::new();
    tools(m, &mut out);
    actions(m, &mut out);
    mentions(m, &mut out);
    context_providers(m, &mut out);
    procedures(m, &mut out);
    connector(m, &mut out);
    work(m, &mut out);
    events(m, &mut out);
    out
}

/// The traits `methods` needs, in declaration order.
pub(super) fn needed(methods: &[Method]) -> Vec<Trait> {
    Trait::ALL
        .into_iter()
        .filter(|t| methods.iter().any(|m| m.owner == *t))
        .collect()
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

fn tools(m: &Manifest, out: &mut Vec<Method>) {
    for t in &m.contributes.ai.tools {
        let (id, name) = (&t.id, ident(&snake(&t.id)));
        let (answer, shape) = answer_type(t.returns);
        let mut lines = vec![
            format!(
                "Called by the host as `POST {}`, never retried; answers within {} and {}.",
                path(Trait::Tools, id),
                seconds_text(limits::TOOL_DEADLINE_SECS),
                bytes_text(limits::TOOL_ANSWER_BYTES),
            ),
            format!("Returns {shape}. Cost: {}.", t.cost),
        ];
        if let Some(cache) = t.cache {
            lines.push(format!(
                "The host may serve an identical call from cache for {cache}."
            ));
        }
        out.push(Method {
            owner: Trait::Tools,
            doc: doc_with(&t.description, &lines),
            call: quote!(ToolCall<tools::#name::Input>),
            answer,
            route: quote!(__rt::Route::Tool(#id)),
            decode: Decode::Call,
            reply: Reply::Tool,
            reserved: false,
            name,
        });
    }
}

fn actions(m: &Manifest, out: &mut Vec<Method>) {
    for a in &m.contributes.ai.actions {
        let (id, name) = (&a.id, ident(&snake(&a.id)));
        let undo = if a.reversible {
            "The owner can undo it."
        } else {
            "It cannot be undone."
        };
        let lines = [
            format!(
                "Called by the host as `POST {}`, only after the owner approved it on the approval card.",
                path(Trait::Actions, id)
            ),
            format!(
                "Needs the scope `{}`. {undo} Any 2xx answer marks the run succeeded and the answer is stored.",
                a.scope
            ),
        ];
        out.push(Method {
            owner: Trait::Actions,
            doc: doc_with(&a.description, &lines),
            call: quote!(Approved<actions::#name::Input>),
            answer: quote!(::host_runtime::serde_json::Value),
            route: quote!(__rt::Route::Action(#id)),
            decode: Decode::Approved,
            reply: Reply::Json,
            reserved: false,
            name,
        });
    }
}

fn mentions(m: &Manifest, out: &mut Vec<Method>) {
    for x in &m.contributes.ai.mentions {
        let (id, name) = (&x.id, ident(&snake(&x.id)));
        let text = format!(
            "The `{id}` mention picker ({}).\n\nCalled by the host as `GET {}?q=<text>`; the host keeps the first {} items and cuts labels to {} characters.",
            x.label,
            path(Trait::Mentions, id),
            limits::MENTION_ITEMS_KEPT,
            limits::MENTION_LABEL_CHARS,
        );
        out.push(Method {
            owner: Trait::Mentions,
            doc: doc(&text),
            call: quote!(::host_runtime::MentionCall),
            answer: quote!(::host_runtime::MentionItems),
            route: quote!(__rt::Route::Mention(#id)),
            decode: Decode::Mention,
            reply: Reply::Mention,
            reserved: false,
            name,
        });
    }
}

fn context_providers(m: &Manifest, out: &mut Vec<Method>) {
    for x in &m.contributes.ai.context {
        let (id, name) = (&x.id, ident(&snake(&x.id)));
        let when: Vec<String> = x.when.iter().map(|w| format!("`{w}`")).collect();
        let line = format!(
            "Called by the host as `GET {}` (asked at {}); the block is at most {} once rendered.",
            path(Trait::ContextProviders, id),
            when.join(" and "),
            bytes_text(limits::CONTEXT_BYTES),
        );
        out.push(Method {
            owner: Trait::ContextProviders,
            doc: doc_with(&x.description, &[line]),
            call: quote!(::host_runtime::ContextCall),
            answer: quote!(::host_runtime::ContextBlock),
            route: quote!(__rt::Route::Context(#id)),
            decode: Decode::Context,
            reply: Reply::Context,
            reserved: false,
            name,
        });
    }
}

fn procedures(m: &Manifest, out: &mut Vec<Method>) {
    for (pname, p) in m.server.iter().flat_map(|s| &s.procedures) {
        let name = ident(&snake(pname));
        let mut lines = vec![format!(
            "Called by the host as `POST {}`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema.",
            path(Trait::Procedures, pname)
        )];
        if let Some(kind) = p.kind {
            lines.push(format!("Kind: {kind}."));
        }
        if let Some(cache) = p.cache {
            lines.push(format!(
                "Identical calls may be served from cache for {cache}."
            ));
        }
        out.push(Method {
            owner: Trait::Procedures,
            doc: doc_with(&format!("The procedure `{pname}`."), &lines),
            call: quote!(ProcedureCall<procedures::#name::Input>),
            answer: quote!(procedures::#name::Output),
            route: quote!(__rt::Route::Procedure(#pname)),
            decode: Decode::Call,
            reply: Reply::Procedure,
            reserved: false,
            name,
        });
    }
}

fn connector(m: &Manifest, out: &mut Vec<Method>) {
    let Some(c) = m
        .contributes
        .connector
        .as_ref()
        .filter(|c| !c.metrics.is_empty())
    else {
        return;
    };
    let schedule = c.sync.map_or("when the host needs data".to_owned(), |s| {
        format!("every {s}")
    });
    let text = format!(
        "Syncs metrics into the host's metrics store.\n\nCalled by the host as `POST {}` ({schedule}); answer points of the asked metrics only, with the metric's declared dimensions, and a `cursor` when more pages follow.",
        path(Trait::Connector, "")
    );
    out.push(Method {
        owner: Trait::Connector,
        name: format_ident!("sync"),
        doc: doc(&text),
        call: quote!(SyncCall),
        answer: quote!(::host_runtime::metrics::SyncAnswer<manifest::Metric>),
        route: quote!(__rt::Route::Metrics),
        decode: Decode::Call,
        reply: Reply::Json,
        reserved: false,
    });
}

fn work(m: &Manifest, out: &mut Vec<Method>) {
    let Some(w) = &m.contributes.work else {
        return;
    };
    let creates: Vec<String> = w.creates.iter().map(|c| format!("`{c}`")).collect();
    out.push(Method {
        owner: Trait::Work,
        name: format_ident!("containers"),
        doc: doc(&format!(
            "Lists the selectable {} (`work.container`).\n\nCalled by the host as `GET {}?q=<text>`.",
            w.container.label, w.container.list
        )),
        call: quote!(ContainersCall),
        answer: quote!(::host_runtime::work::Containers),
        route: quote!(__rt::Route::WorkContainers),
        decode: Decode::Call,
        reply: Reply::Json,
        reserved: false,
    });
    out.push(Method {
        owner: Trait::Work,
        name: format_ident!("create_item"),
        doc: doc(&format!(
            "Creates an item ({}) in the {} destination, as the {}.\n\nCalled by the host as `POST {}`.",
            creates.join(", "),
            w.kind,
            w.identity,
            path(Trait::Work, "items")
        )),
        call: quote!(WorkCall<::host_runtime::work::NewItem>),
        answer: quote!(::host_runtime::work::CreatedItem),
        route: quote!(__rt::Route::WorkItems),
        decode: Decode::Call,
        reply: Reply::Json,
        reserved: false,
    });
    if w.comments == CommentSync::TwoWay {
        out.push(Method {
            owner: Trait::Work,
            name: format_ident!("create_comment"),
            doc: doc(&format!(
                "Adds a comment to an item; the item id is `call.input.0`.\n\nCalled by the host as `POST {}` (`comments: \"two-way\"`).",
                path(Trait::Work, "items/<id>/comments")
            )),
            call: quote!(WorkCall<(::std::string::String, ::host_runtime::work::NewComment)>),
            answer: quote!(::host_runtime::work::CreatedComment),
            route: quote!(__rt::Route::WorkComment(item)),
            decode: Decode::WorkComment,
            reply: Reply::Json,
            reserved: false,
        });
    }
}

fn events(m: &Manifest, out: &mut Vec<Method>) {
    let waits: Vec<String> = limits::EVENT_RETRY_WAITS_SECS
        .iter()
        .map(|s| seconds_text(*s))
        .collect();
    let waits = match waits.as_slice() {
        [init @ .., last] if !init.is_empty() => format!("{} and {last}", init.join(", ")),
        _ => waits.join(""),
    };
    for name in m.subscribed_events() {
        let Some(e) = catalogue::event(name) else {
            continue;
        };
        let method = ident(&snake(e.name));
        let scope = e
            .scope
            .map_or("no scope".to_owned(), |s| format!("the scope `{s}`"));
        let (text, payload) = if e.published {
            let ty = format_ident!("{}", camel(e.name));
            (
                format!(
                    "Handles `{}`.\n\nDelivered as `POST {}` to installs granted {scope}; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after {waits}. The same content may arrive again with a new event id.",
                    e.name,
                    path(Trait::Events, "")
                ),
                quote!(::host_runtime::events::#ty),
            )
        } else {
            (
                format!(
                    "Handles `{}`, a reserved event: the host does not deliver it yet, so the default does nothing.\n\nIt will need {scope}.",
                    e.name
                ),
                quote!(::host_runtime::events::Unpublished),
            )
        };
        out.push(Method {
            owner: Trait::Events,
            name: method,
            doc: doc(&text),
            call: quote!(EventCall<#payload>),
            answer: quote!(()),
            route: quote!(__rt::Route::Event(::core::option::Option::Some(#name))),
            decode: Decode::Event,
            reply: Reply::Event,
            reserved: !e.published,
        });
    }
}
