//! Host calls are traced (route, install, outcome, duration) and no token or credential reaches the
//! logs. In its own test binary: a thread-local subscriber shares tracing's callsite cache with
//! whatever else runs in the process.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::sync::Arc;

use host_runtime::testing::TestHost;
use host_sdk_tests::{Server, handler};
use http::Method;
use serde_json::json;

/// A writer that keeps everything the subscriber prints.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn calls_are_traced_without_tokens_or_secrets() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    let handler = host.configure(handler(Arc::new(Server::default())));
    let body = host.call_body(json!({ "keyword": "notes" }));
    let request = host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body));
    let token = request.headers()["authorization"]
        .to_str()
        .unwrap()
        .trim_start_matches("Bearer ")
        .to_owned();
    assert_eq!(host.send(&handler, request).await.status, 200);
    let mut bad = host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body));
    bad.headers_mut()
        .insert("authorization", format!("Bearer {token}x").parse().unwrap());
    assert_eq!(host.send(&handler, bad).await.status, 401);
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("route=\"tools/keyword-ranks\"")
            || logs.contains("route=tools/keyword-ranks"),
        "{logs}"
    );
    assert!(
        logs.contains("install=ins_test_1") || logs.contains("install=\"ins_test_1\""),
        "{logs}"
    );
    assert!(
        logs.contains("outcome") && logs.contains("duration_ms"),
        "{logs}"
    );
    assert!(!logs.contains(&token[..40]), "a token reached the logs");
    assert!(
        !logs.contains("kt_live_123"),
        "a credential reached the logs"
    );
}
