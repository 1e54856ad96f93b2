//! `cargo host check`: the host's publish-time checks against a running vendor server.
//!
//! First `GET /host/health` must answer 200 within 3 s with `{ status: "ok", extensionId }`. Then
//! every declared tool, mention, context provider and procedure is called once (concurrently; lines
//! are printed as answers come) and its answer checked: tools against the card shape of their
//! `returns` kind, mentions as mention items, context blocks within 2,048 bytes, procedures against
//! their `output` schema. Actions are not called: they change things and run only after approval.
//!
//! A connector with metrics gets two syncs, as after an install: a backfill over the longest
//! `backfillDays` (7 days when none is declared), following `cursor` page by page (at most
//! [`MAX_PAGES`]; a cursor given twice is a loop and fails), then the scheduled sync of the last
//! 24 hours. Every page is checked: each point names a declared metric and only its dimensions,
//! `t` is an RFC 3339 time, `v` a finite number, `cursor` a string when present. A work
//! destination gets its three routes in order, as the host uses them: the container list, a new
//! item (titled "Created by cargo host check") in the first container, and with two-way comments a
//! comment on that item; each answer has its shape, and the item's `url` is https.
//!
//! A route that exists but refuses the sample input (`INPUT_INVALID`, or an error with the vendor's
//! own code and a 4xx status other than 401) passes with a note; 401, SDK errors such as
//! `NOT_FOUND` or `SCOPE_MISSING`, any 5xx, a body that is not JSON and a timeout fail.

use std::process::ExitCode;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use host_manifest::Manifest;
use host_runtime::ErrorCode;
use host_runtime::check::{self as rules, DeclaredMetric};
use host_runtime::route::Route;
use http::Method;
use serde_json::Value;

use super::client::{Answer, Client, Request, SendError, no_server};
use super::install::Local;
use super::request::Kind;
use super::{Fail, InstallArgs, ManifestArg, ServerArg};
use crate::output::{self, Term, line};

/// The host's health time limit at publish.
pub(crate) const HEALTH_LIMIT: Duration =
    Duration::from_millis(host_runtime::limits::HEALTH_ANSWER_MS);
/// How long a tool's answer is waited for: the runtime's tool deadline, and a little more to see
/// its own `TOOL_TIMEOUT`.
pub(crate) const TOOL_LIMIT: Duration = Kind::Tool.wait();
/// How long the other routes' answers are waited for: the runtime's handler deadline, and a little
/// more to see its own `HANDLER_TIMEOUT`.
pub(crate) const ROUTE_LIMIT: Duration = Kind::Procedure.wait();
/// Pages a backfill may take before the check calls it a loop.
pub(crate) const MAX_PAGES: usize = 50;

/// Arguments of `cargo host check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub manifest: ManifestArg,
    #[command(flatten)]
    pub install: InstallArgs,
}

/// What a route's answer must be.
pub(super) enum Expect {
    /// A tool card of this `returns` kind.
    Tool(&'static str),
    /// Mention items.
    Mention,
    /// A context block.
    Context,
    /// A value valid against the procedure's `output` schema.
    Procedure(Option<Box<jsonschema::Validator>>),
    /// One page of a sync answer: the declared metrics, each with its dimension keys.
    Sync(Vec<(String, Vec<String>)>),
    /// The work destination's container list.
    Containers,
    /// A created work item.
    NewItem,
    /// A created comment.
    Comment,
}

impl Expect {
    /// What a 2xx answer of a call of `kind` must be; `None` for an action, whose answer is free.
    pub(super) fn of(m: &Manifest, kind: Kind, id: Option<&str>) -> Option<Expect> {
        let ai = &m.contributes.ai;
        Some(match kind {
            Kind::Tool => Expect::Tool(
                ai.tools
                    .iter()
                    .find(|t| Some(t.id.as_str()) == id)?
                    .returns
                    .as_str(),
            ),
            Kind::Mention => Expect::Mention,
            Kind::Context => Expect::Context,
            Kind::Procedure => {
                let p = m.server.as_ref()?.procedures.get(id?)?;
                Expect::Procedure(rules::compile_schema(&p.output).ok().map(Box::new))
            }
            Kind::Sync => Expect::Sync(
                m.contributes
                    .connector
                    .iter()
                    .flat_map(|c| &c.metrics)
                    .map(|x| {
                        (
                            x.key.clone(),
                            x.dimensions.iter().map(|d| d.key.clone()).collect(),
                        )
                    })
                    .collect(),
            ),
            Kind::WorkContainers => Expect::Containers,
            Kind::WorkItem => Expect::NewItem,
            Kind::WorkComment => Expect::Comment,
            Kind::Action => return None,
        })
    }
}

/// One route to check.
struct Job {
    /// `tool`, `mention`, `context`, `procedure`, `sync`, `work-containers`, `work-item`,
    /// `work-comment`.
    what: &'static str,
    id: String,
    method: Method,
    route: String,
    body: Option<Value>,
    /// The sample input, for the note that suggests `cargo host call`.
    input: Option<Value>,
    token: String,
    limit: Duration,
    expect: Expect,
}

/// The outcome of one check.
struct Verdict {
    pass: bool,
    /// After the mark: `tool keyword-ranks 200 series in 5 ms` or `tool x: why`.
    text: String,
    note: Option<String>,
}

/// Runs `cargo host check`.
pub(crate) async fn run(args: CheckArgs, term: Term) -> ExitCode {
    match check(args, &term).await {
        Ok(code) => code,
        Err(fail) => fail.report(&term),
    }
}

async fn check(args: CheckArgs, term: &Term) -> Result<ExitCode, Fail> {
    let loaded = super::load_manifest(&args.manifest.manifest, term)?;
    let manifest = &loaded.manifest;
    let local = Local::new(manifest, &args.install)?;
    let client = Client::new(&args.server.server)?;
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut tally = |v: &Verdict| {
        print_verdict(term, v);
        if v.pass {
            passed += 1;
        } else {
            failed += 1;
        }
    };

    let health = client
        .send(Request {
            method: Route::Health.method(),
            route: Route::Health.path(None).unwrap_or_default(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            timeout: HEALTH_LIMIT,
        })
        .await;
    if let Err(SendError::Unreachable(_)) = &health {
        tally(&Verdict {
            pass: false,
            text: format!("health: no server answers at {}", client.base()),
            note: None,
        });
        return Err(Fail::usage(no_server(client.base())));
    }
    tally(&judge_health(health, &manifest.id));

    let mut jobs = tokio::task::JoinSet::new();
    let manifest = std::sync::Arc::new(manifest.clone());
    let local = std::sync::Arc::new(local);
    if manifest
        .contributes
        .connector
        .as_ref()
        .is_some_and(|c| !c.metrics.is_empty())
    {
        let (client, manifest, local) = (client.clone(), manifest.clone(), local.clone());
        jobs.spawn(async move { check_sync(&client, &manifest, &local).await });
    }
    if manifest.contributes.work.is_some() {
        let (client, manifest, local) = (client.clone(), manifest.clone(), local.clone());
        jobs.spawn(async move { check_work(&client, &manifest, &local).await });
    }
    for job in jobs_of(&manifest, &local) {
        let client = client.clone();
        jobs.spawn(async move { vec![run_job(&client, &job).await.0] });
    }
    while let Some(done) = jobs.join_next().await {
        match done {
            Ok(verdicts) => verdicts.iter().for_each(&mut tally),
            Err(e) => tally(&Verdict {
                pass: false,
                text: format!("a check stopped unexpectedly: {e}"),
                note: None,
            }),
        }
    }
    line(&format!(
        "{} passed, {} failed",
        term.paint(if failed == 0 { "32" } else { "0" }, &passed.to_string()),
        term.paint(if failed == 0 { "0" } else { "31" }, &failed.to_string())
    ));
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_verdict(term: &Term, v: &Verdict) {
    let mark = if v.pass { term.ok() } else { term.bad() };
    line(&format!("{mark} {}", v.text));
    if let Some(note) = &v.note {
        line(&format!("  {} {note}", term.paint("36", "note:")));
    }
}

/// Every declared tool, mention, context provider and procedure, with its request.
fn jobs_of(m: &Manifest, local: &Local) -> Vec<Job> {
    let mut jobs = Vec::new();
    let token = local.authorization();
    for tool in &m.contributes.ai.tools {
        let input = super::schema::sample(&tool.input);
        jobs.push(Job {
            what: "tool",
            id: tool.id.clone(),
            method: Route::Tool(&tool.id).method(),
            route: Route::Tool(&tool.id).path(None).unwrap_or_default(),
            body: Some(local.call_body(input.clone())),
            input: Some(input),
            token: token.clone(),
            limit: TOOL_LIMIT,
            expect: Expect::Tool(tool.returns.as_str()),
        });
    }
    for mention in &m.contributes.ai.mentions {
        jobs.push(Job {
            what: "mention",
            id: mention.id.clone(),
            method: Route::Mention(&mention.id).method(),
            route: Route::Mention(&mention.id).path(None).unwrap_or_default(),
            body: None,
            input: None,
            token: token.clone(),
            limit: ROUTE_LIMIT,
            expect: Expect::Mention,
        });
    }
    for provider in &m.contributes.ai.context {
        jobs.push(Job {
            what: "context",
            id: provider.id.clone(),
            method: Route::Context(&provider.id).method(),
            route: Route::Context(&provider.id).path(None).unwrap_or_default(),
            body: None,
            input: None,
            token: token.clone(),
            limit: ROUTE_LIMIT,
            expect: Expect::Context,
        });
    }
    for (name, procedure) in m.server.iter().flat_map(|s| s.procedures.iter()) {
        let input = super::schema::sample(&procedure.input);
        jobs.push(Job {
            what: "procedure",
            id: name.clone(),
            method: Route::Procedure(name).method(),
            route: Route::Procedure(name).path(None).unwrap_or_default(),
            body: Some(local.call_body(input.clone())),
            input: Some(input),
            token: token.clone(),
            limit: ROUTE_LIMIT,
            expect: Expect::Procedure(rules::compile_schema(&procedure.output).ok().map(Box::new)),
        });
    }
    jobs
}

fn judge_health(result: Result<Answer, SendError>, extension_id: &str) -> Verdict {
    let fail = |why: String| Verdict {
        pass: false,
        text: format!("health: {why}"),
        note: None,
    };
    let answer = match result {
        Ok(answer) => answer,
        Err(SendError::Timeout(_)) => {
            return fail(format!(
                "no answer within {}; the host needs 200 within 3 s at publish",
                output::wait(HEALTH_LIMIT)
            ));
        }
        Err(e) => return fail(e.to_string()),
    };
    let json = answer.json.as_ref();
    let status = json.and_then(|j| j.get("status")).and_then(Value::as_str);
    let id = json
        .and_then(|j| j.get("extensionId"))
        .and_then(Value::as_str);
    if answer.status != 200 {
        let said = status
            .map(|s| format!(" (status `{s}`)"))
            .unwrap_or_default();
        return fail(format!(
            "{} {}{said}; the host needs 200 at `GET /host/health`",
            answer.status,
            answer.reason()
        ));
    }
    if status != Some("ok") {
        return fail(format!(
            "200, but the body is not {{\"status\":\"ok\",...}}: {}",
            output::raw_body(&answer.body)
        ));
    }
    if id != Some(extension_id) {
        return fail(format!(
            "the server answers for extension `{}`, but the manifest is `{extension_id}`; is --server the right server?",
            id.unwrap_or("?")
        ));
    }
    Verdict {
        pass: true,
        text: format!(
            "health 200 ok {extension_id} in {}",
            output::millis(answer.elapsed)
        ),
        note: None,
    }
}

/// Judges one route's answer.
fn judge(job: &Job, result: Result<Answer, SendError>) -> Verdict {
    let fail = |why: String| Verdict {
        pass: false,
        text: format!("{} {}: {why}", job.what, job.id),
        note: None,
    };
    let answer = match result {
        Ok(answer) => answer,
        Err(e) => return fail(e.to_string()),
    };
    let took = output::millis(answer.elapsed);
    if answer.is_success() {
        let Some(json) = &answer.json else {
            return fail(format!(
                "{} but the body is not JSON: {}",
                answer.status,
                output::raw_body(&answer.body)
            ));
        };
        return match check_answer(&job.expect, json) {
            Ok(what) => Verdict {
                pass: true,
                text: format!("{} {} {} {what}in {took}", job.what, job.id, answer.status),
                note: None,
            },
            Err(why) => fail(format!("{} but {why}", answer.status)),
        };
    }
    let Some((code, message)) = answer.error() else {
        return fail(format!(
            "{} {} without an error body: {}",
            answer.status,
            answer.reason(),
            output::raw_body(&answer.body)
        ));
    };
    let sdk_code = code.parse::<ErrorCode>().ok();
    let refused_input = sdk_code == Some(ErrorCode::InputInvalid)
        || (sdk_code.is_none() && (400..500).contains(&answer.status) && answer.status != 401);
    if !refused_input {
        let hint = match (answer.status, sdk_code) {
            (401, _) => {
                "; the server does not accept the development key: start it against `cargo host dev` (HOST_JWKS_URL) or with development_jwks()"
            }
            (404, Some(ErrorCode::NotFound)) => "; the route is missing",
            (403, Some(ErrorCode::ScopeMissing)) => {
                "; the local install has the manifest's scopes: do the server and this manifest agree?"
            }
            _ => "",
        };
        return fail(format!("{} {code}: {message}{hint}", answer.status));
    }
    let input = job.input.as_ref().map(Value::to_string).unwrap_or_default();
    let call = match job.what {
        "tool" | "procedure" => {
            format!("cargo host call {} {} --input '{input}'", job.what, job.id)
        }
        "mention" => format!("cargo host call mention {} --query TEXT", job.id),
        "sync" | "work-item" => format!("cargo host call {} --input '{input}'", job.what),
        "work-comment" => format!("cargo host call work-comment ITEM --input '{input}'"),
        "work-containers" => "cargo host call work-containers --query TEXT".to_owned(),
        _ => format!("cargo host call {} {}", job.what, job.id),
    };
    Verdict {
        pass: true,
        text: format!("{} {} {} {code} in {took}", job.what, job.id, answer.status),
        note: Some(format!(
            "the route answers but refused the sample input {input}: {message}; try `{call}` with an input it accepts"
        )),
    }
}

/// Checks a 2xx answer with the runtime's own rules (so `check` and a server built on the SDK judge
/// every answer alike); `Ok` holds what to say about it (`series `, `3 items `), `Err` the runtime's
/// message.
pub(super) fn check_answer(expect: &Expect, json: &Value) -> Result<String, String> {
    let said = match expect {
        Expect::Tool(kind) => rules::tool_answer(kind, json).map(|()| format!("{kind} ")),
        Expect::Mention => rules::mention_answer(json).map(|n| plural(n, "item")),
        Expect::Context => rules::context_answer(json).map(|n| format!("{n} bytes ")),
        Expect::Procedure(validator) => {
            match validator
                .as_ref()
                .and_then(|v| rules::first_violation(v, json))
            {
                Some(v) => Err(rules::procedure_output_invalid(&v)),
                None => Ok(String::new()),
            }
        }
        Expect::Sync(metrics) => {
            let dims: Vec<Vec<&str>> = metrics
                .iter()
                .map(|(_, d)| d.iter().map(String::as_str).collect())
                .collect();
            let declared: Vec<DeclaredMetric<'_>> = metrics
                .iter()
                .zip(&dims)
                .map(|((key, _), dimensions)| DeclaredMetric { key, dimensions })
                .collect();
            rules::metrics_page(&declared, json).map(|n| format!("{n} points "))
        }
        Expect::Containers => rules::containers_answer(json).map(|n| plural(n, "container")),
        Expect::NewItem => rules::created_item_answer(json).map(|item| format!("{} ", item.id)),
        Expect::Comment => {
            rules::created_comment_answer(json).map(|comment| format!("{} ", comment.id))
        }
    };
    said.map_err(|e| format!("{}: {}", e.code(), e.message()))
}

/// `1 item `, `3 items `.
fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{} ", if n == 1 { "" } else { "s" })
}

/// Sends one job's request and judges the answer; the answer's JSON comes back for the next step.
async fn run_job(client: &Client, job: &Job) -> (Verdict, Option<Value>) {
    let result = client
        .send(Request {
            method: job.method.clone(),
            route: job.route.clone(),
            query: if matches!(job.what, "mention" | "work-containers") {
                vec![("q", String::new())]
            } else {
                Vec::new()
            },
            headers: vec![("authorization", job.token.clone())],
            body: job.body.as_ref(),
            timeout: job.limit,
        })
        .await;
    let json = result
        .as_ref()
        .ok()
        .filter(|a| a.is_success())
        .and_then(|a| a.json.clone());
    (judge(job, result), json)
}

/// The connector's backfill, page by page, then its scheduled sync.
async fn check_sync(client: &Client, m: &Manifest, local: &Local) -> Vec<Verdict> {
    let Some(connector) = &m.contributes.connector else {
        return Vec::new();
    };
    let days = connector
        .metrics
        .iter()
        .filter_map(|x| x.backfill_days)
        .max()
        .map_or(7, i64::from);
    let to = Utc::now();
    vec![
        sync_pages(
            client,
            m,
            local,
            to - chrono::Duration::days(days),
            to,
            true,
        )
        .await,
        sync_pages(
            client,
            m,
            local,
            to - chrono::Duration::hours(24),
            to,
            false,
        )
        .await,
    ]
}

/// One sync, following its cursor to the last page.
async fn sync_pages(
    client: &Client,
    m: &Manifest,
    local: &Local,
    from: chrono::DateTime<Utc>,
    to: chrono::DateTime<Utc>,
    backfill: bool,
) -> Verdict {
    let metrics: Vec<(String, Vec<String>)> = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| &c.metrics)
        .map(|x| {
            let dims = x.dimensions.iter().map(|d| d.key.clone()).collect();
            (x.key.clone(), dims)
        })
        .collect();
    let keys: Vec<&str> = metrics.iter().map(|(k, _)| k.as_str()).collect();
    let label = if backfill {
        format!("backfill of {} days", (to - from).num_days())
    } else {
        "scheduled sync of 24 h".to_owned()
    };
    let mut cursor: Option<String> = None;
    let mut cursors = std::collections::HashSet::new();
    let (mut pages, mut points, mut took) = (0usize, 0usize, Duration::ZERO);
    loop {
        let input = serde_json::json!({
            "metrics": keys,
            "from": from.to_rfc3339_opts(SecondsFormat::Secs, true),
            "to": to.to_rfc3339_opts(SecondsFormat::Secs, true),
            "backfill": backfill,
            "cursor": cursor,
        });
        let job = Job {
            what: "sync",
            id: format!("{label}, page {}", pages + 1),
            method: Route::Metrics.method(),
            route: Route::Metrics.path(None).unwrap_or_default(),
            body: Some(local.call_body(input.clone())),
            input: Some(input),
            token: local.authorization(),
            limit: ROUTE_LIMIT,
            expect: Expect::Sync(metrics.clone()),
        };
        let started = std::time::Instant::now();
        let (verdict, json) = run_job(client, &job).await;
        took += started.elapsed();
        let Some(json) = json.filter(|_| verdict.pass && verdict.note.is_none()) else {
            return verdict;
        };
        pages += 1;
        points += json
            .get("points")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let Some(next) = json.get("cursor").and_then(Value::as_str) else {
            break;
        };
        let fail = |why: String| Verdict {
            pass: false,
            text: format!("sync {label}: {why}"),
            note: None,
        };
        if !cursors.insert(next.to_owned()) {
            return fail(format!(
                "page {pages} gives the cursor `{next}` a second time; the pages would never end"
            ));
        }
        if pages >= MAX_PAGES {
            return fail(format!(
                "still paging after {MAX_PAGES} pages; is the cursor moving forward?"
            ));
        }
        cursor = Some(next.to_owned());
    }
    Verdict {
        pass: true,
        text: format!(
            "sync {label} 200, {points} points in {pages} page{} in {}",
            if pages == 1 { "" } else { "s" },
            output::millis(took)
        ),
        note: None,
    }
}

/// The work destination as the host uses it: list containers, create an item in the first one,
/// comment on it (two-way comments only).
async fn check_work(client: &Client, m: &Manifest, local: &Local) -> Vec<Verdict> {
    let Some(work) = &m.contributes.work else {
        return Vec::new();
    };
    let token = local.authorization();
    let list = Route::WorkContainers.path(Some(work.container.list.as_str()));
    let containers = Job {
        what: "work-containers",
        id: list.clone().unwrap_or_default(),
        method: Route::WorkContainers.method(),
        route: list.unwrap_or_default(),
        body: None,
        input: None,
        token: token.clone(),
        limit: ROUTE_LIMIT,
        expect: Expect::Containers,
    };
    let (verdict, json) = run_job(client, &containers).await;
    let container = json
        .as_ref()
        .and_then(|j| j.pointer("/items/0/id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut verdicts = vec![verdict];
    let Some(container) = container else {
        if let Some(first) = verdicts.first_mut()
            && first.pass
            && first.note.is_none()
        {
            first.note = Some(
                "the list is empty for an empty query, so no item was created; the host would have nowhere to put one".to_owned(),
            );
        }
        return verdicts;
    };
    let input = super::request::new_item(m, &container);
    let item = Job {
        what: "work-item",
        id: format!("in `{container}`"),
        method: Route::WorkItems.method(),
        route: Route::WorkItems.path(None).unwrap_or_default(),
        body: Some(local.call_body(input.clone())),
        input: Some(input),
        token: token.clone(),
        limit: ROUTE_LIMIT,
        expect: Expect::NewItem,
    };
    let (verdict, json) = run_job(client, &item).await;
    let created = json
        .as_ref()
        .filter(|_| verdict.pass)
        .and_then(|j| j.get("id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    verdicts.push(verdict);
    let (Some(id), host_manifest::model::CommentSync::TwoWay) = (created, work.comments) else {
        return verdicts;
    };
    let input = serde_json::json!({ "body": "A comment from cargo host check." });
    let comment = Job {
        what: "work-comment",
        id: format!("on `{id}`"),
        method: Route::WorkComment(&id).method(),
        route: Route::WorkComment(&id).path(None).unwrap_or_default(),
        body: Some(local.call_body(input.clone())),
        input: Some(input),
        token,
        limit: ROUTE_LIMIT,
        expect: Expect::Comment,
    };
    verdicts.push(run_job(client, &comment).await.0);
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use serde_json::json;

    fn answer(status: u16, body: Value) -> Result<Answer, SendError> {
        Ok(Answer {
            status,
            body: Bytes::from(body.to_string()),
            json: Some(body),
            elapsed: Duration::from_millis(3),
        })
    }

    fn job(expect: Expect) -> Job {
        Job {
            what: "tool",
            id: "keyword-ranks".into(),
            method: Method::POST,
            route: "/host/tools/keyword-ranks".into(),
            body: None,
            input: Some(json!({ "keyword": "US" })),
            token: String::new(),
            limit: TOOL_LIMIT,
            expect,
        }
    }

    fn d3(code: &str) -> Value {
        json!({ "error": { "code": code, "message": "m" } })
    }

    #[test]
    fn tool_answers_are_checked_by_kind() {
        let ok = judge(
            &job(Expect::Tool("series")),
            answer(200, json!({ "series": [] })),
        );
        assert!(ok.pass);
        assert_eq!(ok.text, "tool keyword-ranks 200 series in 3 ms");
        let wrong = judge(
            &job(Expect::Tool("series")),
            answer(200, json!({ "value": 1 })),
        );
        assert!(
            !wrong.pass && wrong.text.contains("not a `series` card"),
            "{}",
            wrong.text
        );
    }

    #[test]
    fn refused_inputs_pass_with_a_note_and_route_errors_fail() {
        let refused = judge(
            &job(Expect::Tool("series")),
            answer(422, d3("INPUT_INVALID")),
        );
        assert!(refused.pass);
        assert!(
            refused
                .note
                .is_some_and(|n| n.contains("cargo host call tool keyword-ranks --input"))
        );
        assert!(
            judge(
                &job(Expect::Tool("value")),
                answer(409, d3("KEYWORD_UNKNOWN"))
            )
            .pass
        );
        for (status, body) in [
            (404, d3("NOT_FOUND")),
            (405, d3("METHOD_NOT_ALLOWED")),
            (401, d3("UNAUTHORIZED")),
            (403, d3("SCOPE_MISSING")),
            (503, d3("RANKS_DOWN")),
            (500, d3("INTERNAL")),
            (400, json!({ "oops": true })),
        ] {
            let v = judge(&job(Expect::Tool("value")), answer(status, body.clone()));
            assert!(!v.pass, "{status} {body} should fail");
        }
        let timeout = judge(
            &job(Expect::Tool("value")),
            Err(SendError::Timeout(host_runtime::TOOL_DEADLINE)),
        );
        assert!(
            !timeout.pass && timeout.text.contains("no answer within 30s"),
            "{}",
            timeout.text
        );
        let text = Ok(Answer {
            status: 200,
            body: Bytes::from_static(b"<html>"),
            json: None,
            elapsed: Duration::ZERO,
        });
        assert!(!judge(&job(Expect::Tool("value")), text).pass);
    }

    #[test]
    fn mentions_contexts_and_procedures_have_their_shapes() {
        assert_eq!(
            check_answer(
                &Expect::Mention,
                &json!({ "items": [ { "id": "a", "label": "A" } ] })
            ),
            Ok("1 item ".to_owned())
        );
        assert!(check_answer(&Expect::Mention, &json!({ "items": [ { "id": "a" } ] })).is_err());
        assert!(check_answer(&Expect::Context, &json!({ "summary": "s" })).is_ok());
        let big = json!({ "summary": "x".repeat(host_runtime::limits::CONTEXT_BYTES) });
        assert!(
            check_answer(&Expect::Context, &big)
                .unwrap_err()
                .contains("limit is 2048")
        );
        let output =
            super::super::schema::compile(&json!({ "type": "object", "required": ["tracked"] }))
                .ok()
                .map(Box::new);
        let procedure = Expect::Procedure(output);
        assert!(check_answer(&procedure, &json!({ "tracked": true })).is_ok());
        assert!(
            check_answer(&procedure, &json!({}))
                .unwrap_err()
                .contains("at `/`")
        );
    }

    #[test]
    fn sync_pages_name_declared_metrics_and_dimensions() {
        let metrics = vec![("rank".to_owned(), vec!["country".to_owned()])];
        let point = |p: Value| json!({ "points": [p] });
        let good = json!({ "metric": "rank", "t": "2026-11-01T00:00:00Z", "v": 3, "dimensions": { "country": "US" } });
        let expect = Expect::Sync(metrics);
        assert_eq!(
            check_answer(&expect, &point(good.clone())),
            Ok("1 points ".to_owned())
        );
        let paged = json!({ "points": [], "cursor": "next" });
        assert_eq!(check_answer(&expect, &paged), Ok("0 points ".to_owned()));
        for (bad, why) in [
            (
                json!({ "points": [good.clone()], "cursor": 5 }),
                "`cursor` 5",
            ),
            (json!({ "items": [] }), "no `points` list"),
            (
                point(json!({ "metric": "installs", "t": "2026-11-01T00:00:00Z", "v": 1 })),
                "undeclared metric `installs`",
            ),
            (
                point(json!({ "metric": "rank", "t": "yesterday", "v": 1 })),
                "not an ISO 8601 UTC timestamp",
            ),
            (
                point(json!({ "metric": "rank", "t": "2026-11-01T00:00:00Z", "v": "1" })),
                "no number `v`",
            ),
            (
                point(
                    json!({ "metric": "rank", "t": "2026-11-01T00:00:00Z", "v": 1, "dimensions": { "store": "x" } }),
                ),
                "dimension `store`",
            ),
            (
                point(
                    json!({ "metric": "rank", "t": "2026-11-01T00:00:00Z", "v": 1, "dimensions": { "country": 1 } }),
                ),
                "not a string",
            ),
        ] {
            let e = check_answer(&expect, &bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn work_answers_have_their_shapes() {
        assert!(check_answer(&Expect::Containers, &json!({ "items": [] })).is_ok());
        assert!(check_answer(&Expect::Containers, &json!({ "items": [{ "id": "a" }] })).is_err());
        let item = json!({ "id": "T-1", "url": "https://t.example/T-1", "status": "open" });
        assert_eq!(check_answer(&Expect::NewItem, &item), Ok("T-1 ".to_owned()));
        let http = json!({ "id": "T-1", "url": "http://t.example/T-1", "status": "open" });
        assert!(
            check_answer(&Expect::NewItem, &http)
                .unwrap_err()
                .contains("https")
        );
        assert!(check_answer(&Expect::Comment, &json!({ "id": 3 })).is_err());
    }

    #[test]
    fn health_must_be_ok_for_this_extension() {
        let ok = json!({ "status": "ok", "extensionId": "keyword-tracker", "sdk": "2.0.0" });
        assert!(judge_health(answer(200, ok), "keyword-tracker").pass);
        let other = json!({ "status": "ok", "extensionId": "other" });
        assert!(!judge_health(answer(200, other), "keyword-tracker").pass);
        let degraded = json!({ "status": "degraded", "extensionId": "keyword-tracker" });
        let v = judge_health(answer(503, degraded), "keyword-tracker");
        assert!(!v.pass && v.text.contains("degraded"), "{}", v.text);
    }
}
