//! The keyword-tracker example served as a Vercel Function by Vercel's Rust runtime.
//!
//! `vercel.json` sends every `/host/...` path to this function, which sees the original path and
//! answers it as the native server does. Configuration is the example's own environment
//! (`HOST_MODE`, `HOST_JWKS_URL`, `HOST_ISSUER`, `HOST_EVENT_POST_URL`, `HOST_SIGNING_SECRET`): set
//! them as the project's environment variables. Locally, `VERCEL_DEV_PORT=3000 cargo run -p
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
    let tracker = Arc::new(Tracker::from_config(&config)?);
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
