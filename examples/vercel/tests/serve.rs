//! The function binary run by Vercel's Rust runtime, locally: `vercel_runtime::run` listens on
//! `VERCEL_DEV_PORT` (what `vercel dev` gives it) and each request goes through the conversion in
//! `api/host.rs` to the handler and back. Driven over HTTP with development tokens, as the host
//! would call the deployed function.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use host_runtime::HostEvent;
use host_runtime::testing::TestHost;
use serde_json::json;

/// The function, stopped when dropped.
struct Function {
    child: Child,
    url: String,
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Function {
    start_with(&[
        ("HOST_OUTBOX", "memory"),
        ("CRON_SECRET", "cron-secret-for-tests"),
    ])
}

fn start_with(env: &[(&str, &str)]) -> Function {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_host"))
        .env("VERCEL_DEV_PORT", port.to_string())
        .env_remove("VERCEL_IPC_PATH")
        .env_remove("HOST_MODE")
        .env_remove("HOST_JWKS_URL")
        .env_remove("HOST_OUTBOX")
        .env_remove("CRON_SECRET")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let ready = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(ready.contains(&port.to_string()), "{ready}");
    Function {
        child,
        url: format!("http://127.0.0.1:{port}"),
    }
}

fn host() -> TestHost {
    let mut host = TestHost::development("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_demo_key" });
    host
}

#[tokio::test]
async fn the_function_answers_the_host() {
    let function = start();
    let host = host();
    let send = |method: http::Method, path: &str, body: Option<serde_json::Value>| {
        let request = host.request(method, path, body.as_ref());
        host.send_http(&function.url, request)
    };

    let health = send(http::Method::GET, "/host/health", None).await.unwrap();
    assert_eq!(health.status, 200, "{}", health.json);
    assert_eq!(health.json["extensionId"], "keyword-tracker");

    let body = host.call_body(json!({ "keyword": "habit tracker", "days": 3 }));
    let ranks = send(
        http::Method::POST,
        "/host/tools/keyword-ranks",
        Some(body.clone()),
    )
    .await
    .unwrap();
    assert_eq!(ranks.status, 200, "{}", ranks.json);
    assert!(ranks.json["series"].is_array(), "{}", ranks.json);

    // No token: refused before any handler runs.
    let mut bare = host.request(http::Method::POST, "/host/tools/keyword-ranks", Some(&body));
    bare.headers_mut().remove(http::header::AUTHORIZATION);
    let refused = host.send_http(&function.url, bare).await.unwrap();
    assert_eq!(refused.status, 401, "{}", refused.json);

    // A release delivered twice with fresh event ids: 204 both times.
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let event = host.event_body("release.shipped", payload);
    for id in ["evt_v1", "evt_v2"] {
        let mut request = host.request(http::Method::POST, "/host/events", Some(&event));
        request
            .headers_mut()
            .insert("x-host-event-id", http::HeaderValue::from_static(id));
        let r = host.send_http(&function.url, request).await.unwrap();
        assert_eq!(r.status, 204, "{id}: {}", r.json);
    }

    // A body over the handler's 1 MiB limit.
    let big = json!({ "input": { "keyword": "x".repeat(1_100_000) } });
    let r = send(http::Method::POST, "/host/tools/keyword-ranks", Some(big))
        .await
        .unwrap();
    assert_eq!(r.status, 413, "{}", r.json);
}

/// The cron's drain route: refused without `CRON_SECRET`'s bearer, a JSON report of what it posted
/// with it.
#[tokio::test]
async fn the_drain_route_needs_the_cron_secret_and_reports_what_it_posted() {
    let function = start();
    let host = host();
    let drain = |bearer: Option<&str>| {
        let mut request = http::Request::get("/host-outbox/drain");
        if let Some(bearer) = bearer {
            request = request.header(http::header::AUTHORIZATION, format!("Bearer {bearer}"));
        }
        host.send_http(&function.url, request.body(bytes::Bytes::new()).unwrap())
    };
    for bearer in [None, Some("wrong"), Some("cron-secret-for-tests-")] {
        let answer = drain(bearer).await.unwrap();
        assert_eq!(answer.status, 401, "{bearer:?}: {}", answer.json);
    }
    let answer = drain(Some("cron-secret-for-tests")).await.unwrap();
    assert_eq!(answer.status, 200, "{}", answer.json);
    assert_eq!(
        answer.json,
        json!({ "delivered": 0, "retrying": 0, "dead": 0, "more": false })
    );
}

/// Without `HOST_OUTBOX` the function does not start: its events would live in an instance that
/// Vercel may stop at any time. The error names the setting that fixes it.
#[test]
fn without_a_durable_outbox_the_function_stops_at_start_naming_the_fix() {
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .env("VERCEL_DEV_PORT", "0")
        .env_remove("VERCEL_IPC_PATH")
        .env_remove("HOST_MODE")
        .env_remove("HOST_JWKS_URL")
        .env_remove("HOST_OUTBOX")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("HOST_OUTBOX is not set"), "{said}");
    assert!(said.contains("redis://"), "{said}");
}
