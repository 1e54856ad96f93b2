//! Lease benchmark (not a test): how long after a crash the events a killed instance had claimed
//! wait before another instance posts them, for the default lease and a short one, on the file,
//! Redis and PostgreSQL outboxes.
//!
//! `cargo bench -p host-sdk-tests --bench outbox_lease`. `LEASE_EVENTS` (default 100) sets how many
//! events are held at the kill, `LEASE_STORES` (default `file,redis,postgres`) picks the stores,
//! `LEASE_RUNS` (default 3) the crashes per store and lease.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, missing_docs)]

use std::time::Duration;

use host_test_support::{PostgresServer, RedisServer};

mod support {
    #[path = "crash_drain.rs"]
    pub(crate) mod crash_drain;
}
use support::crash_drain::drain_after_crash;

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let events: usize = env("LEASE_EVENTS", "100").parse().unwrap();
    let runs: usize = env("LEASE_RUNS", "3").parse().unwrap();
    let stores = env("LEASE_STORES", "file,redis,postgres");
    // (lease, attempt timeout): the default lease with the default timeout, and a short lease with
    // a timeout short enough for it.
    let settings = [
        (Duration::from_secs(60), Duration::from_secs(10)),
        (Duration::from_secs(5), Duration::from_secs(2)),
    ];
    let redis = stores
        .contains("redis")
        .then(|| RedisServer::start().unwrap());
    let postgres = stores
        .contains("postgres")
        .then(|| PostgresServer::start().unwrap());
    println!("| store | lease | first event posted after the kill | last of {events} |");
    println!("|---|---|---|---|");
    for store in stores.split(',') {
        for (lease, timeout) in settings {
            for run in 0..runs {
                let dir = tempfile::tempdir().unwrap();
                let url = match store {
                    "file" => format!("file:{}", dir.path().display()),
                    "redis" => redis.as_ref().unwrap().url(),
                    "postgres" => postgres.as_ref().unwrap().url(),
                    other => panic!("unknown store {other}"),
                };
                let drained = drain_after_crash(&url, events, lease, timeout, lease * 3).await;
                println!(
                    "| {store} (run {}) | {} s | {:.2} s | {:.2} s |",
                    run + 1,
                    lease.as_secs(),
                    drained.first.as_secs_f64(),
                    drained.last.as_secs_f64()
                );
            }
        }
    }
}
