//! The example's binary as a new user runs it: one command, embedded defaults, and a production
//! mode that refuses to start half-configured.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use bytes::Bytes;
use host_runtime::testing::TestHost;
use serde_json::json;
use support::{Proc, address_in, command};

/// Starts the binary on a free port; returns it and its base URL, read from its first line.
fn start(extra: &[&str]) -> (Proc, String, Vec<String>) {
    let mut child = command()
        .args(["--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let base = address_in(&first);
    let mut shown = vec![first];
    // The rest of the banner, up to the blank line before the examples.
    for line in lines.by_ref().take(9) {
        shown.push(line.unwrap());
    }
    (Proc(child), base, shown)
}

#[tokio::test]
async fn one_command_serves_the_example_on_embedded_defaults() {
    let (_server, base, banner) = start(&[]);
    assert!(
        banner[0].starts_with("keyword-tracker listening on http://127.0.0.1:"),
        "{banner:?}"
    );
    assert!(banner[0].ends_with("(development mode)"), "{banner:?}");
    assert!(
        banner
            .iter()
            .any(|l| l.contains("cargo run -p host-cli -- call tool keyword-ranks")),
        "{banner:?}"
    );

    let host = TestHost::development("keyword-tracker");
    let health = host
        .send_http(
            &base,
            http::Request::get("/host/health")
                .body(Bytes::new())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(
        (health.status, health.json["status"].as_str()),
        (200, Some("ok"))
    );

    // The development key set is trusted: the local host's tokens work.
    let mut host = host;
    host.credentials = json!({ "api_key": "kt_demo_key" });
    let body = host.call_body(json!({ "keyword": "notes" }));
    let r = host
        .send_http(
            &base,
            host.request(http::Method::POST, "/host/tools/keyword-ranks", Some(&body)),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.json);
}

#[test]
fn production_mode_refuses_to_start_and_names_what_is_missing() {
    let out = command()
        .args(["--production", "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for var in [
        "HOST_JWKS_URL",
        "HOST_ISSUER",
        "HOST_EVENT_POST_URL",
        "HOST_SIGNING_SECRET",
    ] {
        assert!(stderr.contains(var), "{var} not named in {stderr}");
    }
    assert!(out.stdout.is_empty(), "nothing is served");

    let out = command()
        .args(["--listen", "127.0.0.1:0"])
        .env("HOST_MODE", "production")
        .env(
            "HOST_JWKS_URL",
            "https://auth.host.example/.well-known/jwks.json",
        )
        .env("HOST_ISSUER", "https://auth.host.example")
        .env("HOST_EVENT_POST_URL", "https://events.host.example/v1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("HOST_SIGNING_SECRET") && !stderr.contains("HOST_ISSUER"),
        "{stderr}"
    );
}

#[test]
fn production_mode_refuses_a_key_set_url_that_is_not_https() {
    for url in [
        "http://auth.host.example/.well-known/jwks.json",
        "ftp://auth.host.example/jwks.json",
        "not a url",
    ] {
        let out = command()
            .args(["--production", "--listen", "127.0.0.1:0"])
            .env("HOST_JWKS_URL", url)
            .env("HOST_ISSUER", "https://auth.host.example")
            .env("HOST_EVENT_POST_URL", "https://events.host.example/v1")
            .env(
                "HOST_SIGNING_SECRET",
                "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            )
            .output()
            .unwrap();
        // Refused at start, naming the URL, rather than serving and refusing every call later.
        assert_eq!(out.status.code(), Some(2), "{url}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("HOST_JWKS_URL is unusable"), "{stderr}");
        assert!(stderr.contains(url), "{stderr}");
        assert!(out.stdout.is_empty(), "{url}: nothing is served");
    }
}

#[tokio::test]
async fn production_mode_trusts_only_the_configured_key_set() {
    // A key set served over HTTP, as the host does; the development key is not in it.
    let host = TestHost::new("keyword-tracker");
    let jwks = host.jwks();
    let app = axum::Router::new().route(
        "/jwks.json",
        axum::routing::get(move || {
            let jwks = jwks.clone();
            async move {
                (
                    [(http::header::CONTENT_TYPE, "application/json")],
                    jwks.to_string(),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let jwks_url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let mut child = command()
        .args(["--listen", "127.0.0.1:0", "--production"])
        .env("HOST_JWKS_URL", &jwks_url)
        .env("HOST_ISSUER", "https://auth.host.example")
        .env("HOST_EVENT_POST_URL", "https://events.host.example/v1")
        .env(
            "HOST_SIGNING_SECRET",
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .next()
        .unwrap()
        .unwrap();
    let _server = Proc(child);
    assert!(first.ends_with("(production mode)"), "{first}");
    let base = address_in(&first);

    let mut configured = host;
    configured.credentials = json!({ "api_key": "kt_demo_key" });
    let body = configured.call_body(json!({}));
    let r = configured
        .send_http(
            &base,
            configured.request(
                http::Method::POST,
                "/host/tools/visibility-score",
                Some(&body),
            ),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.json);

    let mut dev = TestHost::development("keyword-tracker");
    dev.credentials = json!({ "api_key": "kt_demo_key" });
    let body = dev.call_body(json!({}));
    let r = dev
        .send_http(
            &base,
            dev.request(
                http::Method::POST,
                "/host/tools/visibility-score",
                Some(&body),
            ),
        )
        .await
        .unwrap();
    r.assert_error(401, "UNAUTHORIZED");
}
