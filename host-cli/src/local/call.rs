//! `cargo host call`: one call of a running vendor server, as the host makes it (install token,
//! call body), and its answer printed.
//!
//! The call is built by [`request`], as the console builds it. The id must be
//! declared in the manifest. The input is checked as the runtime checks it before sending; a
//! mismatch is a note, and the call is sent anyway so the server's own `INPUT_INVALID` can be seen.

use std::process::ExitCode;

use serde_json::Value;

use super::client::{Client, SendError, no_server};
use super::install::Local;
use super::request::{self, Kind};
use super::{Fail, InstallArgs, ManifestArg, ServerArg, json_arg, raw_arg};
use crate::output::{self, Term, line};
use host_manifest::Manifest;

/// Arguments of `cargo host call`.
#[derive(Debug, clap::Args)]
pub(crate) struct CallArgs {
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

/// Runs `cargo host call`.
pub(crate) async fn run(args: CallArgs, term: Term) -> ExitCode {
    match call(args, &term).await {
        Ok(code) => code,
        Err(fail) => fail.report(&term),
    }
}

async fn call(args: CallArgs, term: &Term) -> Result<ExitCode, Fail> {
    let loaded = super::load_manifest(&args.manifest.manifest, term)?;
    let manifest = &loaded.manifest;
    let kind = args.kind;
    let mut local = Local::new(manifest, &args.install)?;
    let client = Client::new(&args.server.server)?;
    // Resolved before anything else is read, so a wrong id is the first thing said.
    request::target(manifest, kind, args.id.as_deref(), &loaded.shown)?;
    if let Some(text) = &args.context {
        if kind.takes_input() {
            local.context = Some(context_arg(text, term)?);
        } else {
            term.note(&format!(
                "a {} route is called with GET and has no body, so no `context`; `--context` is ignored",
                kind.word()
            ));
        }
    }
    let query = if kind.takes_query() {
        Some(match (&args.query, &args.input) {
            (Some(q), _) => q.clone(),
            // A file's final newline is not part of what the owner typed.
            (None, Some(input)) => raw_arg("--input", input)?
                .trim_end_matches(['\n', '\r'])
                .to_owned(),
            (None, None) => String::new(),
        })
    } else {
        if args.query.is_some() {
            term.note("`--query` is the text typed in a picker (mentions, work containers); it is ignored here");
        }
        None
    };
    let input = match (&args.input, kind) {
        (Some(_), Kind::Context) => {
            term.note(
                "a context provider is called with GET and takes no input; `--input` is ignored",
            );
            None
        }
        (Some(_), Kind::Mention | Kind::WorkContainers) => None,
        (Some(text), _) => Some(json_arg("--input", text)?),
        // A new item with no container named goes in the first one the server lists.
        (None, Kind::WorkItem) if args.id.is_none() => Some(request::new_item(
            manifest,
            &first_container(manifest, &loaded.shown, &local, &client).await?,
        )),
        (None, _) => None,
    };
    let call = request::prepare(
        manifest,
        &loaded.shown,
        kind,
        args.id.as_deref(),
        input,
        query,
        &local,
    )?;
    for problem in &call.judged.errors {
        term.note(&format!(
            "the input fails the input of {} {problem}; the server should answer 422 INPUT_INVALID (sending anyway)",
            call.target.name
        ));
    }
    for problem in &call.judged.warnings {
        term.note(&format!("the input of {} {problem}", call.target.name));
    }
    let answer = match call.send(&client, &local).await {
        Ok(answer) => answer,
        Err(SendError::Unreachable(_)) => return Err(Fail::usage(no_server(client.base()))),
        Err(e) => {
            return Err(Fail {
                message: format!(
                    "{} {}: {e}",
                    call.target.method,
                    client.url(&call.target.route)
                ),
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
async fn first_container(
    m: &Manifest,
    shown: &str,
    local: &Local,
    client: &Client,
) -> Result<String, Fail> {
    let listing = request::prepare(m, shown, Kind::WorkContainers, None, None, None, local)?;
    let route = &listing.target.route;
    let answer = match listing.send(client, local).await {
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
