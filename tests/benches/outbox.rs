//! Outbox benchmark (not a test): how fast events are accepted into the embedded (file), Redis and
//! PostgreSQL outboxes, how fast they reach a fast receiver end to end, and the process's resident
//! memory over a million events.
//!
//! `cargo bench -p host-sdk-tests --bench outbox`. `OUTBOX_EVENTS` (default 100,000) sets the events
//! of the rate runs, `OUTBOX_SOAK` (default 1,000,000, 0 skips) those of the memory run,
//! `OUTBOX_PRODUCERS` (default 256) how many tasks send at once, `OUTBOX_SOAK_DRAIN=0` leaves the
//! memory run's events unposted, `OUTBOX_SOAK_STORE=postgres` runs it on PostgreSQL rather than the
//! file, `OUTBOX_STORES` (default `memory,file,redis,postgres`) picks the rate runs' stores.
//!
//! `OUTBOX_BACKLOG=1000000` runs the backlog drain instead of the rest: that many events accepted
//! into the PostgreSQL outbox with nothing posting, then a dispatcher started on the backlog; it
//! prints the posted rate of each tenth of the drain and the resident memory after it, and the
//! first, middle and last tenth's rates over their median.
//!
//! `OUTBOX_TRIPWIRE=1` is CI's check: each durable store's accepted rate over the memory store's (the
//! outbox's simplest store, measured in the same run) must stay above a floor an order of
//! magnitude under what it is ([`FLOORS`]), so that a loss like one that once took a path from
//! 941 to 37 a second fails the build, and the noise of a shared machine does not.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use host_runtime::EventSender;
use host_runtime::outbox::{
    DrainMode, FileOutbox, MemoryOutbox, OutboxStore, PostgresOutbox, RedisOutbox, Which,
};

/// The lowest accepted rate each durable store may have, over the memory store's, with
/// `OUTBOX_TRIPWIRE=1`: about a tenth of the ratio measured when they were set (release build,
/// 2 cores; a debug build's ratios are higher, the stores' own work weighing more in them).
const FLOORS: &[(&str, f64)] = &[("file", 0.02), ("redis", 0.02), ("postgres", 0.002)];
use host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET;
use host_runtime::webhook::PayloadSchema;

static ALERT: PayloadSchema = PayloadSchema::new(
    "rank.dropped",
    r#"{"type": "object", "required": ["why"], "properties": {"why": {"type": "string", "maxLength": 280}, "keyword": {"type": "string"}}}"#,
    None,
    true,
);

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

fn env(name: &str, default: u64) -> u64 {
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

/// Sends `events` events through `sender` from `producers` tasks, numbered from `from`; returns
/// the seconds it took until every one was accepted.
async fn produce(sender: &EventSender, from: u64, events: u64, producers: u64) -> f64 {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for p in 0..producers {
        let sender = sender.clone();
        tasks.spawn(async move {
            let mut n = from + p;
            while n < from + events {
                let payload = serde_json::json!({ "why": format!("keyword {n} fell"), "keyword": "habit tracker" });
                let event = sender.event(&ALERT, "ins_bench", &format!("drop-{n}"), &payload).unwrap();
                // The receipt is dropped: the outcome is the dispatcher's to log.
                let _receipt = event.enqueue().await.expect("accepted");
                n += producers;
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    started.elapsed().as_secs_f64()
}

fn sender(url: &str, store: impl OutboxStore, dispatch: DrainMode) -> EventSender {
    EventSender::new(url, DEVELOPMENT_WEBHOOK_SECRET, store)
        .unwrap()
        .with_drain_mode(dispatch)
}

async fn wait_delivered(count: &AtomicU64, target: u64) {
    while count.load(Ordering::Relaxed) < target {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let events = env("OUTBOX_EVENTS", 100_000);
    let producers = env("OUTBOX_PRODUCERS", 256);
    let soak = env("OUTBOX_SOAK", 1_000_000);
    let (url, count) = receiver().await;
    let backlog = env("OUTBOX_BACKLOG", 0);
    if backlog > 0 {
        backlog_drain(&url, &count, backlog, producers).await;
        return;
    }
    println!(
        "{events} events, {producers} producers; resident memory at start {:.1} MiB",
        rss_mib()
    );
    println!();
    if events > 0 {
        rates(&url, &count, events, producers).await;
    }
    if soak == 0 {
        return;
    }
    soak_run(&url, &count, soak, producers).await;
}

async fn rates(url: &str, count: &AtomicU64, events: u64, producers: u64) {
    let url = url.to_owned();
    println!("| outbox | accepted/s (no delivery) | end to end: delivered/s to a 200 receiver |");
    println!("|---|---|---|");

    let stores =
        std::env::var("OUTBOX_STORES").unwrap_or_else(|_| "memory,file,redis,postgres".into());
    let tripwire = std::env::var("OUTBOX_TRIPWIRE").is_ok_and(|v| v == "1");
    let mut accepted = Vec::new();
    if stores.contains("memory") || tripwire {
        accepted.push(("memory", memory_rates(&url, count, events, producers).await));
    }
    if stores.contains("file") {
        accepted.push(("file", file_rates(&url, count, events, producers).await));
    }
    if stores.contains("redis") {
        accepted.push(("redis", redis_rates(&url, count, events, producers).await));
    }
    if stores.contains("postgres") {
        accepted.push((
            "postgres",
            postgres_rates(&url, count, events, producers, false).await,
        ));
        if !tripwire {
            postgres_rates(&url, count, events, producers, true).await;
        }
    }
    if tripwire {
        check_floors(&accepted);
    }
}

/// Fails the run when a store's accepted rate over the memory store's is under its floor.
fn check_floors(accepted: &[(&str, f64)]) {
    let memory = accepted
        .iter()
        .find(|(store, _)| *store == "memory")
        .map(|(_, rate)| *rate)
        .expect("the memory store ran");
    println!();
    let mut under = Vec::new();
    for (store, floor) in FLOORS {
        let Some((_, rate)) = accepted.iter().find(|(s, _)| s == store) else {
            continue;
        };
        let ratio = rate / memory;
        println!(
            "tripwire: {store} accepted {rate:.0}/s, {ratio:.4} of memory's {memory:.0}/s (floor {floor})"
        );
        if ratio < *floor {
            under.push(format!(
                "{store}: {rate:.0} events/s accepted, {ratio:.4} of the memory store's {memory:.0}/s, under the floor of {floor}"
            ));
        }
    }
    if !under.is_empty() {
        eprintln!(
            "error: an outbox store accepts events far slower than it did (something waits, or \
             makes far more requests; see BENCHMARKS.md):\n  {}",
            under.join("\n  ")
        );
        std::process::exit(1);
    }
}

/// The memory store: what the sender itself costs, for the other stores' tripwire.
async fn memory_rates(url: &str, count: &AtomicU64, events: u64, producers: u64) -> f64 {
    let accept = {
        let s = sender(url, MemoryOutbox::new(), DrainMode::OnDemand);
        events as f64 / produce(&s, 0, events, producers).await
    };
    let end_to_end = {
        let before = count.load(Ordering::Relaxed);
        let s = sender(url, MemoryOutbox::new(), DrainMode::Background);
        let started = Instant::now();
        produce(&s, 0, events, producers).await;
        wait_delivered(count, before + events).await;
        events as f64 / started.elapsed().as_secs_f64()
    };
    println!("| memory (`MemoryOutbox`, nothing durable) | {accept:.0} | {end_to_end:.0} |");
    accept
}

/// A fresh PostgreSQL server (fsync on, as in production), its schema applied, and a pool on it;
/// with `tls`, the server serves a certificate of a CA made here and the pool connects with
/// `sslmode=verify-full` (the folder holds the CA's file).
async fn postgres(
    tls: bool,
) -> (
    host_test_support::PostgresServer,
    host_runtime::postgres::sqlx::PgPool,
    tempfile::TempDir,
) {
    use host_test_support::PostgresServer;
    let dir = tempfile::tempdir().unwrap();
    let settings = [("fsync", "on")];
    let (server, url) = if tls {
        PostgresServer::start_verified_tls(&settings, dir.path()).unwrap()
    } else {
        let server = PostgresServer::start_with(&settings).unwrap();
        let url = server.url();
        (server, url)
    };
    let pool = host_runtime::postgres::connect(&url).await.unwrap();
    host_runtime::postgres::migrate(&pool).await.unwrap();
    (server, pool, dir)
}

async fn postgres_rates(
    url: &str,
    count: &AtomicU64,
    events: u64,
    producers: u64,
    tls: bool,
) -> f64 {
    let (_server, pool, _dir) = postgres(tls).await;
    let store = || async { PostgresOutbox::new(pool.clone()).await.unwrap() };
    let accept = {
        let s = sender(url, store().await, DrainMode::OnDemand);
        events as f64 / produce(&s, 0, events, producers).await
    };
    // The accepted events are left for the end-to-end run to drain too: it counts its own.
    host_runtime::postgres::sqlx::query("DELETE FROM host_outbox")
        .execute(&pool)
        .await
        .unwrap();
    let end_to_end = {
        let before = count.load(Ordering::Relaxed);
        let s = sender(url, store().await, DrainMode::Background);
        let started = Instant::now();
        produce(&s, 0, events, producers).await;
        wait_delivered(count, before + events).await;
        events as f64 / started.elapsed().as_secs_f64()
    };
    let connection = if tls { "TLS, verify-full" } else { "plaintext" };
    println!(
        "| PostgreSQL (`PostgresOutbox`, local server, fsync and synchronous commit on; {connection}) | {accept:.0} | {end_to_end:.0} |"
    );
    accept
}

async fn file_rates(url: &str, count: &AtomicU64, events: u64, producers: u64) -> f64 {
    let url = url.to_owned();
    // Embedded: acceptance alone (nothing drains), then end to end in a fresh file.
    let dir = tempfile::tempdir().unwrap();
    let accept = {
        let s = sender(
            &url,
            FileOutbox::open(dir.path().join("accept")).unwrap(),
            DrainMode::OnDemand,
        );
        events as f64 / produce(&s, 0, events, producers).await
    };
    let end_to_end = {
        let before = count.load(Ordering::Relaxed);
        let s = sender(
            &url,
            FileOutbox::open(dir.path().join("e2e")).unwrap(),
            DrainMode::Background,
        );
        let started = Instant::now();
        produce(&s, 0, events, producers).await;
        wait_delivered(count, before + events).await;
        let rate = events as f64 / started.elapsed().as_secs_f64();
        assert!(
            s.outbox_store()
                .list(Which::Dead, 1)
                .await
                .unwrap()
                .is_empty()
        );
        rate
    };
    println!("| embedded (redb file, fsync per commit) | {accept:.0} | {end_to_end:.0} |");
    accept
}

async fn redis_rates(url: &str, count: &AtomicU64, events: u64, producers: u64) -> f64 {
    let url = url.to_owned();
    let redis = host_test_support::RedisServer::start().expect("a Redis server");
    let store = RedisOutbox::connect(&redis.url()).await.unwrap();
    let accept = {
        let s = sender(
            &url,
            store.clone().with_prefix("accept:"),
            DrainMode::OnDemand,
        );
        events as f64 / produce(&s, 0, events, producers).await
    };
    let end_to_end = {
        let before = count.load(Ordering::Relaxed);
        let s = sender(&url, store.with_prefix("e2e:"), DrainMode::Background);
        let started = Instant::now();
        produce(&s, 0, events, producers).await;
        wait_delivered(count, before + events).await;
        events as f64 / started.elapsed().as_secs_f64()
    };
    println!("| Redis (one instance, local redis-server) | {accept:.0} | {end_to_end:.0} |");
    accept
}

async fn soak_run(url: &str, count: &AtomicU64, soak: u64, producers: u64) {
    let dir = tempfile::tempdir().unwrap();
    let on_postgres = std::env::var("OUTBOX_SOAK_STORE").is_ok_and(|s| s == "postgres");
    let database = if on_postgres {
        Some(postgres(false).await)
    } else {
        None
    };
    println!();
    println!(
        "{soak} events end to end through the {} outbox, resident memory:",
        if on_postgres {
            "PostgreSQL"
        } else {
            "embedded"
        }
    );
    println!("| events accepted | delivered | pending | resident memory |");
    println!("|---|---|---|---|");
    let before = count.load(Ordering::Relaxed);
    // `OUTBOX_SOAK_DRAIN=0`: nothing is posted, so memory is measured against acceptance alone.
    let dispatch = if env("OUTBOX_SOAK_DRAIN", 1) == 0 {
        DrainMode::OnDemand
    } else {
        DrainMode::Background
    };
    let s = match &database {
        Some((_, pool, _)) => sender(
            url,
            PostgresOutbox::new(pool.clone()).await.unwrap(),
            dispatch,
        ),
        None => sender(
            url,
            FileOutbox::open(dir.path().join("soak")).unwrap(),
            dispatch,
        ),
    };
    let step = (soak / 10).max(1);
    let started = Instant::now();
    let mut from = 0;
    while from < soak {
        produce(&s, from, step, producers).await;
        from += step;
        // Counted from the receiver: listing the waiting events would load them all into memory.
        let delivered = count.load(Ordering::Relaxed) - before;
        println!(
            "| {from} | {delivered} | {} | {:.1} MiB |",
            from.saturating_sub(delivered),
            rss_mib()
        );
    }
    if dispatch == DrainMode::OnDemand {
        println!("resident memory {:.1} MiB", rss_mib());
        return;
    }
    wait_delivered(count, before + soak).await;
    println!(
        "all {soak} delivered in {:.1} s; resident memory {:.1} MiB",
        started.elapsed().as_secs_f64(),
        rss_mib()
    );
}

/// `backlog` events accepted with nothing posting, then drained by one dispatcher: the posted rate
/// of each tenth, which stays flat when a claim's cost does not grow with what the claims before
/// it left behind.
async fn backlog_drain(url: &str, count: &AtomicU64, backlog: u64, producers: u64) {
    let (_server, pool, _dir) = postgres(false).await;
    let filling = sender(
        url,
        PostgresOutbox::new(pool.clone()).await.unwrap(),
        DrainMode::OnDemand,
    );
    let step = (backlog / 10).max(1);
    let mut from = 0;
    let mut took = 0.0;
    while from < backlog {
        took += produce(&filling, from, step.min(backlog - from), producers).await;
        from += step;
    }
    drop(filling);
    println!(
        "{backlog} events waiting in the PostgreSQL outbox (accepted in {took:.0} s); resident memory {:.1} MiB",
        rss_mib()
    );
    println!();
    println!("| tenth of the drain | posted per second | resident memory |");
    println!("|---|---|---|");
    let before = count.load(Ordering::Relaxed);
    let draining = sender(
        url,
        PostgresOutbox::new(pool.clone()).await.unwrap(),
        DrainMode::Background,
    );
    // What a server does at start-up: the backlog is posted without waiting for a new event.
    assert!(draining.start(), "no background dispatcher");
    let mut rates = Vec::new();
    let mut mark = Instant::now();
    let started = mark;
    for tenth in 1..=10 {
        wait_delivered(count, before + (step * tenth).min(backlog)).await;
        let rate = step as f64 / mark.elapsed().as_secs_f64();
        mark = Instant::now();
        println!("| {tenth} | {rate:.0} | {:.1} MiB |", rss_mib());
        rates.push(rate);
    }
    let mut sorted = rates.clone();
    sorted.sort_by(f64::total_cmp);
    let median = (sorted[4] + sorted[5]) / 2.0;
    println!();
    println!(
        "drained in {:.0} s; first, middle and last tenth over the median: {:.2}, {:.2}, {:.2}",
        started.elapsed().as_secs_f64(),
        rates[0] / median,
        rates[4] / median,
        rates[9] / median
    );
}
