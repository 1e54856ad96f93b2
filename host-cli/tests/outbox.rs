//! `cargo host outbox` on a real outbox file and a real PostgreSQL outbox: listing pending events
//! and dead letters, retrying and dropping one, and the errors a person meets (no outbox there, a
//! server holding it, no such id).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

use host_runtime::outbox::{Entry, FileOutbox, OutboxStore, Settlement, Which};

fn cargo_host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(args)
        .env_remove("HOST_OUTBOX")
        .env_remove("HOST_DATABASE_URL")
        .output()
        .unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An outbox with one pending event (refused once) and one dead letter.
async fn outbox(dir: &std::path::Path) {
    fill(&FileOutbox::open(dir).unwrap()).await;
}

/// Puts one pending event (refused once) and one dead letter in `store`.
async fn fill(store: &dyn OutboxStore) {
    let now = chrono::Utc::now().timestamp_millis();
    for id in ["rank.dropped-ins_1-habit", "rank.collapsed-ins_1"] {
        store
            .put(Entry::new(id, br#"{"event":"x"}"#.to_vec(), now))
            .await
            .unwrap();
    }
    store.claim(now, 10, now + 60_000, "server").await.unwrap();
    let retry = Settlement::Retry {
        attempts: 1,
        due: now + 2_000,
        error: "status 503".into(),
    };
    store
        .settle("rank.dropped-ins_1-habit", "server", retry)
        .await
        .unwrap();
    let dead = Settlement::Dead {
        attempts: 1,
        at: now,
        reason: "refused with 422: payload invalid".into(),
    };
    store
        .settle("rank.collapsed-ins_1", "server", dead)
        .await
        .unwrap();
}

#[tokio::test]
async fn lists_retries_and_drops_events() {
    let dir = tempfile::tempdir().unwrap();
    outbox(dir.path()).await;
    let store = dir.path().to_str().unwrap();
    lists_retries_and_drops(store).await;
    let store = FileOutbox::open(dir.path()).unwrap();
    retried_and_dropped(&store).await;
}

/// The same on the outbox of a PostgreSQL database, named by its URL.
#[tokio::test]
async fn lists_retries_and_drops_events_in_postgres() {
    let Some(server) = host_test_support::PostgresServer::start_or_skip() else {
        return;
    };
    let pool = host_runtime::postgres::connect(&server.url())
        .await
        .unwrap();
    host_runtime::postgres::migrate(&pool).await.unwrap();
    let store = host_runtime::outbox::PostgresOutbox::new(pool)
        .await
        .unwrap();
    fill(&store).await;
    lists_retries_and_drops(&server.url()).await;
    retried_and_dropped(&store).await;
}

/// The commands on the outbox at `store`, as [`fill`] left it.
async fn lists_retries_and_drops(store: &str) {
    let out = cargo_host(&["outbox", "--store", store]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("pending (1)"), "{stdout}");
    assert!(
        stdout.contains("rank.dropped-ins_1-habit  attempts 1  next "),
        "{stdout}"
    );
    assert!(stdout.contains("last: status 503"), "{stdout}");
    assert!(stdout.contains("dead (1)"), "{stdout}");
    assert!(
        stdout.contains("last: refused with 422: payload invalid"),
        "{stdout}"
    );

    let out = cargo_host(&["outbox", "list", "--dead", "--json", "--store", store]);
    let (stdout, _) = text(&out);
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    assert_eq!(rows[0]["id"], "rank.collapsed-ins_1");
    assert_eq!(rows[0]["list"], "dead");
    assert_eq!(rows[0]["body"], r#"{"event":"x"}"#);

    let out = cargo_host(&["outbox", "retry", "rank.collapsed-ins_1", "--store", store]);
    assert!(out.status.success(), "{:?}", text(&out));
    let out = cargo_host(&[
        "outbox",
        "drop",
        "rank.dropped-ins_1-habit",
        "--store",
        store,
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
    let out = cargo_host(&["outbox", "drop", "no-such-event", "--store", store]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).1.contains("no event `no-such-event`"),
        "{:?}",
        text(&out)
    );
}

/// What the commands above leave: the dead letter pending again with no attempts, nothing dead.
async fn retried_and_dropped(store: &dyn OutboxStore) {
    let pending = store.list(Which::Pending, 10).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(
        (pending[0].id.as_str(), pending[0].attempts),
        ("rank.collapsed-ins_1", 0)
    );
    assert!(store.list(Which::Dead, 10).await.unwrap().is_empty());
}

#[test]
fn a_missing_or_busy_outbox_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = cargo_host(&["outbox", "--store", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("no outbox at"), "{:?}", text(&out));

    // A server holds it.
    let held = FileOutbox::open(dir.path()).unwrap();
    let out = cargo_host(&["outbox", "--store", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("another process has this outbox open"),
        "{stderr}"
    );
    assert!(stderr.contains("stop the server"), "{stderr}");
    drop(held);
}
