//! `cargo host call`: one call of a running vendor server, as the host makes it (install token,
//! call body), and its answer printed.
//!
//! The id must be declared in the manifest. The input is checked against the declared schema before
//! sending; a mismatch is a note, and the call is sent anyway so the server's own `INPUT_INVALID`
//! can be seen.

use std::process::ExitCode;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use http::Method;
use serde_json::{Value, json};

use super::client::{Client, Request, SendError, no_server};
use super::install::Local;
use super::output::{self, Term, line};
use super::{Fail, InstallArgs, ManifestArg, ServerArg, json_arg, listed, raw_arg};
use host_manifest::Manifest;
use host_manifest::closest;
use host_runtime::route::Route;

/// What `call` calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// An assistant tool: `POST /host/tools/<id>`.
    Tool,
    /// An approved action: `POST /host/actions/<id>`.
    Action,
    /// A mention picker: `GET /host/mentions/<id>?q=`.
    Mention,
    /// A context provider: `GET /host/context/<id>`.
    Context,
    /// A procedure: `POST /host/procedures/<name>`.
    Procedure,
    /// The connector sync: `POST /host/metrics`.
    Sync,
    /// The work destination's container list: `GET` of the manifest's `work.container.list` path,
    /// `?q=` from `--query`.
    WorkContainers,
    /// A new work item: `POST /host/work/items`. The id, if given, is the container [default: the
    /// first one the container list answers].
    WorkItem,
    /// A comment on a work item: `POST /host/work/items/<id>/comments`; the id is the item's.
    WorkComment,
}

/// Arguments of `cargo host call`.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// What to call.
    #[arg(value_enum)]
    pub kind: Kind,
    /// The tool, action, mention or context provider id, or the procedure name; for `sync`, one
    /// metric key [default for sync: every declared metric]; for `work-item`, the container
    /// [default: the first one listed]; for `work-comment`, the item.
    pub id: Option<String>,
    /// The `input`, as JSON or `@file` [default: `{}`; for `sync`, the last 24 hours of the metrics;
    /// for `mention`, the raw text is the `q` parameter; for `work-item`, an item of the first kind
    /// the destination `creates`; for `work-comment`, a short comment].
    #[arg(long, value_name = "JSON|@FILE")]
    pub input: Option<String>,
    /// The text typed in the mention picker or the container picker (the `q` parameter)
    /// [default: empty].
    #[arg(long, short = 'q', value_name = "Q")]
    pub query: Option<String>,
    /// The call body's `context` (where in the host the call comes from), as JSON or `@file`:
    /// `projectId`, `platform` (`ios`, `android` or `all`), `from`, `to`, `filters` (`range`
    /// with `from` and `to`, `platform`, `country`) [default: the local project, `"platform":
    /// "ios"`]. Routes called with GET have no body, so no context.
    #[arg(long, value_name = "JSON|@FILE")]
    pub context: Option<String>,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub manifest: ManifestArg,
    #[command(flatten)]
    pub install: InstallArgs,
}

/// One route of the server, resolved from the manifest.
pub(super) struct Target<'m> {
    /// GET or POST.
    pub(super) method: Method,
    /// The route, e.g. `/host/tools/keyword-ranks`.
    pub(super) route: String,
    /// The declared `input` schema, when the route has one.
    pub(super) schema: Option<&'m Value>,
    /// "tool `keyword-ranks`", for messages.
    pub(super) name: String,
}

/// Runs `cargo host call`.
pub async fn run(args: CallArgs, term: Term) -> ExitCode {
    match call(args, &term).await {
        Ok(code) => code,
        Err(fail) => fail.report(&term),
    }
}

async fn call(args: CallArgs, term: &Term) -> Result<ExitCode, Fail> {
    let loaded = super::load_manifest(&args.manifest.manifest, term)?;
    let manifest = &loaded.manifest;
    let target = target(manifest, args.kind, args.id.as_deref(), &loaded.shown)?;
    let mut local = Local::new(manifest, &args.install)?;
    let client = Client::new(&args.server.server)?;
    if let Some(text) = &args.context {
        if target.method == Method::GET {
            term.note(&format!(
                "{} is called with GET and has no body, so no `context`; `--context` is ignored",
                target.name
            ));
        } else {
            local.context = Some(context_arg(text, term)?);
        }
    }

    let mut query = Vec::new();
    let mut body = None;
    match args.kind {
        Kind::Mention | Kind::WorkContainers => {
            let q = match (&args.query, &args.input) {
                (Some(q), _) => q.clone(),
                // A file's final newline is not part of what the owner typed.
                (None, Some(input)) => raw_arg("--input", input)?
                    .trim_end_matches(['\n', '\r'])
                    .to_owned(),
                (None, None) => String::new(),
            };
            query.push(("q", q));
        }
        Kind::Context => {
            if args.input.is_some() {
                term.note("a context provider is called with GET and takes no input; `--input` is ignored");
            }
        }
        Kind::Sync => {
            let input = match &args.input {
                Some(text) => json_arg("--input", text)?,
                None => sync_input(manifest, args.id.as_deref()),
            };
            body = Some(local.call_body(input));
        }
        Kind::WorkItem => {
            let input = match &args.input {
                Some(text) => json_arg("--input", text)?,
                None => {
                    let container = match &args.id {
                        Some(id) => id.clone(),
                        None => first_container(manifest, &local, &client).await?,
                    };
                    new_item(manifest, &container)
                }
            };
            if let Err(e) = serde_json::from_value::<host_runtime::work::NewItem>(input.clone()) {
                term.note(&format!(
                    "the input is not a new work item {{kind, container, title, ...}} ({e}); the server should refuse it (sending anyway)"
                ));
            }
            body = Some(local.call_body(input));
        }
        Kind::WorkComment => {
            let input = match &args.input {
                Some(text) => json_arg("--input", text)?,
                None => json!({ "body": "A comment from `cargo host call`." }),
            };
            if let Err(e) = serde_json::from_value::<host_runtime::work::NewComment>(input.clone())
            {
                term.note(&format!(
                    "the input is not a comment {{body}} ({e}); the server should refuse it (sending anyway)"
                ));
            }
            body = Some(local.call_body(input));
        }
        Kind::Tool | Kind::Action | Kind::Procedure => {
            let input = match &args.input {
                Some(text) => json_arg("--input", text)?,
                None => json!({}),
            };
            if let Some(e) = target.schema.and_then(|s| super::schema::check(s, &input)) {
                term.note(&format!(
                    "the input fails the input schema of {} {e}; the server should answer 422 INPUT_INVALID (sending anyway)",
                    target.name
                ));
            }
            body = Some(local.call_body(input));
        }
    }
    if args.query.is_some() && !matches!(args.kind, Kind::Mention | Kind::WorkContainers) {
        term.note("`--query` is the text typed in a picker (mentions, work containers); it is ignored here");
    }

    let timeout = match args.kind {
        // The runtime answers TOOL_TIMEOUT at 30 s; wait a little longer to see it.
        Kind::Tool => Duration::from_secs(35),
        // The runtime answers HANDLER_TIMEOUT at 60 s by default.
        _ => Duration::from_secs(65),
    };
    let request = Request {
        method: target.method.clone(),
        route: target.route.clone(),
        query,
        headers: vec![("authorization", local.authorization())],
        body: body.as_ref(),
        timeout,
    };
    let answer = match client.send(request).await {
        Ok(answer) => answer,
        Err(SendError::Unreachable(_)) => return Err(Fail::usage(no_server(client.base()))),
        Err(e) => {
            return Err(Fail {
                message: format!("{} {}: {e}", target.method, client.url(&target.route)),
                code: 1,
            });
        }
    };
    line(&format!(
        "{} {} {}",
        term.status(answer.status),
        answer.reason(),
        term.dim(&format!("in {}", output::millis(answer.elapsed)))
    ));
    match (&answer.json, answer.error()) {
        (_, Some((code, message))) if !answer.is_success() => {
            line(&format!(
                "{} {} {code}: {message}",
                term.paint("31", "error:"),
                answer.status
            ));
        }
        (Some(json), _) => line(&output::indented(json, 0)),
        (None, _) if answer.body.is_empty() => {}
        (None, _) => line(&output::raw_body(&answer.body)),
    }
    Ok(if answer.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Reads `--context`: a JSON object. One the runtime cannot read as a context (it then hands the
/// handler an empty one) is a note, and is sent anyway.
fn context_arg(text: &str, term: &Term) -> Result<Value, Fail> {
    let value = super::object_arg("--context", text)?;
    if let Err(e) = serde_json::from_value::<host_runtime::CallContext>(value.clone()) {
        term.note(&format!(
            "`--context` is not a context the runtime can read ({e}); handlers would see an empty context (sending anyway)"
        ));
    }
    Ok(value)
}

/// The id of the first container the server lists, for a new item without a container named.
async fn first_container(m: &Manifest, local: &Local, client: &Client) -> Result<String, Fail> {
    let list = m
        .contributes
        .work
        .as_ref()
        .map(|w| w.container.list.as_str());
    let route = Route::WorkContainers.path(list).unwrap_or_default();
    let answer = client
        .send(Request {
            method: Method::GET,
            route: route.clone(),
            query: vec![("q", String::new())],
            headers: vec![("authorization", local.authorization())],
            body: None,
            timeout: Duration::from_secs(30),
        })
        .await;
    let answer = match answer {
        Ok(answer) => answer,
        Err(SendError::Unreachable(_)) => return Err(Fail::usage(no_server(client.base()))),
        Err(e) => return Err(Fail::usage(format!("GET {route}: {e}"))),
    };
    let first = answer
        .json
        .as_ref()
        .filter(|_| answer.is_success())
        .and_then(|j| j.pointer("/items/0/id"))
        .and_then(Value::as_str);
    match first {
        Some(id) => Ok(id.to_owned()),
        None => Err(Fail {
            message: format!(
                "no container to create the item in: `GET {route}` answered {} without items; name one: `cargo host call work-item <container>`",
                answer.status
            ),
            code: 1,
        }),
    }
}

/// A new item the destination accepts: its first `creates` kind, a title, and a value for each
/// field the manifest marks required.
pub fn new_item(m: &Manifest, container: &str) -> Value {
    let Some(work) = &m.contributes.work else {
        return json!({});
    };
    let mut item = json!({
        "kind": work.creates.first().map_or("issue", |k| k.as_str()),
        "container": container,
        "title": "Created by cargo host",
    });
    for field in &work.fields.required {
        let value = match field.as_str() {
            "priority" => json!(
                work.fields
                    .priority
                    .first()
                    .map_or("normal", String::as_str)
            ),
            "labels" => json!(["cargo-host"]),
            "assignee" => json!("dev-user"),
            _ => json!("A work item from the local host."),
        };
        item[field.as_str()] = value;
    }
    item
}

/// Resolves the kind and id to a declared route, or explains what is declared.
pub(super) fn target<'m>(
    m: &'m Manifest,
    kind: Kind,
    id: Option<&str>,
    shown: &str,
) -> Result<Target<'m>, Fail> {
    let ai = &m.contributes.ai;
    let procedures = m.server.as_ref().map(|s| &s.procedures);
    let metrics: Vec<&str> = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| c.metrics.iter().map(|x| x.key.as_str()))
        .collect();
    let (what, place, declared): (&str, &str, Vec<&str>) = match kind {
        Kind::Tool => (
            "tool",
            "contributes.ai.tools",
            ai.tools.iter().map(|t| t.id.as_str()).collect(),
        ),
        Kind::Action => (
            "action",
            "contributes.ai.actions",
            ai.actions.iter().map(|a| a.id.as_str()).collect(),
        ),
        Kind::Mention => (
            "mention",
            "contributes.ai.mentions",
            ai.mentions.iter().map(|x| x.id.as_str()).collect(),
        ),
        Kind::Context => (
            "context provider",
            "contributes.ai.context",
            ai.context.iter().map(|c| c.id.as_str()).collect(),
        ),
        Kind::Procedure => (
            "procedure",
            "server.procedures",
            procedures
                .into_iter()
                .flat_map(|p| p.keys().map(String::as_str))
                .collect(),
        ),
        Kind::Sync => ("metric", "contributes.connector.metrics", metrics),
        Kind::WorkContainers | Kind::WorkItem | Kind::WorkComment => {
            return work_target(m, kind, id, shown);
        }
    };
    if declared.is_empty() {
        return Err(Fail::usage(format!(
            "{shown} declares no {what} (under `{place}`), so there is nothing to call"
        )));
    }
    let id = match (id, kind) {
        (Some(id), _) => id,
        (None, Kind::Sync) => {
            return Ok(Target {
                method: Route::Metrics.method(),
                route: Route::Metrics.path(None).unwrap_or_default(),
                schema: None,
                name: "sync".to_owned(),
            });
        }
        (None, _) => {
            return Err(Fail::usage(format!(
                "name the {what} to call, e.g. `cargo host call {} {}`; declared: {}",
                kind_word(kind),
                declared[0],
                listed(declared.iter().copied())
            )));
        }
    };
    if !declared.contains(&id) {
        let hint = match closest(id, declared.iter().copied()) {
            Some(near) => format!("did you mean `{near}`? "),
            None => String::new(),
        };
        return Err(Fail::usage(format!(
            "`{id}` is not a {what} declared in {shown}; {hint}declared under `{place}`: {}",
            listed(declared.iter().copied())
        )));
    }
    let name = format!("{what} `{id}`");
    Ok(match kind {
        Kind::Tool => Target {
            method: Route::Tool(id).method(),
            route: Route::Tool(id).path(None).unwrap_or_default(),
            schema: ai.tools.iter().find(|t| t.id == id).map(|t| &t.input),
            name,
        },
        Kind::Action => Target {
            method: Route::Action(id).method(),
            route: Route::Action(id).path(None).unwrap_or_default(),
            schema: ai.actions.iter().find(|a| a.id == id).map(|a| &a.input),
            name,
        },
        Kind::Mention => Target {
            method: Route::Mention(id).method(),
            route: Route::Mention(id).path(None).unwrap_or_default(),
            schema: None,
            name,
        },
        Kind::Context => Target {
            method: Route::Context(id).method(),
            route: Route::Context(id).path(None).unwrap_or_default(),
            schema: None,
            name,
        },
        Kind::Procedure => Target {
            method: Route::Procedure(id).method(),
            route: Route::Procedure(id).path(None).unwrap_or_default(),
            schema: procedures.and_then(|p| p.get(id)).map(|p| &p.input),
            name,
        },
        Kind::Sync => Target {
            method: Route::Metrics.method(),
            route: Route::Metrics.path(None).unwrap_or_default(),
            schema: None,
            name,
        },
        Kind::WorkContainers | Kind::WorkItem | Kind::WorkComment => {
            return work_target(m, kind, Some(id), shown);
        }
    })
}

/// The work destination's routes.
fn work_target<'m>(
    m: &'m Manifest,
    kind: Kind,
    id: Option<&str>,
    shown: &str,
) -> Result<Target<'m>, Fail> {
    let Some(work) = &m.contributes.work else {
        return Err(Fail::usage(format!(
            "{shown} declares no work destination (under `contributes.work`), so there is nothing to call"
        )));
    };
    let (route, name) = match kind {
        Kind::WorkContainers => {
            if let Some(id) = id {
                return Err(Fail::usage(format!(
                    "`work-containers` takes no id (`{id}` given); the picker's text goes in `--query`"
                )));
            }
            (Route::WorkContainers, "the work container list".to_owned())
        }
        Kind::WorkItem => (Route::WorkItems, "a new work item".to_owned()),
        _ => {
            if work.comments != host_manifest::model::CommentSync::TwoWay {
                return Err(Fail::usage(format!(
                    "{shown} does not sync comments (`contributes.work.comments` is `{}`), so there is no comment route",
                    work.comments.as_str()
                )));
            }
            let Some(item) = id.filter(|i| !i.is_empty() && !i.contains('/')) else {
                return Err(Fail::usage(
                    "name the work item to comment on, e.g. `cargo host call work-comment KT-1`",
                ));
            };
            (Route::WorkComment(item), format!("a comment on `{item}`"))
        }
    };
    Ok(Target {
        method: route.method(),
        route: route
            .path(Some(work.container.list.as_str()))
            .unwrap_or_default(),
        schema: None,
        name,
    })
}

pub(super) fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Tool => "tool",
        Kind::Action => "action",
        Kind::Mention => "mention",
        Kind::Context => "context",
        Kind::Procedure => "procedure",
        Kind::Sync => "sync",
        Kind::WorkContainers => "work-containers",
        Kind::WorkItem => "work-item",
        Kind::WorkComment => "work-comment",
    }
}

/// The sync input the host sends on a scheduled sync: the metric (or every declared one) over the
/// last 24 hours, not a backfill, from the start.
pub(super) fn sync_input(m: &Manifest, metric: Option<&str>) -> Value {
    let metrics: Vec<&str> = match metric {
        Some(key) => vec![key],
        None => m
            .contributes
            .connector
            .iter()
            .flat_map(|c| c.metrics.iter().map(|x| x.key.as_str()))
            .collect(),
    };
    let to = Utc::now();
    let from = to - chrono::Duration::hours(24);
    json!({
        "metrics": metrics,
        "from": from.to_rfc3339_opts(SecondsFormat::Secs, true),
        "to": to.to_rfc3339_opts(SecondsFormat::Secs, true),
        "backfill": false,
        "cursor": null,
    })
}
