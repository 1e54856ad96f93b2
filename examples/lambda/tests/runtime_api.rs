//! The example function run as Lambda runs it: the binary started with `AWS_LAMBDA_RUNTIME_API`
//! pointing at a stand-in Runtime API, invoked with Function URL events, its answers read back from
//! what it posted. Event deduplication goes through DynamoDB (moto's emulator) when it is installed.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

mod common;

use std::time::Duration;

use common::{Outcome, RuntimeApi, function_url_event, http_answer, start_function, stop};
use host_runtime::HostEvent;
use host_runtime::testing::TestHost;
use serde_json::{Value, json};

/// The function with its outbox in memory (`HOST_OUTBOX=memory`, for tests), unless `env` names
/// another.
fn start(api: &RuntimeApi, env: &[(&str, String)]) -> std::process::Child {
    let mut all = vec![("HOST_OUTBOX", "memory".to_owned())];
    all.extend(env.iter().cloned());
    start_function(api, &all)
}

fn host() -> TestHost {
    // The example runs in development mode here: it trusts the development key set.
    let mut host = TestHost::development("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    host
}

fn post(host: &TestHost, path: &str, token: &str, extra: &[(&str, String)], body: &Value) -> Value {
    let mut headers = vec![
        ("authorization", format!("Bearer {token}")),
        ("content-type", "application/json".to_owned()),
    ];
    headers.extend(extra.iter().cloned());
    let _ = host;
    function_url_event("POST", path, &headers, Some(&body.to_string()))
}

fn release_delivery(host: &TestHost, event_id: &str) -> Value {
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let body = host.event_body("release.shipped", payload);
    post(
        host,
        "/host/events",
        &host.token(),
        &[("x-host-event-id", event_id.to_owned())],
        &body,
    )
}

/// Waits up to 30 s for the function process to exit; panics if it keeps running. Not a thread
/// sleep: the stand-in Runtime API runs on the test's runtime, and a function that fails to start
/// waits for it to take the init error.
async fn exited(function: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = function.try_wait().unwrap() {
            return status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the function kept running"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn runs_of_release_handler(log: &str) -> usize {
    log.lines()
        .filter(|l| l.contains("release checked"))
        .count()
}

#[tokio::test]
async fn the_function_answers_calls_through_the_runtime_api() {
    let moto = common::start_moto();
    let api = RuntimeApi::start().await;
    let mut env = Vec::new();
    if let Some(moto) = &moto {
        common::store(moto, "calls").create_table().await.unwrap();
        env = moto.env();
        env.push(("HOST_DEDUPE_TABLE", "calls".to_owned()));
    }
    let function = start(&api, &env);
    let host = host();

    let (status, body) = http_answer(
        &api.call(function_url_event("GET", "/host/health", &[], None))
            .await,
    );
    assert_eq!((status, &body["status"]), (200, &json!("ok")), "{body}");

    let call = host.call_body(json!({ "keyword": "habit tracker", "days": 3 }));
    let tool = "/host/tools/keyword-ranks";
    let (status, body) = http_answer(&api.call(post(&host, tool, &host.token(), &[], &call)).await);
    assert_eq!(status, 200, "{body}");
    assert!(body["series"].is_array(), "{body}");

    // Signed by a key the function does not trust.
    let forged = TestHost::new("keyword-tracker").token();
    let (status, body) = http_answer(&api.call(post(&host, tool, &forged, &[], &call)).await);
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["code"], "UNAUTHORIZED");

    // The host retries with a new event id: the second delivery is answered without running.
    for attempt in ["evt_first", "evt_retry"] {
        let (status, body) = http_answer(&api.call(release_delivery(&host, attempt)).await);
        assert_eq!(status, 204, "{attempt}: {body}");
    }
    let log = stop(function);
    assert_eq!(runs_of_release_handler(&log), 1, "{log}");
    assert!(api.init_errors().is_empty());
}

#[tokio::test]
async fn two_instances_receiving_the_same_delivery_run_it_once() {
    let Some(moto) = common::start_moto() else {
        return;
    };
    common::store(&moto, "instances")
        .create_table()
        .await
        .unwrap();
    let api = RuntimeApi::start().await;
    let mut env = moto.env();
    env.push(("HOST_DEDUPE_TABLE", "instances".to_owned()));
    // Two processes, as two Lambda instances of the function are.
    let a = start(&api, &env);
    let b = start(&api, &env);
    api.until_polling(2).await;
    let host = host();
    // Both take one delivery of the same release at once (the host retried with a new id).
    let first = api.invoke(release_delivery(&host, "evt_1"));
    let second = api.invoke(release_delivery(&host, "evt_2"));
    for answer in [first, second] {
        let outcome = tokio::time::timeout(Duration::from_secs(30), answer)
            .await
            .unwrap()
            .unwrap();
        let (status, body) = http_answer(&outcome);
        assert_eq!(status, 204, "{body}");
    }
    let (log_a, log_b) = (stop(a), stop(b));
    assert_eq!(
        runs_of_release_handler(&log_a) + runs_of_release_handler(&log_b),
        1,
        "instance a:\n{log_a}\ninstance b:\n{log_b}"
    );
}

#[tokio::test]
async fn a_missing_table_stops_the_function_at_start_saying_how_to_create_it() {
    let Some(moto) = common::start_moto() else {
        return;
    };
    let api = RuntimeApi::start().await;
    let mut env = moto.env();
    env.push(("HOST_DEDUPE_TABLE", "never-created".to_owned()));
    let mut function = start(&api, &env);
    assert!(!exited(&mut function).await.success());
    let log = stop(function);
    assert!(
        log.contains("table `never-created` does not exist"),
        "{log}"
    );
    assert!(
        log.contains("aws dynamodb create-table --table-name never-created"),
        "{log}"
    );
    let reported = api.init_errors();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0]["errorType"], "Runtime.InitError");
    let message = reported[0]["errorMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("table `never-created` does not exist"),
        "{message}"
    );
}

#[tokio::test]
async fn a_bad_setting_is_reported_to_the_runtime_api_as_an_init_error() {
    let api = RuntimeApi::start().await;
    let mut function = start(&api, &[("HOST_SIGNING_SECRET", "not-a-secret".to_owned())]);
    assert!(!exited(&mut function).await.success());
    let log = stop(function);
    let reported = api.init_errors();
    assert_eq!(reported.len(), 1, "{reported:?}\n{log}");
    assert_eq!(reported[0]["errorType"], "Runtime.InitError");
    let message = reported[0]["errorMessage"].as_str().unwrap_or_default();
    assert!(message.contains("HOST_SIGNING_SECRET"), "{message}");
    assert!(
        log.contains(message),
        "the log must say what the Runtime API was told:\n{log}"
    );
    assert!(
        api.first_poll().is_none(),
        "a function that failed to start must not ask for an invocation"
    );
}

#[tokio::test]
async fn the_drain_handler_answers_a_scheduled_event_with_what_it_posted() {
    let api = RuntimeApi::start().await;
    let function = start(&api, &[("_HANDLER", "drain".to_owned())]);
    let scheduled = json!({
        "version": "0",
        "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-11-25T10:00:00Z",
        "region": "us-east-1",
        "resources": ["arn:aws:events:us-east-1:123456789012:rule/drain-outbox"],
        "detail": {}
    });
    let outcome = api.call(scheduled).await;
    let Outcome::Response(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        report,
        &json!({ "delivered": 0, "retrying": 0, "dead": 0, "more": false })
    );
    let log = stop(function);
    assert!(log.contains("outbox drained"), "{log}");
}

/// Without a durable outbox the function does not start: Lambda may freeze an instance for good
/// once it answers, and its events would go with it. The init error names the setting to set.
#[tokio::test]
async fn without_a_durable_outbox_the_function_stops_at_start_naming_the_fix() {
    let api = RuntimeApi::start().await;
    let mut function = start_function(&api, &[]);
    assert!(!exited(&mut function).await.success());
    let log = stop(function);
    assert!(log.contains("HOST_OUTBOX is not set"), "{log}");
    let reported = api.init_errors();
    assert_eq!(reported.len(), 1, "{reported:?}");
    let message = reported[0]["errorMessage"].as_str().unwrap_or_default();
    assert!(message.contains("redis://"), "{message}");
}

/// A stand-in for the host's event endpoint: answers every post with the status `answer` holds,
/// and counts posts by `webhook-id`.
async fn event_endpoint(
    answer: std::sync::Arc<std::sync::atomic::AtomicU16>,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<(String, u16)>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/events", listener.local_addr().unwrap());
    let posts = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&posts);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let (answer, seen) = (std::sync::Arc::clone(&answer), std::sync::Arc::clone(&seen));
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                let (head_end, length) = loop {
                    let n = stream.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                        let length: usize = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length: "))
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(0);
                        break (end, length);
                    }
                };
                while buf.len() < head_end + 4 + length {
                    let n = stream.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
                // Only event posts count: a stray request (a function of an earlier test polling
                // its Runtime API on a port the system has since given to this endpoint) is not
                // one.
                if !head.starts_with("post /v1/events ") {
                    let _ = stream
                        .write_all(
                            b"HTTP/1.1 404 X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                        )
                        .await;
                    return;
                }
                let id = head
                    .lines()
                    .find_map(|l| l.strip_prefix("webhook-id: "))
                    .unwrap_or_default()
                    .trim()
                    .to_owned();
                let status = answer.load(std::sync::atomic::Ordering::SeqCst);
                seen.lock().unwrap().push((id, status));
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    (url, posts)
}

/// The whole serverless path, with events the host does not take at first: the HTTP function
/// attempts every event its delivery produced before it answers (all refused with 503), leaves
/// them in Redis, and a drain function started afresh, as the schedule's next invocation, posts
/// each of them with the same id once the host takes them.
#[tokio::test]
async fn events_refused_during_the_invocation_are_posted_by_the_next_scheduled_drain() {
    let Some(redis) = host_test_support::RedisServer::start_or_skip() else {
        return;
    };
    let answer = std::sync::Arc::new(std::sync::atomic::AtomicU16::new(503));
    let (post_url, posts) = event_endpoint(std::sync::Arc::clone(&answer)).await;
    let env = vec![
        ("HOST_OUTBOX", redis.url()),
        ("HOST_EVENT_POST_URL", post_url),
    ];
    let api = RuntimeApi::start().await;
    let function = start_function(&api, &env);
    let (status, body) = http_answer(&api.call(release_delivery(&host(), "evt_1")).await);
    assert_eq!(status, 204, "{body}");
    // Attempted before the answer: the posts were made by the time the invocation answered.
    let refused: Vec<String> = posts
        .lock()
        .unwrap()
        .iter()
        .map(|(id, _)| id.clone())
        .collect();
    assert!(
        !refused.is_empty(),
        "no event was attempted before the answer"
    );
    let log = stop(function);
    assert!(log.contains("wait in the outbox"), "{log}");

    // The host takes events again; the schedule's next invocation, on a fresh instance.
    answer.store(200, std::sync::atomic::Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(1_200)).await; // the first retry's wait (1 s)
    let mut drain_env = env.clone();
    drain_env.push(("_HANDLER", "drain".to_owned()));
    let drainer = start_function(&api, &drain_env);
    let outcome = api
        .call(json!({ "detail-type": "Scheduled Event", "detail": {} }))
        .await;
    let Outcome::Response(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(report["delivered"], json!(refused.len()), "{report}");
    assert_eq!(report["retrying"], json!(0), "{report}");
    let delivered: Vec<String> = posts
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, status)| *status == 200)
        .map(|(id, _)| id.clone())
        .collect();
    let (mut a, mut b) = (refused.clone(), delivered);
    a.sort();
    b.sort();
    assert_eq!(a, b, "each refused event posted again with its id, once");
    stop(drainer);
}
