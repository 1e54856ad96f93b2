//! `cargo host check`: the host's publish-time checks against a running vendor server.
//!
//! First `GET /host/health` must answer 200 within 3 s with `{ status: "ok", extensionId }`. Then
//! every declared tool, mention, context provider and procedure is called once (concurrently; lines
//! are printed as answers come) and its answer checked: tools against the card shape of their
//! `returns` kind, mentions as mention items, context blocks within 2,048 bytes, procedures against
//! their `output` schema. Actions are not called: they change things and run only after approval.
//!
//! A route that exists but refuses the sample input (`INPUT_INVALID`, or an error with the vendor's
//! own code and a 4xx status other than 401) passes with a note; 401, SDK errors such as
//! `NOT_FOUND` or `SCOPE_MISSING`, any 5xx, a body that is not JSON and a timeout fail.

use std::process::ExitCode;
use std::time::Duration;

use host_runtime::ErrorCode;
use host_runtime::answer::{CONTEXT_LIMIT, ContextBlock, MentionItems, check_tool_answer};
use host_runtime::route::Route;
use http::Method;
use serde_json::Value;

use super::client::{Answer, Client, Request, SendError, no_server};
use super::install::Local;
use super::output::{self, Term, line};
use super::{Fail, InstallArgs, ManifestArg, ServerArg};

/// The host's health time limit at publish.
pub const HEALTH_LIMIT: Duration = Duration::from_secs(3);
/// The tool time limit.
pub const TOOL_LIMIT: Duration = host_runtime::TOOL_DEADLINE;
/// The limit for the other routes.
pub const ROUTE_LIMIT: Duration = Duration::from_secs(30);

/// Arguments of `cargo host check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub manifest: ManifestArg,
    #[command(flatten)]
    pub install: InstallArgs,
}

/// What a route's answer must be.
enum Expect {
    /// A tool card of this `returns` kind.
    Tool(&'static str),
    /// Mention items.
    Mention,
    /// A context block.
    Context,
    /// A value valid against the procedure's `output` schema.
    Procedure(Option<Box<jsonschema::Validator>>),
}

/// One route to check.
struct Job {
    /// `tool`, `mention`, `context`, `procedure`.
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
pub async fn run(args: CheckArgs, term: Term) -> ExitCode {
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
    for job in jobs_of(manifest, &local) {
        let client = client.clone();
        jobs.spawn(async move {
            let result = client
                .send(Request {
                    method: job.method.clone(),
                    route: job.route.clone(),
                    query: if job.what == "mention" {
                        vec![("q", String::new())]
                    } else {
                        Vec::new()
                    },
                    headers: vec![("authorization", job.token.clone())],
                    body: job.body.as_ref(),
                    timeout: job.limit,
                })
                .await;
            judge(&job, result)
        });
    }
    while let Some(done) = jobs.join_next().await {
        match done {
            Ok(verdict) => tally(&verdict),
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
fn jobs_of(m: &host_manifest::Manifest, local: &Local) -> Vec<Job> {
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
            // A little over the tool deadline, so the runtime's own TOOL_TIMEOUT is seen.
            limit: TOOL_LIMIT + Duration::from_secs(1),
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
            expect: Expect::Procedure(super::schema::compile(&procedure.output).ok().map(Box::new)),
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

/// Checks a 2xx answer; `Ok` holds what to say about it (`series `, `3 items `).
fn check_answer(expect: &Expect, json: &Value) -> Result<String, String> {
    match expect {
        Expect::Tool(kind) => check_tool_answer(kind, json).map(|()| format!("{kind} ")),
        Expect::Mention => {
            let items = serde_json::from_value::<MentionItems>(json.clone()).map_err(|e| {
                format!("the answer is not mention items {{items:[{{id,label}}]}}: {e}")
            })?;
            let n = items.items.len();
            Ok(format!("{n} item{} ", if n == 1 { "" } else { "s" }))
        }
        Expect::Context => {
            serde_json::from_value::<ContextBlock>(json.clone()).map_err(|e| {
                format!("the answer is not a context block {{summary, data?}}: {e}")
            })?;
            let size = json.to_string().len();
            if size > CONTEXT_LIMIT {
                return Err(format!(
                    "the context block is {size} bytes of compact JSON; the limit is {CONTEXT_LIMIT}"
                ));
            }
            Ok(format!("{size} bytes "))
        }
        Expect::Procedure(validator) => match validator
            .as_ref()
            .and_then(|v| super::schema::first_error(v, json))
        {
            Some(e) => Err(format!(
                "the answer fails the procedure's `output` schema {e}"
            )),
            None => Ok(String::new()),
        },
    }
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
            Err(SendError::Timeout(TOOL_LIMIT)),
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
        let big = json!({ "summary": "x".repeat(CONTEXT_LIMIT) });
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
