//! A vendor server for the fault tests (`tests/tests/faults.rs`): the keyword-tracker fixture
//! extension served by `Handler::serve_on` in its own process, configured from the environment so a
//! test can tighten every limit:
//!
//! - `HOST_JWKS`: the key set to trust (JSON; a test host's), or `HOST_JWKS_URL` to fetch one;
//! - `DELAY_MS`: how long the `keyword-ranks` tool takes; `EVENT_DELAY_MS`: how long an event handler
//!   takes; `EVENT_WAIT_MS`: how long a duplicate delivery waits for the one in flight;
//!   `HANDLER_DEADLINE_MS`: the deadline of handlers other than tools; `FAIL_EVENTS`: how many
//!   `release.shipped` deliveries fail (503) before they succeed;
//! - `HEADER_TIMEOUT_MS`, `BODY_TIMEOUT_MS`, `IDLE_TIMEOUT_MS`, `MAX_CONNECTIONS`, `GRACE_MS`: the
//!   serving limits.
//!
//! It prints `listening on <addr>` once bound and `stopped` when `serve_on` returns.

use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::Duration;

fn env_ms(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()?
        .parse()
        .ok()
        .map(Duration::from_millis)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    let server = host_sdk_tests::Server {
        keywords: vec!["notes".into()],
        ..Default::default()
    };
    let delay = env_ms("DELAY_MS").unwrap_or_default();
    server.behaviour.delay_ms.store(
        u64::try_from(delay.as_millis()).unwrap_or(0),
        Ordering::SeqCst,
    );
    if let Some(n) = std::env::var("FAIL_EVENTS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        server.behaviour.fail_events.store(n, Ordering::SeqCst);
    }
    let event_delay = env_ms("EVENT_DELAY_MS").unwrap_or_default();
    server.behaviour.event_delay_ms.store(
        u64::try_from(event_delay.as_millis()).unwrap_or(0),
        Ordering::SeqCst,
    );
    let jwks: host_runtime::serde_json::Value =
        host_runtime::serde_json::from_str(&std::env::var("HOST_JWKS").unwrap_or_default())
            .map_err(std::io::Error::other)?;
    let mut handler = host_sdk_tests::handler(server)
        .with_jwks(jwks)
        .with_development_defaults();
    if let Ok(url) = std::env::var("HOST_JWKS_URL") {
        handler = handler.with_jwks_url(url);
    }
    if let Some(t) = env_ms("HEADER_TIMEOUT_MS") {
        handler = handler.with_header_timeout(t);
    }
    if let Some(t) = env_ms("BODY_TIMEOUT_MS") {
        handler = handler.with_body_timeout(t);
    }
    if let Some(t) = env_ms("IDLE_TIMEOUT_MS") {
        handler = handler.with_idle_timeout(t);
    }
    if let Some(t) = env_ms("HANDLER_DEADLINE_MS") {
        handler = handler.with_handler_deadline(t);
    }
    if let Some(t) = env_ms("EVENT_WAIT_MS") {
        handler = handler.with_event_wait(t);
    }
    if let Some(t) = env_ms("GRACE_MS") {
        handler = handler.with_shutdown_grace(t);
    }
    if let Some(n) = std::env::var("MAX_CONNECTIONS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        handler = handler.with_max_connections(n);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on {}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let served = handler.serve_on(listener).await;
    println!("stopped");
    std::io::stdout().flush()?;
    served
}
