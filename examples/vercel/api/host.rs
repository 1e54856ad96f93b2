//! The keyword-tracker example served as a Vercel Function by Vercel's Rust runtime.
//!
//! `vercel.json` sends every `/host/...` path to this function, which sees the original path and
//! answers it as the native server does. Configuration is the example's own environment
//! (`HOST_MODE`, `HOST_JWKS_URL`, `HOST_ISSUER`, `HOST_EVENT_POST_URL`, `HOST_SIGNING_SECRET`,
//! `HOST_OUTBOX`): set them as the project's environment variables. Locally, `VERCEL_DEV_PORT=3000 cargo run -p
//! keyword-tracker-vercel` serves it on 127.0.0.1:3000 the way `vercel dev` does.

use std::sync::Arc;

use http_body_util::BodyExt;
use keyword_tracker::Tracker;
use keyword_tracker::config::Config;
use tower::Service;
use vercel_runtime::{Error, Request, Response, ResponseBody, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    // The address is Vercel's; `LISTEN_ADDR` and `--listen` do not apply here.
    let config = Config::load(Some("127.0.0.1:0"), false, |k| std::env::var(k).ok())?;
    // The function's folder is read-only and an instance's /tmp goes with it: events wait in the
    // Redis outbox `HOST_OUTBOX` names (`redis://...`), or, unset, in memory for as long as this
    // instance lives.
    let tracker = if std::env::var_os("HOST_OUTBOX").is_some() {
        Tracker::from_config(&config, config.outbox.open().await?)?
    } else {
        eprintln!(
            "warning: HOST_OUTBOX is not set: events wait in memory and are lost with this instance"
        );
        Tracker::from_config(&config, host_runtime::outbox::MemoryOutbox::new())?
    };
    let tracker = Arc::new(tracker);
    let handler = keyword_tracker::app(tracker, &config);
    run(service_fn(move |request: Request| {
        let mut handler = handler.clone();
        async move { respond(&mut handler, request).await }
    }))
    .await
}

/// One call: the handler reads the body (up to its limit) and answers; the answer becomes the
/// runtime's response.
async fn respond(
    handler: &mut host_runtime::Handler,
    request: Request,
) -> Result<Response<ResponseBody>, Error> {
    let answer = match handler.call(request).await {
        Ok(answer) => answer,
        Err(never) => match never {},
    };
    let (parts, body) = answer.into_parts();
    let bytes = body.collect().await?.to_bytes();
    Ok(Response::from_parts(parts, ResponseBody::from(bytes)))
}
