//! `cargo host check` and the runtime judge every answer alike.
//!
//! One table of answers a vendor's server might give (a sync page with a UTC or an offset `t`, a bad
//! `cursor`, dimension values that are not strings, a created item whose link is `https://` alone,
//! ...) goes two ways:
//!
//! - through the runtime's own pipeline: a `Handler` whose dispatcher answers the row, called in
//!   process with a signed token; the pipeline sends the answer (200) or refuses it (a 5xx with a
//!   code and a message);
//! - through `cargo host check`, the binary, run against a bare HTTP server that answers the row
//!   as it is (no SDK in between), so the verdict is the CLI's own.
//!
//! Every row must get the same verdict both ways, and a refused row the same code and message.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use host_runtime::__private_0_1_0::{self as private, Dispatch, RawCall, Reply, Route, Spec};
use host_runtime::check::DeclaredMetric;
use host_runtime::testing::TestHost;
use host_runtime::{BoxFuture, HostError};
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../host-manifest/tests/fixtures/valid")
        .join(name)
        .join("host.extension.json")
        .to_string_lossy()
        .into_owned()
}

/// The crash-oauth fixture's connector, as its manifest declares it.
static CRASH_LENS: Spec = Spec {
    extension_id: "crash-lens",
    tools: &[],
    actions: &[],
    mentions: &[],
    context: &[],
    procedures: &[],
    metrics: &[
        DeclaredMetric {
            key: "crash_free_users",
            dimensions: &["app_version", "platform"],
        },
        DeclaredMetric {
            key: "crash_count",
            dimensions: &["app_version"],
        },
    ],
    work: None,
    events: &[],
};

/// The work-tracker fixture's work destination.
static ISSUE_BRIDGE: Spec = Spec {
    extension_id: "issue-bridge",
    tools: &[],
    actions: &[],
    mentions: &[],
    context: &[],
    procedures: &[],
    metrics: &[],
    work: Some(private::Work {
        containers: "/work/projects",
        creates: &["issue"],
        two_way_comments: false,
    }),
    events: &[],
};

/// A dispatcher that answers every call with one JSON value, as a vendor's handler might.
struct Answers(Value);

impl Dispatch for Answers {
    fn dispatch<'a>(
        &'a self,
        route: Route<'a>,
        _call: RawCall,
    ) -> BoxFuture<'a, Result<Reply, HostError>> {
        let reply = match route {
            Route::WorkContainers => json!({ "items": [{ "id": "p1", "label": "Project one" }] }),
            _ => self.0.clone(),
        };
        Box::pin(async move { Ok(Reply::Json(reply)) })
    }
}

/// The runtime's verdict: `Ok(())` when it sends the answer, else the code and message it answers.
fn runtime_verdict(spec: &'static Spec, route: Route<'_>, answer: &Value) -> Result<(), String> {
    let host = TestHost::development(spec.extension_id);
    let handler = host.configure(private::handler(spec, Answers(answer.clone())));
    let input = match route {
        Route::Metrics => json!({
            "metrics": ["crash_free_users", "crash_count"],
            "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z",
            "backfill": true, "cursor": null,
        }),
        _ => json!({ "kind": "issue", "container": "p1", "title": "A", "priority": "high" }),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let response = runtime.block_on(host.call(&handler, route, input));
    if response.status == 200 {
        return Ok(());
    }
    let code = response.json["error"]["code"].as_str().unwrap_or_default();
    let message = response.json["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        response.status >= 500,
        "the runtime refused its own vendor's answer with {}: {code}",
        response.status
    );
    Err(format!("{code}: {message}"))
}

/// A bare HTTP server for `extension_id` that answers `answer` on `route_path`, a container list
/// on `/work/projects` and its health; everything else is 404. Served until the runtime drops.
fn bare_server(
    extension_id: &'static str,
    route_path: &'static str,
    answer: Value,
) -> (String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let answer = Arc::new(answer);
    runtime.spawn(host_test_support::http::serve(
        listener,
        move |request: http::Request<_>| {
            let answer = Arc::clone(&answer);
            async move {
                let (status, body) = match request.uri().path() {
                    "/host/health" => (
                        200,
                        json!({ "status": "ok", "extensionId": extension_id, "sdk": "2.0.0" }),
                    ),
                    "/work/projects" => (
                        200,
                        json!({ "items": [{ "id": "p1", "label": "Project one" }] }),
                    ),
                    path if path == route_path => (200, (*answer).clone()),
                    _ => (
                        404,
                        json!({ "error": { "code": "NOT_FOUND", "message": "no such route" } }),
                    ),
                };
                let mut response = host_test_support::http::response(status, body.to_string());
                response.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    http::HeaderValue::from_static("application/json"),
                );
                response
            }
        },
    ));
    (url, runtime)
}

/// `cargo host check`'s verdict on the line that starts with `what`: `Ok(())` for a pass, else the
/// line's reason.
fn check_verdict(manifest: &str, server: &str, what: &str) -> Result<(), String> {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(["check", "--server", server, "--manifest", manifest])
        .env_remove("NO_COLOR")
        .env_remove("HOST_SERVER_URL")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    let line = out
        .lines()
        .find(|l| {
            l.split_once(' ')
                .is_some_and(|(_, rest)| rest.starts_with(what))
        })
        .unwrap_or_else(|| panic!("no `{what}` line in:\n{out}"));
    if line.starts_with('✓') {
        return Ok(());
    }
    assert!(line.starts_with('✗'), "{line}");
    Err(line.to_owned())
}

/// Both ways agree on `answer`: both pass, or both refuse it and the CLI's line carries the
/// runtime's code and message.
fn agree(
    spec: &'static Spec,
    manifest: &str,
    route: Route<'_>,
    path: &'static str,
    what: &str,
    answer: Value,
) -> bool {
    let runtime = runtime_verdict(spec, route, &answer);
    let (server, _serving) = bare_server(spec.extension_id, path, answer.clone());
    let check = check_verdict(manifest, &server, what);
    match (&runtime, &check) {
        (Ok(()), Ok(())) => true,
        (Err(said), Err(line)) => {
            assert!(
                line.contains(said.as_str()),
                "{answer}: the runtime says `{said}`, check says `{line}`"
            );
            false
        }
        _ => panic!("{answer}: the runtime says {runtime:?}, cargo host check says {check:?}"),
    }
}

fn page(point: Value) -> Value {
    json!({ "points": [point] })
}

#[test]
fn sync_pages_get_the_same_verdict_from_the_runtime_and_from_check() {
    let manifest = fixture("crash-oauth");
    let point = |t: &str| json!({ "metric": "crash_count", "t": t, "v": 3 });
    let table: Vec<(Value, bool)> = vec![
        (page(point("2026-11-02T14:03:11Z")), true),
        (page(point("2026-11-02T14:03:11.250Z")), true),
        (page(point("2026-11-02T14:03:11+02:00")), false),
        (page(point("2026-11-02T14:03:11+00:00")), false),
        (page(point("2026-11-02")), false),
        (json!({ "points": [], "cursor": null }), true),
        (json!({ "points": [], "cursor": 5 }), false),
        (json!({ "points": [], "cursor": { "page": 2 } }), false),
        (json!({ "items": [] }), false),
        (
            page(
                json!({ "metric": "crash_count", "t": "2026-11-02T14:03:11Z", "v": 1, "dimensions": { "app_version": "2.1" } }),
            ),
            true,
        ),
        (
            page(
                json!({ "metric": "crash_count", "t": "2026-11-02T14:03:11Z", "v": 1, "dimensions": { "app_version": 21 } }),
            ),
            false,
        ),
        (
            page(
                json!({ "metric": "crash_count", "t": "2026-11-02T14:03:11Z", "v": 1, "dimensions": { "platform": "ios" } }),
            ),
            false,
        ),
        (
            page(
                json!({ "metric": "crash_count", "t": "2026-11-02T14:03:11Z", "v": 1, "dimensions": "ios" }),
            ),
            false,
        ),
        (
            page(json!({ "metric": "installs", "t": "2026-11-02T14:03:11Z", "v": 1 })),
            false,
        ),
        (
            page(json!({ "metric": "crash_count", "t": "2026-11-02T14:03:11Z", "v": "1" })),
            false,
        ),
    ];
    for (answer, passes) in table {
        let agreed = agree(
            &CRASH_LENS,
            &manifest,
            Route::Metrics,
            "/host/metrics",
            "sync backfill of 14 days",
            answer.clone(),
        );
        assert_eq!(agreed, passes, "{answer}");
    }
}

#[test]
fn created_items_get_the_same_verdict_from_the_runtime_and_from_check() {
    let manifest = fixture("work-tracker");
    let item = |url: &str| json!({ "id": "I-1", "url": url, "status": "open" });
    let table: Vec<(Value, bool)> = vec![
        (item("https://tracker.example/I-1"), true),
        (item("HTTPS://tracker.example/I-1"), true),
        (item("https://"), false),
        (item("http://tracker.example/I-1"), false),
        (item("tracker.example/I-1"), false),
    ];
    for (answer, passes) in table {
        let agreed = agree(
            &ISSUE_BRIDGE,
            &manifest,
            Route::WorkItems,
            "/host/work/items",
            "work-item",
            answer.clone(),
        );
        assert_eq!(agreed, passes, "{answer}");
    }
}
