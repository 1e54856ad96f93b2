//! Every code of [`ErrorCode`] answered by a real handler, each through the situation that calls for
//! it, with its status (and `Retry-After` where the code promises one). A code added to the enum
//! without a scenario here fails the test.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;
use host_runtime::dedupe::{Claim, DedupeStore, StoreError, StoreErrorKind};
use host_runtime::testing::{TestHost, TestResponse};
use host_runtime::{BoxFuture, ErrorCode, Handler, HostEvent};
use host_sdk_tests::{Server, handler};
use http::Method;
use serde_json::json;

/// A procedure whose Rust output type cannot carry its schema's `pattern`: the runtime checks it.
mod labels {
    host_runtime::host_extension!("manifests/error-codes/host.extension.json");

    /// Answers whatever label it is told to.
    pub(crate) struct Labels;

    impl Tools for Labels {
        async fn echo(
            &self,
            call: ToolCall<tools::echo::Input>,
        ) -> Result<host_runtime::answer::Value, host_runtime::HostError> {
            Ok(host_runtime::answer::Value::new(
                call.input.text.len() as f64
            ))
        }

        async fn tags(
            &self,
            call: ToolCall<tools::tags::Input>,
        ) -> Result<host_runtime::answer::Value, host_runtime::HostError> {
            Ok(host_runtime::answer::Value::new(
                call.input.tags.len() as f64
            ))
        }

        async fn announce(
            &self,
            _call: ToolCall<tools::announce::Input>,
        ) -> Result<host_runtime::answer::Value, host_runtime::HostError> {
            // What the outbox answers a send whose id another event with other content holds
            // (the outbox's own tests drive that on every store), through `?`.
            Err(host_runtime::outbox::SendError::Conflict {
                id: "release-1.2.0".into(),
            })?
        }
    }

    impl Procedures for Labels {
        async fn label(
            &self,
            call: ProcedureCall<procedures::label::Input>,
        ) -> Result<procedures::label::Output, host_runtime::HostError> {
            Ok(call.input.text.clone())
        }
    }
}

fn keyword_tracker() -> (TestHost, Handler, Arc<Server>) {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    let server = Arc::new(Server {
        keywords: vec!["notes".into()],
        ..Server::default()
    });
    let handler = host.configure(handler(server.clone()));
    (host, handler, server)
}

/// A deduplication store that cannot be reached.
struct Unreachable;

impl DedupeStore for Unreachable {
    fn claim<'a>(
        &'a self,
        _key: &'a str,
        _owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async {
            Err(StoreError::new(
                "test",
                StoreErrorKind::Unavailable,
                "connection refused",
            ))
        })
    }
    fn complete<'a>(&'a self, _key: &'a str, _owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    fn release<'a>(&'a self, _key: &'a str, _owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

fn release_shipped() -> serde_json::Value {
    serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap()
}

/// A `POST` to `path` whose body never finishes arriving, read through the handler as `serve` reads
/// it.
async fn stalled(host: &TestHost, handler: Handler, path: &str) -> TestResponse {
    use tower::ServiceExt as _;
    let handler = handler.with_body_timeout(std::time::Duration::from_millis(100));
    let request = host.request(Method::POST, path, None).map(|_| NeverEnds);
    let response = handler.oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    TestResponse {
        status,
        json: serde_json::from_slice(&body).unwrap_or_default(),
        body,
        headers,
    }
}

/// Drives the handler into answering `code`.
async fn reach(code: ErrorCode) -> TestResponse {
    let (host, handler, server) = keyword_tracker();
    let tool = "/host/tools/keyword-ranks";
    let input = json!({ "keyword": "notes" });
    match code {
        ErrorCode::Unauthorized => {
            let mut request = host.request(Method::POST, tool, Some(&host.call_body(input)));
            request.headers_mut().remove(http::header::AUTHORIZATION);
            host.send(&handler, request).await
        }
        ErrorCode::InstallMismatch => {
            let mut body = host.call_body(input);
            body["install"]["id"] = json!("ins_someone_else");
            host.send(&handler, host.request(Method::POST, tool, Some(&body)))
                .await
        }
        ErrorCode::ScopeMissing => {
            let mut host = host;
            host.scopes.retain(|s| s != "ai:tools");
            host.call_tool(&handler, "keyword-ranks", input).await
        }
        ErrorCode::NotFound => host.call_tool(&handler, "no-such-tool", input).await,
        ErrorCode::MethodNotAllowed => {
            host.send(&handler, host.request(Method::GET, tool, None))
                .await
        }
        ErrorCode::PayloadTooLarge => {
            let handler = handler.with_body_limit(1024);
            let mut request = host.request(Method::POST, tool, None);
            *request.body_mut() = Bytes::from(vec![b' '; 2048]);
            host.send(&handler, request).await
        }
        ErrorCode::RequestTimeout => stalled(&host, handler, tool).await,
        ErrorCode::EventBodyTimeout => stalled(&host, handler, "/host/events").await,
        ErrorCode::BadRequest => {
            let mut request = host.request(Method::POST, tool, None);
            *request.body_mut() = Bytes::from_static(b"{not json");
            host.send(&handler, request).await
        }
        ErrorCode::InputInvalid => {
            host.call_tool(&handler, "keyword-ranks", json!({ "keyword": 5 }))
                .await
        }
        ErrorCode::EventNotSubscribed => {
            host.deliver(&handler, "price.changed", json!({}), "evt_1")
                .await
        }
        ErrorCode::ToolResponseInvalid => {
            server.behaviour.bad_answers.store(true, Ordering::SeqCst);
            host.call_tool(&handler, "top-movers", json!({})).await
        }
        ErrorCode::MentionResponseInvalid => {
            // A keyword that is empty becomes an item with an empty id and label.
            let server = Server {
                keywords: vec!["notes".into(), String::new()],
                ..Server::default()
            };
            let handler = host.configure(host_sdk_tests::handler(server));
            let ok = host.call_mention(&handler, "keyword", "notes").await;
            assert_eq!(ok.status, 200, "{}", ok.json);
            host.call_mention(&handler, "keyword", "").await
        }
        ErrorCode::ProcedureResponseInvalid => {
            let host = TestHost::new("error-codes");
            let handler = host.configure(labels::handler(labels::Labels));
            let ok = host
                .call_procedure(&handler, "label", json!({ "text": "ok-fine" }))
                .await;
            assert_eq!((ok.status, &ok.json), (200, &json!("ok-fine")));
            host.call_procedure(&handler, "label", json!({ "text": "not ok" }))
                .await
        }
        ErrorCode::ContextTooLarge => {
            server.behaviour.bad_answers.store(true, Ordering::SeqCst);
            host.call_context(&handler, "tracked-keywords").await
        }
        ErrorCode::ToolResponseTooLarge => {
            // 12,000 keywords of 100 characters: a list card of about 1.4 MB.
            let server = Server {
                keywords: (0..12_000).map(|i| format!("{i:0>100}")).collect(),
                ..Server::default()
            };
            let handler = host.configure(host_sdk_tests::handler(server));
            host.call_tool(&handler, "keyword-ideas", json!({ "seed": "notes" }))
                .await
        }
        ErrorCode::ToolTimeout => {
            let handler = handler.with_tool_deadline(Duration::from_millis(50));
            server.behaviour.delay_ms.store(2_000, Ordering::SeqCst);
            host.call_tool(&handler, "keyword-ranks", input).await
        }
        ErrorCode::Internal => {
            server.behaviour.panic.store(true, Ordering::SeqCst);
            host.call_tool(&handler, "keyword-ranks", input).await
        }
        ErrorCode::UnsupportedMediaType => {
            let mut request = host.request(Method::POST, tool, Some(&host.call_body(input)));
            request.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("text/plain"),
            );
            host.send(&handler, request).await
        }
        ErrorCode::MetricsResponseInvalid => {
            server.behaviour.bad_answers.store(true, Ordering::SeqCst);
            let body = host.call_body(json!({ "metrics": ["average_rank"], "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z" }));
            host.send(
                &handler,
                host.request(Method::POST, "/host/metrics", Some(&body)),
            )
            .await
        }
        ErrorCode::WorkResponseInvalid => {
            let host = TestHost::new("issue-bridge");
            let handler = host.configure(host_sdk_tests::work_tracker::handler(
                host_sdk_tests::work_tracker::Tracker,
            ));
            let item = json!({ "kind": "issue", "container": "prj-insecure", "title": "Crash" });
            host.send(
                &handler,
                host.request(
                    Method::POST,
                    "/host/work/items",
                    Some(&host.call_body(item)),
                ),
            )
            .await
        }
        ErrorCode::HandlerTimeout => {
            let handler = handler.with_handler_deadline(Duration::from_millis(50));
            server
                .behaviour
                .event_delay_ms
                .store(2_000, Ordering::SeqCst);
            host.deliver(&handler, "release.shipped", release_shipped(), "evt_1")
                .await
        }
        ErrorCode::KeysUnavailable => {
            let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let url = format!("http://{}/jwks.json", closed.local_addr().unwrap());
            drop(closed);
            let handler = handler.with_jwks_url(url);
            host.deliver(&handler, "release.shipped", release_shipped(), "evt_1")
                .await
        }
        ErrorCode::EventInFlight => {
            let handler = handler.with_event_wait(Duration::from_millis(50));
            server.behaviour.event_delay_ms.store(500, Ordering::SeqCst);
            let host = Arc::new(host);
            let first = {
                let (host, handler) = (host.clone(), handler.clone());
                tokio::spawn(async move {
                    host.deliver(&handler, "release.shipped", release_shipped(), "evt_1")
                        .await
                })
            };
            tokio::time::sleep(Duration::from_millis(50)).await;
            let duplicate = host
                .deliver(&handler, "release.shipped", release_shipped(), "evt_2")
                .await;
            assert_eq!(first.await.unwrap().status, 204);
            duplicate
        }
        ErrorCode::DedupeUnavailable => {
            let handler = handler.with_dedupe_store(Unreachable);
            host.deliver(&handler, "release.shipped", release_shipped(), "evt_1")
                .await
        }
        ErrorCode::PatternBudgetSpent => {
            let host = TestHost::new("error-codes");
            let handler = host.configure(labels::handler(labels::Labels));
            // Each costly tag is valid and costs the backtracking engine tens of thousands of
            // steps: thousands of them cannot be read to the end within the budget.
            // A few cheap tags are read to the end on any machine.
            let few = host
                .call_tool(&handler, "tags", json!({ "tags": ["abc", "ac"] }))
                .await;
            assert_eq!(few.status, 200, "{}", few.json);
            let tag = format!("{}c", "a".repeat(16));
            host.call_tool(&handler, "tags", json!({ "tags": vec![tag; 4000] }))
                .await
        }
        ErrorCode::EventIdConflict => {
            let host = TestHost::new("error-codes");
            let handler = host.configure(labels::handler(labels::Labels));
            host.call_tool(&handler, "announce", json!({})).await
        }
        other => panic!("no scenario reaches {other}: add one to this test"),
    }
}

#[tokio::test]
async fn every_error_code_is_reached_with_its_status() {
    for &code in ErrorCode::ALL {
        let r = reach(code).await;
        assert_eq!(
            (r.status, r.error_code()),
            (code.status(), Some(code.as_str())),
            "{code}: {}",
            r.json
        );
        let message = r.json["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{code} answers a message");
        if matches!(
            code,
            ErrorCode::EventInFlight
                | ErrorCode::DedupeUnavailable
                | ErrorCode::KeysUnavailable
                | ErrorCode::EventBodyTimeout
                | ErrorCode::PatternBudgetSpent
        ) {
            assert!(
                r.headers.contains_key(http::header::RETRY_AFTER),
                "{code} says when to retry"
            );
        }
    }
}

/// The error-code table of the interface page (`host-runtime/docs/interface.md`, the table after
/// `<!-- anchor: error-codes -->`) lists exactly the codes of the enum, with their statuses. The
/// anchor is looked for in every page of host-runtime's docs and in the README, and must be there
/// once: the table has one home.
#[test]
fn the_docs_list_every_code() {
    let (page, lines) = host_sdk_tests::docs::after_anchor("error-codes");
    let listed: Vec<(String, u16)> = lines
        .iter()
        .skip_while(|line| line.trim().is_empty())
        .take_while(|line| line.trim_start().starts_with('|'))
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let code = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((code.to_owned(), cells.get(2)?.parse().ok()?))
        })
        .collect();
    let expected: Vec<(String, u16)> = ErrorCode::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), c.status()))
        .collect();
    assert_eq!(listed, expected, "{}'s error-code table", page.display());
}

/// A request body whose next bytes never come.
struct NeverEnds;

impl hyper::body::Body for NeverEnds {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        std::task::Poll::Pending
    }
}

/// Over HTTP, on the native server: thousands of valid strings under a costly pattern stop the
/// check at the pattern budget, which is a retryable `503` with `Retry-After`, never a final `422`;
/// a few cheap strings under the same pattern are read to the end and answered. (How many costly
/// ones fit in the budget depends on the machine: in a debug build under load, three did not.)
#[tokio::test]
async fn a_spent_pattern_budget_is_retryable_over_http() {
    let host = TestHost::new("error-codes");
    let handler = host.configure(labels::handler(labels::Labels));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(handler.serve_on(listener));
    let tags = |tags: Vec<String>| {
        let body = host.call_body(json!({ "tags": tags }));
        host.request(Method::POST, "/host/tools/tags", Some(&body))
    };
    let cheap = vec!["abc".to_owned(), "ac".to_owned(), "xyz".to_owned()];
    let few = host.send_http(&base, tags(cheap)).await.unwrap();
    assert_eq!(
        (few.status, &few.json["value"]),
        (200, &json!(3.0)),
        "{}",
        few.json
    );
    let costly = vec![format!("{}c", "a".repeat(16)); 4000];
    let many = host.send_http(&base, tags(costly)).await.unwrap();
    assert_eq!(
        (many.status, many.error_code()),
        (503, Some("PATTERN_BUDGET_SPENT")),
        "{}",
        many.json
    );
    assert_eq!(many.headers[http::header::RETRY_AFTER], "5");
    let message = many.json["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("100 ms") && message.contains("call again"),
        "{message}"
    );
}
