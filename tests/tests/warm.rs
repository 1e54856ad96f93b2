//! `Handler::warm`: the request path run once before the first call, on a delivery refused at its
//! token's signature. It runs no handler and touches no store, records no metric and writes no log
//! line, fetches nothing, and leaves the handler answering as before. In its own test binary: a
//! thread-local subscriber shares tracing's callsite cache with whatever else runs in the process.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use host_runtime::dedupe::MemoryDedupe;
use host_runtime::events::ReleaseShipped;
use host_runtime::testing::TestHost;
use host_runtime::{Handler, HostEvent};
use host_sdk_tests::{Server, handler};
use http::Method;
use metrics_exporter_prometheus::PrometheusBuilder;
use serde_json::json;

mod logs;
use logs::Captured;

fn host() -> TestHost {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    host
}

/// A `release.shipped` delivery with a valid token.
fn delivery(host: &TestHost, event_id: &str) -> http::Request<bytes::Bytes> {
    let release = serde_json::to_value(<ReleaseShipped as HostEvent>::example()).unwrap();
    let body = host.event_body("release.shipped", release);
    let mut request = host.request(Method::POST, "/host/events", Some(&body));
    request
        .headers_mut()
        .insert("x-host-event-id", event_id.parse().unwrap());
    request
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn warming_refuses_one_delivery_and_records_logs_and_runs_nothing() {
    let (captured, _guard) = Captured::install(tracing::Level::TRACE);
    let recorder = PrometheusBuilder::new().build_recorder();
    let metrics = recorder.handle();

    let host = host();
    let server = Arc::new(Server::default());
    let handler: Handler = handler(Arc::clone(&server))
        .with_jwks(host.jwks())
        .with_dedupe_store(MemoryDedupe::new());
    let ran = metrics::with_local_recorder(&recorder, || handler.warm());
    assert_eq!(ran, 1, "one key, one algorithm: one refused delivery");
    assert_eq!(captured.text(), "", "warming wrote a log line");
    let rendered = metrics.render();
    assert!(!rendered.contains("host_"), "warming recorded: {rendered}");

    // The same capture sees a refused delivery made as a call: the checks above can fail.
    let mut forged = delivery(&host, "evt_forged");
    let token = forged.headers()["authorization"]
        .to_str()
        .unwrap()
        .to_owned();
    let forged_token = format!("{}AAAA", &token[..token.len() - 4]);
    forged
        .headers_mut()
        .insert("authorization", forged_token.parse().unwrap());
    let status = metrics::with_local_recorder(&recorder, || {
        runtime().block_on(handler.handle(forged)).status()
    });
    assert_eq!(status, 401);
    assert!(
        captured.text().contains("host call answered"),
        "{}",
        captured.text()
    );
    assert!(
        metrics.render().contains("host_token_refusals_total"),
        "{}",
        metrics.render()
    );

    // Nothing of the extension ran, and the handler answers as before.
    let rt = runtime();
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 0);
    assert_eq!(
        rt.block_on(host.send(&handler, delivery(&host, "evt_1")))
            .status,
        204
    );
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
    let body = host.call_body(json!({ "keyword": "notes" }));
    let call = host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body));
    assert_eq!(rt.block_on(host.send(&handler, call)).status, 200);
}

/// A key set URL nobody answers at, and how many connections it was asked.
fn unanswered_url() -> (String, TcpListener) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!(
        "http://{}/.well-known/jwks.json",
        listener.local_addr().unwrap()
    );
    (url, listener)
}

/// The keyword tracker trusting the key set at `url`.
fn trusting(url: String) -> Handler {
    handler(Arc::new(Server::default()))
        .try_with_jwks_url(url)
        .unwrap()
        .with_dedupe_store(MemoryDedupe::new())
}

fn connections(listener: &TcpListener) -> usize {
    std::iter::from_fn(|| listener.accept().ok()).count()
}

#[test]
fn warming_fetches_nothing_and_runs_only_with_keys_in_hand() {
    let host = host();
    // Keys to be fetched: checking a token would fetch them, so nothing runs.
    let (url, listener) = unanswered_url();
    let fetched = trusting(url);
    assert_eq!(fetched.warm(), 0);
    assert_eq!(connections(&listener), 0);

    // The same with a copy of the key set given to the process: it runs, and fetches nothing.
    let (url, listener) = unanswered_url();
    host_runtime::auth::preload_key_set(&url, &host.jwks()).unwrap();
    let copied = trusting(url);
    assert_eq!(copied.warm(), 1);
    assert_eq!(connections(&listener), 0);
    // The copy is what the next call is checked against.
    let delivered = runtime().block_on(host.send(&copied, delivery(&host, "evt_1")));
    assert_eq!(delivered.status, 204);
    assert_eq!(connections(&listener), 0);
}
