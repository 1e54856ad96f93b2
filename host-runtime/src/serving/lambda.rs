//! AWS Lambda (feature `lambda`): the handler behind API Gateway REST APIs (payload v1), HTTP APIs
//! (payload v2) and Lambda Function URLs.
//!
//! ```no_run
//! // In `main`, with `handler(MyServer)` as `host_extension!` generates it, configured as for any
//! // server.
//! async fn serve(handler: host_runtime::Handler) -> Result<(), host_runtime::lambda::Error> {
//!     host_runtime::lambda::run(handler).await
//! }
//! ```
//!
//! **The stage prefix.** An API Gateway stage other than `$default` (`/prod`) is part of the path
//! the function sees (`/prod/host/tools/keyword-ranks`), while the host calls `server.baseUrl` +
//! `/host/...`. The adapter removes `/<stage>` from the front of the path when the request names
//! a stage, so the routes match whether the base URL is the stage's invoke URL or a custom domain
//! mapped to it. (A stage named like the first segment of a route, such as `host`, cannot be told
//! apart from that route on HTTP APIs: do not name a stage `host`.) A path under the stage, such as
//! `https://....amazonaws.com/prod/ext`, is the handler's `with_base_path("/ext")`.
//!
//! Everything else is the handler's: the body limit (API Gateway's own is 10 MB), token checks,
//! answers. A cold start fetches the host's key set on the first call; `with_jwks` avoids that
//! round trip where the key set is known. Event deduplication in memory only covers one warm
//! instance: use a shared store (`DynamoDbDedupe` with feature `dynamodb`, `RedisDedupe`, or your own
//! `DedupeStore`) for Lambda.
//!
//! **The outbox.** Lambda freezes an instance once its response is in and may never thaw it, so no
//! task may be left to post the vendor's own events. Each request runs as an
//! [`Invocation`](crate::outbox::Invocation): the events the handler hands to the outbox
//! (`enqueue`, `send` or `spawn` alike) get one attempt before the response goes back, within 5 s
//! and at least a second before the invocation's deadline. What the host does not take waits in
//! the outbox's store for [`run_drain`]: the same binary deployed as a second function, invoked by
//! an EventBridge schedule (every minute). So the store must outlive the instance: a
//! `RedisOutbox` (or a store of your own); events in a `MemoryOutbox` are lost with the instance.

use std::convert::Infallible;

use bytes::Bytes;
use lambda_http::request::RequestContext;
use lambda_http::{Body, RequestExt};

use crate::Handler;

/// The Lambda HTTP layer the adapter is built on, for tests that parse recorded events
/// (`lambda_http::request::from_str`).
pub use lambda_http;
/// The error [`run`] ends with: the Lambda runtime API failed.
pub use lambda_http::Error;

/// Serves `handler` as this Lambda function's HTTP handler until the runtime stops it.
///
/// A handler without a store its manifest needs ([`Handler::check_start`]) does not start: the
/// error is reported to Lambda as the init error (see [`report_init_error`]) and returned.
pub async fn run(handler: Handler) -> Result<(), Error> {
    if let Err(why) = handler.check_start() {
        let message = why.to_string();
        if let Err(unreported) = report_init_error(&message).await {
            tracing::warn!(error = %unreported, "the init error could not be reported to Lambda");
        }
        return Err(why.into());
    }
    lambda_http::run(lambda_http::service_fn(
        move |request: lambda_http::Request| {
            let handler = handler.clone();
            async move { Ok::<_, Infallible>(respond(&handler, request).await) }
        },
    ))
    .await
}

/// Tells Lambda that this function could not start, with `message`: the invocation that started
/// it then fails with `Runtime.InitError` and this message, where an exit alone shows only "Runtime
/// exited with error: exit status 1". Call it when start-up fails (a setting, a store that cannot
/// be reached), before [`run`] or [`run_drain`] and never after one has begun, then exit non-zero.
///
/// It posts to the Runtime API's `/runtime/init/error`, at `AWS_LAMBDA_RUNTIME_API`; the error
/// says so when the post fails, for example outside Lambda.
pub async fn report_init_error(message: &str) -> Result<(), Error> {
    // The client builder would panic without it.
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_none_or(|api| api.is_empty()) {
        return Err(
            "AWS_LAMBDA_RUNTIME_API is not set: this process is not running in Lambda".into(),
        );
    }
    let client = lambda_runtime_api_client::Client::builder().build()?;
    let body = serde_json::json!({ "errorMessage": message, "errorType": "Runtime.InitError" });
    let request = lambda_runtime_api_client::build_request()
        .method(http::Method::POST)
        .uri("/2018-06-01/runtime/init/error")
        .header("lambda-runtime-function-error-type", "Runtime.InitError")
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(lambda_runtime_api_client::body::Body::from(
            body.to_string(),
        ))?;
    // Bounded: a function that cannot start must still exit.
    let answer =
        crate::platform::rt::timeout(std::time::Duration::from_secs(5), client.call(request))
            .await
            .map_err(|_| "the Runtime API did not take the init error within 5 s".to_owned())?
            .map_err(|e| format!("the init error could not be reported to the Runtime API: {e}"))?;
    if !answer.status().is_success() {
        return Err(format!(
            "the Runtime API answered {} to the init error",
            answer.status()
        )
        .into());
    }
    Ok(())
}

/// Serves scheduled invocations (an EventBridge rule's `Scheduled Event`, or any other event) by
/// posting what `sender`'s outbox holds that is due, for up to `budget` and never past the
/// invocation's deadline (less a second to answer). The invocation's result is what was drained:
/// `{"delivered": n, "retrying": n, "dead": n, "more": bool}`; a store that failed makes it an
/// error, so the failure shows in the function's metrics and logs.
///
/// `sender` uses the same outbox store as the HTTP function.
pub async fn run_drain(
    sender: crate::EventSender,
    budget: std::time::Duration,
) -> Result<(), Error> {
    lambda_http::lambda_runtime::run(lambda_http::service_fn(
        move |event: lambda_http::LambdaEvent<serde_json::Value>| {
            let sender = sender.clone();
            async move { drain_once(&sender, budget, event.context.deadline).await }
        },
    ))
    .await
}

/// One scheduled invocation of [`run_drain`]; `deadline` is the invocation's, in milliseconds
/// since the Unix epoch.
async fn drain_once(
    sender: &crate::EventSender,
    budget: std::time::Duration,
    deadline: u64,
) -> Result<serde_json::Value, Error> {
    let report = sender.drain(budget.min(time_left(deadline))).await;
    if let Some(e) = report.error {
        return Err(format!(
            "the outbox could not be drained ({} delivered before): {e}",
            report.delivered
        )
        .into());
    }
    tracing::info!(
        delivered = report.delivered,
        retrying = report.retrying,
        dead = report.dead,
        more = report.more,
        "outbox drained"
    );
    Ok(serde_json::json!({
        "delivered": report.delivered,
        "retrying": report.retrying,
        "dead": report.dead,
        "more": report.more,
    }))
}

/// Answers one request as [`run`] does: the stage removed from the path, the body read, the
/// handler's answer turned into Lambda's response, and the events the handler handed to an outbox
/// attempted before it returns (see [the outbox](self#the-outbox)).
pub async fn respond(handler: &Handler, request: lambda_http::Request) -> http::Response<Body> {
    let invocation = match request.lambda_context_ref() {
        Some(context) => crate::outbox::Invocation::new()
            .with_deadline(crate::platform::rt::Instant::now() + time_left(context.deadline)),
        None => crate::outbox::Invocation::new(),
    };
    let stage = stage_of(&request);
    let (mut parts, body) = request.into_parts();
    if let Some(stage) = stage
        && let Some(uri) = without_stage(&parts.uri, &stage)
    {
        parts.uri = uri;
    }
    let body = match body {
        Body::Empty => Bytes::new(),
        Body::Text(text) => Bytes::from(text),
        Body::Binary(bytes) => Bytes::from(bytes),
        // `Body` is non-exhaustive; a kind this adapter does not know is read as no body, said.
        _ => {
            tracing::warn!("a Lambda request body of an unknown kind is read as empty");
            Bytes::new()
        }
    };
    let (answer, events) = invocation
        .run(handler.handle(http::Request::from_parts(parts, body)))
        .await;
    if events.retrying > 0 || events.error.is_some() {
        tracing::warn!(
            delivered = events.delivered,
            waiting = events.retrying,
            "events the host did not take wait in the outbox for the next drain"
        );
    }
    let (parts, body) = answer.into_parts();
    let body = if body.is_empty() {
        Body::Empty
    } else {
        match String::from_utf8(body.to_vec()) {
            Ok(text) => Body::Text(text),
            Err(e) => Body::Binary(e.into_bytes()),
        }
    };
    http::Response::from_parts(parts, body)
}

/// The time left before an invocation's `deadline` (milliseconds since the Unix epoch), less a
/// second to send the answer.
fn time_left(deadline: u64) -> std::time::Duration {
    let now = crate::platform::rt::SystemTime::now()
        .duration_since(crate::platform::rt::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    std::time::Duration::from_millis(deadline.saturating_sub(now).saturating_sub(1_000))
}

/// The API Gateway stage the request came through, when it names one other than `$default`.
fn stage_of(request: &lambda_http::Request) -> Option<String> {
    let stage = match request.request_context_ref()? {
        RequestContext::ApiGatewayV1(context) => context.stage.clone(),
        RequestContext::ApiGatewayV2(context) => context.stage.clone(),
        // Other sources (ALB, VPC Lattice, with their features) have no stage.
        _ => None,
    }?;
    (!stage.is_empty() && stage != "$default").then_some(stage)
}

/// `uri` without a leading `/<stage>` segment; `None` when the path does not start with it.
fn without_stage(uri: &http::Uri, stage: &str) -> Option<http::Uri> {
    let path = uri.path();
    let rest = path.strip_prefix('/')?.strip_prefix(stage)?;
    let rest = match rest {
        "" => "/",
        r if r.starts_with('/') => r,
        _ => return None,
    };
    let path_and_query = match uri.query() {
        Some(query) => format!("{rest}?{query}"),
        None => rest.to_owned(),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = path_and_query.parse().ok();
    http::Uri::from_parts(parts).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stage_is_removed_from_the_front_only() {
        let uri = |s: &str| s.parse::<http::Uri>().ok();
        let stripped = |u: &str, stage: &str| {
            uri(u)
                .and_then(|u| without_stage(&u, stage))
                .map(|u| u.to_string())
        };
        assert_eq!(
            stripped("https://a.example/prod/host/tools/x?q=1", "prod").as_deref(),
            Some("https://a.example/host/tools/x?q=1")
        );
        assert_eq!(stripped("/prod", "prod").as_deref(), Some("/"));
        assert_eq!(stripped("/production/host/health", "prod"), None);
        assert_eq!(stripped("/host/health", "prod"), None);
    }
}
