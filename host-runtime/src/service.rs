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

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use crate::rt::Instant;

use bytes::Bytes;
use futures_util::FutureExt;
use http::{HeaderValue, Method, Response, StatusCode, header};
use serde_json::{Map, Value as Json};

use crate::BoxFuture;
use crate::auth::{KeySource, Verifier};
use crate::call::Claims;
use crate::check::{self, is_https};
use crate::dedupe::{self, Claim, DedupeStore};
use crate::dispatch::{Dispatch, RawCall, Reply};
use crate::error::{ErrorCode, HostError};
use crate::route::Route;
use crate::schema::{Check, Lazy};
use crate::spec::Spec;

/// The health route's own deadline for the vendor's check: over 2.5 s is degraded.
pub(crate) const HEALTH_DEADLINE: Duration =
    Duration::from_millis(host_interface::limits::HEALTH_CHECK_MS);

/// A vendor's health check: `Ok(())` when healthy, `Err(reason)` otherwise.
pub(crate) type HealthCheck =
    Arc<dyn Fn() -> BoxFuture<'static, Result<(), crate::BoxError>> + Send + Sync>;

/// Everything one handler answers with: the extension, its dispatcher, settings, token verifier and
/// compiled schemas.
pub(crate) struct Inner {
    pub spec: &'static Spec,
    pub dispatch: Arc<dyn Dispatch>,
    pub config: Config,
    pub verifier: Verifier,
    pub schemas: Arc<Schemas>,
}

/// The handler's settings.
#[derive(Clone)]
pub(crate) struct Config {
    pub base_path: String,
    pub keys: KeySource,
    pub issuer: String,
    pub body_limit: usize,
    pub tool_deadline: Duration,
    /// How long every other handler (procedures, actions, mentions, context, sync, work, events) may
    /// take.
    pub handler_deadline: Duration,
    pub health: Option<HealthCheck>,
    pub dedupe: Arc<dyn DedupeStore>,
    /// How long a duplicate delivery waits for the one in flight before answering 503.
    pub event_wait: Duration,
    /// How long one call of the deduplication store may take before the delivery answers 503.
    pub dedupe_timeout: Duration,
    /// How `serve` treats connections.
    pub serving: Serving,
    /// What fetches the key set; `None` keeps the platform's default.
    pub http_client: Option<crate::client::Client>,
}

/// Connection limits of [`crate::Handler::serve`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Serving {
    /// The longest a client may take to send a request's headers.
    pub header_timeout: Duration,
    /// A connection with no bytes in or out for this long is closed (after any call in flight).
    pub idle_timeout: Duration,
    /// Open connections at most; past it, new connections wait in the listen queue.
    pub max_connections: usize,
    /// How long calls in flight may finish after a shutdown signal.
    pub shutdown_grace: Duration,
    /// The longest a request's body may take to arrive once its headers have.
    pub body_timeout: Duration,
}

impl Default for Serving {
    fn default() -> Self {
        Serving {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_connections: 1000,
            shutdown_grace: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
        }
    }
}

/// The extension's JSON Schemas, each kept where its route looks for it.
///
/// Each comes with the validator the macro generated from it when the crate compiled. One without
/// (the macro could not generate it) is compiled on its route's first call and kept, so start-up is
/// what the first request needs: a serverless instance (a Worker's isolate, a Lambda) compiles
/// nothing to answer a health check or an event.
#[derive(Default)]
pub(crate) struct Schemas {
    tool_inputs: HashMap<&'static str, Lazy>,
    action_inputs: HashMap<&'static str, Lazy>,
    procedure_inputs: HashMap<&'static str, Lazy>,
    procedure_outputs: HashMap<&'static str, Lazy>,
}

impl Schemas {
    pub(crate) fn new(spec: &'static Spec) -> Schemas {
        fn each(
            items: impl Iterator<Item = (&'static str, &'static str, Option<Check>)>,
        ) -> HashMap<&'static str, Lazy> {
            items
                .map(|(id, text, check)| (id, Lazy::new(text, check)))
                .collect()
        }
        Schemas {
            tool_inputs: each(spec.tools.iter().map(|t| (t.id, t.input, t.input_check))),
            action_inputs: each(spec.actions.iter().map(|a| (a.id, a.input, a.input_check))),
            procedure_inputs: each(
                spec.procedures
                    .iter()
                    .map(|p| (p.name, p.input, p.input_check)),
            ),
            procedure_outputs: each(
                spec.procedures
                    .iter()
                    .map(|p| (p.name, p.output, p.output_check)),
            ),
        }
    }

    /// The `input` schema of the route's contribution, if it has one.
    fn input(&self, route: &Route<'_>) -> Option<&Lazy> {
        match route {
            Route::Tool(id) => self.tool_inputs.get(*id),
            Route::Action(id) => self.action_inputs.get(*id),
            Route::Procedure(name) => self.procedure_inputs.get(*name),
            _ => None,
        }
    }

    /// A procedure's `output` schema.
    fn output(&self, procedure: &str) -> Option<&Lazy> {
        self.procedure_outputs.get(procedure)
    }

    /// How many schemas have been compiled at run time so far (for tests).
    #[cfg(all(test, feature = "schema-compiler"))]
    pub(crate) fn compiled(&self) -> usize {
        [
            &self.tool_inputs,
            &self.action_inputs,
            &self.procedure_inputs,
            &self.procedure_outputs,
        ]
        .iter()
        .flat_map(|map| map.values())
        .filter(|lazy| lazy.compiled())
        .count()
    }
}

/// The answer for a body over the limit.
pub(crate) fn too_large(limit: usize) -> Response<Bytes> {
    HostError::from_code(
        ErrorCode::PayloadTooLarge,
        format!("the request body is over the {limit}-byte limit"),
    )
    .to_response()
}

/// The answer for a body that did not arrive within `patience`. On the event route it is a retryable
/// 503: the host takes any 4xx there as "recorded" and would never deliver the event again.
pub(crate) fn body_timed_out(inner: &Inner, path: &str, patience: Duration) -> Response<Bytes> {
    let waited = patience.as_secs_f64();
    let event = path
        .strip_prefix(inner.config.base_path.as_str())
        .and_then(|p| Route::parse(p, inner.spec.work_containers()))
        .is_some_and(|route| matches!(route, Route::Event(_)));
    let error = if event {
        HostError::from_code(
            ErrorCode::EventBodyTimeout,
            format!("the event delivery's body did not arrive within {waited} s; deliver it again"),
        )
        .with_retry_after(RETRY_AFTER_SECS)
    } else {
        HostError::from_code(
            ErrorCode::RequestTimeout,
            format!("the request body did not arrive within {waited} s"),
        )
    };
    error.to_response()
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
    let base = inner.config.base_path.as_str();
    let path = request.uri().path();
    let Some(route) = path
        .strip_prefix(base)
        .and_then(|p| Route::parse(p, inner.spec.work_containers()))
    else {
        return (HostError::not_found("no such route").to_response(), None);
    };
    span.record("route", route.name().as_str());
    if !route.methods().contains(request.method()) {
        return (method_not_allowed(&route), None);
    }
    if request.body().len() > inner.config.body_limit {
        return (too_large(inner.config.body_limit), None);
    }
    if request.method() == Method::POST
        && let Some(kind) = request.headers().get(header::CONTENT_TYPE)
        && !is_json(kind)
    {
        let e = HostError::from_code(
            ErrorCode::UnsupportedMediaType,
            "the body must be JSON (`Content-Type: application/json`)",
        );
        return (e.to_response(), None);
    }
    // Two tokens could be read differently by two readers; the host sends one.
    if request
        .headers()
        .get_all(header::AUTHORIZATION)
        .iter()
        .count()
        > 1
    {
        let e = crate::auth::AuthError::Malformed("more than one `Authorization` header");
        return (e.to_host_error().to_response(), None);
    }
    if route == Route::Health {
        return (health(inner, request.method() == Method::HEAD).await, None);
    }
    authenticated(inner, route, &request).await
}

/// Everything after routing, for the routes that need a token. Boxed: on wasm32 the runtime
/// compiles a function when it is first called, and this keeps the token check and the calls out
/// of the routing function, so a health check does not pay for compiling them.
fn authenticated<'a>(
    inner: &'a Inner,
    route: Route<'a>,
    request: &'a http::Request<Bytes>,
) -> BoxFuture<'a, (Response<Bytes>, Option<String>)> {
    Box::pin(async move {
        let claims = match inner
            .verifier
            .verify_authorization(request.headers().get(header::AUTHORIZATION))
            .await
        {
            Ok(c) => c,
            // An event the server cannot check yet must not be lost: the host retries a 5xx.
            Err(crate::auth::AuthError::KeysUnavailable | crate::auth::AuthError::NoKeys)
                if matches!(route, Route::Event(_)) =>
            {
                let e = HostError::from_code(
                    ErrorCode::KeysUnavailable,
                    "the install token cannot be checked right now (the host's key set is unreachable); retry later",
                )
                .with_retry_after(RETRY_AFTER_SECS);
                return (e.to_response(), None);
            }
            Err(e) => return (e.to_host_error().to_response(), None),
        };
        let install = Some(claims.sub.clone());
        let response = match call(inner, route, request, Box::new(claims)).await {
            Ok(Reply::Json(body)) => json_response(StatusCode::OK, Bytes::from(body.to_string())),
            Ok(Reply::Encoded(body)) => json_response(StatusCode::OK, body),
            Ok(Reply::NoContent) => {
                let mut r = Response::new(Bytes::new());
                *r.status_mut() = StatusCode::NO_CONTENT;
                r
            }
            Err(e) => {
                // The cause a handler kept stays in the server's log; the host reads the code
                // and message only.
                if std::error::Error::source(&e).is_some() {
                    tracing::warn!(error = %crate::error::Chain(&e), "the call failed");
                }
                e.to_response()
            }
        };
        (response, install)
    })
}

fn method_not_allowed(route: &Route<'_>) -> Response<Bytes> {
    let allowed: Vec<&str> = route.methods().iter().map(Method::as_str).collect();
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

fn json_response(status: StatusCode, body: Bytes) -> Response<Bytes> {
    let mut r = Response::new(body);
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
        Some(check) => {
            match crate::rt::timeout(HEALTH_DEADLINE, AssertUnwindSafe(check()).catch_unwind())
                .await
            {
                Ok(Ok(Ok(()))) => true,
                Ok(Ok(Err(e))) => {
                    tracing::warn!(error = %crate::error::Chain(&*e), "the health check failed");
                    false
                }
                Ok(Err(_)) => {
                    tracing::error!("the health check panicked");
                    false
                }
                Err(_) => {
                    tracing::warn!("the health check took longer than {HEALTH_DEADLINE:?}");
                    false
                }
            }
        }
    };
    let body = serde_json::json!({
        "status": if healthy { "ok" } else { "degraded" },
        "extensionId": inner.spec.extension_id,
        // The interface version (what a manifest's `sdk` range is about), then this crate's own.
        "sdk": host_interface::catalogue::INTERFACE_VERSION,
        "runtime": concat!("host-runtime ", env!("CARGO_PKG_VERSION")),
    });
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let mut r = json_response(status, Bytes::from(body.to_string()));
    if head {
        *r.body_mut() = Bytes::new();
    }
    r
}

/// The authenticated part of the pipeline.
async fn call(
    inner: &Inner,
    route: Route<'_>,
    request: &http::Request<Bytes>,
    claims: Box<Claims>,
) -> Result<Reply, HostError> {
    let spec = inner.spec;
    let mut body = if request.method() == Method::POST {
        parse_body(request.body())?
    } else {
        Map::new()
    };
    check_install(&body, &claims, spec.extension_id)?;
    // An event delivery names its event in the body; the route then carries the name.
    let event_name;
    let route = match route {
        Route::Event(_) => {
            event_name = body
                .get("event")
                .and_then(|e| e.get("name"))
                .and_then(Json::as_str)
                .map(str::to_owned)
                .ok_or_else(|| HostError::bad_request("the event body has no `event.name`"))?;
            Route::Event(Some(event_name.as_str()))
        }
        route => route,
    };
    check_scopes(spec, &route, &claims)?;
    if !spec.declares(&route) {
        return Err(HostError::not_found(format!(
            "no {} in this extension",
            route.name()
        )));
    }
    let query = query_q(request.uri().query());
    let event_id = request
        .headers()
        .get("x-host-event-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 256)
        .map(str::to_owned);
    if matches!(
        route,
        Route::Tool(_) | Route::Action(_) | Route::Procedure(_)
    ) {
        validate_input(inner, &route, &mut body)?;
    }
    // Boxed: the call is moved through several futures on its way to the handler, and each would
    // otherwise keep a slot of its full size for as long as the delivery is in flight.
    let mut raw = Box::new(RawCall::new(body, *claims, spec.extension_id.to_owned()));
    raw.query = match route {
        Route::Mention(_) | Route::WorkContainers => query,
        _ => None,
    };
    raw.event_id = event_id;
    raw.request = crate::call::RequestParts::of(request);
    match route {
        Route::Procedure(name) => {
            let reply = run(inner, route, raw).await?;
            check_output(inner, name, reply)
        }
        Route::Metrics => {
            let reply = run(inner, route, raw).await?;
            check_metrics(spec, reply)
        }
        Route::WorkContainers => {
            if let Some(q) = raw.query.take() {
                raw.body
                    .insert("input".into(), serde_json::json!({ "q": q }));
            }
            run(inner, route, raw).await
        }
        Route::WorkItems => {
            check_new_item(spec, &raw.body)?;
            let reply = run(inner, route, raw).await?;
            check_work_url(reply, "item")
        }
        Route::WorkComment(_) => {
            let reply = run(inner, route, raw).await?;
            check_work_url(reply, "comment")
        }
        Route::Event(Some(name)) => deliver(inner, name, raw).await,
        Route::Tool(_) | Route::Action(_) | Route::Mention(_) | Route::Context(_) => {
            run(inner, route, raw).await
        }
        Route::Event(None) | Route::Health => Err(HostError::internal("unreachable route")),
    }
}

fn parse_body(bytes: &Bytes) -> Result<Map<String, Json>, HostError> {
    if bytes.is_empty() {
        return Err(HostError::bad_request(
            "the request has no body; the host sends the call body as JSON",
        ));
    }
    // serde_json's own wording says what is wrong ("trailing comma", "number out of range",
    // "EOF while parsing an object") and where; it never quotes the input.
    match serde_json::from_slice::<StrictJson>(bytes) {
        Ok(StrictJson(Json::Object(map))) => Ok(map),
        Ok(_) => Err(HostError::bad_request(
            "the body must be a JSON object (the call body)",
        )),
        Err(e) => Err(HostError::bad_request(format!("the body is not JSON: {e}"))),
    }
}

/// A JSON value whose objects name each member once. JSON keeps only the last of two members of
/// the same name, so a body such as `{"input": {...}, "input": {...}}` could be read one way here
/// and another way by whatever checked it before; such a body is refused, as the manifest parser
/// refuses such a manifest.
struct StrictJson(Json);

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(StrictJson)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(StrictVisitor)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictJson(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            let StrictJson(value) = map.next_value()?;
            if members.contains_key(&name) {
                let shown: String = name.chars().take(64).collect();
                return Err(serde::de::Error::custom(format!(
                    "the member `{shown}` appears twice in one object"
                )));
            }
            members.insert(name, value);
        }
        Ok(Json::Object(members))
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

/// The scopes the route needs (the shared table of what each contribution needs, an event's
/// catalogue scope, an action's own `scope`), granted at install (`claims.scopes`).
fn check_scopes(spec: &Spec, route: &Route<'_>, claims: &Claims) -> Result<(), HostError> {
    let mut needed = route.scopes().chain(spec.action_scope(route));
    match needed.find(|s| !claims.has_scope(s)) {
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
    route: &Route<'_>,
    body: &mut Map<String, Json>,
) -> Result<(), HostError> {
    let input = body
        .entry("input")
        .or_insert_with(|| Json::Object(Map::new()));
    // A schema that cannot be checked at all (its text does not compile) leaves the input unchecked:
    // the manifest engine compiled every schema before the crate was built, so only altered generated
    // code gets here.
    match inner
        .schemas
        .input(route)
        .map(|schema| schema.violation(input))
    {
        Some(Ok(Some(v))) => Err(check::input_invalid(&v)),
        _ => Ok(()),
    }
}

/// Runs a dispatch with panic isolation: a panicking handler answers `INTERNAL` and the server keeps
/// serving.
/// Tools answer within the tool deadline (`TOOL_TIMEOUT`), every other handler within the handler
/// deadline (`HANDLER_TIMEOUT`, a 504: on the event route the host retries it).
async fn run(inner: &Inner, route: Route<'_>, raw: Box<RawCall>) -> Result<Reply, HostError> {
    let (deadline, code, what) = match route {
        Route::Tool(_) => (inner.config.tool_deadline, ErrorCode::ToolTimeout, "tool"),
        _ => (
            inner.config.handler_deadline,
            ErrorCode::HandlerTimeout,
            "handler",
        ),
    };
    // Inside the guarded future: the generated dispatch decodes the call and starts the handler's
    // method when it is called, and a panic there is isolated like one in the handler.
    let guarded =
        AssertUnwindSafe(async move { inner.dispatch.dispatch(route, *raw).await }).catch_unwind();
    match crate::rt::timeout(deadline, guarded).await {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => {
            tracing::error!("a handler panicked");
            Err(HostError::internal(
                "the extension's handler failed unexpectedly",
            ))
        }
        Err(_) => {
            tracing::warn!(route = %route.name(), "a handler ran past its deadline");
            Err(HostError::from_code(
                code,
                format!(
                    "the {what} did not answer within {} s",
                    deadline.as_secs_f64()
                ),
            ))
        }
    }
}

fn check_output(inner: &Inner, name: &str, reply: Reply) -> Result<Reply, HostError> {
    if let (Reply::Json(value), Some(schema)) = (&reply, inner.schemas.output(name))
        && let Ok(Some(v)) = schema.violation(value)
    {
        return Err(check::procedure_output_invalid(&v));
    }
    Ok(reply)
}

/// Metrics answers: every point's dimensions are declared by its metric, and values are finite.
/// A new work item: its `kind` is one the destination `creates`, its attachments are https.
fn check_new_item(spec: &Spec, body: &Map<String, Json>) -> Result<(), HostError> {
    let input = body.get("input");
    let creates = spec.work.map_or(&[][..], |w| w.creates);
    if let Some(kind) = input.and_then(|i| i.get("kind"))
        && !kind.as_str().is_some_and(|k| creates.contains(&k))
    {
        let names: Vec<String> = creates.iter().map(|k| format!("\"{k}\"")).collect();
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
    {
        check::https_link(url, what)?;
    }
    Ok(reply)
}

/// A sync page, by the same rules `cargo host check` applies.
fn check_metrics(spec: &Spec, reply: Reply) -> Result<Reply, HostError> {
    if let Reply::Json(value) = &reply {
        check::metrics_page(spec.metrics, value)?;
    }
    Ok(reply)
}

/// The `Retry-After` of a delivery that could not run yet: the host's own first retry wait.
pub(crate) const RETRY_AFTER_SECS: u32 = host_interface::limits::EVENT_RETRY_WAITS_SECS[0] as u32;

/// An event delivery: 204, once per content key, whatever `X-Host-Event-Id` says.
async fn deliver(inner: &Inner, name: &str, raw: Box<RawCall>) -> Result<Reply, HostError> {
    let event = raw.body.get("event").and_then(Json::as_object);
    if !inner.spec.events.contains(&name) {
        return Err(HostError::from_code(
            ErrorCode::EventNotSubscribed,
            format!("the server does not subscribe to `{name}`"),
        ));
    }
    let payload = event
        .and_then(|e| e.get("payload"))
        .cloned()
        .unwrap_or(Json::Null);
    let key = dedupe::key_of(name, &raw.claims.sub, &payload);
    let store = &inner.config.dedupe;
    // This attempt's name on its claim: only it may renew, record or release the claim.
    let owner = crate::rt::random_token();
    if let Some(key) = &key
        && let Some(settled) = claim(inner, key, &owner).await?
    {
        return Ok(settled);
    }
    // Claimed: from here on the key is released however the attempt ends, also when this future is
    // dropped because the host gave up on the call (the guard releases it in the background).
    let mut claim = ClaimGuard {
        store: Arc::clone(store),
        key,
        owner: owner.clone(),
    };
    let handling = run(inner, Route::Event(Some(name)), raw);
    // While the handler runs, its lease is renewed (stores whose claims expire ask for it).
    let result = match (claim.key.clone(), store.renew_every()) {
        (Some(key), Some(every)) => {
            let mut handling = std::pin::pin!(handling);
            loop {
                let tick = std::pin::pin!(crate::rt::sleep(every));
                match futures_util::future::select(handling.as_mut(), tick).await {
                    futures_util::future::Either::Left((result, _)) => break result,
                    futures_util::future::Either::Right(((), _)) => {
                        let renewal = store.renew(&key, &owner);
                        let _ = crate::rt::timeout(inner.config.dedupe_timeout, renewal).await;
                    }
                }
            }
        }
        _ => handling.await,
    };
    if let Some(key) = claim.key.take() {
        let settle = async {
            match &result {
                Ok(_) => store.complete(&key, &owner).await,
                Err(_) => store.release(&key, &owner).await,
            }
        };
        if crate::rt::timeout(inner.config.dedupe_timeout, settle)
            .await
            .is_err()
        {
            tracing::warn!("the deduplication store did not record the delivery in time");
        }
    }
    result.map(|_| Reply::NoContent)
}

/// Claims an event's key for this attempt. `Some` when the delivery needs no run (recorded
/// already); an error when the store cannot say or an earlier delivery is still in flight past
/// the wait. A function of its own: its waits and the handler's run are never in flight together,
/// so neither future keeps room for the other.
async fn claim(inner: &Inner, key: &str, owner: &str) -> Result<Option<Reply>, HostError> {
    let store = &inner.config.dedupe;
    // A concurrent duplicate waits for the delivery in flight, then looks again. Past the wait it
    // answers a retryable 503: a 4xx would mean "recorded" to the host, and the event would be
    // lost if the attempt in flight then failed.
    let give_up = Instant::now() + inner.config.event_wait;
    loop {
        let unavailable = |why: &dyn std::fmt::Display| {
            tracing::warn!(error = %why, "the deduplication store is unavailable");
            HostError::from_code(
                ErrorCode::DedupeUnavailable,
                "events cannot be deduplicated right now; retry later",
            )
            .with_retry_after(RETRY_AFTER_SECS)
        };
        let claimed =
            crate::rt::timeout(inner.config.dedupe_timeout, store.claim(key, owner)).await;
        let claim = match claimed {
            Ok(Ok(claim)) => claim,
            failed => {
                // The store may still carry out a claim it did not answer in time (a paused
                // Redis works through its queue when it resumes): take back this attempt's own
                // claim, if it was made, so that the host's retry is not locked out by it.
                let (store, key, owner) = (Arc::clone(store), key.to_owned(), owner.to_owned());
                crate::rt::spawn(async move {
                    let _ = store.release(&key, &owner).await;
                });
                return Err(match failed {
                    Ok(Err(e)) => unavailable(&crate::error::Chain(&e)),
                    _ => unavailable(&format_args!(
                        "no answer within {} s",
                        inner.config.dedupe_timeout.as_secs_f64()
                    )),
                });
            }
        };
        let waited = match claim {
            Claim::Run => return Ok(None),
            Claim::Done => return Ok(Some(Reply::NoContent)),
            // Woken when the delivery in flight settles; the short timeout covers a wake-up that
            // came before this wait began.
            Claim::Wait(notify) => {
                let _ =
                    crate::rt::timeout(std::time::Duration::from_millis(100), notify.notified())
                        .await;
                Instant::now() < give_up
            }
            Claim::Busy => {
                crate::rt::sleep(std::time::Duration::from_millis(100)).await;
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

/// A claimed deduplication key that is released if the delivery ends without settling it: the
/// host closed the connection (or timed out) while the handler ran, and the future was dropped.
/// Without it the key would stay "in flight" and every retry would be answered 503.
struct ClaimGuard {
    store: Arc<dyn DedupeStore>,
    key: Option<String>,
    owner: String,
}

impl Drop for ClaimGuard {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else {
            return;
        };
        tracing::warn!("an event delivery ended before its handler finished; its key is released");
        let (store, owner) = (Arc::clone(&self.store), self.owner.clone());
        let released = crate::rt::spawn(async move {
            let _ = store.release(&key, &owner).await;
        });
        if !released {
            tracing::error!("no runtime to release an event key on");
        }
    }
}

/// Whether a `Content-Type` names JSON: `application/json`, or a `+json` type, with any parameters.
fn is_json(kind: &HeaderValue) -> bool {
    let Ok(kind) = kind.to_str() else {
        return false;
    };
    let essence = kind
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// The most characters of a mention's or container list's `q` kept.
pub(crate) const QUERY_CHARS: usize = 1000;

fn query_q(query: Option<&str>) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.chars().take(QUERY_CHARS).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Violation;
    use crate::spec::{Procedure, Tool};

    static SPEC: Spec = Spec {
        extension_id: "lazy-schemas",
        tools: &[
            Tool {
                id: "search",
                input: r#"{"type":"object","properties":{"q":{"type":"string","minLength":2}}}"#,
                input_check: None,
            },
            Tool {
                id: "broken",
                input: r#"{"type": 12"#,
                input_check: None,
            },
            Tool {
                id: "generated",
                input: r#"{"type": 12"#,
                input_check: Some(only_seven),
            },
        ],
        actions: &[],
        mentions: &[],
        context: &[],
        procedures: &[Procedure {
            name: "sum",
            input: r#"{"type":"array","items":{"type":"integer"}}"#,
            output: r#"{"type":"integer"}"#,
            input_check: None,
            output_check: None,
        }],
        metrics: &[],
        work: None,
        events: &[],
    };

    /// A stand-in for a validator the macro generated.
    fn only_seven(instance: &Json) -> Option<Violation> {
        (instance != &serde_json::json!(7)).then(|| Violation {
            pointer: String::new(),
            message: "not 7".into(),
        })
    }

    #[test]
    fn a_generated_validator_is_used_and_its_text_never_compiled() {
        let schemas = Schemas::new(&SPEC);
        let generated = schemas.input(&Route::Tool("generated")).expect("declared");
        assert_eq!(
            generated.violation(&serde_json::json!(7)).expect("checked"),
            None
        );
        let v = generated.violation(&serde_json::json!(8)).expect("checked");
        assert_eq!(
            v.map(|v| (v.at().to_owned(), v.message)),
            Some(("/".into(), "not 7".into()))
        );
        #[cfg(feature = "schema-compiler")]
        assert_eq!(schemas.compiled(), 0, "its (broken) text is never compiled");
    }

    #[cfg(feature = "schema-compiler")]
    #[test]
    fn a_schema_is_compiled_on_its_routes_first_call_and_kept() {
        let schemas = Schemas::new(&SPEC);
        assert_eq!(
            schemas.compiled(),
            0,
            "nothing is compiled before a call needs it"
        );

        let search = schemas.input(&Route::Tool("search")).expect("declared");
        let v = search
            .violation(&serde_json::json!({ "q": "x" }))
            .expect("checked");
        assert_eq!(v.map(|v| v.pointer), Some("/q".into()));
        assert_eq!(schemas.compiled(), 1, "only the tool's own schema");
        let ok = search
            .violation(&serde_json::json!({ "q": "xy" }))
            .expect("checked");
        assert_eq!(ok, None);
        assert_eq!(schemas.compiled(), 1, "compiled once, then kept");

        let sum = schemas.output("sum").expect("declared");
        assert_eq!(sum.violation(&serde_json::json!(3)).expect("checked"), None);
        assert_eq!(schemas.compiled(), 2);
        assert!(schemas.input(&Route::Tool("nope")).is_none());
        assert!(schemas.input(&Route::Health).is_none());
    }

    #[test]
    fn a_schema_that_cannot_be_checked_is_left_unchecked_not_a_panic() {
        let schemas = Schemas::new(&SPEC);
        let broken = schemas.input(&Route::Tool("broken")).expect("declared");
        assert!(broken.violation(&serde_json::json!(1)).is_err());
        assert!(broken.violation(&serde_json::json!(1)).is_err());
        #[cfg(feature = "schema-compiler")]
        assert_eq!(schemas.compiled(), 1, "tried once, not on every call");
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
