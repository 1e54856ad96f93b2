//! Delivery benchmark (not a test): `release.shipped` deliveries handled per second by the keyword
//! tracker in this process, on the transactional path (alerts, deduplication and the outbox in one
//! PostgreSQL database, one commit per delivery) against the Redis deduplication store and the
//! file outbox (no alert rows: the path a vendor without the database has).
//!
//! `cargo bench -p keyword-tracker --bench deliveries`. `DELIVERIES` (default 2,000) sets how many
//! deliveries each path gets, each for an install of its own (3 alerts and a banner each),
//! `CONCURRENCY` (default 32) how many are in flight at once.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use host_runtime::Handler;
use host_runtime::testing::TestHost;
use host_test_support::{PostgresServer, RedisServer};
use keyword_tracker::Tracker;
use keyword_tracker::config::Config;
use serde_json::json;

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

/// A PostgreSQL server with `fsync` on and its URL; with `tls`, it serves a certificate of a CA
/// made here (its file written in `dir`), refuses plaintext, and the URL asks for `verify-full`.
fn postgres(tls: bool, dir: &std::path::Path) -> (PostgresServer, String) {
    let settings = [("fsync", "on")];
    if !tls {
        let server = PostgresServer::start_with(&settings).unwrap();
        let url = server.url();
        return (server, url);
    }
    PostgresServer::start_verified_tls(&settings, dir).unwrap()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let n = env("DELIVERIES", 2_000);
    let concurrency = env("CONCURRENCY", 32);
    let (url, count) = receiver().await;
    println!("{n} deliveries per path, {concurrency} at once; 3 alerts and a banner each");
    println!();
    println!("| path | deliveries/s | events posted, after the last delivery |");
    println!("|---|---|---|");

    for tls in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (_postgres, database_url) = postgres(tls, dir.path());
        let config = Config::load(None, false, |k| match k {
            "HOST_EVENT_POST_URL" => Some(url.clone()),
            "HOST_DATABASE_URL" => Some(database_url.clone()),
            _ => None,
        })
        .unwrap();
        let database = keyword_tracker::database::Database::open(&database_url)
            .await
            .unwrap();
        let outbox = database.outbox().await.unwrap();
        let tracker = Tracker::from_config(&config, outbox)
            .unwrap()
            .with_database(database);
        let handler = keyword_tracker::app(Arc::new(tracker), &config);
        let before = count.load(Ordering::Relaxed);
        let prefix = if tls { "tls" } else { "pg" };
        let seconds = run(&handler, deliveries(prefix, n), concurrency).await;
        let drained = wait_delivered(&count, before + 4 * n as u64).await;
        println!(
            "| transactional: alerts, deduplication and outbox in PostgreSQL, one commit ({}) | {:.0} | {:.1} s later |",
            if tls { "TLS, verify-full" } else { "plaintext" },
            n as f64 / seconds,
            drained.as_secs_f64()
        );
    }

    {
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
        let seconds = run(&handler, deliveries("redis", n), concurrency).await;
        let drained = wait_delivered(&count, before + 4 * n as u64).await;
        println!(
            "| Redis deduplication, file outbox (no alert rows) | {:.0} | {:.1} s later |",
            n as f64 / seconds,
            drained.as_secs_f64()
        );
    }
}
