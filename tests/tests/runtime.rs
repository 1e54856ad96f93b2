//! The runtime end to end, in process and over HTTP: every route of the example extension with a real
//! signed token, each error code that applies, panic isolation, the body limit, the tool deadline, base
//! paths, health, and event deduplication.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;
use host_runtime::testing::TestHost;
use host_runtime::{Handler, HostEvent};
use host_sdk_tests::{Server, handler};
use http::Method;
use serde_json::{Value, json};

fn setup() -> (TestHost, Handler, Arc<Server>) {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    let server = Arc::new(Server {
        keywords: vec!["notes".into(), "notebook".into()],
        ..Server::default()
    });
    // The generated traits are implemented for `Arc<T>`: the test keeps a handle to flip behaviour.
    let handler = host.configure(handler(server.clone()));
    (host, handler, server)
}

#[tokio::test]
async fn a_tool_call_answers_its_card() {
    let (host, handler, _) = setup();
    let r = host
        .call_tool(
            &handler,
            "keyword-ranks",
            json!({ "keyword": "notes", "country": "DE" }),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["series"][0]["key"], "notes");
    let r = host
        .call_tool(&handler, "visibility-score", json!({}))
        .await;
    assert_eq!((r.status, r.json["value"].as_f64()), (200, Some(71.5)));
}

#[tokio::test]
async fn every_post_route_refuses_other_methods_with_405() {
    let (host, handler, _) = setup();
    for path in [
        "/host/tools/keyword-ranks",
        "/host/actions/save-rank-insight",
        "/host/procedures/addKeyword",
        "/host/events",
        "/host/metrics",
    ] {
        let r = host
            .send(&handler, host.request(Method::GET, path, None))
            .await;
        r.assert_error(405, "METHOD_NOT_ALLOWED");
    }
    for path in ["/host/mentions/keyword", "/host/context/tracked-keywords"] {
        let r = host
            .send(&handler, host.request(Method::POST, path, Some(&json!({}))))
            .await;
        r.assert_error(405, "METHOD_NOT_ALLOWED");
    }
    let r = handler
        .handle(
            http::Request::builder()
                .method(Method::DELETE)
                .uri("/host/health")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "GET, HEAD");
}

#[tokio::test]
async fn unknown_routes_and_contributions_are_404() {
    let (host, handler, _) = setup();
    for path in [
        "/host/tools/nope",
        "/host/actions/nope",
        "/host/procedures/nope",
        "/nothing",
        "/host/tools/a/b",
    ] {
        let r = host
            .send(
                &handler,
                host.request(Method::POST, path, Some(&host.call_body(json!({})))),
            )
            .await;
        r.assert_error(404, "NOT_FOUND");
    }
    let r = host.call_mention(&handler, "nope", "x").await;
    r.assert_error(404, "NOT_FOUND");
    let r = host.call_context(&handler, "nope").await;
    r.assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn bodies_that_are_not_call_bodies_are_400() {
    let (host, handler, _) = setup();
    for body in [&b""[..], b"{", b"[1,2]", b"\"x\"", b"\xff\xfe"] {
        let mut request = host.request(Method::POST, "/host/tools/keyword-ranks", None);
        *request.body_mut() = Bytes::copy_from_slice(body);
        let r = host.send(&handler, request).await;
        r.assert_error(400, "BAD_REQUEST");
    }
    // Credentials missing a required field.
    let mut body = host.call_body(json!({ "keyword": "notes" }));
    body["credentials"] = json!({});
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body)),
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("api_key")
    );
}

#[tokio::test]
async fn input_failing_its_schema_is_422_naming_the_pointer() {
    let (host, handler, _) = setup();
    let r = host
        .call_tool(
            &handler,
            "keyword-ranks",
            json!({ "keyword": "notes", "country": "Germany" }),
        )
        .await;
    r.assert_error(422, "INPUT_INVALID");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/country"),
        "{}",
        r.json
    );
    let r = host.call_tool(&handler, "keyword-ideas", json!({})).await;
    r.assert_error(422, "INPUT_INVALID");
    let r = host
        .call_action(
            &handler,
            "save-rank-insight",
            json!({ "keyword": "notes", "summary": "short" }),
        )
        .await;
    r.assert_error(422, "INPUT_INVALID");
    let r = host
        .call_procedure(
            &handler,
            "addKeyword",
            json!({ "keyword": "", "country": "DE" }),
        )
        .await;
    r.assert_error(422, "INPUT_INVALID");
}

#[tokio::test]
async fn tokens_are_required_and_checked() {
    let (host, handler, _) = setup();
    let body = host.call_body(json!({ "keyword": "notes" }));
    let mut request = host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body));
    request.headers_mut().remove(http::header::AUTHORIZATION);
    host.send(&handler, request)
        .await
        .assert_error(401, "UNAUTHORIZED");

    let other = TestHost::new("keyword-tracker"); // another key, unknown to the handler
    let request = other.request(Method::POST, "/host/tools/keyword-ranks", Some(&body));
    host.send(&handler, request)
        .await
        .assert_error(401, "UNAUTHORIZED");

    let mut expired = host.claims();
    expired.exp -= 3600;
    let mut request = host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body));
    request.headers_mut().insert(
        http::header::AUTHORIZATION,
        format!("Bearer {}", host.mint(&expired)).parse().unwrap(),
    );
    host.send(&handler, request)
        .await
        .assert_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn a_token_of_another_install_is_refused_for_this_body() {
    let (host, handler, _) = setup();
    let mut body = host.call_body(json!({ "keyword": "notes" }));
    body["install"]["id"] = json!("ins_someone_else");
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body)),
        )
        .await;
    r.assert_error(403, "INSTALL_MISMATCH");
    let mut body = host.call_body(json!({ "keyword": "notes" }));
    body["install"]["extensionId"] = json!("another-extension");
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body)),
        )
        .await;
    r.assert_error(403, "INSTALL_MISMATCH");
}

#[tokio::test]
async fn a_missing_scope_is_403() {
    let (mut host, _, server) = setup();
    host.scopes
        .retain(|s| s != "ai:tools" && s != "insights:write");
    let handler = host.configure(handler(server));
    let r = host
        .call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" }))
        .await;
    r.assert_error(403, "SCOPE_MISSING");
    let r = host
        .call_action(
            &handler,
            "save-rank-insight",
            json!({ "keyword": "notes", "summary": "Ranks fell on Monday." }),
        )
        .await;
    r.assert_error(403, "SCOPE_MISSING");
}

/// Each route checks its own scope, and nothing else's: an action needs `ai:actions` (beside its
/// own `scope`), a metrics sync `metrics:write`.
#[tokio::test]
async fn actions_need_ai_actions_and_metrics_need_metrics_write() {
    let action = json!({ "keyword": "notes", "summary": "Ranks fell on Monday." });
    let sync = json!({ "metrics": ["average_rank"], "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z", "backfill": false, "cursor": null });
    for (missing, action_status, sync_status) in [
        ("ai:actions", 403, 200),
        ("metrics:write", 200, 403),
        ("ai:tools", 200, 200),
    ] {
        let (mut host, _, server) = setup();
        host.scopes.retain(|s| s != missing);
        let handler = host.configure(handler(server));
        let r = host
            .call_action(&handler, "save-rank-insight", action.clone())
            .await;
        assert_eq!(r.status, action_status, "without {missing}: {}", r.json);
        let body = host.call_body(sync.clone());
        let r = host
            .send(
                &handler,
                host.request(Method::POST, "/host/metrics", Some(&body)),
            )
            .await;
        assert_eq!(r.status, sync_status, "without {missing}: {}", r.json);
        if r.status == 403 {
            r.assert_error(403, "SCOPE_MISSING");
            assert!(
                r.json["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains(missing)
            );
        }
    }
}

#[tokio::test]
async fn actions_mentions_context_and_procedures_answer() {
    let (host, handler, _) = setup();
    let r = host
        .call_action(
            &handler,
            "save-rank-insight",
            json!({ "keyword": "notes", "summary": "Ranks fell on Monday." }),
        )
        .await;
    assert_eq!(
        (r.status, &r.json["install"]),
        (200, &json!(host.install_id))
    );
    let r = host.call_mention(&handler, "keyword", "note").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    let r = host.call_context(&handler, "tracked-keywords").await;
    assert_eq!(
        (r.status, r.json["summary"].as_str()),
        (200, Some("2 keywords tracked"))
    );
    let r = host
        .call_procedure(
            &handler,
            "addKeyword",
            json!({ "keyword": "notes", "country": "DE" }),
        )
        .await;
    assert_eq!((r.status, &r.json), (200, &json!({ "tracked": true })));
}

#[tokio::test]
async fn a_metrics_sync_answers_points_of_declared_metrics() {
    let (host, handler, _) = setup();
    let body = host.call_body(json!({ "metrics": ["average_rank"], "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z", "backfill": false, "cursor": null }));
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/metrics", Some(&body)),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["points"][0]["metric"], "average_rank");
    let body = host.call_body(json!({ "metrics": ["not_a_metric"], "from": "a", "to": "b" }));
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/metrics", Some(&body)),
        )
        .await;
    r.assert_error(422, "INPUT_INVALID");
}

/// The example's sync answers its points at the request's `to`: a `to` that is not UTC with `Z`
/// makes an answer whose `t` the host cannot read.
#[tokio::test]
async fn a_sync_answer_whose_t_is_not_a_utc_timestamp_is_refused() {
    let (host, handler, _) = setup();
    for t in ["2026-11-02T02:00:00+02:00", "tomorrow", "2026-11-02"] {
        let body = host.call_body(json!({ "metrics": ["average_rank"], "from": "2026-11-01T00:00:00Z", "to": t, "backfill": false, "cursor": null }));
        let r = host
            .send(
                &handler,
                host.request(Method::POST, "/host/metrics", Some(&body)),
            )
            .await;
        r.assert_error(502, "METRICS_RESPONSE_INVALID");
        let message = r.json["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("points[0]") && message.contains(t),
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_panicking_handler_answers_internal_and_the_server_keeps_serving() {
    let (host, handler, server) = setup();
    server.behaviour.panic.store(true, Ordering::SeqCst);
    let r = host
        .call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" }))
        .await;
    r.assert_error(500, "INTERNAL");
    assert!(
        !r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exploded"),
        "nothing leaks"
    );
    server.behaviour.panic.store(false, Ordering::SeqCst);
    let r = host
        .call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" }))
        .await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn a_slow_tool_hits_the_deadline() {
    let (host, handler, server) = setup();
    let handler = handler.with_tool_deadline(Duration::from_millis(100));
    server.behaviour.delay_ms.store(2_000, Ordering::SeqCst);
    let r = host
        .call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" }))
        .await;
    r.assert_error(504, "TOOL_TIMEOUT");
}

/// The interface's tool deadline is a ceiling: asking for more keeps 30 s. On tokio's paused
/// clock, so the test waits for no real 30 s.
#[tokio::test(start_paused = true)]
async fn the_tool_deadline_cannot_be_raised() {
    let (host, handler, server) = setup();
    let handler = handler.with_tool_deadline(Duration::from_secs(120));
    server.behaviour.delay_ms.store(45_000, Ordering::SeqCst);
    let started = tokio::time::Instant::now();
    let r = host
        .call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" }))
        .await;
    r.assert_error(504, "TOOL_TIMEOUT");
    let waited = started.elapsed();
    assert!(
        waited >= host_runtime::TOOL_DEADLINE && waited < Duration::from_secs(31),
        "answered after {waited:?}"
    );
    // Under the ceiling, the deadline is the one asked for.
    server.behaviour.delay_ms.store(25_000, Ordering::SeqCst);
    let r = host
        .call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" }))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_before_parsing() {
    let (host, handler, _) = setup();
    let handler = handler.with_body_limit(1024);
    let mut request = host.request(Method::POST, "/host/tools/keyword-ranks", None);
    *request.body_mut() = Bytes::from(vec![b'{'; 2048]);
    host.send(&handler, request)
        .await
        .assert_error(413, "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn health_answers_without_a_token_and_degrades() {
    let (_, handler, _) = setup();
    let get = |m: Method| {
        http::Request::builder()
            .method(m)
            .uri("/host/health")
            .body(Bytes::new())
            .unwrap()
    };
    let r = handler.handle(get(Method::GET)).await;
    assert_eq!(r.status(), 200);
    let body: Value = serde_json::from_slice(r.body()).unwrap();
    assert_eq!(
        (body["status"].as_str(), body["extensionId"].as_str()),
        (Some("ok"), Some("keyword-tracker"))
    );
    // `sdk` satisfies the manifest's `^2.0.0`; the crate's own version is apart.
    let sdk = body["sdk"].as_str().unwrap_or_default();
    // The manifest's own range, read from the generated facts.
    assert_eq!(host_sdk_tests::manifest::SDK, "^2.0.0");
    assert!(
        sdk.starts_with("2.") && sdk.split('.').count() == 3,
        "sdk: {sdk}"
    );
    assert!(
        body["runtime"]
            .as_str()
            .is_some_and(|r| r.starts_with("host-runtime "))
    );
    let r = handler.handle(get(Method::HEAD)).await;
    assert_eq!((r.status().as_u16(), r.body().len()), (200, 0));

    let slow = handler.clone().with_health_check(|| async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        Ok(())
    });
    let started = std::time::Instant::now();
    let r = slow.handle(get(Method::GET)).await;
    assert_eq!(r.status(), 503);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "health answers within its 3 s promise"
    );
    let failing = handler.with_health_check(|| async { Err("database unreachable".into()) });
    let r = failing.handle(get(Method::GET)).await;
    let body: Value = serde_json::from_slice(r.body()).unwrap();
    assert_eq!(
        (r.status().as_u16(), body["status"].as_str()),
        (503, Some("degraded"))
    );
}

#[tokio::test]
async fn routes_live_under_the_base_path() {
    let (host, handler, _) = setup();
    let handler = handler.with_base_path("/ext/");
    let body = host.call_body(json!({ "keyword": "notes" }));
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/ext/host/tools/keyword-ranks", Some(&body)),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body)),
        )
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn events_answer_204_and_unsubscribed_names_422() {
    let (host, handler, _) = setup();
    let payload = serde_json::to_value(host_runtime::events::InstallCreated::example()).unwrap();
    let r = host
        .deliver(&handler, "install.created", payload, "evt_1")
        .await;
    assert_eq!(r.status, 204, "{}", r.json);
    let r = host
        .deliver(&handler, "metadata.changed", json!({}), "evt_2")
        .await;
    r.assert_error(422, "EVENT_NOT_SUBSCRIBED");
    let r = host
        .deliver(
            &handler,
            "release.shipped",
            json!({ "version": 3 }),
            "evt_3",
        )
        .await;
    assert_eq!(
        r.status, 422,
        "a payload that is not the event's shape: {}",
        r.json
    );
}

#[tokio::test]
async fn the_same_content_with_a_new_event_id_runs_once() {
    let (host, handler, server) = setup();
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    for (i, _) in (0..3).enumerate() {
        let r = host
            .deliver(
                &handler,
                "release.shipped",
                payload.clone(),
                &format!("evt_{i}"),
            )
            .await;
        assert_eq!(r.status, 204);
    }
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn concurrent_duplicates_run_once() {
    let (host, handler, server) = setup();
    let host = Arc::new(host);
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let (host, handler, payload) = (host.clone(), handler.clone(), payload.clone());
            tokio::spawn(async move {
                host.deliver(&handler, "release.shipped", payload, &format!("evt_c{i}"))
                    .await
            })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap().status, 204);
    }
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_duplicate_during_a_delivery_that_then_fails_is_not_lost() {
    let (host, handler, server) = setup();
    let handler = handler.with_event_wait(std::time::Duration::from_millis(100));
    let host = Arc::new(host);
    server.behaviour.event_delay_ms.store(400, Ordering::SeqCst);
    server.behaviour.fail_events.store(1, Ordering::SeqCst);
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let first = {
        let (host, handler, payload) = (host.clone(), handler.clone(), payload.clone());
        tokio::spawn(async move {
            host.deliver(&handler, "release.shipped", payload, "evt_first")
                .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    // The same content while the first is in flight, past the wait: retryable, never "recorded".
    let duplicate = host
        .deliver(&handler, "release.shipped", payload.clone(), "evt_dup")
        .await;
    duplicate.assert_error(503, "EVENT_IN_FLIGHT");
    assert_eq!(duplicate.headers[http::header::RETRY_AFTER], "30");
    // The first attempt fails: the host retries it, and that retry runs the event.
    first.await.unwrap().assert_error(503, "RANKS_DOWN");
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 0);
    server.behaviour.event_delay_ms.store(0, Ordering::SeqCst);
    let retry = host
        .deliver(&handler, "release.shipped", payload.clone(), "evt_retry")
        .await;
    assert_eq!(retry.status, 204, "{}", retry.json);
    let again = host
        .deliver(&handler, "release.shipped", payload, "evt_again")
        .await;
    assert_eq!(again.status, 204);
    assert_eq!(
        server.behaviour.releases_handled.load(Ordering::SeqCst),
        1,
        "exactly once"
    );
}

#[tokio::test]
async fn handlers_read_the_request_but_not_its_token() {
    let (host, handler, _) = setup();
    let mut request = host.request(Method::GET, "/host/context/tracked-keywords", None);
    request
        .headers_mut()
        .insert("x-trace-id", http::HeaderValue::from_static("trace-42"));
    let r = host.send(&handler, request).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(
        r.json["summary"],
        "trace trace-42 on GET /host/context/tracked-keywords; token visible: false",
        "{}",
        r.json
    );
}

#[tokio::test]
async fn a_failed_delivery_is_retried_not_recorded() {
    let (host, handler, server) = setup();
    server.behaviour.fail_events.store(1, Ordering::SeqCst);
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let r = host
        .deliver(&handler, "release.shipped", payload.clone(), "evt_a")
        .await;
    r.assert_error(503, "RANKS_DOWN");
    let r = host
        .deliver(&handler, "release.shipped", payload, "evt_b")
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_handler_serves_over_real_http() {
    let (host, handler, _) = setup();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(handler.serve_on(listener));
    let base = format!("http://{addr}");
    let body = host.call_body(json!({ "keyword": "notes" }));
    let r = host
        .send_http(
            &base,
            host.request(Method::POST, "/host/tools/keyword-ranks", Some(&body)),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.json);
    // Over the limit on the wire: refused while reading, before parsing.
    let mut request = host.request(Method::POST, "/host/tools/keyword-ranks", None);
    *request.body_mut() = Bytes::from(vec![b' '; 2 * 1024 * 1024]);
    let r = host.send_http(&base, request).await.unwrap();
    r.assert_error(413, "PAYLOAD_TOO_LARGE");
    server.abort();
}

#[tokio::test]
async fn the_handler_mounts_in_axum() {
    let (host, handler, _) = setup();
    let app = axum::Router::new()
        .route("/status", axum::routing::get(|| async { "vendor app" }))
        .merge(
            handler
                .with_base_path("/vendor")
                .into_router()
                .expect("the test host chose development defaults"),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let body = host.call_body(json!({ "keyword": "notes" }));
    let r = host
        .send_http(
            &format!("http://{addr}"),
            host.request(
                Method::POST,
                "/vendor/host/tools/keyword-ranks",
                Some(&body),
            ),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.json);
    server.abort();
}

#[tokio::test]
async fn answers_the_interface_forbids_are_reported_with_their_codes() {
    let (host, handler, server) = setup();
    server.behaviour.bad_answers.store(true, Ordering::SeqCst);
    let r = host.call_tool(&handler, "top-movers", json!({})).await;
    r.assert_error(502, "TOOL_RESPONSE_INVALID");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`rank`"),
        "{}",
        r.json
    );
    let r = host.call_context(&handler, "tracked-keywords").await;
    r.assert_error(502, "CONTEXT_TOO_LARGE");
}

#[tokio::test]
async fn a_handler_error_keeps_its_code_and_status() {
    let (host, handler, server) = setup();
    server.behaviour.fail_events.store(1, Ordering::SeqCst);
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let r = host
        .deliver(&handler, "release.shipped", payload, "evt_x")
        .await;
    assert_eq!((r.status, r.error_code()), (503, Some("RANKS_DOWN")));
    assert_eq!(r.json["error"]["message"], "the rank store is down");
}

#[tokio::test]
async fn serve_speaks_http2_with_the_feature() {
    let (host, handler, _) = setup();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(handler.serve_on(listener));
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .unwrap();
    tokio::spawn(connection);
    let body = host.call_body(json!({}));
    let request = http::Request::post(format!("http://{addr}/host/tools/visibility-score"))
        .header("authorization", format!("Bearer {}", host.token()))
        .header("content-type", "application/json")
        .body(http_body_util::Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.status(), 200);
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(answer["value"].as_f64(), Some(71.5));
    server.abort();
}

#[tokio::test]
async fn request_hygiene_duplicate_members_two_tokens_and_content_types() {
    let (host, handler, _) = setup();
    let post = |body: &str| {
        let mut request = host.request(Method::POST, "/host/tools/keyword-ranks", None);
        *request.body_mut() = Bytes::from(body.to_owned());
        request
    };
    let body = host.call_body(json!({ "keyword": "notes" })).to_string();
    // The same member twice, at the top or nested: refused, not "last one wins".
    let twice = body.replacen('{', r#"{"input": {"keyword": "other"}, "#, 1);
    let r = host.send(&handler, post(&twice)).await;
    r.assert_error(400, "BAD_REQUEST");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`input` appears twice"),
        "{}",
        r.json
    );
    let nested = body.replacen(
        r#""keyword":"notes""#,
        r#""keyword":"notes","keyword":"x""#,
        1,
    );
    assert_ne!(nested, body);
    host.send(&handler, post(&nested))
        .await
        .assert_error(400, "BAD_REQUEST");
    // A number JSON cannot hold is named as such.
    let huge = body.replacen('{', r#"{"n": 1e999, "#, 1);
    let r = host.send(&handler, post(&huge)).await;
    r.assert_error(400, "BAD_REQUEST");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("number out of range"),
        "{}",
        r.json
    );
    // Two Authorization headers: refused, whichever would verify.
    let mut two = post(&body);
    let token = http::HeaderValue::from_str(&format!("Bearer {}", host.token())).unwrap();
    two.headers_mut().append(http::header::AUTHORIZATION, token);
    host.send(&handler, two)
        .await
        .assert_error(401, "UNAUTHORIZED");
    // A body that says it is not JSON: 415; JSON with parameters or a +json type is fine.
    for (kind, status) in [
        ("text/plain", 415),
        ("application/x-www-form-urlencoded", 415),
        ("application/json; charset=utf-8", 200),
        ("application/vnd.host+json", 200),
    ] {
        let mut request = post(&body);
        request.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(kind),
        );
        let r = host.send(&handler, request).await;
        assert_eq!(r.status, status, "{kind}: {}", r.json);
    }
    // And the well-formed body still works.
    assert_eq!(host.send(&handler, post(&body)).await.status, 200);
}
