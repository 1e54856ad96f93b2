//! The AWS Lambda adapter against recorded events of each kind the function can be invoked with:
//! an API Gateway REST API (payload v1) and an HTTP API (payload v2), both on a `prod` stage, and
//! a Function URL. Each event in `tests/lambda-events` is a recording with its request line,
//! headers and body replaced; it is parsed by the Lambda runtime's own HTTP layer, as in a
//! deployed function, and answered by `host_runtime::lambda::respond`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use host_runtime::HostEvent;
use host_runtime::lambda::lambda_http::{self, Body};
use host_runtime::testing::TestHost;
use host_sdk_tests::{Server, handler};
use serde_json::{Value, json};

/// How the function is invoked.
#[derive(Debug, Clone, Copy)]
enum Kind {
    RestV1,
    HttpV2,
    FunctionUrl,
}

const KINDS: [Kind; 3] = [Kind::RestV1, Kind::HttpV2, Kind::FunctionUrl];

/// The recorded event of `kind`, made into `method path` with `headers` and `body`.
fn event(
    kind: Kind,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Option<String>,
) -> lambda_http::Request {
    let file = match kind {
        Kind::RestV1 => "rest-v1.json",
        Kind::HttpV2 => "http-v2.json",
        Kind::FunctionUrl => "function-url.json",
    };
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("lambda-events")
            .join(file),
    )
    .unwrap();
    let mut e: Value = serde_json::from_str(&text).unwrap();
    match kind {
        Kind::RestV1 => {
            e["path"] = json!(path);
            e["httpMethod"] = json!(method);
            e["requestContext"]["httpMethod"] = json!(method);
            // What API Gateway records: the stage in front of the resource path.
            e["requestContext"]["path"] = json!(format!("/prod{path}"));
            e["pathParameters"]["proxy"] = json!(path.trim_start_matches('/'));
            for (name, value) in headers {
                e["headers"][*name] = json!(value);
                e["multiValueHeaders"][*name] = json!([value]);
            }
        }
        Kind::HttpV2 | Kind::FunctionUrl => {
            let raw = match kind {
                Kind::HttpV2 => format!("/prod{path}"),
                _ => path.to_owned(),
            };
            e["rawPath"] = json!(raw);
            e["requestContext"]["http"]["method"] = json!(method);
            e["requestContext"]["http"]["path"] = json!(raw);
            for (name, value) in headers {
                e["headers"][name.to_ascii_lowercase()] = json!(value);
            }
        }
    }
    if let Some(body) = body {
        e["body"] = json!(body);
    }
    lambda_http::request::from_str(&e.to_string()).unwrap()
}

struct Answer {
    status: u16,
    json: Value,
}

async fn answer(handler: &host_runtime::Handler, request: lambda_http::Request) -> Answer {
    let response = host_runtime::lambda::respond(handler, request).await;
    let status = response.status().as_u16();
    let json = match response.body() {
        Body::Text(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        Body::Binary(bytes) => serde_json::from_slice(bytes).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    Answer { status, json }
}

/// A `POST` of `body` to `path` with `token`, as the `kind` of invocation delivers it.
async fn post(
    handler: &host_runtime::Handler,
    kind: Kind,
    path: &str,
    token: &str,
    extra: &[(&str, String)],
    body: &str,
) -> Answer {
    let mut headers = vec![
        ("Authorization", format!("Bearer {token}")),
        ("Content-Type", "application/json".to_owned()),
    ];
    headers.extend(extra.iter().cloned());
    answer(
        handler,
        event(kind, "POST", path, &headers, Some(body.to_owned())),
    )
    .await
}

fn setup() -> (TestHost, host_runtime::Handler, Arc<Server>) {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    let server = Arc::new(Server {
        keywords: vec!["notes".into()],
        ..Server::default()
    });
    let handler = host.configure(handler(server.clone()));
    (host, handler, server)
}

#[tokio::test]
async fn health_answers_through_every_kind_of_invocation() {
    let (_, handler, _) = setup();
    for kind in KINDS {
        let r = answer(&handler, event(kind, "GET", "/host/health", &[], None)).await;
        assert_eq!(r.status, 200, "{kind:?}: {}", r.json);
        assert_eq!(r.json["status"], "ok", "{kind:?}");
        assert_eq!(r.json["extensionId"], "keyword-tracker", "{kind:?}");
    }
}

#[tokio::test]
async fn a_tool_call_answers_and_a_forged_token_is_refused() {
    let (host, handler, _) = setup();
    let body = host
        .call_body(json!({ "keyword": "notes", "days": 3 }))
        .to_string();
    let tool = "/host/tools/keyword-ranks";
    for kind in KINDS {
        let r = post(&handler, kind, tool, &host.token(), &[], &body).await;
        assert_eq!(r.status, 200, "{kind:?}: {}", r.json);
        assert!(r.json["series"].is_array(), "{kind:?}: {}", r.json);

        // Signed by another key than the one the handler trusts.
        let forged = TestHost::new("keyword-tracker").token();
        let r = post(&handler, kind, tool, &forged, &[], &body).await;
        assert_eq!(r.status, 401, "{kind:?}: {}", r.json);
        assert_eq!(r.json["error"]["code"], "UNAUTHORIZED", "{kind:?}");
    }
}

#[tokio::test]
async fn an_event_delivered_twice_runs_once() {
    for kind in KINDS {
        let (host, handler, server) = setup();
        let payload =
            serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
        let body = host.event_body("release.shipped", payload).to_string();
        for attempt in ["evt_first", "evt_retry"] {
            let id = [("X-Host-Event-Id", attempt.to_owned())];
            let r = post(&handler, kind, "/host/events", &host.token(), &id, &body).await;
            assert_eq!(r.status, 204, "{kind:?} {attempt}: {}", r.json);
        }
        assert_eq!(
            server.behaviour.releases_handled.load(Ordering::SeqCst),
            1,
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_before_anything_else() {
    let (host, handler, _) = setup();
    let handler = handler.with_body_limit(64 * 1024);
    let big = json!({ "input": { "keyword": "x".repeat(100 * 1024) } }).to_string();
    for kind in KINDS {
        let tool = "/host/tools/keyword-ranks";
        let r = post(&handler, kind, tool, &host.token(), &[], &big).await;
        assert_eq!(r.status, 413, "{kind:?}: {}", r.json);
        assert_eq!(r.json["error"]["code"], "PAYLOAD_TOO_LARGE", "{kind:?}");
    }
}

#[tokio::test]
async fn a_path_outside_the_stage_is_not_stripped() {
    let (_, handler, _) = setup();
    // `/production/...` on the `prod` stage: not the stage, so no such route.
    let r = answer(
        &handler,
        event(
            Kind::FunctionUrl,
            "GET",
            "/production/host/health",
            &[],
            None,
        ),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.json);
}
