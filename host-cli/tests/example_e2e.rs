//! The example extension end to end, as the README's quick start runs it: `cargo host dev` as a child
//! process, the keyword-tracker server started from the environment `dev` prints (production mode:
//! key set fetched from the local host, events posted to it), and every route of the example driven
//! over real HTTP by `cargo host call`, `trigger` and `check`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

mod harness;

use std::process::{Command, Output};

use harness::{Dev, Example, example, manifest};
use serde_json::{Value, json};

fn host(server: &Example, args: &[&str]) -> Output {
    let manifest = manifest();
    Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(args)
        .args(["--server", &server.url, "--manifest", &manifest])
        .env_remove("HOST_SERVER_URL")
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs `cargo host call` and returns the printed answer, asserting its status.
fn call(server: &Example, args: &[&str], status: u16) -> Value {
    let mut all = vec!["call"];
    all.extend(args);
    let o = host(server, &all);
    let out = stdout(&o);
    assert!(
        out.starts_with(&format!("{status} ")),
        "{args:?}: {out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        o.status.code(),
        Some(if status < 300 { 0 } else { 1 }),
        "{out}"
    );
    let body = out.split_once('\n').map_or("", |(_, b)| b);
    serde_json::from_str(body).unwrap_or(Value::Null)
}

#[test]
fn the_first_hour_against_the_local_host() {
    let dev = Dev::start(&[]);
    assert_eq!(
        dev.exports.get("HOST_MODE").map(String::as_str),
        Some("production")
    );
    let server = example(&dev.exports);

    // Every tool, through the key set the server fetched from the local host.
    let series = call(
        &server,
        &[
            "tool",
            "keyword-ranks",
            "--input",
            r#"{"keyword": "habit tracker", "days": 7}"#,
        ],
        200,
    );
    assert_eq!(
        series["series"][0]["points"].as_array().map(Vec::len),
        Some(7),
        "{series}"
    );
    let table = call(
        &server,
        &[
            "tool",
            "top-movers",
            "--input",
            r#"{"direction": "down", "days": 1}"#,
        ],
        200,
    );
    assert_eq!(table["rows"][0]["keyword"], "journal");
    let comparison = call(
        &server,
        &[
            "tool",
            "compare-keywords",
            "--input",
            r#"{"keywords": ["notes", "planner"]}"#,
        ],
        200,
    );
    assert_eq!(comparison["subjects"], json!(["notes", "planner"]));
    let list = call(
        &server,
        &["tool", "keyword-ideas", "--input", r#"{"seed": "notes"}"#],
        200,
    );
    assert!(list["items"].as_array().is_some_and(|i| !i.is_empty()));
    let value = call(&server, &["tool", "visibility-score"], 200);
    assert!(value["value"].is_number());
    let refused = host(
        &server,
        &[
            "call",
            "tool",
            "keyword-ranks",
            "--input",
            r#"{"keyword": "notes", "days": 365}"#,
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stdout(&refused).contains("error: 422 INPUT_INVALID"),
        "{}",
        stdout(&refused)
    );
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("/days"),
        "the local check names the pointer"
    );

    // The approved action, the mention picker, the context provider, both procedures, the sync.
    let saved = call(
        &server,
        &[
            "action",
            "save-rank-insight",
            "--input",
            r#"{"keyword": "journal", "summary": "Fell after the release notes changed."}"#,
        ],
        200,
    );
    assert_eq!(saved["saved"], true);
    let mentions = call(&server, &["mention", "keyword", "--query", "plan"], 200);
    assert_eq!(
        mentions["items"].as_array().map(Vec::len),
        Some(2),
        "{mentions}"
    );
    let context = call(&server, &["context", "tracked-keywords"], 200);
    assert!(
        context["summary"]
            .as_str()
            .unwrap()
            .contains("habit tracker #24"),
        "{context}"
    );
    let added = call(
        &server,
        &[
            "procedure",
            "addKeyword",
            "--input",
            r#"{"keyword": "sticky notes", "country": "US"}"#,
        ],
        200,
    );
    assert_eq!(added, json!({"tracked": true}));
    let lists = call(
        &server,
        &[
            "procedure",
            "listWatchlists",
            "--documents",
            r#"{"watchlists": [{"id": "wl_1", "data": {"name": "Core", "keywords": ["notes"]}, "updatedAt": "2026-11-01T00:00:00Z"}]}"#,
        ],
        200,
    );
    assert_eq!(lists, json!({"items": [{"id": "wl_1", "name": "Core"}]}));

    // A release, redelivered on the retry schedule with a fresh event id each time: the server
    // answers 204 every time and reacts once. Its reaction is three signed alerts and a banner,
    // each checked and accepted by the local host.
    let o = host(
        &server,
        &[
            "trigger",
            "release.shipped",
            "--retry",
            "--time-scale",
            "1000",
        ],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let attempts: Vec<&str> = out.lines().filter(|l| l.starts_with("attempt ")).collect();
    assert_eq!(attempts.len(), 4, "{out}");
    assert!(attempts.iter().all(|a| a.contains("-> 204")), "{out}");
    let mut ids: Vec<&str> = attempts
        .iter()
        .filter_map(|a| {
            a.split_whitespace()
                .find(|w| w.starts_with("X-Host-Event-Id="))
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4, "each attempt has its own event id: {out}");
    assert_eq!(
        server.tracker.install("ins_dev_1").unwrap().releases.len(),
        1
    );

    let events = dev.events(4);
    assert_eq!(events.len(), 4, "{events:#?}");
    assert_eq!(
        events
            .iter()
            .filter(|l| l.contains("accepted rank.dropped (alert)"))
            .count(),
        3,
        "{events:#?}"
    );
    assert_eq!(
        events
            .iter()
            .filter(|l| l.contains("accepted rank.collapsed (banner)"))
            .count(),
        1,
        "{events:#?}"
    );

    // The connector sync finds the same drops, and says so in other words ("since yesterday", not
    // "since the release"): new messages, under ids of their own.
    let synced = call(&server, &["sync"], 200);
    assert!(synced["points"].as_array().is_some_and(|p| !p.is_empty()));
    let after_sync = dev.events(4);
    assert_eq!(after_sync.len(), 4, "{after_sync:#?}");
    assert!(
        after_sync
            .iter()
            .all(|l| l.contains("✓ accepted ") && l.contains("-sync-") && l.contains(": why: ")),
        "{after_sync:#?}"
    );
    // A second sync the same day says the same, under the same ids: the same events, delivered
    // already, so the outbox posts nothing (and the host would drop copies anyway).
    call(&server, &["sync"], 200);
    std::thread::sleep(std::time::Duration::from_secs(1));
    let again = dev.events(0);
    assert!(again.is_empty(), "posted again: {again:#?}");

    // Every other subscribed host event.
    for event in [
        "install.created",
        "install.paused",
        "install.resumed",
        "install.token_rotated",
        "settings.changed",
    ] {
        let o = host(&server, &["trigger", event]);
        assert_eq!(o.status.code(), Some(0), "{event}: {}", stdout(&o));
        assert!(stdout(&o).contains("-> 204"), "{event}: {}", stdout(&o));
    }

    // The work destination: boards, a task on one, a comment on the task.
    let boards = call(&server, &["work-containers", "--query", "listing"], 200);
    assert_eq!(
        boards,
        json!({ "items": [ { "id": "listing", "label": "Store listing copy" } ] })
    );
    let task = call(
        &server,
        &[
            "work-item",
            "--input",
            r#"{"kind": "issue", "container": "aso", "title": "Win back journal"}"#,
        ],
        200,
    );
    assert_eq!(task["id"], "KT-1", "{task}");
    let comment = call(
        &server,
        &[
            "work-comment",
            "KT-1",
            "--input",
            r#"{"body": "Subtitle rewritten."}"#,
        ],
        200,
    );
    assert_eq!(comment, json!({ "id": "KT-1-c1" }));
    let missing = call(&server, &["work-comment", "KT-9"], 404);
    assert_eq!(missing, Value::Null);

    // The platform in the call's context picks the stores: iOS is the App Store alone.
    let ranks = |platform: &str| {
        let context = format!(r#"{{"platform": "{platform}"}}"#);
        call(
            &server,
            &[
                "tool",
                "keyword-ranks",
                "--input",
                r#"{"keyword": "habit tracker", "days": 3}"#,
                "--context",
                &context,
            ],
            200,
        )["series"]
            .as_array()
            .map_or(0, Vec::len)
    };
    assert!(ranks("all") > ranks("ios"), "all stores beat one");

    // The publish-time checks pass.
    let o = host(&server, &["check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.lines().any(|l| l.ends_with("passed, 0 failed")),
        "{out}"
    );
    for expected in [
        "✓ sync backfill of 90 days 200, ",
        "✓ sync scheduled sync of 24 h 200, ",
        "✓ work-containers /host/work/boards 200 2 containers",
        "✓ work-item in `aso` 200 KT-2 ",
        "✓ work-comment on `KT-2` 200 KT-2-c1 ",
    ] {
        assert!(out.contains(expected), "`{expected}` missing in\n{out}");
    }
    // The backfill's 90 days do not fit one answer: the check followed the cursor.
    assert!(
        out.lines()
            .any(|l| l.starts_with("✓ sync backfill") && !l.contains(" in 1 page ")),
        "{out}"
    );

    // Revoking the install deletes what the server kept for it.
    assert_eq!(
        host(&server, &["trigger", "install.revoked"]).status.code(),
        Some(0)
    );
    assert!(server.tracker.install("ins_dev_1").is_none());
}

#[test]
fn events_signed_with_another_secret_are_rejected_by_the_local_host() {
    // The local host expects one secret; the server (development defaults otherwise) signs with
    // the development one.
    let dev = Dev::start(&["--secret", "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"]);
    let mut env = dev.exports.clone();
    env.remove("HOST_MODE");
    env.remove("HOST_SIGNING_SECRET");
    let server = example(&env);
    let o = host(&server, &["trigger", "release.shipped"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let events = dev.events(4);
    assert_eq!(events.len(), 4, "{events:#?}");
    assert!(
        events
            .iter()
            .all(|l| l.contains("rejected") && l.contains("401")),
        "{events:#?}"
    );
}
