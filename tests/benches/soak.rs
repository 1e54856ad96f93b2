//! Soak benchmark (not a test): the example extension's handler in process, driven for a long run.
//!
//! - 300,000 tool calls, each with a fresh token: the process's resident memory every 50,000 calls
//!   (the verified-token cache is bounded, so it must level off);
//! - 100,000 distinct event deliveries with the memory store: deliveries per second over the first
//!   and the last 10,000 (recorded keys are forgotten from a queue, so the rate must hold).
//!
//! `cargo bench -p host-sdk-tests --bench soak` (`SOAK_CONCURRENCY=N` sets how many deliveries are in
//! flight at once, 1,000 by default; `SOAK_TOOL_CALLS=0` skips the tool calls).

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, missing_docs)]

use std::time::Instant;

/// Counts the bytes the program holds on the heap and the most it held: what the deliveries in
/// flight really need, apart from what the allocator keeps around.
#[global_allocator]
static ALLOCATOR: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

use host_runtime::HostEvent;
use serde_json::json;

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let mut host = host_runtime::testing::TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    let handler = host.configure(host_sdk_tests::handler(host_sdk_tests::Server::default()));

    println!("fresh-token tool calls, in process");
    println!("| calls | resident memory |");
    println!("|---|---|");
    println!("| 0 | {:.1} MiB |", rss_mib());
    let started = Instant::now();
    let calls: u64 = std::env::var("SOAK_TOOL_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300_000);
    for i in 1..=calls {
        let mut claims = host.claims();
        claims.exp += i as i64; // a new token each call
        let token = host.mint(&claims);
        let mut request = host.request(
            http::Method::POST,
            "/host/tools/visibility-score",
            Some(&host.call_body(json!({}))),
        );
        request.headers_mut().insert(
            http::header::AUTHORIZATION,
            http::HeaderValue::from_str(&format!("Bearer {token}")).unwrap(),
        );
        let r = host.send(&handler, request).await;
        assert_eq!(r.status, 200, "{}", r.json);
        if i % 50_000 == 0 {
            println!("| {i} | {:.1} MiB |", rss_mib());
        }
    }
    println!("({:.1} s)", started.elapsed().as_secs_f64());

    println!();
    let concurrency: u64 = std::env::var("SOAK_CONCURRENCY")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|n| 10_000 % n == 0)
        .unwrap_or(1_000);
    println!("distinct event deliveries, memory store, {concurrency} in flight at once");
    println!(
        "resident memory before: {:.1} MiB (heap in use {:.1} MiB)",
        rss_mib(),
        mib(ALLOCATOR.current_usage())
    );
    ALLOCATOR.reset_peak_usage();
    let base = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let host = std::sync::Arc::new(host);
    let mut rates = Vec::new();
    // The fixture's handler takes 50 ms, so deliveries go 1,000 at a time, as a busy host sends them.
    for block in 0..10u64 {
        let window = Instant::now();
        for batch in 0..10_000 / concurrency {
            let mut set = tokio::task::JoinSet::new();
            for j in 0..concurrency {
                let i = block * 10_000 + batch * concurrency + j;
                let mut payload = base.clone();
                payload["version"] = json!(format!("1.0.{i}"));
                payload["releaseId"] = json!(format!("rel_{i}"));
                let (host, handler) = (host.clone(), handler.clone());
                set.spawn(async move {
                    host.deliver(&handler, "release.shipped", payload, &format!("evt_{i}"))
                        .await
                        .status
                });
            }
            while let Some(status) = set.join_next().await {
                assert_eq!(status.unwrap(), 204);
            }
        }
        rates.push(10_000.0 / window.elapsed().as_secs_f64());
    }
    println!("| deliveries | per second |");
    println!("|---|---|");
    for (n, rate) in rates.iter().enumerate() {
        println!("| {}–{} | {rate:.0} |", n * 10_000 + 1, (n + 1) * 10_000);
    }
    let (live, peak) = (ALLOCATOR.current_usage(), ALLOCATOR.peak_usage());
    println!(
        "resident memory after: {:.1} MiB; heap in use {:.1} MiB (the window's keys), at most {:.1} MiB \
         while deliveries were in flight: {:.1} KiB per delivery in flight beyond the window",
        rss_mib(),
        mib(live),
        mib(peak),
        (peak.saturating_sub(live)) as f64 / 1024.0 / concurrency as f64
    );
    // What the window holds, against what the allocator kept from the deliveries in flight: a
    // second run over the same 100,000 contents is answered from the recorded keys (no handler, no
    // new key), so memory that grows again is per-delivery, and memory that stays is the window's.
    let again = Instant::now();
    for batch in 0..100_000 / concurrency {
        let mut set = tokio::task::JoinSet::new();
        for j in 0..concurrency {
            let i = batch * concurrency + j;
            let mut payload = base.clone();
            payload["version"] = json!(format!("1.0.{i}"));
            payload["releaseId"] = json!(format!("rel_{i}"));
            let (host, handler) = (host.clone(), handler.clone());
            set.spawn(async move {
                host.deliver(
                    &handler,
                    "release.shipped",
                    payload,
                    &format!("evt_again_{i}"),
                )
                .await
                .status
            });
        }
        while let Some(status) = set.join_next().await {
            assert_eq!(status.unwrap(), 204);
        }
    }
    println!(
        "the same 100,000 again (duplicates, answered from the window): {:.0}/s, resident memory {:.1} MiB",
        100_000.0 / again.elapsed().as_secs_f64(),
        rss_mib()
    );
}
