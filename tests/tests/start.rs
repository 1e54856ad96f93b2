//! The stores a manifest needs are checked when a server starts, not when the first event arrives:
//! every way of serving a handler whose manifest subscribes to events refuses to start without a
//! deduplication store, naming the fix; development mode fills it in and says so; a handler that
//! was never checked refuses the delivery with a retryable 503, so nothing is lost.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use host_runtime::dedupe::MemoryDedupe;
use host_runtime::testing::TestHost;
use host_runtime::{Handler, HostEvent, StartError};
use host_sdk_tests::{Server, handler};

/// The example extension (it subscribes to seven host events), trusting `host`'s key set, with no
/// store chosen and not in development mode: what a server upgraded from the release before, that
/// never chose a store, builds.
fn unchosen(host: &TestHost) -> (Handler, Arc<Server>) {
    let server = Arc::new(Server::default());
    let handler = handler(Arc::clone(&server)).with_jwks(host.jwks());
    (handler, server)
}

/// The example's host, with the credentials its calls need.
fn host() -> TestHost {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = serde_json::json!({ "api_key": "kt_live_123" });
    host
}

fn release() -> serde_json::Value {
    serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap()
}

/// The message names the extension, its events, and both ways out.
fn assert_names_the_fix(message: &str) {
    for part in [
        "`keyword-tracker` subscribes to host events",
        "release.shipped",
        "install.created",
        "Handler::with_dedupe_store",
        "Handler::with_development_defaults()",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

#[test]
fn a_server_subscribing_to_events_without_a_dedupe_store_does_not_start() {
    let host = host();
    let (handler, _) = unchosen(&host);
    let refused = handler.check_start().unwrap_err();
    assert!(
        matches!(refused, StartError::NoDedupeStore { .. }),
        "{refused:?}"
    );
    assert_names_the_fix(&refused.to_string());
    assert!(!handler.is_development());
}

#[tokio::test]
async fn serve_refuses_before_it_accepts_a_connection() {
    let host = host();
    let (handler, _) = unchosen(&host);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // It returns at once, whatever the shutdown signal does.
    let served = tokio::time::timeout(
        Duration::from_secs(5),
        handler.serve_until(listener, std::future::pending()),
    )
    .await
    .expect("serve returned instead of serving");
    let refused = served.unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
    assert_names_the_fix(&refused.to_string());
    // The listener was dropped, not served: nothing answers on its port.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
    // `serve` on an address refuses the same way, before binding it.
    let (handler, _) = unchosen(&host);
    let refused = handler
        .serve("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap_err();
    assert_names_the_fix(&refused.to_string());
}

#[test]
fn into_router_refuses_with_the_same_error() {
    let host = host();
    let (handler, _) = unchosen(&host);
    let refused = handler.into_router().unwrap_err();
    assert_names_the_fix(&refused.to_string());
}

#[tokio::test]
async fn the_lambda_adapter_fails_its_init_instead_of_running() {
    let host = host();
    let (handler, _) = unchosen(&host);
    // Outside Lambda the init error cannot be reported (no runtime API); `run` still returns the
    // refusal instead of polling for invocations.
    let ran = tokio::time::timeout(Duration::from_secs(10), host_runtime::lambda::run(handler))
        .await
        .expect("run returned");
    assert_names_the_fix(&ran.unwrap_err().to_string());
}

#[tokio::test]
async fn an_unchecked_handler_refuses_deliveries_with_a_retryable_503_and_runs_nothing() {
    let host = host();
    let (handler, server) = unchosen(&host);
    let r = host
        .deliver(&handler, "release.shipped", release(), "evt_1")
        .await;
    r.assert_error(503, "DEDUPE_UNAVAILABLE");
    assert!(
        r.headers.contains_key("retry-after"),
        "the host is told when to retry"
    );
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 0);
    // Calls that need no store are answered as before.
    let r = host
        .call_tool(&handler, "visibility-score", serde_json::json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
}

#[tokio::test]
async fn a_chosen_store_starts_and_is_the_one_used() {
    let host = host();
    let (handler, server) = unchosen(&host);
    let store = Arc::new(MemoryDedupe::new());
    // Chosen before development mode: development mode keeps it.
    let handler = handler
        .with_dedupe_store(Arc::clone(&store))
        .with_development_defaults();
    handler.check_start().unwrap();
    for id in ["evt_1", "evt_2"] {
        let r = host
            .deliver(&handler, "release.shipped", release(), id)
            .await;
        assert_eq!(r.status, 204, "{}", r.json);
    }
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
    assert_eq!(store.len(), 1, "the key is in the chosen store");
}

#[tokio::test]
async fn development_defaults_start_deduplicate_and_give_way_to_a_later_choice() {
    let host = host();
    let (handler, server) = unchosen(&host);
    let handler = handler.with_development_defaults();
    assert!(handler.is_development());
    handler.check_start().unwrap();
    let _router = handler.clone().into_router().unwrap();
    for id in ["evt_1", "evt_2"] {
        let r = host
            .deliver(&handler, "release.shipped", release(), id)
            .await;
        assert_eq!(r.status, 204, "{}", r.json);
    }
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
    // A store chosen after development mode replaces the embedded one.
    let store = Arc::new(MemoryDedupe::new());
    let handler = handler.with_dedupe_store(Arc::clone(&store));
    let mut payload = release();
    payload["releaseId"] = "rel_another".into();
    let r = host
        .deliver(&handler, "release.shipped", payload, "evt_3")
        .await;
    assert_eq!(r.status, 204, "{}", r.json);
    assert_eq!(store.len(), 1);
}

#[test]
fn a_manifest_without_events_needs_no_dedupe_store() {
    let host = TestHost::new("work-tracker");
    let handler = host_sdk_tests::work_tracker::handler(host_sdk_tests::work_tracker::Tracker)
        .with_jwks(host.jwks());
    handler.check_start().unwrap();
    let _router = handler.into_router().unwrap();
}

#[tokio::test]
async fn the_test_host_configures_development_defaults() {
    let host = host();
    let server = Arc::new(Server::default());
    let handler = host.configure(handler(Arc::clone(&server)));
    assert!(handler.is_development());
    handler.check_start().unwrap();
}

#[tokio::test]
async fn reporting_an_init_error_outside_lambda_is_an_error_not_a_panic() {
    let outside = host_runtime::lambda::report_init_error("no store")
        .await
        .unwrap_err();
    assert!(
        outside.to_string().contains("AWS_LAMBDA_RUNTIME_API"),
        "{outside}"
    );
}
