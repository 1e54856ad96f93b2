//! The keyword-tracker example served as a Vercel Function by Vercel's Rust runtime.
//!
//! `vercel.json` sends every `/host/...` path to this function, which sees the original path and
//! answers it as the native server does. Configuration is the example's own environment
//! (`HOST_MODE`, `HOST_JWKS_URL`, `HOST_ISSUER`, `HOST_EVENT_POST_URL`, `HOST_SIGNING_SECRET`,
//! `HOST_OUTBOX`): set them as the project's environment variables. Locally, `VERCEL_DEV_PORT=3000
//! cargo run -p keyword-tracker-vercel` serves it on 127.0.0.1:3000 the way `vercel dev` does.
//!
//! **Events.** A function's tasks end with its request, and its memory and `/tmp` go with the
//! instance, so the function's own events wait in Redis: `HOST_OUTBOX` must be a `redis://` URL
//! (unset or a folder stops the function at start; `memory` is taken for tests). Each request runs
//! as an [`Invocation`]: the events it hands to the outbox get one attempt before the answer goes
//! back. What the host does not take is posted by the drain route, [`DRAIN_PATH`], which
//! `vercel.json`'s `crons` calls every minute (Vercel sends `Authorization: Bearer $CRON_SECRET`;
//! set `CRON_SECRET` in the project, or the route refuses every call).

use std::sync::Arc;
use std::time::Duration;

use host_runtime::EventSender;
use host_runtime::outbox::Invocation;
use http_body_util::BodyExt;
use keyword_tracker::Tracker;
use keyword_tracker::config::Config;
use tower::Service;
use vercel_runtime::{Error, Request, Response, ResponseBody, run, service_fn};

/// The drain route `vercel.json`'s cron calls.
const DRAIN_PATH: &str = "/host-outbox/drain";
/// How long one drain posts for: inside Vercel's default 60 s function duration.
const DRAIN_BUDGET: Duration = Duration::from_secs(50);

#[tokio::main]
async fn main() -> Result<(), Error> {
    // The address is Vercel's; `LISTEN_ADDR` and `--listen` do not apply here.
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let config = Config::load(Some("127.0.0.1:0"), false, var)?;
    let outbox = config
        .outbox
        .open_serverless(var("HOST_OUTBOX").is_some(), "Vercel")
        .await?;
    let sender = Tracker::event_sender(&config, outbox)?;
    let tracker = Arc::new(Tracker::with_sender(sender.clone())?);
    let handler = keyword_tracker::app_with_stores(tracker, &config).await?;
    // Served per request, so the start-up check is ours: a function that could not deduplicate
    // its events does not start.
    handler.check_start()?;
    let cron_secret = var("CRON_SECRET");
    run(service_fn(move |request: Request| {
        let mut handler = handler.clone();
        let (sender, cron_secret) = (sender.clone(), cron_secret.clone());
        async move {
            if request.uri().path() == DRAIN_PATH {
                return drain(&sender, cron_secret.as_deref(), &request).await;
            }
            respond(&mut handler, request).await
        }
    }))
    .await
}

/// One call: the handler reads the body (up to its limit) and answers, as an invocation whose
/// events are attempted before the answer; the answer becomes the runtime's response.
async fn respond(
    handler: &mut host_runtime::Handler,
    request: Request,
) -> Result<Response<ResponseBody>, Error> {
    let (answer, _events) = Invocation::new().run(handler.call(request)).await;
    let answer = match answer {
        Ok(answer) => answer,
        Err(never) => match never {},
    };
    let (parts, body) = answer.into_parts();
    let bytes = body.collect().await?.to_bytes();
    Ok(Response::from_parts(parts, ResponseBody::from(bytes)))
}

/// The cron's call: posts what the outbox holds that is due, for up to [`DRAIN_BUDGET`], and
/// answers what it did as JSON (`500` when the store failed, so the failure shows in Vercel's
/// logs). Only a caller holding `CRON_SECRET` may drain.
async fn drain(
    sender: &EventSender,
    cron_secret: Option<&str>,
    request: &Request,
) -> Result<Response<ResponseBody>, Error> {
    let given = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let allowed = match (cron_secret, given) {
        (Some(secret), Some(given)) => constant_time_eq(secret.as_bytes(), given.as_bytes()),
        _ => false,
    };
    if !allowed {
        let why = if cron_secret.is_none() {
            "CRON_SECRET is not set: the drain route refuses every call until it is"
        } else {
            "the drain route needs `Authorization: Bearer $CRON_SECRET`"
        };
        return json_response(401, &serde_json::json!({ "error": why }));
    }
    let report = sender.drain(DRAIN_BUDGET).await;
    let mut body = serde_json::json!({
        "delivered": report.delivered,
        "retrying": report.retrying,
        "dead": report.dead,
        "more": report.more,
    });
    let status = match &report.error {
        Some(e) => {
            eprintln!("error: the outbox could not be drained: {e}");
            body["error"] = serde_json::json!(e.to_string());
            500
        }
        None => 200,
    };
    json_response(status, &body)
}

fn json_response(status: u16, body: &serde_json::Value) -> Result<Response<ResponseBody>, Error> {
    Ok(Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(ResponseBody::from(body.to_string()))?)
}

/// Compares without stopping at the first difference, so the time taken does not tell a caller
/// how much of the secret it guessed.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}
