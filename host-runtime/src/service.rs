//! The request pipeline: one HTTP request in, one HTTP response out, every step in the interface's order.
//!
//! route and method (404, 405) -> body size (413, before parsing) -> install token (401) -> body as
//! JSON (400) -> install binding (403 `INSTALL_MISMATCH`) -> granted scope (403 `SCOPE_MISSING`) ->
//! contribution exists (404, 422 for events) -> `input` against its schema (422) -> event
//! deduplication -> the vendor's handler (panics are `INTERNAL`, tools have a deadline) -> the answer's
//! checks (card shapes and limits, procedure `output`, metrics keys).
//!
//! Everything from the network is hostile: no header, path or body reaches a panic, and messages
//! never echo tokens.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use bytes::Bytes;
use futures_util::FutureExt;
use host_manifest::Manifest;
use http::{HeaderValue, Method, Response, StatusCode, header};
use serde_json::{Map, Value as Json};

use crate::call::Claims;
use crate::codegen::{RawCall, Reply, Route};
use crate::dedupe::{self, Claim};
use crate::error::{ErrorCode, HostError};
use crate::handler::{HEALTH_DEADLINE, Inner};

/// What a path names, before the manifest is consulted.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Health,
    Tool(String),
    Action(String),
    Mention(String),
    Context(String),
    Procedure(String),
    Events,
    Metrics,
    WorkContainers,
    WorkItems,
    WorkComment(String),
}

impl Target {
    fn methods(&self) -> &'static [Method] {
        match self {
            Target::Health => &[Method::GET, Method::HEAD],
            Target::Mention(_) | Target::Context(_) | Target::WorkContainers => &[Method::GET],
            _ => &[Method::POST],
        }
    }

    fn name(&self) -> String {
        match self {
            Target::Health => "health".into(),
            Target::Tool(id) => format!("tools/{id}"),
            Target::Action(id) => format!("actions/{id}"),
            Target::Mention(id) => format!("mentions/{id}"),
            Target::Context(id) => format!("context/{id}"),
            Target::Procedure(name) => format!("procedures/{name}"),
            Target::Events => "events".into(),
            Target::Metrics => "metrics".into(),
            Target::WorkContainers => "work/containers".into(),
            Target::WorkItems => "work/items".into(),
            Target::WorkComment(_) => "work/comments".into(),
        }
    }
}

/// Reads the route from a path (already stripped of the base path).
fn target(path: &str, manifest: Option<&Manifest>) -> Option<Target> {
    let segment = |rest: &str| (!rest.is_empty() && !rest.contains('/')).then(|| rest.to_owned());
    if let Some(list) = manifest
        .and_then(|m| m.contributes.work.as_ref())
        .map(|w| w.container.list.as_str())
    {
        let list = list.split('?').next().unwrap_or(list);
        if path == list || path.strip_prefix('/') == Some(list) {
            return Some(Target::WorkContainers);
        }
    }
    match path {
        "/host/health" => return Some(Target::Health),
        "/host/events" => return Some(Target::Events),
        "/host/metrics" => return Some(Target::Metrics),
        "/host/work/items" => return Some(Target::WorkItems),
        _ => {}
    }
    if let Some(rest) = path.strip_prefix("/host/work/items/") {
        return rest
            .strip_suffix("/comments")
            .and_then(segment)
            .map(Target::WorkComment);
    }
    let (kind, rest) = path.strip_prefix("/host/")?.split_once('/')?;
    let id = segment(rest)?;
    Some(match kind {
        "tools" => Target::Tool(id),
        "actions" => Target::Action(id),
        "mentions" => Target::Mention(id),
        "context" => Target::Context(id),
        "procedures" => Target::Procedure(id),
        _ => return None,
    })
}

/// The answer for a body over the limit.
pub(crate) fn too_large(limit: usize) -> Response<Bytes> {
    HostError::from_code(
        ErrorCode::PayloadTooLarge,
        format!("the request body is over the {limit}-byte limit"),
    )
    .to_response()
}

/// Answers one request, in a `host_call` span recording the route, the install, the outcome and the
/// duration (never a token or a body).
pub(crate) async fn handle(inner: &Inner, request: http::Request<Bytes>) -> Response<Bytes> {
    let started = Instant::now();
    let span = tracing::info_span!(
        "host_call",
        route = tracing::field::Empty,
        install = tracing::field::Empty,
        status = tracing::field::Empty,
        outcome = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    );
    let (response, install) =
        tracing::Instrument::instrument(answer(inner, request, &span), span.clone()).await;
    let status = response.status();
    let outcome = if status.is_success() {
        "ok"
    } else if status.is_client_error() {
        "refused"
    } else {
        "failed"
    };
    span.record("install", install.as_deref().unwrap_or("-"));
    span.record("status", status.as_u16());
    span.record("outcome", outcome);
    span.record("duration_ms", started.elapsed().as_secs_f64() * 1e3);
    span.in_scope(|| tracing::info!("host call answered"));
    response
}

async fn answer(
    inner: &Inner,
    request: http::Request<Bytes>,
    span: &tracing::Span,
) -> (Response<Bytes>, Option<String>) {
    let manifest = inner.manifest.as_ref().ok();
    let base = inner.config.base_path.as_str();
    let path = request.uri().path();
    let Some(target) = path.strip_prefix(base).and_then(|p| target(p, manifest)) else {
        return (HostError::not_found("no such route").to_response(), None);
    };
    span.record("route", target.name().as_str());
    if !target.methods().contains(request.method()) {
        return (method_not_allowed(&target), None);
    }
    if request.body().len() > inner.config.body_limit {
        return (too_large(inner.config.body_limit), None);
    }
    if target == Target::Health {
        return (health(inner, request.method() == Method::HEAD).await, None);
    }
    let claims = match inner
        .verifier
        .verify_authorization(request.headers().get(header::AUTHORIZATION))
        .await
    {
        Ok(c) => c,
        Err(e) => return (e.to_host_error().to_response(), None),
    };
    let install = Some(claims.sub.clone());
    let result = match manifest {
        Some(m) => call(inner, m, &target, &request, claims).await,
        None => Err(HostError::internal(
            "the extension's manifest could not be loaded",
        )),
    };
    let response = match result {
        Ok(Reply::Json(body)) => json_response(StatusCode::OK, &body),
        Ok(Reply::NoContent) => {
            let mut r = Response::new(Bytes::new());
            *r.status_mut() = StatusCode::NO_CONTENT;
            r
        }
        Err(e) => e.to_response(),
    };
    (response, install)
}

fn method_not_allowed(target: &Target) -> Response<Bytes> {
    let allowed: Vec<&str> = target.methods().iter().map(Method::as_str).collect();
    let mut r = HostError::from_code(
        ErrorCode::MethodNotAllowed,
        format!("this route answers {}", allowed.join(" and ")),
    )
    .to_response();
    if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
        r.headers_mut().insert(header::ALLOW, v);
    }
    r
}

fn json_response(status: StatusCode, body: &Json) -> Response<Bytes> {
    let mut r = Response::new(Bytes::from(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// `GET`/`HEAD /host/health`: 200 `ok`, or 503 `degraded` when the vendor's check fails or takes
/// over 2.5 s.
async fn health(inner: &Inner, head: bool) -> Response<Bytes> {
    let healthy = match &inner.config.health {
        None => true,
        Some(check) => matches!(
            tokio::time::timeout(HEALTH_DEADLINE, AssertUnwindSafe(check()).catch_unwind()).await,
            Ok(Ok(Ok(())))
        ),
    };
    let extension_id = inner
        .manifest
        .as_ref()
        .map(|m| m.id.as_str())
        .unwrap_or_default();
    let body = serde_json::json!({
        "status": if healthy { "ok" } else { "degraded" },
        "extensionId": extension_id,
        // The interface version (what a manifest's `sdk` range is about), then this crate's own.
        "sdk": host_manifest::catalogue::INTERFACE_VERSION,
        "runtime": concat!("host-runtime ", env!("CARGO_PKG_VERSION")),
    });
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let mut r = json_response(status, &body);
    if head {
        *r.body_mut() = Bytes::new();
    }
    r
}

/// The authenticated part of the pipeline.
async fn call(
    inner: &Inner,
    m: &Manifest,
    target: &Target,
    request: &http::Request<Bytes>,
    claims: Claims,
) -> Result<Reply, HostError> {
    let mut body = if request.method() == Method::POST {
        parse_body(request.body())?
    } else {
        Map::new()
    };
    check_install(&body, &claims, &m.id)?;
    check_scopes(m, target, &body, &claims)?;
    let query = query_q(request.uri().query());
    let event_id = request
        .headers()
        .get("x-host-event-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 256)
        .map(str::to_owned);
    let ai = &m.contributes.ai;
    let exists = match target {
        Target::Tool(id) => ai.tools.iter().any(|t| &t.id == id),
        Target::Action(id) => ai.actions.iter().any(|a| &a.id == id),
        Target::Mention(id) => ai.mentions.iter().any(|x| &x.id == id),
        Target::Context(id) => ai.context.iter().any(|x| &x.id == id),
        Target::Procedure(name) => m
            .server
            .as_ref()
            .is_some_and(|s| s.procedures.contains_key(name)),
        Target::Metrics => m
            .contributes
            .connector
            .as_ref()
            .is_some_and(|c| !c.metrics.is_empty()),
        Target::WorkContainers | Target::WorkItems => m.contributes.work.is_some(),
        Target::WorkComment(_) => m
            .contributes
            .work
            .as_ref()
            .is_some_and(|w| w.comments == host_manifest::model::CommentSync::TwoWay),
        Target::Events | Target::Health => true,
    };
    if !exists {
        return Err(HostError::not_found(format!(
            "no {} in this extension",
            target.name()
        )));
    }
    match target {
        Target::Tool(id) => validate_input(inner, "tool", id, &mut body)?,
        Target::Action(id) => validate_input(inner, "action", id, &mut body)?,
        Target::Procedure(name) => validate_input(inner, "procedure", name, &mut body)?,
        _ => {}
    }
    let mut raw = RawCall::new(body, claims, m.id.clone());
    raw.query = match target {
        Target::Mention(_) | Target::WorkContainers => query,
        _ => None,
    };
    raw.event_id = event_id;
    raw.request = crate::call::RequestParts::of(request);
    match target {
        Target::Tool(id) => run_tool(inner, Route::Tool(id), raw).await,
        Target::Action(id) => run(inner, Route::Action(id), raw).await,
        Target::Mention(id) => run(inner, Route::Mention(id), raw).await,
        Target::Context(id) => run(inner, Route::Context(id), raw).await,
        Target::Procedure(name) => {
            let reply = run(inner, Route::Procedure(name), raw).await?;
            check_output(inner, name, reply)
        }
        Target::Metrics => {
            let reply = run(inner, Route::Sync, raw).await?;
            check_metrics(m, reply)
        }
        Target::WorkContainers => {
            if let Some(q) = raw.query.take() {
                raw.body
                    .insert("input".into(), serde_json::json!({ "q": q }));
            }
            run(inner, Route::WorkContainers, raw).await
        }
        Target::WorkItems => {
            check_new_item(m, &raw.body)?;
            let reply = run(inner, Route::WorkItem, raw).await?;
            check_work_url(reply, "item")
        }
        Target::WorkComment(item) => {
            let reply = run(inner, Route::WorkComment(item), raw).await?;
            check_work_url(reply, "comment")
        }
        Target::Events => deliver(inner, m, raw).await,
        Target::Health => Err(HostError::internal("unreachable route")),
    }
}

fn parse_body(bytes: &Bytes) -> Result<Map<String, Json>, HostError> {
    if bytes.is_empty() {
        return Err(HostError::bad_request(
            "the request has no body; the host sends the call body as JSON",
        ));
    }
    match serde_json::from_slice::<Json>(bytes) {
        Ok(Json::Object(map)) => Ok(map),
        Ok(_) => Err(HostError::bad_request(
            "the body must be a JSON object (the call body)",
        )),
        Err(e) => Err(HostError::bad_request(format!(
            "the body is not JSON: {} at line {} column {}",
            e.classify_message(),
            e.line(),
            e.column()
        ))),
    }
}

trait ClassifyMessage {
    fn classify_message(&self) -> &'static str;
}

impl ClassifyMessage for serde_json::Error {
    fn classify_message(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Eof => "it ends early",
            serde_json::error::Category::Syntax => "syntax error",
            serde_json::error::Category::Data => "unexpected data",
            serde_json::error::Category::Io => "read error",
        }
    }
}

/// Install binding: a body's `install` must be the token's install of this extension.
fn check_install(
    body: &Map<String, Json>,
    claims: &Claims,
    extension_id: &str,
) -> Result<(), HostError> {
    let Some(install) = body.get("install") else {
        return Ok(());
    };
    let Some(install) = install.as_object() else {
        return Err(HostError::bad_request("`install` must be an object"));
    };
    let id = install.get("id").and_then(Json::as_str);
    let ext = install.get("extensionId").and_then(Json::as_str);
    if id != Some(claims.sub.as_str()) || ext != Some(extension_id) {
        return Err(HostError::from_code(
            ErrorCode::InstallMismatch,
            "the call's install does not match the install token",
        ));
    }
    Ok(())
}

/// The scope a contribution needs, granted at install (`claims.scopes`).
fn check_scopes(
    m: &Manifest,
    target: &Target,
    body: &Map<String, Json>,
    claims: &Claims,
) -> Result<(), HostError> {
    let mut needed: Vec<&str> = match target {
        Target::Tool(_) | Target::Mention(_) => vec!["ai:tools"],
        Target::Action(_) => vec!["ai:actions"],
        Target::Context(_) => vec!["ai:skills"],
        Target::Metrics => vec!["metrics:write"],
        Target::WorkContainers | Target::WorkItems => vec!["work:create"],
        Target::WorkComment(_) => vec!["work:sync"],
        Target::Events => {
            let name = body
                .get("event")
                .and_then(|e| e.get("name"))
                .and_then(Json::as_str);
            name.and_then(host_manifest::catalogue::event)
                .and_then(|e| e.scope)
                .into_iter()
                .collect()
        }
        Target::Procedure(_) | Target::Health => vec![],
    };
    if let Target::Action(id) = target
        && let Some(a) = m.contributes.ai.actions.iter().find(|a| &a.id == id)
    {
        needed.push(a.scope.as_str());
    }
    match needed.into_iter().find(|s| !claims.has_scope(s)) {
        Some(scope) => Err(HostError::from_code(
            ErrorCode::ScopeMissing,
            format!("the install was not granted `{scope}`"),
        )),
        None => Ok(()),
    }
}

/// `input` against the contribution's declared schema (the message names the JSON pointer).
fn validate_input(
    inner: &Inner,
    kind: &'static str,
    id: &str,
    body: &mut Map<String, Json>,
) -> Result<(), HostError> {
    let input = body
        .entry("input")
        .or_insert_with(|| Json::Object(Map::new()));
    let Some(validator) = inner.schemas.validators.get(&(kind, id.to_owned())) else {
        return Ok(());
    };
    match validator.iter_errors(input).next() {
        None => Ok(()),
        Some(e) => {
            let at = e.instance_path().as_str();
            let at = if at.is_empty() { "/" } else { at };
            Err(HostError::input_invalid(format!("`input` at `{at}`: {e}")))
        }
    }
}

/// Runs a dispatch with panic isolation: a panicking handler answers `INTERNAL` and the server keeps
/// serving.
async fn run(inner: &Inner, route: Route<'_>, raw: RawCall) -> Result<Reply, HostError> {
    match AssertUnwindSafe(inner.dispatch.dispatch(route, raw))
        .catch_unwind()
        .await
    {
        Ok(result) => result,
        Err(_) => {
            tracing::error!("a handler panicked");
            Err(HostError::internal(
                "the extension's handler failed unexpectedly",
            ))
        }
    }
}

/// A tool call, under the tool deadline.
async fn run_tool(inner: &Inner, route: Route<'_>, raw: RawCall) -> Result<Reply, HostError> {
    let deadline = inner.config.tool_deadline;
    match tokio::time::timeout(deadline, run(inner, route, raw)).await {
        Ok(result) => result,
        Err(_) => Err(HostError::from_code(
            ErrorCode::ToolTimeout,
            format!(
                "the tool did not answer within {} s",
                deadline.as_secs_f64()
            ),
        )),
    }
}

fn check_output(inner: &Inner, name: &str, reply: Reply) -> Result<Reply, HostError> {
    if let (Reply::Json(value), Some(validator)) = (
        &reply,
        inner
            .schemas
            .validators
            .get(&("procedure-output", name.to_owned())),
    ) && let Some(e) = validator.iter_errors(value).next()
    {
        let at = e.instance_path().as_str();
        return Err(HostError::from_code(
            ErrorCode::ProcedureResponseInvalid,
            format!(
                "the procedure's answer fails its `output` schema at `{}`: {e}",
                if at.is_empty() { "/" } else { at }
            ),
        ));
    }
    Ok(reply)
}

/// Metrics answers: every point's dimensions are declared by its metric, and values are finite.
/// A new work item: its `kind` is one the destination `creates`, its attachments are https.
fn check_new_item(m: &Manifest, body: &Map<String, Json>) -> Result<(), HostError> {
    let input = body.get("input");
    let creates: Vec<Json> = m
        .contributes
        .work
        .iter()
        .flat_map(|w| w.creates.iter())
        .filter_map(|k| serde_json::to_value(k).ok())
        .collect();
    if let Some(kind) = input.and_then(|i| i.get("kind"))
        && !creates.contains(kind)
    {
        let names: Vec<String> = creates.iter().map(Json::to_string).collect();
        return Err(HostError::input_invalid(format!(
            "/input/kind: {kind} is not a kind this destination creates ({})",
            names.join(", ")
        )));
    }
    let attachments = input
        .and_then(|i| i.get("attachments"))
        .and_then(Json::as_array);
    for (i, a) in attachments.into_iter().flatten().enumerate() {
        if let Some(url) = a.get("url").and_then(Json::as_str)
            && !is_https(url)
        {
            return Err(HostError::input_invalid(format!(
                "/input/attachments/{i}/url: `{url}` is not an https URL"
            )));
        }
    }
    Ok(())
}

/// A created item's or comment's `url` is https.
fn check_work_url(reply: Reply, what: &str) -> Result<Reply, HostError> {
    if let Reply::Json(value) = &reply
        && let Some(url) = value.get("url").and_then(Json::as_str)
        && !is_https(url)
    {
        return Err(HostError::from_code(
            ErrorCode::WorkResponseInvalid,
            format!("the created {what}'s `url` must be an https URL, not `{url}`"),
        ));
    }
    Ok(reply)
}

fn is_https(url: &str) -> bool {
    url.get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
        && url.len() > 8
}

fn check_metrics(m: &Manifest, reply: Reply) -> Result<Reply, HostError> {
    let Reply::Json(value) = &reply else {
        return Ok(reply);
    };
    let metrics = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| c.metrics.iter());
    let declared: Vec<(&str, Vec<&str>)> = metrics
        .map(|x| {
            (
                x.key.as_str(),
                x.dimensions.iter().map(|d| d.key.as_str()).collect(),
            )
        })
        .collect();
    for (i, point) in value
        .get("points")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let invalid = |why: String| {
            HostError::from_code(
                ErrorCode::MetricsResponseInvalid,
                format!("the sync answer's `points[{i}]` {why}"),
            )
        };
        let key = point
            .get("metric")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let Some((_, dims)) = declared.iter().find(|(k, _)| *k == key) else {
            return Err(invalid(format!("names the undeclared metric `{key}`")));
        };
        if !point.get("v").is_some_and(Json::is_number) {
            return Err(invalid("has no finite `v`".to_owned()));
        }
        for dim in point
            .get("dimensions")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            if !dims.contains(&dim.as_str()) {
                return Err(invalid(format!(
                    "has the dimension `{dim}`, which `{key}` does not declare"
                )));
            }
        }
    }
    Ok(reply)
}

/// The `Retry-After` of a delivery that could not run yet: the host's own first retry wait.
const RETRY_AFTER_SECS: u32 = host_manifest::limits::EVENT_RETRY_WAITS_SECS[0] as u32;

/// An event delivery: 204, once per content key, whatever `X-Host-Event-Id` says.
async fn deliver(inner: &Inner, m: &Manifest, raw: RawCall) -> Result<Reply, HostError> {
    let event = raw.body.get("event").and_then(Json::as_object);
    let name = event
        .and_then(|e| e.get("name"))
        .and_then(Json::as_str)
        .map(str::to_owned);
    let Some(name) = name else {
        return Err(HostError::bad_request("the event body has no `event.name`"));
    };
    if !m.subscribed_events().iter().any(|e| e == &name) {
        return Err(HostError::from_code(
            ErrorCode::EventNotSubscribed,
            format!("the server does not subscribe to `{name}`"),
        ));
    }
    let payload = event
        .and_then(|e| e.get("payload"))
        .cloned()
        .unwrap_or(Json::Null);
    let key = dedupe::key_of(&name, &raw.claims.sub, &payload);
    let store = &inner.config.dedupe;
    if let Some(key) = &key {
        // A concurrent duplicate waits for the delivery in flight, then looks again. Past the wait it
        // answers a retryable 503: a 4xx would mean "recorded" to the host, and the event would be
        // lost if the attempt in flight then failed.
        let give_up = Instant::now() + inner.config.event_wait;
        loop {
            let claim = store.claim(key).await.map_err(|e| {
                tracing::warn!(error = %e, "the deduplication store is unavailable");
                HostError::from_code(
                    ErrorCode::DedupeUnavailable,
                    "events cannot be deduplicated right now; retry later",
                )
                .with_retry_after(RETRY_AFTER_SECS)
            })?;
            let waited = match claim {
                Claim::Run => break,
                Claim::Done => return Ok(Reply::NoContent),
                // Woken when the delivery in flight settles; the short timeout covers a wake-up that
                // came before this wait began.
                Claim::Wait(notify) => {
                    let _ = tokio::time::timeout(
                        std::time::Duration::from_millis(100),
                        notify.notified(),
                    )
                    .await;
                    Instant::now() < give_up
                }
                Claim::Busy => {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    Instant::now() < give_up
                }
            };
            if !waited {
                return Err(HostError::from_code(
                    ErrorCode::EventInFlight,
                    "this event is still being processed by an earlier delivery; retry later",
                )
                .with_retry_after(RETRY_AFTER_SECS));
            }
        }
    }
    let result = run(inner, Route::Event(&name), raw).await;
    if let Some(key) = &key {
        match &result {
            Ok(_) => store.complete(key).await,
            Err(_) => store.release(key).await,
        }
    }
    result.map(|_| Reply::NoContent)
}

fn query_q(query: Option<&str>) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.chars().take(1000).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_routes() {
        assert_eq!(
            target("/host/tools/keyword-ranks", None),
            Some(Target::Tool("keyword-ranks".into()))
        );
        assert_eq!(target("/host/tools/a/b", None), None);
        assert_eq!(target("/host/tools/", None), None);
        assert_eq!(
            target("/host/work/items/42/comments", None),
            Some(Target::WorkComment("42".into()))
        );
        assert_eq!(target("/host/health", None), Some(Target::Health));
        assert_eq!(target("/host/nothing/x", None), None);
        assert_eq!(target("/elsewhere", None), None);
    }

    #[test]
    fn the_mention_query_is_decoded_and_bounded() {
        assert_eq!(query_q(Some("q=caf%C3%A9+noir")), Some("café noir".into()));
        assert_eq!(query_q(Some("x=1")), None);
        assert_eq!(
            query_q(Some(&format!("q={}", "a".repeat(5000)))).map(|q| q.len()),
            Some(1000)
        );
    }
}
