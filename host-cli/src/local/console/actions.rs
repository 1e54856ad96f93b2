//! What the console's buttons do, on the local host's own engine: a call is resolved by `call`'s
//! route table, sent with a token minted for the local install and judged by `check`'s answer
//! rules; a delivery is `trigger`'s example, freshening and attempts on the host's retry schedule;
//! a posted event is replayed through `dev`'s own checks. Each becomes a timeline entry.

use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use host_manifest::Manifest;
use host_runtime::route::Route;
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use serde::Deserialize;
use serde_json::{Value, json};

use super::super::call::{self, Kind as CallKind, Target};
use super::super::check::{Expect, check_answer};
use super::super::client::{Answer, Client, Request, SendError};
use super::super::install::Local;
use super::super::{InstallArgs, output, trigger};
use super::Console;
use super::timeline::{Attempt, Check, Entry, Kind, State, millis};

/// The install a page sends with each call: every member optional, defaults as `cargo host call`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InstallForm {
    /// The install id.
    pub id: Option<String>,
    /// The scope keys granted.
    pub scopes: Option<Vec<String>>,
    /// The `documents` object.
    pub documents: Option<Value>,
    /// The `credentials` object.
    pub credentials: Option<Value>,
    /// The call body's `context`.
    pub context: Option<Value>,
}

/// A call as the page asks for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallForm {
    /// `tool`, `action`, `mention`, `context`, `procedure`, `sync`, `work-containers`,
    /// `work-item`, `work-comment`.
    pub kind: String,
    /// The contribution's id (the procedure's name, the work item's id).
    #[serde(default)]
    pub id: Option<String>,
    /// The input; the default is `call`'s.
    #[serde(default)]
    pub input: Option<Value>,
    /// The picker text of mentions and work containers.
    #[serde(default)]
    pub query: Option<String>,
    /// The install.
    #[serde(default)]
    pub install: InstallForm,
}

/// A delivery as the page asks for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeliverForm {
    /// The published event's name.
    pub event: String,
    /// The payload [default: the catalogue's example, freshened].
    #[serde(default)]
    pub payload: Option<Value>,
    /// Replay the host's retry schedule: four attempts whatever the answers.
    #[serde(default)]
    pub retry: bool,
    /// Divide the retry waits by this [default: 1].
    #[serde(default)]
    pub time_scale: Option<f64>,
    /// The install.
    #[serde(default)]
    pub install: InstallForm,
}

/// What replaying an entry does.
#[derive(Debug, Clone)]
pub enum Replay {
    /// The same call again, with a fresh token.
    Call(CallForm),
    /// The same delivery again: the same payload, fresh event ids.
    Deliver(DeliverForm),
    /// The same posted request through the local host's checks again.
    Posted {
        /// Its headers.
        headers: Vec<(String, String)>,
        /// Its body as received.
        body: Bytes,
    },
}

/// The local install of `form`, as `cargo host call --install --scopes ...` builds it.
fn local(manifest: &Manifest, form: &InstallForm) -> Result<Local, String> {
    let args = InstallArgs {
        install: form.id.clone(),
        scopes: form.scopes.as_ref().map(|s| s.join(",")),
        credentials: form.credentials.as_ref().map(Value::to_string),
        documents: form.documents.as_ref().map(Value::to_string),
    };
    let mut local = Local::new(manifest, &args).map_err(|f| {
        // The messages name the command-line flags; the page names the same things.
        f.message
            .replace("`--scopes`", "scopes")
            .replace("`--credentials`", "credentials")
            .replace("`--documents`", "documents")
            .replace("`--install`", "the install id")
    })?;
    if let Some(context) = &form.context {
        if !context.is_object() {
            return Err("the context must be a JSON object".to_owned());
        }
        local.context = Some(context.clone());
    }
    Ok(local)
}

fn token_check(local: &Local) -> Check {
    let h = &local.host;
    let scopes = if h.scopes.is_empty() {
        "no scopes".to_owned()
    } else {
        h.scopes.join(", ")
    };
    Check::new(
        "token",
        State::Pass,
        format!(
            "minted for install {} of {} ({scopes}), signed with the development key",
            h.install_id, h.organization_id
        ),
    )
}

fn request_json(client: &Client, method: &Method, route: &str, query: &[(&str, String)]) -> Value {
    let mut url = client.url(route);
    if !query.is_empty() {
        let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
        url = format!("{url}?{}", q.join("&"));
    }
    json!({ "method": method.as_str(), "url": url })
}

fn answer_json(answer: &Answer) -> Value {
    let body = match &answer.json {
        Some(json) => json.clone(),
        None if answer.body.is_empty() => Value::Null,
        None => Value::String(output::raw_body(&answer.body)),
    };
    json!({ "status": answer.status, "reason": answer.reason(), "body": body })
}

/// What a 2xx answer of `kind` must be, for the rules `cargo host check` applies.
fn expect(m: &Manifest, kind: CallKind, id: Option<&str>) -> Option<Expect> {
    let ai = &m.contributes.ai;
    Some(match kind {
        CallKind::Tool => Expect::Tool(
            ai.tools
                .iter()
                .find(|t| Some(t.id.as_str()) == id)?
                .returns
                .as_str(),
        ),
        CallKind::Mention => Expect::Mention,
        CallKind::Context => Expect::Context,
        CallKind::Procedure => {
            let p = m.server.as_ref()?.procedures.get(id?)?;
            Expect::Procedure(
                host_runtime::check::compile_schema(&p.output)
                    .ok()
                    .map(Box::new),
            )
        }
        CallKind::Sync => Expect::Sync(
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
        CallKind::WorkContainers => Expect::Containers,
        CallKind::WorkItem => Expect::NewItem,
        CallKind::WorkComment => Expect::Comment,
        CallKind::Action => return None,
    })
}

/// The kind named by the page.
fn call_kind(word: &str) -> Option<CallKind> {
    use clap::ValueEnum;
    CallKind::from_str(word, false).ok()
}

/// Makes one call and records it; gives the entry's id.
pub async fn call(console: &Console, form: CallForm) -> u64 {
    let title = match &form.id {
        Some(id) => format!("{} {id}", form.kind),
        None => form.kind.clone(),
    };
    let mut entry = Entry::new(Kind::Call, title, json!({ "kind": form.kind }));
    entry.replay = Some(super::actions::Replay::Call(form.clone()));
    let refused = |mut entry: Entry, name: &str, why: String| {
        entry.checks.push(Check::new(name, State::Fail, why));
        entry.conclude();
        console.timeline.begin(entry)
    };
    let m = &console.manifest;
    let Some(kind) = call_kind(&form.kind) else {
        return refused(
            entry,
            "route",
            format!(
                "`{}` is not a kind of call; kinds: tool, action, mention, context, procedure, sync, work-containers, work-item, work-comment",
                form.kind
            ),
        );
    };
    let target: Target<'_> = match call::target(m, kind, form.id.as_deref(), &console.shown) {
        Ok(t) => t,
        Err(fail) => return refused(entry, "route", fail.message),
    };
    let local = match local(m, &form.install) {
        Ok(local) => local,
        Err(why) => return refused(entry, "install", why),
    };
    entry.checks.push(token_check(&local));

    let mut query = Vec::new();
    let mut body = None;
    match kind {
        CallKind::Mention | CallKind::WorkContainers => {
            query.push(("q", form.query.clone().unwrap_or_default()));
        }
        CallKind::Context => {}
        CallKind::Sync => {
            let input = form
                .input
                .clone()
                .unwrap_or_else(|| call::sync_input(m, form.id.as_deref()));
            body = Some(local.call_body(input));
        }
        CallKind::WorkItem => {
            let container = form.id.as_deref().unwrap_or_default();
            let input = form
                .input
                .clone()
                .unwrap_or_else(|| call::new_item(m, container));
            if let Err(e) = serde_json::from_value::<host_runtime::work::NewItem>(input.clone()) {
                entry.checks.push(Check::new(
                    "input shape",
                    State::Note,
                    format!("not a new work item {{kind, container, title, ...}} ({e}); sent anyway: the server should refuse it"),
                ));
            }
            body = Some(local.call_body(input));
        }
        CallKind::WorkComment => {
            let input = form
                .input
                .clone()
                .unwrap_or_else(|| json!({ "body": "A comment from the console." }));
            body = Some(local.call_body(input));
        }
        CallKind::Tool | CallKind::Action | CallKind::Procedure => {
            let input = form.input.clone().unwrap_or_else(|| json!({}));
            let check = match target
                .schema
                .and_then(|s| super::super::schema::check(s, &input))
            {
                Some(e) => Check::new(
                    "input schema",
                    State::Fail,
                    format!(
                        "the input fails the input schema of {} {e}; sent anyway: the server should answer 422 INPUT_INVALID",
                        target.name
                    ),
                ),
                None => Check::new(
                    "input schema",
                    State::Pass,
                    format!("valid against the input schema of {}", target.name),
                ),
            };
            entry.checks.push(check);
            body = Some(local.call_body(input));
        }
    }
    let limit = match kind {
        CallKind::Tool => host_runtime::TOOL_DEADLINE,
        _ => Duration::from_secs(60),
    };
    let mut request = request_json(&console.client, &target.method, &target.route, &query);
    request["headers"] = json!({ "authorization": "Bearer <install token>" });
    if let Some(body) = &body {
        request["body"] = body.clone();
    }
    entry.request = request;
    let sent = console
        .client
        .send(Request {
            method: target.method.clone(),
            route: target.route.clone(),
            query,
            headers: vec![("authorization", local.authorization())],
            body: body.as_ref(),
            // A little over the limit, to see the runtime's own timeout answer.
            timeout: limit + Duration::from_secs(5),
        })
        .await;
    judge(
        &mut entry,
        m,
        kind,
        form.id.as_deref(),
        &target,
        sent,
        limit,
    );
    entry.conclude();
    // A route whose input failed locally and which the server refused as such did its job.
    console.timeline.begin(entry)
}

/// The checks of the answer: its status, its shape by the runtime's rules, its time.
fn judge(
    entry: &mut Entry,
    m: &Manifest,
    kind: CallKind,
    id: Option<&str>,
    target: &Target<'_>,
    sent: Result<Answer, SendError>,
    limit: Duration,
) {
    let answer = match sent {
        Ok(answer) => answer,
        Err(e) => {
            let hint = match e {
                SendError::Unreachable(_) => {
                    "; is the vendor server running? `cargo host dev --server URL` names where it listens"
                }
                _ => "",
            };
            entry
                .checks
                .push(Check::new("answer", State::Fail, format!("{e}{hint}")));
            return;
        }
    };
    entry.ms = Some(millis(answer.elapsed));
    entry.answer = Some(answer_json(&answer));
    if !answer.is_success() {
        let said = match answer.error() {
            Some((code, message)) => format!("{} {code}: {message}", answer.status),
            None => format!(
                "{} {} without an error body {{\"error\":{{\"code\",\"message\"}}}}",
                answer.status,
                answer.reason()
            ),
        };
        entry.checks.push(Check::new(
            "status",
            State::Fail,
            format!("{} answered {said}", target.name),
        ));
        return;
    }
    entry.checks.push(Check::new(
        "status",
        State::Pass,
        format!("{} {}", answer.status, answer.reason()),
    ));
    match (expect(m, kind, id), &answer.json) {
        (_, None) if answer.body.is_empty() && kind == CallKind::Action => {}
        (_, None) => entry.checks.push(Check::new(
            "answer shape",
            State::Fail,
            format!("the body is not JSON: {}", output::raw_body(&answer.body)),
        )),
        (Some(expect), Some(json)) => entry.checks.push(match check_answer(&expect, json) {
            Ok(said) => Check::new(
                "answer shape",
                State::Pass,
                format!("{} by the host's rules", said.trim_end())
                    .trim()
                    .to_owned(),
            ),
            Err(why) => Check::new(
                "answer shape",
                State::Fail,
                format!("the host would refuse this answer and show the owner an error: {why}"),
            ),
        }),
        (None, Some(_)) => {}
    }
    let within = answer.elapsed <= limit;
    entry.checks.push(Check::new(
        "time limit",
        if within { State::Pass } else { State::Fail },
        format!(
            "answered in {} (the host waits {})",
            output::millis(answer.elapsed),
            output::wait(limit)
        ),
    ));
}

/// Starts a delivery: records it, then makes its attempts in the background; gives its id.
pub fn deliver(console: &std::sync::Arc<Console>, form: DeliverForm) -> u64 {
    let mut entry = Entry::new(Kind::Delivery, form.event.clone(), json!({}));
    entry.replay = Some(Replay::Deliver(form.clone()));
    let refused = |mut entry: Entry, name: &str, why: String| {
        entry.checks.push(Check::new(name, State::Fail, why));
        entry.conclude();
        console.timeline.begin(entry)
    };
    let m = &console.manifest;
    let name = match trigger::published(&form.event) {
        Ok(name) => name,
        Err(fail) => return refused(entry, "event", fail.message),
    };
    let local = match local(m, &form.install) {
        Ok(local) => local,
        Err(why) => return refused(entry, "install", why),
    };
    let scale = form.time_scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return refused(
            entry,
            "time scale",
            format!(
                "{scale} is not a positive number; 600 turns 30 s, 2 min, 10 min into 50 ms, 200 ms, 1 s"
            ),
        );
    }
    let waits: Vec<Duration> = if form.retry {
        trigger::RETRY_WAITS
            .iter()
            .map(|w| Duration::from_secs_f64((w.as_secs_f64() / scale).min(3600.0)))
            .collect()
    } else {
        Vec::new()
    };
    entry.checks.push(token_check(&local));
    let payload = match &form.payload {
        Some(payload) => {
            entry.checks.push(match trigger::fits(name, payload) {
                Ok(()) => Check::new("payload", State::Pass, format!("reads as a `{name}` payload")),
                Err(e) => Check::new(
                    "payload",
                    State::Fail,
                    format!("not a `{name}` payload ({e}); sent anyway: the server should answer 422 INPUT_INVALID"),
                ),
            });
            payload.clone()
        }
        None => example(console, name, &local),
    };
    entry.checks.push(if m.subscribed_events().iter().any(|e| e == name) {
        Check::new("subscribed", State::Pass, format!("`server.events` subscribes to `{name}`"))
    } else {
        Check::new(
            "subscribed",
            State::Fail,
            format!("{} does not subscribe to `{name}` under `server.events`: the host would not deliver it; sent anyway", console.shown),
        )
    });
    if let Some(scope) = host_manifest::catalogue::event(name).and_then(|e| e.scope) {
        let granted = local.host.scopes.iter().any(|s| s == scope);
        entry.checks.push(Check::new(
            "scope",
            if granted { State::Pass } else { State::Fail },
            if granted {
                format!("the install is granted `{scope}`, which `{name}` needs")
            } else {
                format!("the install is not granted `{scope}`, which `{name}` needs: the host would not deliver it; sent anyway")
            },
        ));
    }
    let body = local.event_body(name, payload);
    let key = host_runtime::dedupe::key_of(name, &local.host.install_id, &body["event"]["payload"]);
    entry.request = json!({
        "method": "POST",
        "url": console.client.url(&Route::Event(None).path(None).unwrap_or_default()),
        "headers": { "authorization": "Bearer <install token>", "x-host-event-id": "evt_<one per attempt>" },
        "body": body,
    });
    let id = console.timeline.begin(entry);
    let total = waits.len() + 1;
    let console = std::sync::Arc::clone(console);
    tokio::spawn(async move {
        console.timeline.reacting_to(id);
        let started = Instant::now();
        for n in 1..=total {
            if let Some(wait) = n.checked_sub(2).and_then(|i| waits.get(i)) {
                tokio::time::sleep(*wait).await;
            }
            let (event_id, sent) = trigger::deliver(&console.client, &local, &body).await;
            let attempt = match &sent {
                Ok(answer) => Attempt {
                    n,
                    event_id,
                    status: Some(answer.status),
                    ms: millis(answer.elapsed),
                    said: match answer.error() {
                        Some((code, message)) if !answer.is_success() => {
                            format!("{code}: {message}")
                        }
                        _ => answer.reason().to_owned(),
                    },
                },
                Err(e) => Attempt {
                    n,
                    event_id,
                    status: None,
                    ms: 0,
                    said: format!("no answer: {e}"),
                },
            };
            console.timeline.update(id, |e| {
                if let Ok(answer) = &sent {
                    e.answer = Some(answer_json(answer));
                }
                e.attempts.push(attempt);
            });
        }
        console.timeline.delivered(id);
        let took = millis(started.elapsed());
        console.timeline.update(id, |e| {
            e.ms = Some(took);
            attempts_check(e, total);
        });
        // The server's reaction (events it posts) may come a moment later.
        tokio::time::sleep(super::timeline::REACTION_WINDOW).await;
        console.timeline.update(id, |e| {
            dedupe_check(e, key.as_deref(), total);
            e.conclude();
        });
    });
    id
}

/// The catalogue's example payload of `name`, made this delivery's own as `trigger` does.
pub fn example(console: &Console, name: &str, local: &Local) -> Value {
    let mut payload = host_runtime::events::example_payload(name).unwrap_or(Value::Null);
    trigger::freshen(
        name,
        &mut payload,
        &trigger::Fresh::now(local, &console.manifest.id),
    );
    payload
}

fn attempts_check(e: &mut Entry, total: usize) {
    let ok = e
        .attempts
        .iter()
        .filter(|a| a.status.is_some_and(|s| (200..300).contains(&s)))
        .count();
    let check = if ok == e.attempts.len() {
        Check::new(
            "answers",
            State::Pass,
            format!("{ok} of {total} attempts answered 2xx"),
        )
    } else {
        let first = e
            .attempts
            .iter()
            .find(|a| !a.status.is_some_and(|s| (200..300).contains(&s)));
        let said = first.map_or(String::new(), |a| {
            format!(
                "; attempt {} got {} {}",
                a.n,
                a.status.map_or("no answer".to_owned(), |s| s.to_string()),
                a.said
            )
        });
        let retried = if total == 1 {
            " (the host retries a 5xx or no answer after 30 s, 2 min and 10 min, and drops a 4xx)"
        } else {
            ""
        };
        Check::new(
            "answers",
            State::Fail,
            format!("{ok} of {total} attempts answered 2xx{said}{retried}"),
        )
    };
    e.checks.push(check);
}

/// The dedupe outcome: the content key every attempt shares, and what the server posted back.
fn dedupe_check(e: &mut Entry, key: Option<&str>, total: usize) {
    let key = key.map_or(
        "none (the payload lacks its content members)".to_owned(),
        |k| format!("`{k}`"),
    );
    let posted = e.related.len();
    let detail = if total > 1 {
        format!(
            "{total} attempts, each with its own X-Host-Event-Id and one content key {key}: the server must run its handler once; it posted {posted} event{} back while they ran",
            if posted == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "content key {key}; the server posted {posted} event{} back",
            if posted == 1 { "" } else { "s" }
        )
    };
    e.checks.push(Check::new("dedupe", State::Pass, detail));
}

/// Replays entry `id`; gives the new entry's id, or why it cannot be replayed.
pub async fn replay(console: &std::sync::Arc<Console>, id: u64) -> Result<u64, String> {
    let entry = console.timeline.get(id).ok_or_else(|| {
        format!(
            "no entry {id} on the timeline (it keeps the newest {})",
            super::timeline::KEPT
        )
    })?;
    match entry.replay {
        Some(Replay::Call(form)) => Ok(call(console, form).await),
        Some(Replay::Deliver(form)) => Ok(deliver(console, form)),
        Some(Replay::Posted { headers, body }) => {
            let mut map = HeaderMap::new();
            for (k, v) in headers {
                if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::try_from(v)) {
                    map.insert(k, v);
                }
            }
            let started = Instant::now();
            let verdict = super::super::dev::verify(&console.host, &map, &body, SystemTime::now());
            Ok(console
                .timeline
                .posted(&map, body, &verdict, started.elapsed()))
        }
        None => Err(format!("entry {id} cannot be replayed")),
    }
}
