//! Exactly-once effects with `HOST_DATABASE_URL`: a `release.shipped` delivery writes its alert rows,
//! sends their `rank.dropped` events (and a `rank.collapsed` banner) and records the delivery in one
//! PostgreSQL transaction. Real processes, killed with SIGKILL at the two points that matter, three
//! instances on one database, a database restarted under load, and a property test of crash
//! points over a sequence of deliveries. The invariant everywhere: each delivery's rows and events
//! exist once, whatever crashed and however often the host retried.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use host_runtime::postgres::sqlx::{self, PgPool};
use host_test_support::PostgresServer;
use support::{
    Proc, acknowledged, delivery, refusals_then_each_event_acknowledged_once, release_host, ship,
    stand_in_host, wait_for,
};

/// Alerts a release finds for an install on the embedded data set, with the default settings.
const ALERTS: i64 = 3;
/// Events it sends: one `rank.dropped` per alert and a `rank.collapsed` banner.
const EVENTS: usize = 4;

/// Starts the example on a free port with its alerts, deduplication and outbox in `database`,
/// posting to `post_url`; claims last `lease_secs`.
fn start(post_url: &str, database: &str, lease_secs: u32) -> (Proc, String) {
    let lease = lease_secs.to_string();
    support::start(
        post_url,
        &[
            ("HOST_DATABASE_URL", database),
            ("HOST_DEDUPE_LEASE_SECS", &lease),
        ],
    )
}

/// Starts `n` instances at the same moment on `database`; each started one, or why it did not.
fn start_together(post_url: &str, database: &str, n: usize) -> Vec<Result<(Proc, String), String>> {
    let env = [
        ("HOST_DATABASE_URL", database),
        ("HOST_DEDUPE_LEASE_SECS", "60"),
    ];
    let children: Vec<_> = (0..n).map(|_| support::spawn(post_url, &env)).collect();
    children.into_iter().map(support::started).collect()
}

/// The deduplication key of `install`'s delivery.
fn key_of(install: &str) -> String {
    let (_, body) = release_host(install);
    host_runtime::dedupe::key_of("release.shipped", install, &body["event"]["payload"]).unwrap()
}

/// The start of the `webhook-id` of `install`'s banner, the last event the handler writes (the
/// rest is a digest of what it says).
fn banner_id(install: &str) -> String {
    let slug = |text: &str| -> String {
        text.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    };
    let (_, body) = release_host(install);
    let version = body["event"]["payload"]["version"].as_str().unwrap();
    format!(
        "rank.collapsed-{}-{}-{}-",
        slug(install),
        chrono::Utc::now().date_naive(),
        slug(&format!("v{version}"))
    )
}

async fn alert_rows(pool: &PgPool, install: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM keyword_alerts WHERE install = $1")
        .bind(install)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn outbox_rows(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM host_outbox WHERE sent_until IS NULL")
        .fetch_one(pool)
        .await
        .unwrap()
}

/// Whether `install`'s delivery is recorded as processed.
async fn recorded(pool: &PgPool, install: &str) -> bool {
    sqlx::query_scalar::<_, bool>("SELECT done FROM host_dedupe WHERE key = $1")
        .bind(key_of(install))
        .fetch_optional(pool)
        .await
        .unwrap()
        .unwrap_or(false)
}

/// Waits until a backend of the database waits for a lock: the handler's transaction stopped at
/// the write the test holds.
async fn until_blocked(pool: &PgPool) {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if waiting > 0 {
            return;
        }
        assert!(
            Instant::now() < until,
            "the handler never reached the held write"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Holds the outbox row `id` in an open transaction of the test, so that a handler writing the same
/// id waits for it: the handler has written its alerts and is on its way to the commit.
async fn hold_write(pool: &PgPool, prefix: &str) -> sqlx::Transaction<'static, sqlx::Postgres> {
    // A write of an event whose id starts with `prefix` waits for the gate's row, which the
    // returned transaction holds until it ends.
    let gate = format!(
        "CREATE TABLE IF NOT EXISTS banner_gate (k int PRIMARY KEY);
         INSERT INTO banner_gate VALUES (1) ON CONFLICT DO NOTHING;
         CREATE OR REPLACE FUNCTION banner_gate() RETURNS trigger AS $$
         BEGIN
             IF NEW.id LIKE '{prefix}%' THEN
                 PERFORM 1 FROM banner_gate WHERE k = 1 FOR UPDATE;
             END IF;
             RETURN NEW;
         END $$ LANGUAGE plpgsql;
         DROP TRIGGER IF EXISTS banner_gate ON host_outbox;
         CREATE TRIGGER banner_gate BEFORE INSERT ON host_outbox
             FOR EACH ROW EXECUTE FUNCTION banner_gate();"
    );
    sqlx::raw_sql(&gate).execute(pool).await.unwrap();
    let mut hold = pool.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM banner_gate WHERE k = 1 FOR UPDATE")
        .execute(&mut *hold)
        .await
        .unwrap();
    hold
}

async fn database() -> Option<(PostgresServer, PgPool)> {
    let server = PostgresServer::start_or_skip()?;
    let pool = host_runtime::postgres::connect(&server.url())
        .await
        .unwrap();
    Some((server, pool))
}

#[tokio::test]
async fn a_kill_9_between_the_alerts_and_the_commit_leaves_nothing_and_the_retry_runs_once() {
    let Some((server, pool)) = database().await else {
        return;
    };
    let (url, shared) = stand_in_host(false, Duration::ZERO).await;
    let install = "ins_mid";
    let (crashing, base) = start(&url, &server.url(), 60);
    let hold = hold_write(&pool, &banner_id(install)).await;
    let base_for_call = base.clone();
    let call = tokio::spawn(async move { ship(&base_for_call, install, 1).await });
    until_blocked(&pool).await;
    drop(crashing); // SIGKILL, the alerts written and the commit not made
    hold.rollback().await.unwrap();
    let _ = call.await;

    assert_eq!(
        alert_rows(&pool, install).await,
        0,
        "no alert outlives the kill"
    );
    assert_eq!(outbox_rows(&pool).await, 0, "no event outlives the kill");
    assert!(!recorded(&pool, install).await);
    // The crashed attempt's claim holds the key until its lease ends (a minute; the host's retries
    // come after 30 s, 2 min and 10 min): here it ends now.
    sqlx::query("UPDATE host_dedupe SET expires = now() WHERE key = $1")
        .bind(key_of(install))
        .execute(&pool)
        .await
        .unwrap();

    let (_server, base) = start(&url, &server.url(), 60);
    assert_eq!(ship(&base, install, 2).await, 204);
    assert_eq!(
        ship(&base, install, 3).await,
        204,
        "a later retry runs nothing"
    );
    assert_eq!(alert_rows(&pool, install).await, ALERTS);
    assert!(recorded(&pool, install).await);
    wait_for(
        &shared,
        Duration::from_secs(20),
        "every event acknowledged",
        |s| acknowledged(s).len() == EVENTS,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let s = shared.lock().unwrap();
    assert!(acknowledged(&s).values().all(|&n| n == 1), "{:?}", s.posts);
    assert_eq!(s.posts.len(), EVENTS, "nothing posted twice: {:?}", s.posts);
}

#[tokio::test]
async fn a_kill_9_after_the_commit_makes_the_retry_run_nothing_and_post_nothing_twice() {
    let Some((server, pool)) = database().await else {
        return;
    };
    // The host refuses events for now, so none is posted before the kill.
    let (url, shared) = stand_in_host(true, Duration::ZERO).await;
    let install = "ins_after";
    let (crashing, base) = start(&url, &server.url(), 60);
    assert_eq!(ship(&base, install, 1).await, 204);
    drop(crashing); // SIGKILL: committed; the host takes the answer as lost and retries
    assert_eq!(alert_rows(&pool, install).await, ALERTS);
    assert_eq!(outbox_rows(&pool).await, EVENTS as i64);

    // The killed instance's claims on events end now (a minute otherwise).
    expire_outbox_claims(&pool).await;
    shared.lock().unwrap().refusing = false;
    let (_server, base) = start(&url, &server.url(), 60);
    assert_eq!(ship(&base, install, 2).await, 204);
    assert_eq!(
        alert_rows(&pool, install).await,
        ALERTS,
        "the retry of a committed delivery does not run its handler"
    );
    wait_for(
        &shared,
        Duration::from_secs(20),
        "every event acknowledged",
        |s| acknowledged(s).len() == EVENTS,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let acks = acknowledged(&shared.lock().unwrap());
    assert!(
        acks.values().all(|&n| n == 1),
        "each acknowledged once: {acks:?}"
    );
    assert_eq!(outbox_rows(&pool).await, 0);
}

#[tokio::test]
async fn three_instances_on_one_database_run_a_delivery_once_and_post_each_event_at_one_time() {
    let Some((server, pool)) = database().await else {
        return;
    };
    // Each post is held 30 ms, so two instances posting one event would overlap.
    let (url, shared) = stand_in_host(true, Duration::from_millis(30)).await;
    // Started at the same moment, as a deployment rolls out three replicas.
    let servers: Vec<(Proc, String)> = start_together(&url, &server.url(), 3)
        .into_iter()
        .map(|r| r.unwrap_or_else(|why| panic!("{why}")))
        .collect();
    let installs: Vec<String> = (0..8).map(|n| format!("ins_{n}")).collect();
    // Every delivery sent to all three instances at once.
    for install in &installs {
        let answers = futures_util::future::join_all(
            servers
                .iter()
                .enumerate()
                .map(|(i, (_, base))| ship(base, install, i as u32)),
        )
        .await;
        assert_eq!(answers, [204, 204, 204], "{install}");
    }
    for install in &installs {
        assert_eq!(
            alert_rows(&pool, install).await,
            ALERTS,
            "{install}: one handler run"
        );
    }
    // Refused for a while so every event is retried, then taken.
    refusals_then_each_event_acknowledged_once(&shared, installs.len() * EVENTS).await;
}

/// Three replicas started at the same instant on a fresh database, twenty times: every one starts,
/// every time (the example's table is a migration under the runtime's lock; made outside it, 16 of
/// 40 rounds failed on PostgreSQL's catalogue).
#[tokio::test]
async fn three_instances_started_at_the_same_instant_start_every_time() {
    let Some((server, pool)) = database().await else {
        return;
    };
    let (url, _shared) = stand_in_host(false, Duration::ZERO).await;
    for round in 0..20 {
        sqlx::raw_sql(&format!("CREATE DATABASE round_{round}"))
            .execute(&pool)
            .await
            .unwrap();
        let database = format!(
            "postgres://postgres@127.0.0.1:{}/round_{round}",
            server.port()
        );
        let url = url.clone();
        let started = tokio::task::spawn_blocking(move || start_together(&url, &database, 3))
            .await
            .unwrap();
        for (i, instance) in started.into_iter().enumerate() {
            if let Err(why) = instance {
                panic!("round {round}, instance {i}: {why}");
            }
        }
    }
}

#[tokio::test]
async fn a_database_restarted_under_load_answers_503_and_loses_nothing() {
    let Some((mut server, pool)) = database().await else {
        return;
    };
    let (url, shared) = stand_in_host(false, Duration::ZERO).await;
    let (_server, base) = start(&url, &server.url(), 3);
    let installs: Vec<String> = (0..24).map(|n| format!("ins_load_{n}")).collect();
    let statuses = Arc::new(Mutex::new(Vec::new()));
    // Each install's delivery retried as the host would (sooner), until it is answered 204.
    let load = {
        let (base, installs, statuses) = (base.clone(), installs.clone(), Arc::clone(&statuses));
        tokio::spawn(async move {
            futures_util::future::join_all(installs.into_iter().enumerate().map(|(n, install)| {
                let (base, statuses) = (base.clone(), Arc::clone(&statuses));
                async move {
                    tokio::time::sleep(Duration::from_millis(150 * n as u64)).await;
                    for attempt in 0.. {
                        let status = ship(&base, &install, attempt).await;
                        statuses.lock().unwrap().push(status);
                        if status == 204 {
                            return;
                        }
                        assert!(attempt < 200, "{install} never went through");
                        tokio::time::sleep(Duration::from_millis(250)).await;
                    }
                }
            }))
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(900)).await;
    // Down for longer than a call waits for a connection (2 s), so some calls fail.
    server.stop();
    tokio::time::sleep(Duration::from_millis(4_000)).await;
    server.restart().unwrap();
    load.await.unwrap();

    let statuses = statuses.lock().unwrap().clone();
    assert!(
        statuses.iter().all(|s| *s == 204 || *s == 503),
        "every answer is 204 or a retryable 503: {statuses:?}"
    );
    assert!(statuses.contains(&503), "the restart was met: {statuses:?}");
    for install in &installs {
        assert_eq!(
            alert_rows(&pool, install).await,
            ALERTS,
            "{install}: handled once"
        );
    }
    // An attempt whose settlement the restart cut off is claimed until its lease ends (a
    // minute): here it ends now, and the event is posted again, as delivery on the wire is at
    // least once.
    expire_outbox_claims(&pool).await;
    let all = installs.len() * EVENTS;
    wait_for(
        &shared,
        Duration::from_secs(30),
        "every event acknowledged",
        |s| acknowledged(s).len() == all,
    )
    .await;
}

/// Ends every claim on an outbox event now, as its lease would.
async fn expire_outbox_claims(pool: &PgPool) {
    sqlx::query("UPDATE host_outbox SET due = 0 WHERE owner IS NOT NULL AND NOT dead")
        .execute(pool)
        .await
        .unwrap();
}

/// Where one attempt at a delivery stops, in the property test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Crash {
    /// The handler has written an alert and fails on the next (the database refuses it).
    WriteFails,
    /// The process stops with the alerts written and the commit not made (the call is dropped).
    BeforeCommit,
    /// The process stops after the commit, before the host has the answer.
    AfterCommit,
}

/// A trigger that refuses a second alert of an install within one transaction while the table
/// `fail_writes` has a row: the handler fails after writing its first alert.
const FAIL_WRITES: &str = "
CREATE TABLE fail_writes (on_ boolean);
CREATE FUNCTION fail_writes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM fail_writes)
        AND EXISTS (SELECT 1 FROM keyword_alerts WHERE install = NEW.install) THEN
        RAISE EXCEPTION 'a write refused by the test';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER fail_writes BEFORE INSERT ON keyword_alerts
    FOR EACH ROW EXECUTE FUNCTION fail_writes();
";

/// Runs one delivery through `crashes` (the attempts that stop, in order), then until it is
/// answered 204, against a handler in this process.
async fn deliver_through(
    handler: &host_runtime::Handler,
    pool: &PgPool,
    install: &str,
    crashes: &[Crash],
) {
    let (host, body) = release_host(install);
    let host = Arc::new(host);
    let mut attempt = 0;
    // Once an attempt committed, later ones run nothing: they answer 204 at once.
    let mut committed = false;
    for crash in crashes {
        attempt += 1;
        if committed {
            let r = host.send(handler, delivery(&host, &body, attempt)).await;
            assert_eq!(
                r.status, 204,
                "a committed delivery answers 204: {}",
                r.json
            );
            continue;
        }
        match crash {
            Crash::WriteFails => {
                sqlx::query("INSERT INTO fail_writes VALUES (true)")
                    .execute(pool)
                    .await
                    .unwrap();
                let r = host.send(handler, delivery(&host, &body, attempt)).await;
                sqlx::query("DELETE FROM fail_writes")
                    .execute(pool)
                    .await
                    .unwrap();
                assert!(
                    r.status >= 500,
                    "a failed write answers a 5xx: {}",
                    r.status
                );
            }
            Crash::BeforeCommit => {
                let hold = hold_write(pool, &banner_id(install)).await;
                let (host, handler) = (Arc::clone(&host), handler.clone());
                let request = delivery(&host, &body, attempt);
                let call = tokio::spawn(async move { host.send(&handler, request).await });
                until_blocked(pool).await;
                call.abort();
                let _ = call.await;
                hold.rollback().await.unwrap();
            }
            Crash::AfterCommit => {
                let r = host.send(handler, delivery(&host, &body, attempt)).await;
                assert!(
                    r.status == 204 || r.status == 503,
                    "answered {}: {}",
                    r.status,
                    r.json
                );
                committed = r.status == 204;
            }
        }
    }
    loop {
        attempt += 1;
        let r = host.send(handler, delivery(&host, &body, attempt)).await;
        if r.status == 204 {
            return;
        }
        assert_eq!(r.status, 503, "only a retryable answer: {}", r.json);
        assert!(attempt < 100, "{install} never went through");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
fn random_crash_points_over_deliveries_leave_rows_and_events_once_per_delivery() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let Some((_server, pool, handler)) = runtime.block_on(async {
        let (server, pool) = database().await?;
        let url = server.url();
        let config = keyword_tracker::config::Config::load(None, false, |k| match k {
            "HOST_DATABASE_URL" => Some(url.clone()),
            "HOST_DEDUPE_LEASE_SECS" => Some("2".to_owned()),
            _ => None,
        })
        .unwrap();
        let database = keyword_tracker::database::Database::open(&url)
            .await
            .unwrap()
            .with_dedupe_lease(config.dedupe_lease);
        sqlx::raw_sql(FAIL_WRITES).execute(&pool).await.unwrap();
        // Events stay in the outbox (nothing drains it), to be counted there.
        let sender =
            keyword_tracker::Tracker::event_sender(&config, database.outbox().await.unwrap())
                .unwrap()
                .with_drain_mode(host_runtime::outbox::DrainMode::OnDemand);
        let tracker = keyword_tracker::Tracker::with_sender(sender)
            .unwrap()
            .with_database(database);
        let handler = keyword_tracker::app(Arc::new(tracker), &config);
        Some((server, pool, handler))
    }) else {
        return;
    };

    let crash = prop_oneof![
        Just(Crash::WriteFails),
        Just(Crash::BeforeCommit),
        Just(Crash::AfterCommit),
    ];
    // Up to four deliveries, each through up to three stopped attempts.
    let plan = proptest::collection::vec(proptest::collection::vec(crash, 0..=3), 1..=4);
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    let case = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    runner
        .run(&plan, |plan| {
            let case = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            runtime.block_on(async {
                let installs: Vec<String> = (0..plan.len())
                    .map(|n| format!("ins_p{case}_{n}"))
                    .collect();
                for (install, crashes) in installs.iter().zip(&plan) {
                    deliver_through(&handler, &pool, install, crashes).await;
                }
                for install in &installs {
                    let slug = install.replace('_', "-");
                    let events = |kind: &str| {
                        sqlx::query_scalar::<_, i64>(
                            "SELECT count(*) FROM host_outbox WHERE id LIKE $1",
                        )
                        .bind(format!("{kind}-{slug}-%"))
                        .fetch_one(&pool)
                    };
                    let rows = alert_rows(&pool, install).await;
                    let alerts = events("rank.dropped").await.unwrap();
                    let banners = events("rank.collapsed").await.unwrap();
                    prop_assert_eq!(
                        (rows, alerts, banners),
                        (ALERTS, ALERTS, 1),
                        "{} through {:?}",
                        install,
                        plan
                    );
                    prop_assert!(recorded(&pool, install).await);
                }
                Ok(())
            })
        })
        .unwrap();
    eprintln!("12 plans of crash points in {:?}", started.elapsed());
}

/// Deliveries in flight eight times the pool's size, each writing its alerts and sending four
/// events in its transaction: every one is answered, none waits for a second connection while its
/// transaction holds one (the pool's two connections would never come back), and every event is
/// posted once. The bound is far from both sides: the deliveries take well under a second here,
/// and a send that waited for a connection would wait out the pool's 30 s.
#[tokio::test]
async fn deliveries_eight_times_the_pool_size_are_all_answered() {
    const POOL: u32 = 2;
    const IN_FLIGHT: usize = 16;
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(POOL)
        .acquire_timeout(Duration::from_secs(30))
        .connect(&server.url())
        .await
        .unwrap();
    let (url, shared) = stand_in_host(false, Duration::ZERO).await;
    let database_url = server.url();
    let config = keyword_tracker::config::Config::load(None, false, |k| match k {
        "HOST_EVENT_POST_URL" => Some(url.clone()),
        "HOST_DATABASE_URL" => Some(database_url.clone()),
        _ => None,
    })
    .unwrap();
    let database = keyword_tracker::database::Database::from_pool(pool.clone())
        .await
        .unwrap();
    let outbox = database.outbox().await.unwrap();
    let tracker = keyword_tracker::Tracker::from_config(&config, outbox)
        .unwrap()
        .with_database(database);
    let handler = keyword_tracker::app(Arc::new(tracker), &config);

    let started = Instant::now();
    let answers = futures_util::future::join_all((0..IN_FLIGHT).map(|n| {
        let handler = handler.clone();
        async move {
            let install = format!("ins_pool_{n}");
            let (host, body) = release_host(&install);
            host.send(&handler, delivery(&host, &body, 1)).await
        }
    }))
    .await;
    let took = started.elapsed();
    for answer in &answers {
        assert_eq!(answer.status, 204, "{}", answer.json);
    }
    assert!(
        took < Duration::from_secs(20),
        "{IN_FLIGHT} deliveries on a pool of {POOL} took {took:?}"
    );
    for n in 0..IN_FLIGHT {
        assert_eq!(alert_rows(&pool, &format!("ins_pool_{n}")).await, ALERTS);
    }
    wait_for(
        &shared,
        Duration::from_secs(20),
        "every event acknowledged",
        |s| acknowledged(s).len() == IN_FLIGHT * EVENTS,
    )
    .await;
    let acks = acknowledged(&shared.lock().unwrap());
    assert!(acks.values().all(|&n| n == 1), "{acks:?}");
}

/// With nothing but a pooler's URL (PgBouncer in transaction mode, four server connections), two
/// instances started at the same moment both start, and thirty deliveries sent to both at once are
/// all answered 204: each runs once, and each event is acknowledged once. Neither PostgreSQL nor
/// the pooler logs an error (a prepared statement of one client reaching another's server
/// connection shows there first).
#[tokio::test]
async fn two_instances_behind_a_pooler_in_transaction_mode_deliver_everything_once() {
    let Some((server, pool)) = database().await else {
        return;
    };
    let Some(bouncer) = host_test_support::PgBouncer::start_or_skip(&server, 4) else {
        return;
    };
    let (url, shared) = stand_in_host(false, Duration::ZERO).await;
    let pooled = bouncer.url();
    let servers: Vec<(Proc, String)> = {
        let (url, pooled) = (url.clone(), pooled.clone());
        tokio::task::spawn_blocking(move || start_together(&url, &pooled, 2))
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.unwrap_or_else(|why| panic!("{why}")))
            .collect()
    };
    let installs: Vec<String> = (0..15).map(|n| format!("ins_pooled_{n}")).collect();
    let answers = futures_util::future::join_all(installs.iter().flat_map(|install| {
        servers
            .iter()
            .enumerate()
            .map(move |(i, (_, base))| ship(base, install, i as u32))
    }))
    .await;
    assert!(answers.iter().all(|&s| s == 204), "{answers:?}");
    for install in &installs {
        assert_eq!(
            alert_rows(&pool, install).await,
            ALERTS,
            "{install}: one run"
        );
    }
    wait_for(
        &shared,
        Duration::from_secs(30),
        "every event acknowledged",
        |s| acknowledged(s).len() == installs.len() * EVENTS,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let acks = acknowledged(&shared.lock().unwrap());
    assert!(acks.values().all(|&n| n == 1), "{acks:?}");
    for line in server.log().lines() {
        assert!(!line.contains("ERROR:"), "PostgreSQL logged: {line}");
    }
    for line in bouncer.log().lines() {
        assert!(
            !line.contains("ERROR") && !line.contains("WARNING"),
            "the pooler logged: {line}"
        );
    }
}

/// Least privilege and rotating credentials, as an operator runs them together: the schema
/// migrated by its owner; the server as a role with rights on the rows alone (`grants`), signing in
/// with a password (SCRAM), starting with `HOST_DATABASE_MIGRATIONS=check`; ten deliveries; then
/// the role's password changed in the database and handed to the pool by `refresh_password`, and
/// every connection the role had cut, so that each one is made anew; ten more deliveries. All
/// twenty answer 204 (each handler's events still join its transaction) and every event is posted
/// once. Without the refresh, the second ten could not connect.
#[tokio::test]
async fn a_role_with_data_rights_only_delivers_across_a_password_rotation() {
    use keyword_tracker::config::{DatabaseConfig, Migrations};
    let Some(server) = host_test_support::PostgresServer::start_with_passwords(&[])
        .map(Some)
        .unwrap_or_else(|e| {
            assert!(std::env::var_os("CI").is_none(), "{e}");
            None
        })
    else {
        return;
    };
    // The owner migrates, and lets the application role at the rows.
    let owner = keyword_tracker::database::Database::open(&server.url())
        .await
        .unwrap();
    let owner = owner.pool().clone();
    sqlx::raw_sql(&format!(
        "CREATE ROLE tracker_app LOGIN PASSWORD 'first-password';\n{}",
        keyword_tracker::database::grants("tracker_app")
    ))
    .execute(&owner)
    .await
    .unwrap();
    let as_app = |password: &str| {
        format!(
            "postgres://tracker_app:{password}@127.0.0.1:{}/postgres",
            server.port()
        )
    };
    let database = keyword_tracker::database::Database::open_with(&DatabaseConfig {
        url: as_app("first-password"),
        direct_url: None,
        // SCRAM's key derivation in a debug build takes a good part of the default 2 s, and every
        // connection is made anew at once after the cut.
        pool: host_runtime::postgres::Settings::default()
            .with_acquire_timeout(Duration::from_secs(15)),
        migrations: Migrations::Check,
    })
    .await
    .unwrap();
    let current = Arc::new(Mutex::new("first-password".to_owned()));
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let refresh =
        host_runtime::postgres::refresh_password(database.pool(), Duration::from_secs(1), {
            let (current, asked) = (Arc::clone(&current), Arc::clone(&asked));
            move || {
                let password = current.lock().unwrap().clone();
                asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async move { Ok::<_, std::convert::Infallible>(password) }
            }
        });
    let (url, shared) = stand_in_host(false, Duration::ZERO).await;
    let config = keyword_tracker::config::Config::load(None, false, |k| match k {
        "HOST_EVENT_POST_URL" => Some(url.clone()),
        _ => None,
    })
    .unwrap();
    let outbox = database.outbox().await.unwrap();
    let tracker = keyword_tracker::Tracker::from_config(&config, outbox)
        .unwrap()
        .with_database(database);
    let handler = keyword_tracker::app(Arc::new(tracker), &config);
    let deliver = |round: &'static str| {
        let handler = handler.clone();
        async move {
            for n in 0..10 {
                let (host, body) = release_host(&format!("ins_{round}_{n}"));
                let answer = host.send(&handler, delivery(&host, &body, 1)).await;
                assert_eq!(answer.status, 204, "{round} {n}: {}", answer.json);
            }
        }
    };
    deliver("before").await;

    // Rotated: the database takes only the new password, the provider answers it, and every
    // connection of the role is cut.
    sqlx::raw_sql("ALTER ROLE tracker_app PASSWORD 'second-password'")
        .execute(&owner)
        .await
        .unwrap();
    *current.lock().unwrap() = "second-password".to_owned();
    // Until the provider was asked again (the answer before it reaches the pool at once).
    let before = asked.load(std::sync::atomic::Ordering::SeqCst);
    while asked.load(std::sync::atomic::Ordering::SeqCst) < before + 2 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sqlx::raw_sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'tracker_app'",
    )
    .execute(&owner)
    .await
    .unwrap();
    // Gone for good (a backend ends a moment after it is told to).
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let row =
            sqlx::raw_sql("SELECT count(*) FROM pg_stat_activity WHERE usename = 'tracker_app'")
                .fetch_one(&owner)
                .await
                .unwrap();
        if sqlx::Row::try_get::<i64, _>(&row, 0).unwrap() == 0 {
            break;
        }
        assert!(Instant::now() < until, "the role's connections did not end");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        host_runtime::postgres::connect_with(
            &as_app("first-password"),
            &host_runtime::postgres::Settings::default().with_start_timeout(Duration::ZERO)
        )
        .await
        .is_err(),
        "the old password still signs in"
    );
    deliver("after").await;
    wait_for(
        &shared,
        Duration::from_secs(30),
        "every event acknowledged",
        |s| acknowledged(s).len() == 20 * EVENTS,
    )
    .await;
    let acks = acknowledged(&shared.lock().unwrap());
    assert!(acks.values().all(|&n| n == 1), "{acks:?}");
    refresh.abort();
}

/// Least privilege as an operator deploys it, with real processes: the example started as a role
/// with rights on the rows alone and `HOST_DATABASE_MIGRATIONS=check` on a database nobody migrated
/// refuses to start, naming what to run; `keyword-tracker --migrate` as the schema's owner, then
/// the statements of `keyword-tracker --grants`, and the same start serves a delivery.
#[tokio::test]
async fn the_example_starts_as_a_role_with_data_rights_once_its_owner_migrated() {
    let Some(server) = host_test_support::PostgresServer::start_with_passwords(&[])
        .map(Some)
        .unwrap_or_else(|e| {
            assert!(std::env::var_os("CI").is_none(), "{e}");
            None
        })
    else {
        return;
    };
    let owner = host_runtime::postgres::connect(&server.url())
        .await
        .unwrap();
    sqlx::raw_sql("CREATE ROLE tracker_app LOGIN PASSWORD 'app-secret'")
        .execute(&owner)
        .await
        .unwrap();
    let as_app = format!(
        "postgres://tracker_app:app-secret@127.0.0.1:{}/postgres",
        server.port()
    );
    let (url, _shared) = stand_in_host(false, Duration::ZERO).await;
    let env = [
        ("HOST_DATABASE_URL", as_app.as_str()),
        ("HOST_DATABASE_MIGRATIONS", "check"),
    ];
    let refused = support::started(support::spawn(&url, &env));
    let Err(why) = refused else {
        panic!("started on a database nobody migrated");
    };
    assert!(
        why.contains("no migration history") && why.contains("migrate it first"),
        "{why}"
    );

    let migrated = support::command()
        .arg("--migrate")
        .env("HOST_DATABASE_URL", server.url())
        .output()
        .unwrap();
    assert!(migrated.status.success(), "{migrated:?}");
    let grants = support::command()
        .args(["--grants", "tracker_app"])
        .output()
        .unwrap();
    sqlx::raw_sql(&String::from_utf8(grants.stdout).unwrap())
        .execute(&owner)
        .await
        .unwrap();

    let (_running, base) = support::start(&url, &env);
    assert_eq!(ship(&base, "ins_least_privilege", 1).await, 204);
    assert_eq!(
        alert_rows(&owner, "ins_least_privilege").await,
        ALERTS,
        "written as the application role"
    );
}

/// A database that comes up after the server (a serverless one waking, a compose file's order):
/// the start waits, saying so in its log, and serves once the database answers, instead of
/// exiting. With the wait set to 0 it exits at once, naming the database.
#[tokio::test]
async fn the_start_waits_for_a_database_that_comes_up_late() {
    let Some((mut server, _pool)) = database().await else {
        return;
    };
    server.stop();
    let (url, _shared) = stand_in_host(false, Duration::ZERO).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.log");
    let child = support::command()
        .args(["--listen", "127.0.0.1:0"])
        .env("HOST_EVENT_POST_URL", &url)
        .env("HOST_DATABASE_URL", server.url())
        .env("HOST_DATABASE_START_TIMEOUT_SECS", "60")
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("the database does not answer yet")
    {
        assert!(
            Instant::now() < until,
            "no word of the wait: {:?}",
            std::fs::read_to_string(&log)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.restart().unwrap();
    let (_running, base) = tokio::task::spawn_blocking(move || support::started(child))
        .await
        .unwrap()
        .unwrap_or_else(|why| panic!("{why}"));
    assert_eq!(ship(&base, "ins_late", 1).await, 204);
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("the database answers")
    );

    server.stop();
    let out = support::command()
        .env("HOST_EVENT_POST_URL", &url)
        .env("HOST_DATABASE_URL", server.url())
        .env("HOST_DATABASE_START_TIMEOUT_SECS", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("cannot connect to 127.0.0.1:{}", server.port())),
        "{said}"
    );
}
