//! Delivery benchmark (not a test): `release.shipped` deliveries handled per second by the keyword
//! tracker in this process, on the transactional path (alerts, deduplication and the outbox in one
//! PostgreSQL database, one commit per delivery) against the Redis deduplication store and the
//! file outbox (no alert rows: the path a vendor without the database has).
//!
//! Beside each PostgreSQL path, on the same server and in the same run, `pgbench` gives the
//! database's own rate: its TPC-B-like transaction (32 clients, a common reference for what a
//! server commits per second) and `delivery.pgbench`, the statements the SDK sends for one delivery
//! of this path, at the 16 connections of the SDK's pool (the fairer limit: what the database
//! could do for these deliveries if the SDK cost nothing). The table gives deliveries/s over each,
//! and the statements a delivery took (PostgreSQL's `pg_stat_statements`).
//!
//! `cargo bench -p keyword-tracker --bench deliveries`. Settings, from the environment:
//!
//! - `DELIVERIES` (default 2,000): deliveries per path, each for an install of its own (3 alerts
//!   and a banner each); `CONCURRENCY` (default 32): how many are in flight at once;
//! - `PGBENCH_SECONDS` (default 20; 0 leaves pgbench out): how long each pgbench run lasts;
//! - `PATHS` (default `plaintext,tls,pooler,redis`): which paths run (`pooler`: the transactional
//!   path through PgBouncer in transaction mode, 16 server connections; pgbench beside it reaches
//!   the server directly);
//! - `STATEMENTS` (set to anything): the statements a delivery took, the most frequent first, on
//!   stderr;
//! - `FLOOR`: CI's tripwire. When set (say `0.05`), the run fails when the plaintext transactional
//!   path's deliveries/s fall under `FLOOR` times pgbench's TPC-B rate measured beside it: a floor
//!   an order of magnitude under the target (0.5), so that a loss like the one that once took
//!   this path from 941 to 37 deliveries/s fails the build, and the noise of a shared machine
//!   does not.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use host_runtime::Handler;
use host_runtime::postgres::sqlx;
use host_runtime::testing::TestHost;
use host_test_support::{PostgresServer, RedisServer};
use keyword_tracker::Tracker;
use keyword_tracker::config::Config;
use serde_json::json;

/// The statements of one delivery of the transactional path, as a pgbench script.
const DELIVERY_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/delivery.pgbench");

/// pgbench's clients for TPC-B, and for the delivery script (the SDK pool's connections).
const TPCB_CLIENTS: u32 = 32;
const SCRIPT_CLIENTS: u32 = 16;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A receiver that answers every post 200 at once and counts them.
async fn receiver() -> (String, Arc<AtomicU64>) {
    let count = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&count);
    let app = axum::Router::new().route(
        "/v1/events",
        axum::routing::post(move || {
            let seen = Arc::clone(&seen);
            async move {
                seen.fetch_add(1, Ordering::Relaxed);
                http::StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/events", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, count)
}

/// The requests of `n` deliveries, one install each, made before the clock starts.
fn deliveries(tag: &str, n: usize) -> Vec<(TestHost, http::Request<bytes::Bytes>)> {
    (0..n)
        .map(|i| {
            let mut host = TestHost::development("keyword-tracker");
            host.install_id = format!("ins_{tag}_{i}");
            host.credentials = json!({ "api_key": "kt_demo_key" });
            let mut release = host_runtime::events::example_payload("release.shipped").unwrap();
            release["releaseId"] = json!(format!("rel_{i}"));
            let body = host.event_body("release.shipped", release);
            let request = host.request(http::Method::POST, "/host/events", Some(&body));
            (host, request)
        })
        .collect()
}

/// Runs every delivery, `concurrency` at once; the seconds they took. Every one must answer 204.
async fn run(
    handler: &Handler,
    requests: Vec<(TestHost, http::Request<bytes::Bytes>)>,
    concurrency: usize,
) -> f64 {
    let started = Instant::now();
    let statuses: Vec<u16> = futures_util::stream::iter(requests)
        .map(|(host, request)| async move { host.send(handler, request).await.status })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    let elapsed = started.elapsed().as_secs_f64();
    assert!(statuses.iter().all(|s| *s == 204), "{statuses:?}");
    elapsed
}

async fn wait_delivered(count: &AtomicU64, target: u64) -> Duration {
    let started = Instant::now();
    while count.load(Ordering::Relaxed) < target {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    started.elapsed()
}

/// A PostgreSQL server with `fsync` on, counting statements, and its URL; with `tls`, it serves a
/// certificate of a CA made here (its file written in `dir`), refuses plaintext, and the URL asks
/// for `verify-full`.
fn postgres(tls: bool, dir: &Path) -> (PostgresServer, String) {
    let settings = [
        ("fsync", "on"),
        ("shared_preload_libraries", "pg_stat_statements"),
    ];
    if !tls {
        let server = PostgresServer::start_with(&settings).unwrap();
        let url = server.url();
        return (server, url);
    }
    PostgresServer::start_verified_tls(&settings, dir).unwrap()
}

/// Statements the server ran since `pg_stat_statements` was last reset.
async fn statements(pool: &sqlx::PgPool) -> i64 {
    let row = sqlx::raw_sql("SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements")
        .fetch_one(pool)
        .await
        .unwrap();
    sqlx::Row::try_get(&row, 0).unwrap()
}

/// Runs pgbench against `url` for `seconds` with `clients`, on `script` (TPC-B-like when `None`,
/// its tables made first); its transactions per second.
fn pgbench(
    server: &PostgresServer,
    url: &str,
    script: Option<&str>,
    clients: u32,
    seconds: usize,
) -> f64 {
    let tool = server.tool("pgbench");
    let run = |args: &[&str]| {
        let out = Command::new(&tool)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{} cannot run: {e}", tool.display()));
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "pgbench {args:?} failed:\n{said}");
        said
    };
    let (clients, seconds) = (clients.to_string(), seconds.to_string());
    let mut args = vec!["-M", "prepared", "-c", &clients, "-j", "2", "-T", &seconds];
    match script {
        Some(script) => args.extend(["-n", "-f", script]),
        None => {
            run(&["-i", "-q", "-s", "10", url]);
        }
    }
    args.push(url);
    let said = run(&args);
    said.lines()
        .find_map(|l| l.strip_prefix("tps = "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|tps| tps.parse().ok())
        .unwrap_or_else(|| panic!("no rate in pgbench's answer:\n{said}"))
}

/// What one PostgreSQL path measured.
struct Measured {
    deliveries: f64,
    tpcb: Option<f64>,
}

/// How the transactional path reaches its server.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    Plaintext,
    Tls,
    /// Through PgBouncer in transaction mode, 16 server connections (the SDK's pool).
    Pooler,
}

/// The transactional path on a server of its own; prints its row.
async fn transactional(
    reach: Reach,
    n: usize,
    concurrency: usize,
    seconds: usize,
    url: &str,
    count: &AtomicU64,
) -> Measured {
    let tls = reach == Reach::Tls;
    let dir = tempfile::tempdir().unwrap();
    let (server, direct_url) = postgres(tls, dir.path());
    let bouncer =
        (reach == Reach::Pooler).then(|| host_test_support::PgBouncer::start(&server, 16).unwrap());
    let database_url = bouncer
        .as_ref()
        .map_or_else(|| direct_url.clone(), |b| b.url());
    let config = Config::load(None, false, |k| match k {
        "HOST_EVENT_POST_URL" => Some(url.to_owned()),
        "HOST_DATABASE_URL" => Some(database_url.clone()),
        _ => None,
    })
    .unwrap();
    let database = keyword_tracker::database::Database::open(&database_url)
        .await
        .unwrap();
    let pool = database.pool().clone();
    sqlx::raw_sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .execute(&pool)
        .await
        .unwrap();
    let outbox = database.outbox().await.unwrap();
    let tracker = Tracker::from_config(&config, outbox)
        .unwrap()
        .with_database(database);
    let handler = keyword_tracker::app(Arc::new(tracker), &config);
    let before = count.load(Ordering::Relaxed);
    let prefix = match reach {
        Reach::Plaintext => "pg",
        Reach::Tls => "tls",
        Reach::Pooler => "pooled",
    };
    let requests = deliveries(prefix, n);
    let statements_before = statements(&pool).await;
    let seconds_taken = run(&handler, requests, concurrency).await;
    let drained = wait_delivered(count, before + 4 * n as u64).await;
    // The query counting them is one more.
    let per_delivery = (statements(&pool).await - statements_before - 1) as f64 / n as f64;
    if std::env::var_os("STATEMENTS").is_some() {
        let rows = sqlx::raw_sql(
            "SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) FROM pg_stat_statements \
             ORDER BY calls DESC LIMIT 15",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        for row in rows {
            let calls: i64 = sqlx::Row::try_get(&row, 0).unwrap();
            let query: String = sqlx::Row::try_get(&row, 1).unwrap();
            eprintln!("{:8.2} a delivery: {query}", calls as f64 / n as f64);
        }
    }
    let rate = n as f64 / seconds_taken;
    let (tpcb, script) = if seconds == 0 {
        (None, None)
    } else {
        (
            Some(pgbench(&server, &direct_url, None, TPCB_CLIENTS, seconds)),
            Some(pgbench(
                &server,
                &direct_url,
                Some(DELIVERY_SCRIPT),
                SCRIPT_CLIENTS,
                seconds,
            )),
        )
    };
    let over =
        |limit: Option<f64>| limit.map_or("-".to_owned(), |l| format!("{l:.0} ({:.2})", rate / l));
    println!(
        "| transactional, {} | {rate:.0} | {per_delivery:.1} | {} | {} | {:.1} s |",
        match reach {
            Reach::Plaintext => "plaintext",
            Reach::Tls => "TLS verify-full",
            Reach::Pooler => "PgBouncer, transaction mode",
        },
        over(tpcb),
        over(script),
        drained.as_secs_f64()
    );
    Measured {
        deliveries: rate,
        tpcb,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let n = env("DELIVERIES", 2_000);
    let concurrency = env("CONCURRENCY", 32);
    let seconds = env("PGBENCH_SECONDS", 20);
    let paths = std::env::var("PATHS").unwrap_or_else(|_| "plaintext,tls,pooler,redis".to_owned());
    let floor: Option<f64> = std::env::var("FLOOR")
        .ok()
        .map(|f| f.parse().expect("FLOOR: a number"));
    let (url, count) = receiver().await;
    println!("{n} deliveries per path, {concurrency} at once; 3 alerts and a banner each");
    println!(
        "pgbench beside each PostgreSQL path, {seconds} s a run: TPC-B-like with {TPCB_CLIENTS} clients, \
         delivery.pgbench with {SCRIPT_CLIENTS}; deliveries/s over each in brackets"
    );
    println!();
    println!(
        "| path | deliveries/s | statements a delivery | pgbench TPC-B tps (ratio) | delivery.pgbench tps (ratio) | last event posted after the last delivery |"
    );
    println!("|---|---|---|---|---|---|");

    let mut plaintext = None;
    for (name, reach) in [
        ("plaintext", Reach::Plaintext),
        ("tls", Reach::Tls),
        ("pooler", Reach::Pooler),
    ] {
        if paths.split(',').any(|p| p == name) {
            let measured = transactional(reach, n, concurrency, seconds, &url, &count).await;
            if reach == Reach::Plaintext {
                plaintext = Some(measured);
            }
        }
    }

    if paths.split(',').any(|p| p == "redis") {
        let redis = RedisServer::start().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = Config::load(None, false, |k| match k {
            "HOST_EVENT_POST_URL" => Some(url.clone()),
            _ => None,
        })
        .unwrap();
        let outbox = host_runtime::outbox::FileOutbox::open(dir.path()).unwrap();
        let tracker = Tracker::from_config(&config, outbox).unwrap();
        let dedupe = host_runtime::dedupe::RedisDedupe::connect(&redis.url())
            .await
            .unwrap();
        let handler = keyword_tracker::app(Arc::new(tracker), &config).with_dedupe_store(dedupe);
        let before = count.load(Ordering::Relaxed);
        let seconds_taken = run(&handler, deliveries("redis", n), concurrency).await;
        let drained = wait_delivered(&count, before + 4 * n as u64).await;
        println!(
            "| Redis deduplication, file outbox (no alert rows) | {:.0} | - | - | - | {:.1} s |",
            n as f64 / seconds_taken,
            drained.as_secs_f64()
        );
    }

    if let Some(floor) = floor {
        let Some(Measured {
            deliveries,
            tpcb: Some(tpcb),
        }) = plaintext
        else {
            panic!("FLOOR needs the plaintext path and pgbench (PATHS, PGBENCH_SECONDS)");
        };
        let ratio = deliveries / tpcb;
        println!();
        if ratio < floor {
            eprintln!(
                "error: the transactional path ran {deliveries:.0} deliveries/s beside pgbench's \
                 {tpcb:.0} TPC-B transactions/s on the same server: {ratio:.3} of it, under the floor \
                 of {floor}. Something on that path waits, or sends far more statements than it \
                 did: compare `statements a delivery` with BENCHMARKS.md"
            );
            std::process::exit(1);
        }
        println!("tripwire: {ratio:.3} of pgbench's TPC-B rate, over the floor of {floor}");
    }
}
