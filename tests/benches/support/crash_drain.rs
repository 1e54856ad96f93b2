//! How soon after a crash another instance posts the events the dead one had claimed: one
//! `outbox_holder` process claims `events` events (their posts are never answered) and is killed
//! with SIGKILL while it holds them; a second one, on the same store, posts them once their claims
//! end. Used by the lease benchmark and by the outbox crash test.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const HOLDER: &str = env!("CARGO_BIN_EXE_outbox_holder");

/// What one crash cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Drained {
    /// From the kill to the first held event posted by the second instance.
    pub first: Duration,
    /// From the kill to the last held event posted by the second instance.
    pub last: Duration,
}

/// The host's event endpoint: it records each event id and when it came; while `hold` is set it
/// never answers, afterwards it answers 200.
#[derive(Clone, Default)]
struct Endpoint {
    hold: Arc<AtomicBool>,
    held: Arc<Mutex<HashMap<String, Instant>>>,
    answered: Arc<Mutex<HashMap<String, Instant>>>,
}

async fn endpoint() -> (String, Endpoint) {
    let seen = Endpoint::default();
    seen.hold.store(true, Ordering::SeqCst);
    let state = seen.clone();
    let app = axum::Router::new().route(
        "/v1/events",
        axum::routing::post(move |headers: http::HeaderMap| {
            let state = state.clone();
            async move {
                let id = headers
                    .get("webhook-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                if state.hold.load(Ordering::SeqCst) {
                    state
                        .held
                        .lock()
                        .unwrap()
                        .entry(id.clone())
                        .or_insert_with(Instant::now);
                    std::future::pending::<()>().await;
                }
                state
                    .answered
                    .lock()
                    .unwrap()
                    .entry(id)
                    .or_insert_with(Instant::now);
                http::StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/events", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

/// A holder process, killed (SIGKILL) when dropped, so that a failed wait leaves none behind.
struct Holder(Child);

impl Holder {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts an `outbox_holder` and waits for its `accepted` line.
fn holder(store: &str, url: &str, events: usize, lease: Duration, timeout: Duration) -> Holder {
    let mut child = Command::new(HOLDER)
        .args([
            store,
            url,
            &events.to_string(),
            &lease.as_millis().to_string(),
            &timeout.as_millis().to_string(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut holder = Holder(child);
    let mut lines = BufReader::new(stdout).lines();
    match lines.next() {
        Some(Ok(line)) if line == "accepted" => {}
        other => {
            holder.kill();
            panic!("outbox_holder on {store} did not start: {other:?}");
        }
    }
    holder
}

async fn wait_for(what: &str, within: Duration, done: impl Fn() -> bool) {
    let until = Instant::now() + within;
    while !done() {
        assert!(Instant::now() < until, "{what} within {within:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// One crash on `store` (`file:DIR`, a `redis://` or `postgres://` URL): `events` events claimed
/// by an instance with `lease` and attempt `timeout`, the instance killed, and a second one started
/// at once. Waits up to `within` for the second to post them all.
pub(crate) async fn drain_after_crash(
    store: &str,
    events: usize,
    lease: Duration,
    timeout: Duration,
    within: Duration,
) -> Drained {
    let (url, seen) = endpoint().await;
    let mut first = holder(store, &url, events, lease, timeout);
    wait_for(
        "every event claimed and in its first attempt",
        timeout,
        || seen.held.lock().unwrap().len() == events,
    )
    .await;
    first.kill();
    let killed = Instant::now();
    seen.hold.store(false, Ordering::SeqCst);
    let mut second = holder(store, &url, 0, lease, timeout);
    wait_for(
        "every held event posted by the second instance",
        within,
        || seen.answered.lock().unwrap().len() == events,
    )
    .await;
    second.kill();
    let answered = seen.answered.lock().unwrap();
    let times = answered.values().map(|at| at.duration_since(killed));
    Drained {
        first: times.clone().min().unwrap_or_default(),
        last: times.max().unwrap_or_default(),
    }
}
