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
//!
//! The steps live beside this file: the body (`body.rs`), the handler's configuration and schemas
//! (`config.rs`), the health route (`health.rs`), event deliveries (`delivery.rs`) and the
//! handler's transaction (`transaction.rs`).

mod body;
mod config;
mod delivery;
mod health;
mod transaction;

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use crate::platform::rt::Instant;

use bytes::Bytes;
use futures_util::FutureExt;
use http::{HeaderValue, Method, Response, StatusCode, header};
use serde_json::{Map, Value as Json};

use crate::calls::call::Claims;
use crate::calls::check::{self, Verdict};
use crate::calls::error::{ErrorCode, HostError};
use crate::calls::route::Route;
use crate::generated::dispatch::{RawCall, Reply};
use crate::generated::spec::Spec;
use crate::platform::BoxFuture;

use self::body::is_json;
pub(crate) use self::body::parse_body;
pub use self::config::StartError;
pub(crate) use self::config::{Config, Dedupe, HealthCheck, Inner, Schemas, Serving};
pub(crate) use self::delivery::RETRY_AFTER_SECS;
use self::delivery::deliver;
#[cfg(test)]
pub(crate) use self::health::HEALTH_DEADLINE;
use self::health::health;

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

/// Answers one request, in a `host_call` span recording the route, the install, the event id, the
/// outcome and the duration (never a token or a body), and records it in the call metrics (see
/// [`crate::observe`]).
pub(crate) async fn handle(inner: &Inner, request: http::Request<Bytes>) -> Response<Bytes> {
    let started = Instant::now();
    let span = tracing::info_span!(
        "host_call",
        route = tracing::field::Empty,
        install = tracing::field::Empty,
        event_id = tracing::field::Empty,
        status = tracing::field::Empty,
        outcome = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    );
    if let Some(id) = request
        .headers()
        .get("x-host-event-id")
        .and_then(|v| v.to_str().ok())
    {
        span.record("event_id", crate::calls::error::clip(id).as_ref());
    }
    let mut labels = ("unknown", "");
    let (response, install) =
        tracing::Instrument::instrument(answer(inner, request, &span, &mut labels), span.clone())
            .await;
    let status = response.status();
    let outcome = if status.is_success() {
        "ok"
    } else if status.is_client_error() {
        "refused"
    } else {
        "failed"
    };
    let took = started.elapsed();
    crate::telemetry::call(labels.0, labels.1, status.as_u16(), took);
    span.record("install", install.as_deref().unwrap_or("-"));
    span.record("status", status.as_u16());
    span.record("outcome", outcome);
    span.record("duration_ms", took.as_secs_f64() * 1e3);
    span.in_scope(|| tracing::info!("host call answered"));
    response
}

async fn answer(
    inner: &Inner,
    request: http::Request<Bytes>,
    span: &tracing::Span,
    labels: &mut (&'static str, &'static str),
) -> (Response<Bytes>, Option<String>) {
    let base = inner.config.base_path.as_str();
    let path = request.uri().path();
    let Some(route) = path
        .strip_prefix(base)
        .and_then(|p| Route::parse(p, inner.spec.work_containers()))
    else {
        return (HostError::not_found("no such route").to_response(), None);
    };
    span.record("route", crate::calls::error::clip(&route.name()).as_ref());
    *labels = inner.spec.labels(&route);
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
        crate::telemetry::token_refused(e.reason());
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
            Err(e @ (crate::auth::AuthError::KeysUnavailable | crate::auth::AuthError::NoKeys))
                if matches!(route, Route::Event(_)) =>
            {
                crate::telemetry::token_refused(e.reason());
                let e = HostError::from_code(
                    ErrorCode::KeysUnavailable,
                    "the install token cannot be checked right now (the host's key set is unreachable); retry later",
                )
                .with_retry_after(RETRY_AFTER_SECS);
                return (e.to_response(), None);
            }
            Err(e) => {
                crate::telemetry::token_refused(e.reason());
                return (e.to_host_error().to_response(), None);
            }
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
                    tracing::warn!(error = %crate::calls::error::Chain(&e), "the call failed");
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
    // The pattern time of this request, its input's check and its answer's together.
    let mut budget = check::Budget::per_request();
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
        validate_input(inner, &route, &mut body, &mut budget)?;
    }
    // Boxed: the call is moved through several futures on its way to the handler, and each would
    // otherwise keep a slot of its full size for as long as the delivery is in flight.
    let mut raw = Box::new(RawCall::new(body, *claims, spec.extension_id.to_owned()));
    raw.query = match route {
        Route::Mention(_) | Route::WorkContainers => query,
        _ => None,
    };
    raw.event_id = event_id;
    raw.request = crate::calls::call::RequestParts::of(request);
    // Each kind of call finishes apart: on wasm32 a call then compiles its own kind's checks, not
    // every other kind's.
    use crate::platform::rt::apart;
    match route {
        Route::Procedure(name) => {
            apart(async move {
                let reply = run(inner, route, raw).await?;
                check_output(inner, name, reply, &mut budget)
            })
            .await
        }
        Route::Metrics => {
            apart(async move {
                let reply = run(inner, route, raw).await?;
                check_metrics(spec, reply)
            })
            .await
        }
        Route::WorkContainers => {
            apart(async move {
                if let Some(q) = raw.query.take() {
                    raw.body
                        .insert("input".into(), serde_json::json!({ "q": q }));
                }
                run(inner, route, raw).await
            })
            .await
        }
        Route::WorkItems => {
            apart(async move {
                check_new_item(spec, &raw.body)?;
                let reply = run(inner, route, raw).await?;
                check_work_url(reply, "item")
            })
            .await
        }
        Route::WorkComment(_) => {
            apart(async move {
                let reply = run(inner, route, raw).await?;
                check_work_url(reply, "comment")
            })
            .await
        }
        Route::Event(Some(name)) => apart(deliver(inner, name, raw)).await,
        Route::Tool(_) | Route::Action(_) | Route::Mention(_) | Route::Context(_) => {
            apart(run(inner, route, raw)).await
        }
        Route::Event(None) | Route::Health => Err(HostError::internal("unreachable route")),
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
    budget: &mut check::Budget,
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
        .map(|schema| schema.verdict(input, budget))
    {
        Some(Ok(Verdict::Invalid(v))) => Err(check::input_invalid(&v)),
        Some(Ok(Verdict::Unfinished)) => Err(budget_spent()),
        _ => Ok(()),
    }
}

/// A request whose schema checks were stopped by the pattern budget: retryable, since a busy
/// machine stops sooner than a quiet one, and the same input must get the same final verdict.
fn budget_spent() -> HostError {
    tracing::warn!(
        budget_ms = u64::try_from(check::PATTERN_BUDGET.as_millis()).unwrap_or(u64::MAX),
        "a request's schema check ran out of pattern time; answered 503 for the host to retry"
    );
    HostError::from_code(
        ErrorCode::PatternBudgetSpent,
        check::budget_spent_message(check::PATTERN_BUDGET),
    )
    .with_retry_after(PATTERN_RETRY_AFTER_SECS)
}

/// The `Retry-After` of `503 PATTERN_BUDGET_SPENT`: a busy moment usually passes within seconds.
const PATTERN_RETRY_AFTER_SECS: u32 = 5;

/// Runs a handler (in its transaction, when the handler has a database for one) and commits what it
/// wrote.
async fn run(inner: &Inner, route: Route<'_>, raw: Box<RawCall>) -> Result<Reply, HostError> {
    transaction::within(inner, guarded(inner, route, raw), None)
        .await
        .map(|(reply, _)| reply)
}

/// Runs a dispatch with panic isolation: a panicking handler answers `INTERNAL` and the server keeps
/// serving.
/// Tools answer within the tool deadline (`TOOL_TIMEOUT`), every other handler within the handler
/// deadline (`HANDLER_TIMEOUT`, a 504: on the event route the host retries it).
async fn guarded(inner: &Inner, route: Route<'_>, raw: Box<RawCall>) -> Result<Reply, HostError> {
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
    match crate::platform::rt::timeout(deadline, guarded).await {
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

fn check_output(
    inner: &Inner,
    name: &str,
    reply: Reply,
    budget: &mut check::Budget,
) -> Result<Reply, HostError> {
    if let (Reply::Json(value), Some(schema)) = (&reply, inner.schemas.output(name)) {
        match schema.verdict(value, budget) {
            Ok(Verdict::Invalid(v)) => return Err(check::procedure_output_invalid(&v)),
            Ok(Verdict::Unfinished) => return Err(budget_spent()),
            Ok(Verdict::Valid) | Err(_) => {}
        }
    }
    Ok(reply)
}

/// A new work item: its `kind` is one the destination `creates`, its attachments are https.
fn check_new_item(spec: &Spec, body: &Map<String, Json>) -> Result<(), HostError> {
    let creates = spec.work.map_or(&[][..], |w| w.creates);
    check::new_work_item(creates, body.get("input"))
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

/// The most characters of a mention's or container list's `q` kept.
pub(crate) const QUERY_CHARS: usize = 1000;

pub(crate) fn query_q(query: Option<&str>) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.chars().take(QUERY_CHARS).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::schema::Violation;
    use crate::generated::spec::{Procedure, Tool};

    static SPEC: Spec = Spec {
        extension_id: "lazy-schemas",
        tools: &[
            Tool {
                id: "search",
                input: r#"{"type":"object","properties":{"q":{"type":"string","minLength":2}}}"#,
                input_check: None,
            },
            Tool {
                id: "short",
                input: r#"{"type":"object","properties":{"q":{"type":"string","maxLength":5},"n":{"type":"array","maxItems":1}}}"#,
                input_check: None,
            },
            Tool {
                id: "backtracks",
                input: r#"{"type":"string","pattern":"^(?!b)(a|a)*c$"}"#,
                input_check: None,
            },
            Tool {
                id: "costly",
                input: r#"{"type":"array","items":{"type":"string","pattern":"^(?!(a|a)*\\1b).*$"}}"#,
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

    #[cfg(feature = "schema-compiler")]
    #[test]
    fn an_input_invalid_answer_quotes_a_huge_value_clipped() {
        let schemas = Schemas::new(&SPEC);
        let short = schemas.input(&Route::Tool("short")).expect("declared");
        for (input, length) in [
            (
                serde_json::json!({ "q": "a".repeat(70_000) }),
                "(70002 characters)",
            ),
            (
                serde_json::json!({ "n": vec![1234; 20_000] }),
                "(100001 characters)",
            ),
        ] {
            let v = short.violation(&input).expect("checked").expect("refused");
            let answer = check::input_invalid(&v).to_response();
            let body = String::from_utf8_lossy(answer.body()).into_owned();
            assert_eq!(answer.status(), StatusCode::UNPROCESSABLE_ENTITY);
            assert!(body.len() < 600, "{} bytes: {body}", body.len());
            assert!(body.contains(length), "{body}");
        }
        // A value that fits is quoted whole, as the validator wrote it.
        let v = short
            .violation(&serde_json::json!({ "q": "abcdef" }))
            .expect("checked")
            .expect("refused");
        assert_eq!(v.message, r#""abcdef" is longer than 5 characters"#);
    }

    /// A pattern that backtracks exponentially (a lookahead makes the regex engine backtrack) stops
    /// at the engine's step limit (fancy-regex's 1,000,000) and the input is refused, in well
    /// under a second, rather than matched for minutes.
    #[cfg(feature = "schema-compiler")]
    #[test]
    fn a_backtracking_pattern_is_cut_off_and_refused() {
        let schemas = Schemas::new(&SPEC);
        let tool = schemas.input(&Route::Tool("backtracks")).expect("declared");
        assert_eq!(
            tool.violation(&serde_json::json!("aac")).expect("checked"),
            None
        );
        let input = serde_json::json!(format!("{}b", "a".repeat(40)));
        let started = Instant::now();
        let v = tool.violation(&input).expect("checked");
        assert!(v.is_some(), "refused");
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
    }

    /// A body of many strings, each valid and each costly for a backtracking pattern: the check
    /// stops at the request's pattern budget, which is not a verdict on the input (the answer is a
    /// retryable 503), where matching every string would take seconds. Read to the end (the
    /// vendor's own instances), the same body is valid.
    #[cfg(feature = "schema-compiler")]
    #[test]
    fn many_costly_strings_stop_the_check_at_the_pattern_budget() {
        use crate::calls::check::{Budget, Verdict};
        let schemas = Schemas::new(&SPEC);
        let tool = schemas.input(&Route::Tool("costly")).expect("declared");
        let one = serde_json::json!([format!("{}c", "a".repeat(16))]);
        let mut budget = Budget::per_request();
        assert_eq!(
            tool.verdict(&one, &mut budget).expect("checked"),
            Verdict::Valid
        );
        assert!(
            budget.left() < crate::calls::check::PATTERN_BUDGET,
            "spent some"
        );
        let many = serde_json::json!(vec![format!("{}c", "a".repeat(16)); 2000]);
        let mut budget = Budget::per_request();
        assert_eq!(
            tool.verdict(&many, &mut budget).expect("checked"),
            Verdict::Unfinished
        );
        assert!(budget.left().is_zero());
        // What is left of a request's budget is all its next check gets.
        assert_eq!(
            tool.verdict(&one, &mut budget).expect("checked"),
            Verdict::Unfinished
        );
        assert_eq!(
            tool.violation(&serde_json::json!(["aac"]))
                .expect("checked"),
            None
        );
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
