//! The local host end to end: `cargo host call`, `trigger`, `check` and `dev` run as the binary
//! against a real vendor server (the SDK test crate's `Server` for the keyword-tracker fixture,
//! served over HTTP in process and trusting the development key set) and real signed events.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

mod harness;

use harness::Dev;
use host_runtime::testing::{DEVELOPMENT_WEBHOOK_SECRET, development_jwks};
use host_runtime::webhook::{Secret, sign_webhook};
use host_sdk_tests::Server;
use serde_json::{Value, json};

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json")
        .to_string_lossy()
        .into_owned()
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-manifest/tests/fixtures")
}

/// A vendor server for the fixture manifest, served on an ephemeral port until dropped.
struct Vendor {
    url: String,
    server: Arc<Server>,
    _runtime: tokio::runtime::Runtime,
}

fn vendor_with(server: Server) -> Vendor {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = Arc::new(server);
    let handler = host_sdk_tests::handler(Arc::clone(&server))
        .with_jwks(development_jwks())
        .with_development_defaults();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(handler.serve_on(listener));
    Vendor {
        url,
        server,
        _runtime: runtime,
    }
}

fn vendor() -> Vendor {
    vendor_with(Server {
        keywords: vec!["notes".into(), "todo list".into()],
        ..Server::default()
    })
}

/// An address where nothing listens.
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("HOST_SERVER_URL")
        .output()
        .expect("runs")
}

/// Runs a command against `server` with the fixture manifest.
fn against(server: &str, args: &[&str]) -> Output {
    let manifest = fixture();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--server", server, "--manifest", &manifest]);
    run(&all)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON printed after the status line.
fn printed_json(o: &Output) -> Value {
    let out = stdout(o);
    let (_, body) = out.split_once('\n').expect("a status line");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn assert_status_line(o: &Output, status: &str) {
    let out = stdout(o);
    let first = out.lines().next().unwrap_or("");
    let rest = first
        .strip_prefix(status)
        .unwrap_or_else(|| panic!("`{first}` should start with `{status}`"));
    assert!(
        rest.starts_with(" in ") && rest.ends_with(" ms"),
        "`{first}` should end with `in N ms`"
    );
}

// ----------------------------------------------------------------------------------------------
// call
// ----------------------------------------------------------------------------------------------

#[test]
fn call_tool_prints_the_answer_and_exits_0() {
    let v = vendor();
    let o = against(
        &v.url,
        &[
            "call",
            "tool",
            "keyword-ranks",
            "--input",
            r#"{"keyword":"notes"}"#,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_status_line(&o, "200 OK");
    assert_eq!(printed_json(&o)["series"][0]["key"], "notes");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn call_tool_with_invalid_input_notes_it_and_shows_the_422() {
    let v = vendor();
    let o = against(
        &v.url,
        &[
            "call",
            "tool",
            "keyword-ranks",
            "--input",
            r#"{"keyword":"notes","days":0}"#,
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("note:") && err.contains("at `/days`"), "{err}");
    assert!(err.contains("422 INPUT_INVALID"), "{err}");
    assert_status_line(&o, "422 Unprocessable Entity");
    let out = stdout(&o);
    assert!(out.contains("error: 422 INPUT_INVALID: "), "{out}");
    assert!(out.contains("/days"), "{out}");
}

#[test]
fn call_of_an_undeclared_id_exits_2_with_a_suggestion() {
    let o = against(&dead_url(), &["call", "tool", "keyword-rank"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("`keyword-rank` is not a tool declared in"),
        "{err}"
    );
    assert!(err.contains("did you mean `keyword-ranks`?"), "{err}");
    assert!(err.contains("`top-movers`"), "{err}");

    let o = against(&dead_url(), &["call", "procedure", "dropEverything"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`addKeyword`, `listWatchlists`"),
        "{}",
        stderr(&o)
    );
    let o = against(&dead_url(), &["call", "tool"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("name the tool to call"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn call_action_runs_as_the_local_install_or_the_one_given() {
    let v = vendor();
    let input = r#"{"keyword":"notes","summary":"Notes climbed to third place."}"#;
    let o = against(
        &v.url,
        &["call", "action", "save-rank-insight", "--input", input],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        printed_json(&o),
        json!({ "saved": true, "install": "ins_dev_1", "platform": "ios" })
    );

    let o = against(
        &v.url,
        &[
            "call",
            "action",
            "save-rank-insight",
            "--input",
            input,
            "--install",
            "ins_other",
        ],
    );
    assert_eq!(printed_json(&o)["install"], "ins_other");
}

#[test]
fn call_mention_context_and_procedure() {
    let v = vendor();
    let o = against(&v.url, &["call", "mention", "keyword", "--query", "no"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        printed_json(&o),
        json!({ "items": [ { "id": "notes", "label": "notes" } ] })
    );
    // `--input` as raw text is the query too.
    let o = against(&v.url, &["call", "mention", "keyword", "--input", "todo"]);
    assert_eq!(printed_json(&o)["items"][0]["id"], "todo list");

    let o = against(&v.url, &["call", "context", "tracked-keywords"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(printed_json(&o)["summary"], "2 keywords tracked");

    let o = against(
        &v.url,
        &[
            "call",
            "procedure",
            "addKeyword",
            "--input",
            r#"{"keyword":"notes","country":"US"}"#,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(printed_json(&o), json!({ "tracked": true }));
}

#[test]
fn call_sync_asks_for_every_metric_or_one() {
    let v = vendor();
    let o = against(&v.url, &["call", "sync"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let metrics: Vec<Value> = printed_json(&o)["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["metric"].clone())
        .collect();
    assert_eq!(
        metrics,
        vec![
            json!("average_rank"),
            json!("ranked_keywords"),
            json!("search_impressions")
        ]
    );

    let o = against(&v.url, &["call", "sync", "ranked_keywords"]);
    let points = printed_json(&o)["points"].clone();
    assert_eq!(points.as_array().map(Vec::len), Some(1));
    assert_eq!(points[0]["metric"], "ranked_keywords");

    let o = against(&v.url, &["call", "sync", "ranked_keyword"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `ranked_keywords`?"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn call_without_the_scope_gets_the_403() {
    let v = vendor();
    let o = against(
        &v.url,
        &["call", "tool", "top-movers", "--scopes", "projects:read"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("error: 403 SCOPE_MISSING: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn call_with_no_server_exits_2() {
    let url = dead_url();
    let o = against(&url, &["call", "tool", "top-movers"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!(
            "no server answers at {url}; start your vendor server first"
        )),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_invalid_manifest_prints_its_diagnostics_and_exits_1() {
    let manifest = fixtures_dir().join("invalid/widget-slot.json");
    let o = run(&[
        "call",
        "tool",
        "keyword-ranks",
        "--manifest",
        &manifest.to_string_lossy(),
        "--server",
        &dead_url(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[widget-slot]"), "{}", stderr(&o));
}

// ----------------------------------------------------------------------------------------------
// trigger
// ----------------------------------------------------------------------------------------------

fn attempt_lines(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter(|l| l.starts_with("attempt "))
        .map(str::to_owned)
        .collect()
}

fn event_id(line: &str) -> String {
    line.split("X-Host-Event-Id=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_owned()
}

#[test]
fn trigger_delivers_once_and_each_invocation_is_a_new_event() {
    let v = vendor();
    let o = against(&v.url, &["trigger", "release.shipped"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let lines = attempt_lines(&o);
    assert_eq!(lines.len(), 1, "{}", stdout(&o));
    assert!(
        lines[0].starts_with("attempt 1/1 X-Host-Event-Id=evt_"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains(" -> 204 in "), "{}", lines[0]);
    assert_eq!(
        v.server.behaviour.releases_handled.load(Ordering::SeqCst),
        1
    );

    let o = against(&v.url, &["trigger", "release.shipped"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        v.server.behaviour.releases_handled.load(Ordering::SeqCst),
        2,
        "a second invocation is a distinct event"
    );
}

#[test]
fn trigger_retry_sends_four_attempts_with_fresh_ids_and_one_content() {
    let v = vendor();
    let o = against(
        &v.url,
        &[
            "trigger",
            "release.shipped",
            "--retry",
            "--time-scale",
            "1000",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let lines = attempt_lines(&o);
    assert_eq!(lines.len(), 4, "{}", stdout(&o));
    for (i, line) in lines.iter().enumerate() {
        assert!(line.starts_with(&format!("attempt {}/4 ", i + 1)), "{line}");
        assert!(line.contains(" -> 204 in "), "{line}");
    }
    let mut ids: Vec<String> = lines.iter().map(|l| event_id(l)).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "every attempt has its own X-Host-Event-Id");
    let out = stdout(&o);
    assert!(out.contains("waiting 30 ms before attempt 2/4"), "{out}");
    assert!(out.contains("waiting 600 ms before attempt 4/4"), "{out}");
    assert_eq!(
        v.server.behaviour.releases_handled.load(Ordering::SeqCst),
        1,
        "the server deduplicated the same content"
    );
}

#[test]
fn trigger_until_ok_stops_at_the_first_answer_the_host_keeps() {
    let v = vendor();
    v.server.behaviour.fail_events.store(1, Ordering::SeqCst);
    let o = against(
        &v.url,
        &[
            "trigger",
            "release.shipped",
            "--until-ok",
            "--time-scale",
            "1000",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let lines = attempt_lines(&o);
    assert_eq!(lines.len(), 2, "{}", stdout(&o));
    assert!(
        lines[0].contains(" -> 503 in ") && lines[0].contains("RANKS_DOWN"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("attempt 2/4 ") && lines[1].contains(" -> 204 in "),
        "{}",
        lines[1]
    );

    let o = against(
        &v.url,
        &[
            "trigger",
            "install.created",
            "--until-ok",
            "--time-scale",
            "1000",
        ],
    );
    assert_eq!(attempt_lines(&o).len(), 1, "{}", stdout(&o));
}

#[test]
fn trigger_of_an_unsubscribed_event_warns_and_shows_the_422() {
    let v = vendor();
    let o = against(&v.url, &["trigger", "scopes.changed"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("EVENT_NOT_SUBSCRIBED"),
        "{}",
        stderr(&o)
    );
    let lines = attempt_lines(&o);
    assert!(
        lines[0].contains(" -> 422 in ") && lines[0].contains(": EVENT_NOT_SUBSCRIBED: "),
        "{}",
        lines[0]
    );
}

#[test]
fn trigger_refuses_reserved_and_unknown_events() {
    let o = against(&dead_url(), &["trigger", "featuring.started"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("reserved event"), "{}", stderr(&o));
    let o = against(&dead_url(), &["trigger", "release.shiped"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `release.shipped`?"),
        "{}",
        stderr(&o)
    );
    let o = against(
        &dead_url(),
        &["trigger", "release.shipped", "--time-scale", "0"],
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn trigger_sends_a_given_payload_as_is() {
    let v = vendor();
    let payload = json!({ "projectId": "prj_1", "platform": "ios", "appId": "app_1",
        "version": "1.0.0", "shippedAt": "2026-01-01T00:00:00Z", "build": null, "releaseId": "rel_fixed" });
    let o = against(
        &v.url,
        &[
            "trigger",
            "release.shipped",
            "--payload",
            &payload.to_string(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("\"releaseId\":\"rel_fixed\""),
        "{}",
        stdout(&o)
    );
    // The same content again is a duplicate: answered 204, not handled twice.
    let o = against(
        &v.url,
        &[
            "trigger",
            "release.shipped",
            "--payload",
            &payload.to_string(),
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        v.server.behaviour.releases_handled.load(Ordering::SeqCst),
        1
    );
}

// ----------------------------------------------------------------------------------------------
// check
// ----------------------------------------------------------------------------------------------

#[test]
fn check_passes_every_declared_route() {
    let v = vendor();
    let o = against(&v.url, &["check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    for expected in [
        "✓ health 200 ok keyword-tracker in ",
        "✓ tool keyword-ranks 200 series in ",
        "✓ tool compare-keywords 200 comparison in ",
        "✓ tool top-movers 200 table in ",
        "✓ tool keyword-ideas 200 list in ",
        "✓ tool visibility-score 200 value in ",
        "✓ mention keyword 200 2 items in ",
        "✓ context tracked-keywords 200 ",
        "✓ procedure addKeyword 200 in ",
        "✓ procedure listWatchlists 200 in ",
        "✓ sync backfill of 90 days 200, 3 points in 1 page in ",
        "✓ sync scheduled sync of 24 h 200, 3 points in 1 page in ",
    ] {
        assert!(out.contains(expected), "`{expected}` missing in\n{out}");
    }
    assert!(out.trim_end().ends_with("12 passed, 0 failed"), "{out}");
}

#[test]
fn check_fails_answers_the_interface_forbids() {
    let v = vendor();
    v.server.behaviour.bad_answers.store(true, Ordering::SeqCst);
    let o = against(&v.url, &["check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("✗ tool top-movers: 502 TOOL_RESPONSE_INVALID"),
        "{out}"
    );
    assert!(
        out.contains("✗ context tracked-keywords: 502 CONTEXT_TOO_LARGE"),
        "{out}"
    );
    assert!(
        out.contains(
            "✗ sync backfill of 90 days, page 1: 502 METRICS_RESPONSE_INVALID: the sync answer's `points[0]` has the dimension `planet`"
        ),
        "{out}"
    );
    assert!(out.trim_end().ends_with("8 passed, 4 failed"), "{out}");
}

/// A server that answers health for the fixture and 404 to everything else.
fn routeless_server(runtime: &tokio::runtime::Runtime) -> String {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(host_test_support::http::serve(
        listener,
        |request: http::Request<_>| async move {
            if request.uri().path() == "/host/health" {
                let health = r#"{"status":"ok","extensionId":"keyword-tracker"}"#;
                host_test_support::http::response(200, health)
            } else {
                host_test_support::http::response(404, "Not Found")
            }
        },
    ));
    url
}

#[test]
fn check_stops_a_sync_whose_pages_never_end() {
    let v = vendor();
    v.server
        .behaviour
        .looping_cursor
        .store(true, Ordering::SeqCst);
    let o = against(&v.url, &["check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("✗ sync backfill of 90 days: page 2 gives the cursor `page-2` a second time"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("10 passed, 2 failed"), "{out}");
}

/// The work-tracker fixture's vendor (a tracker with two projects), served like [`vendor`].
fn work_vendor() -> (String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let handler = host_sdk_tests::work_tracker::handler(host_sdk_tests::work_tracker::Tracker)
        .with_jwks(development_jwks());
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(handler.serve_on(listener));
    (url, runtime)
}

fn work_fixture() -> String {
    fixtures_dir()
        .join("valid/work-tracker/host.extension.json")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn call_reaches_every_work_route_and_check_walks_them_in_order() {
    let (url, _runtime) = work_vendor();
    let manifest = work_fixture();
    let work = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", &url, "--manifest", &manifest]);
        run(&all)
    };
    let o = work(&["call", "work-containers", "--query", "web"]);
    assert_status_line(&o, "200 OK");
    assert_eq!(
        printed_json(&o),
        json!({ "items": [ { "id": "prj-web", "label": "Web" } ] })
    );
    // No container named: the first one listed.
    let o = work(&["call", "work-item"]);
    assert_status_line(&o, "200 OK");
    assert_eq!(printed_json(&o)["id"], "ISS-101");
    let o = work(&["call", "work-item", "prj-insecure"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("error: 502 WORK_RESPONSE_INVALID"),
        "{}",
        stdout(&o)
    );
    let o = work(&[
        "call",
        "work-item",
        "--input",
        r#"{"kind": "page", "container": "prj-web", "title": "t"}"#,
    ]);
    assert!(
        stdout(&o).contains("error: 422 INPUT_INVALID"),
        "{}",
        stdout(&o)
    );
    let o = work(&[
        "call",
        "work-comment",
        "ISS-101",
        "--input",
        r#"{"body": "four"}"#,
    ]);
    assert_status_line(&o, "200 OK");
    assert_eq!(printed_json(&o), json!({ "id": "ISS-101-c4" }));
    let o = work(&["call", "work-comment"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("name the work item to comment on"),
        "{}",
        stderr(&o)
    );

    let o = work(&["check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" work-")).collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("✓ work-containers /work/projects 200 2 containers"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("✓ work-item in `prj-mobile` 200 ISS-101 "),
        "{out}"
    );
    assert!(
        lines[2].starts_with("✓ work-comment on `ISS-101` 200 ISS-101-c"),
        "{out}"
    );
}

#[test]
fn call_context_reaches_the_handler_and_get_routes_say_they_have_none() {
    let v = vendor();
    let insight = r#"{"keyword": "notes", "summary": "Ranks fell on Monday."}"#;
    let o = against(
        &v.url,
        &[
            "call",
            "action",
            "save-rank-insight",
            "--input",
            insight,
            "--context",
            r#"{"platform": "android", "from": "2026-11-01T00:00:00Z"}"#,
        ],
    );
    assert_status_line(&o, "200 OK");
    assert_eq!(printed_json(&o)["platform"], "android");
    let o = against(
        &v.url,
        &[
            "call",
            "tool",
            "visibility-score",
            "--context",
            r#"{"platform": 7}"#,
        ],
    );
    assert!(
        stderr(&o).contains("`--context` is not a context the runtime can read"),
        "{}",
        stderr(&o)
    );
    let o = against(&v.url, &["call", "mention", "keyword", "--context", "{}"]);
    assert_status_line(&o, "200 OK");
    assert!(
        stderr(&o).contains("has no body, so no `context`"),
        "{}",
        stderr(&o)
    );
    let o = against(
        &v.url,
        &["call", "tool", "visibility-score", "--context", "[]"],
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_fails_routes_a_server_lacks() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let url = routeless_server(&runtime);
    let o = against(&url, &["check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("✓ health 200 ok keyword-tracker"), "{out}");
    assert!(
        out.contains("✗ tool keyword-ranks: 404 Not Found without an error body"),
        "{out}"
    );
    assert!(out.contains("✗ procedure addKeyword: 404"), "{out}");
    assert!(
        out.contains("✗ sync backfill of 90 days, page 1: 404"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("1 passed, 11 failed"), "{out}");
}

#[test]
fn check_with_nothing_listening_exits_2() {
    let o = against(&dead_url(), &["check"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).contains("✗ health: no server answers at"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains("start your vendor server first"),
        "{}",
        stderr(&o)
    );
}

// ----------------------------------------------------------------------------------------------
// dev
// ----------------------------------------------------------------------------------------------

fn client() -> reqwest::Client {
    #[allow(deprecated)] // ring, as everywhere in the SDK (see host-runtime's client)
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

fn envelope(id: &str, event: &str, payload: Value) -> Vec<u8> {
    json!({ "event": event, "source": "ins_dev_1", "occurredAt": "2026-11-02T14:03:11Z",
            "build": "1.4.0", "dedupeKey": id, "payload": payload })
    .to_string()
    .into_bytes()
}

fn post(
    runtime: &tokio::runtime::Runtime,
    dev: &Dev,
    id: &str,
    body: Vec<u8>,
    secret: &str,
) -> (u16, Value) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let signature = sign_webhook(&Secret::parse(secret).unwrap(), id, now, &body);
    runtime.block_on(async {
        let response = client()
            .post(format!("{}/v1/events", dev.base()))
            .header("content-type", "application/json")
            .header("webhook-id", id)
            .header("webhook-timestamp", now.to_string())
            .header("webhook-signature", signature)
            .body(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    })
}

#[test]
fn dev_serves_the_key_set_and_checks_posted_events() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dev = Dev::start_with_manifest(Path::new(&fixture()), &[]);
    let mut banner = dev.banner.clone();
    banner.extend(dev.until("Ctrl-C stops"));
    let banner = banner.join("\n");
    assert!(
        banner.contains(&format!(
            "export HOST_JWKS_URL={}/.well-known/jwks.json",
            dev.base()
        )),
        "{banner}"
    );
    assert!(banner.contains("export HOST_MODE=production"), "{banner}");
    assert!(
        banner.contains("export HOST_ISSUER=https://auth.host.example"),
        "{banner}"
    );
    assert!(
        banner.contains(&format!(
            "export HOST_EVENT_POST_URL={}/v1/events",
            dev.base()
        )),
        "{banner}"
    );
    assert!(
        banner.contains(&format!(
            "export HOST_SIGNING_SECRET={DEVELOPMENT_WEBHOOK_SECRET}"
        )),
        "{banner}"
    );

    // The key set.
    let (status, cache, keys) = runtime.block_on(async {
        let r = client()
            .get(format!("{}/.well-known/jwks.json", dev.base()))
            .send()
            .await
            .unwrap();
        let cache = r
            .headers()
            .get("cache-control")
            .map(|v| v.to_str().unwrap().to_owned());
        (r.status().as_u16(), cache, r.json::<Value>().await.unwrap())
    });
    assert_eq!(status, 200);
    assert_eq!(cache.as_deref(), Some("max-age=300"));
    assert_eq!(keys, development_jwks());

    // A signed, declared alert: accepted, then a duplicate.
    let alert = json!({ "why": "Keyword notes fell from 3 to 9 in US", "keyword": "notes",
                        "country": "US", "previous": 3, "current": 9 });
    let body = envelope("msg_1", "rank.dropped", alert.clone());
    let (status, answer) = post(
        &runtime,
        &dev,
        "msg_1",
        body.clone(),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!((status, answer), (202, json!({ "accepted": true })));
    let line = dev.until("accepted").pop().unwrap();
    assert_eq!(
        line,
        r#"✓ accepted rank.dropped (alert) from ins_dev_1 id=msg_1: why: "Keyword notes fell from 3 to 9 in US""#
    );
    assert_eq!(dev.next_line(), "    {");

    let (status, answer) = post(&runtime, &dev, "msg_1", body, DEVELOPMENT_WEBHOOK_SECRET);
    assert_eq!(
        (status, answer),
        (200, json!({ "accepted": true, "duplicate": true }))
    );
    assert!(
        dev.until("duplicate")
            .pop()
            .unwrap()
            .contains("duplicate rank.dropped from ins_dev_1 id=msg_1")
    );

    // A bad signature.
    let other = "whsec_b3RoZXIgc2VjcmV0IG9mIGF0IGxlYXN0IDI0IGJ5dGVz";
    let (status, answer) = post(
        &runtime,
        &dev,
        "msg_2",
        envelope("msg_2", "rank.dropped", alert.clone()),
        other,
    );
    assert_eq!(status, 401, "{answer}");
    assert_eq!(answer["error"]["code"], "UNAUTHORIZED");
    assert!(
        dev.until("rejected")
            .pop()
            .unwrap()
            .contains("✗ rejected rank.dropped: no signature")
    );

    // An undeclared event.
    let (status, answer) = post(
        &runtime,
        &dev,
        "msg_3",
        envelope("msg_3", "rank.vanished", alert.clone()),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not declared under `contributes.webhooks`")
    );
    assert!(
        dev.until("rejected")
            .pop()
            .unwrap()
            .contains("rejected rank.vanished")
    );

    // A payload failing its schema names the pointer.
    let mut wrong = alert.clone();
    wrong["previous"] = json!(0);
    let (status, answer) = post(
        &runtime,
        &dev,
        "msg_4",
        envelope("msg_4", "rank.dropped", wrong),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(status, 422, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("at `/previous`"), "{message}");
    assert!(
        dev.until("rejected")
            .pop()
            .unwrap()
            .contains("at `/previous`")
    );

    // An alert without `why`: the schema requires it, so this is refused as a schema failure; an
    // empty `why` passes the schema but not the host.
    let (status, answer) = post(
        &runtime,
        &dev,
        "msg_5",
        envelope("msg_5", "rank.dropped", json!({ "keyword": "notes" })),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"]["message"].as_str().unwrap().contains("why"),
        "{answer}"
    );
    dev.until("rejected");
    let (status, answer) = post(
        &runtime,
        &dev,
        "msg_6",
        envelope("msg_6", "rank.collapsed", json!({ "why": "   " })),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("non-empty string `why`"),
        "{answer}"
    );
    dev.until("rejected");

    // A marker event needs no `why`.
    let (status, _) = post(
        &runtime,
        &dev,
        "msg_7",
        envelope(
            "msg_7",
            "store.algorithm_updated",
            json!({ "store": "app_store" }),
        ),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(status, 202);
    assert!(
        dev.until("accepted")
            .pop()
            .unwrap()
            .contains("accepted store.algorithm_updated (event) from ins_dev_1 id=msg_7")
    );
}

#[test]
fn dev_listens_on_loopback_only() {
    let o = run(&["dev", "--listen", "0.0.0.0:0", "--manifest", &fixture()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("refusing to listen on 0.0.0.0:0"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn dev_refuses_hostile_requests_without_falling_over() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dev = Dev::start_with_manifest(Path::new(&fixture()), &[]);
    dev.until("Ctrl-C stops");

    // Over the body limit: refused before anything is parsed.
    let (status, body) = post(
        &runtime,
        &dev,
        "msg_big",
        vec![b'x'; 1024 * 1024 + 16 * 1024],
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (413, Some("PAYLOAD_TOO_LARGE")),
        "{body}"
    );
    // Correctly signed bytes that are not JSON, and JSON that is not an envelope.
    let (status, body) = post(
        &runtime,
        &dev,
        "msg_bin",
        vec![0xff, 0xfe, 0x00, 0x01],
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("BAD_REQUEST")),
        "{body}"
    );
    let (status, body) = post(
        &runtime,
        &dev,
        "msg_arr",
        b"[1, 2, 3]".to_vec(),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("BAD_REQUEST")),
        "{body}"
    );

    let (wrong_method, allow, unknown) = runtime.block_on(async {
        let r = client()
            .get(format!("{}/v1/events", dev.base()))
            .send()
            .await
            .unwrap();
        let allow = r
            .headers()
            .get("allow")
            .map(|v| v.to_str().unwrap().to_owned());
        let unknown = client()
            .get(format!("{}/admin", dev.base()))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), allow, unknown.status().as_u16())
    });
    assert_eq!((wrong_method, allow.as_deref()), (405, Some("POST")));
    assert_eq!(unknown, 404);

    // Still serving, and still accepting a good event.
    let alert = json!({ "why": "Keyword notes fell from 3 to 9 in US" });
    let (status, _) = post(
        &runtime,
        &dev,
        "msg_ok",
        envelope("msg_ok", "rank.dropped", alert),
        DEVELOPMENT_WEBHOOK_SECRET,
    );
    assert_eq!(status, 202);
}
