//! Host calls are traced (route, install, outcome, duration) and no token or credential reaches the
//! logs. In its own test binary: a thread-local subscriber shares tracing's callsite cache with
//! whatever else runs in the process.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::sync::Arc;

use host_runtime::testing::TestHost;
use host_sdk_tests::{Server, handler};
use http::Method;
use serde_json::json;

mod logs;
use logs::Captured;

#[tokio::test(flavor = "current_thread")]
async fn calls_are_traced_without_tokens_or_secrets() {
    let (captured, _guard) = Captured::install(tracing::Level::DEBUG);
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
    let logs = captured.text();
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

/// A host that answers each event by its id: `ok-...` 202, `refused-...` 400, any other 503.
struct ById;

impl host_runtime::client::HttpClient for ById {
    fn send(
        &self,
        request: http::Request<bytes::Bytes>,
        _max_body: usize,
    ) -> host_runtime::BoxFuture<
        '_,
        Result<http::Response<bytes::Bytes>, host_runtime::client::ClientError>,
    > {
        let id = request.headers()["webhook-id"].to_str().unwrap_or_default();
        let status = if id.starts_with("ok-") {
            202
        } else if id.starts_with("refused-") {
            400
        } else {
            503
        };
        let answer = http::Response::builder()
            .status(status)
            .body(bytes::Bytes::new())
            .unwrap();
        Box::pin(std::future::ready(Ok(answer)))
    }
}

/// Every send ends in one line of the log naming its event id and what became of it: delivered,
/// refused by the host, out of attempts, or not sent because another event holds its id.
#[tokio::test(flavor = "current_thread")]
async fn every_send_s_final_outcome_is_logged() {
    use host_runtime::outbox::{MemoryOutbox, RetryPolicy, SendError};
    use host_sdk_tests::{Webhooks, webhooks};
    use std::time::Duration;

    let (captured, _guard) = Captured::install(tracing::Level::INFO);
    let sender = host_runtime::EventSender::new(
        "https://events.host.example/v1",
        "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        MemoryOutbox::new(),
    )
    .unwrap()
    .with_http_client(host_runtime::client::Client::new(ById))
    .with_retry(RetryPolicy {
        attempts: 2,
        first_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(20),
        timeout: Duration::from_secs(2),
    });
    let hooks = Webhooks::new(sender);
    let drop_of = |why: &str| webhooks::rank_dropped::Payload {
        why: why.parse().unwrap(),
        country: Some("US".to_owned()),
        keyword: Some("notes".to_owned()),
        previous: None,
        current: None,
    };
    let send = |id: &str, why: &str| {
        let event = hooks.rank_dropped("ins_1", id, &drop_of(why)).unwrap();
        async move { event.send().await }
    };
    assert_eq!(send("ok-1", "Fell.").await, Ok(202));
    assert!(matches!(
        send("refused-1", "Fell.").await,
        Err(SendError::Rejected { status: 400, .. })
    ));
    assert!(matches!(
        send("down-1", "Fell.").await,
        Err(SendError::Exhausted { attempts: 2, .. })
    ));
    assert_eq!(
        send("ok-1", "Fell further.").await,
        Err(SendError::Conflict { id: "ok-1".into() })
    );
    let logs = captured.text();
    let line_of = |id: &str, words: &str| {
        logs.lines()
            .filter(|line| line.contains(&format!("event_id={id} ")) && line.contains(words))
            .count()
    };
    assert_eq!(line_of("ok-1", "event delivered"), 1, "{logs}");
    assert_eq!(line_of("refused-1", "dead letters"), 1, "{logs}");
    assert_eq!(line_of("down-1", "dead letters"), 1, "{logs}");
    assert_eq!(line_of("ok-1", "event not sent"), 1, "{logs}");
    assert!(
        logs.lines()
            .any(|line| line.contains("event not sent") && line.contains("taken by another event")),
        "{logs}"
    );
}
