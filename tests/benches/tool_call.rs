//! Load benchmark: one tool call end to end over loopback HTTP (a real signed token, JSON in and out)
//! through the SDK's handler, against a hand-written axum handler doing the same work with the
//! `jsonwebtoken` crate verifying every call. 64 concurrent keep-alive connections; each server runs in
//! a child process so its peak memory (VmHWM) is its own.
//!
//! `cargo bench -p host-sdk-tests --bench tool_call [-- SECONDS]`

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

const CONNECTIONS: usize = 64;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("serve-sdk") => serve_sdk(&args[2], &args[3], false),
        Some("serve-sdk-metrics") => serve_sdk(&args[2], &args[3], true),
        Some("serve-axum") => serve_axum(&args[2], &args[3]),
        _ => drive(args.iter().find_map(|a| a.parse::<u64>().ok()).unwrap_or(5)),
    }
}

/// The SDK: the example extension's generated handler, served with `Handler::serve_on`. With
/// `recorder`, Prometheus' exporter records every metric the runtime emits (durations as
/// histograms with 13 buckets, as the example configures it) and renders them every second, as a
/// scrape would, on a thread of its own.
fn serve_sdk(port: &str, jwks: &str, recorder: bool) {
    if recorder {
        let handle = metrics_exporter_prometheus::PrometheusBuilder::new()
            .set_buckets(&[
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
            ])
            .unwrap()
            .install_recorder()
            .unwrap();
        host_runtime::observe::describe();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                std::hint::black_box(handle.render());
            }
        });
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let jwks: Value = serde_json::from_str(jwks).unwrap();
        // The fixture subscribes to events, so the server needs a deduplication store to start
        // (tool calls never use it).
        let handler = host_sdk_tests::handler(host_sdk_tests::Server::default())
            .with_jwks(jwks)
            .with_dedupe_store(host_runtime::dedupe::MemoryDedupe::default());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port.parse::<u16>().unwrap()))
            .await
            .unwrap();
        handler.serve_on(listener).await.unwrap();
    });
}

/// The hand-written baseline: axum, `jsonwebtoken` on every call, the same input checks and answer.
fn serve_axum(port: &str, jwks: &str) {
    use axum::http::{HeaderMap, StatusCode};
    let jwks: Value = serde_json::from_str(jwks).unwrap();
    let x = jwks["keys"][0]["x"].as_str().unwrap().to_owned();
    let key = Arc::new(jsonwebtoken::DecodingKey::from_ed_components(&x).unwrap());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let app = axum::Router::new().route(
            "/host/tools/visibility-score",
            axum::routing::post(move |headers: HeaderMap, body: Bytes| {
                let key = key.clone();
                async move {
                    let token = headers
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.strip_prefix("Bearer "))
                        .unwrap_or_default();
                    let mut validation =
                        jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::EdDSA);
                    validation.set_audience(&["keyword-tracker"]);
                    validation.set_issuer(&["https://auth.host.example"]);
                    if jsonwebtoken::decode::<Value>(token, &key, &validation).is_err() {
                        return (
                            StatusCode::UNAUTHORIZED,
                            r#"{"error":{"code":"UNAUTHORIZED","message":"bad token"}}"#.to_owned(),
                        );
                    }
                    let Ok(call) = serde_json::from_slice::<Value>(&body) else {
                        return (
                            StatusCode::BAD_REQUEST,
                            r#"{"error":{"code":"BAD_REQUEST","message":"not JSON"}}"#.to_owned(),
                        );
                    };
                    let country = call["input"]["country"].as_str().unwrap_or("US");
                    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
                        return (
                            StatusCode::UNPROCESSABLE_ENTITY,
                            r#"{"error":{"code":"INPUT_INVALID","message":"country"}}"#.to_owned(),
                        );
                    }
                    (
                        StatusCode::OK,
                        json!({ "value": 71.5, "label": "Visibility" }).to_string(),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port.parse::<u16>().unwrap()))
            .await
            .unwrap();
        axum::serve(listener, app).await.unwrap();
    });
}

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(kind: &str, jwks: &Value) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(std::env::current_exe().unwrap())
            .args([kind, &port.to_string(), &jwks.to_string()])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "{kind} did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Server { child, port }
    }

    /// Peak resident memory of the server process, in KiB.
    fn peak_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

struct Outcome {
    requests: usize,
    errors: usize,
    seconds: f64,
    latencies_us: Vec<u64>,
}

/// Drives `CONNECTIONS` keep-alive HTTP/1.1 connections for `seconds`; `token` gives each request's
/// token (the same one, or the next of a pre-minted pool).
fn load(port: u16, seconds: u64, tokens: Arc<Vec<String>>, fresh: bool) -> Outcome {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let body = Bytes::from(
            json!({
                "install": { "id": "ins_test_1", "extensionId": "keyword-tracker", "projectId": "prj_test_1", "organizationId": "org_test_1" },
                "context": { "projectId": "prj_test_1", "platform": "ios" },
                "input": { "country": "DE" },
                "credentials": { "api_key": "kt_live_123" },
                "documents": {}
            })
            .to_string(),
        );
        let next = Arc::new(AtomicUsize::new(0));
        let errors = Arc::new(AtomicUsize::new(0));
        let stop = Instant::now() + Duration::from_secs(seconds);
        let started = Instant::now();
        let tasks: Vec<_> = (0..CONNECTIONS)
            .map(|_| {
                let (tokens, next, errors, body) = (tokens.clone(), next.clone(), errors.clone(), body.clone());
                tokio::spawn(async move {
                    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
                    let (mut sender, conn) =
                        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await.unwrap();
                    tokio::spawn(conn);
                    let mut latencies = Vec::new();
                    while Instant::now() < stop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let token = if fresh { &tokens[i % tokens.len()] } else { &tokens[0] };
                        let request = http::Request::post("/host/tools/visibility-score")
                            .header("host", "127.0.0.1")
                            .header("authorization", format!("Bearer {token}"))
                            .header("content-type", "application/json")
                            .body(Full::new(body.clone()))
                            .unwrap();
                        let t = Instant::now();
                        let Ok(response) = sender.send_request(request).await else {
                            errors.fetch_add(1, Ordering::Relaxed);
                            break;
                        };
                        let ok = response.status() == 200;
                        let _ = response.into_body().collect().await;
                        latencies.push(t.elapsed().as_micros() as u64);
                        if !ok {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    latencies
                })
            })
            .collect();
        let mut latencies_us = Vec::new();
        for t in tasks {
            latencies_us.extend(t.await.unwrap());
        }
        Outcome { requests: latencies_us.len(), errors: errors.load(Ordering::Relaxed), seconds: started.elapsed().as_secs_f64(), latencies_us }
    })
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

fn drive(seconds: u64) {
    let mut host = host_runtime::testing::TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    let jwks = host.jwks();
    // Fresh tokens are minted before the run so minting does not count: one per expected request.
    let pool: Vec<String> = (0..60_000)
        .map(|i| {
            let mut c = host.claims();
            c.iat += i % 7; // different bytes, all valid
            c.exp += i;
            host.mint(&c)
        })
        .collect();
    let pool = Arc::new(pool);
    let verify_rate = verification_rate(&jwks, &pool);
    println!(
        "Ed25519 signature verification alone, one core: {verify_rate:.0}/s ({:.1} us each)",
        1e6 / verify_rate
    );
    println!(
        "tool call end to end, {CONNECTIONS} connections, {seconds} s per run, 1 server worker thread"
    );
    println!("| server | tokens | requests/s | p50 ms | p99 ms | errors | server peak RSS |");
    println!("|---|---|---|---|---|---|---|");
    let mut rates = std::collections::HashMap::new();
    for (kind, label) in [
        ("serve-sdk", "host-runtime"),
        ("serve-axum", "hand-written axum + jsonwebtoken"),
    ] {
        for fresh in [false, true] {
            let server = Server::start(kind, &jwks);
            let _warm = load(server.port, 1, pool.clone(), fresh);
            let mut out = load(server.port, seconds, pool.clone(), fresh);
            out.latencies_us.sort_unstable();
            let rate = out.requests as f64 / out.seconds;
            rates.insert((kind, fresh), rate);
            println!(
                "| {label} | {} | {:.0} | {:.2} | {:.2} | {} | {:.1} MiB |",
                if fresh { "fresh each call" } else { "repeated" },
                rate,
                percentile(&out.latencies_us, 0.50),
                percentile(&out.latencies_us, 0.99),
                out.errors,
                server.peak_kib() as f64 / 1024.0
            );
        }
    }
    println!();
    println!(
        "repeated tokens: host-runtime / axum = {:.2}x",
        rates[&("serve-sdk", false)] / rates[&("serve-axum", false)]
    );
    println!(
        "fresh tokens:    host-runtime / axum = {:.2}x",
        rates[&("serve-sdk", true)] / rates[&("serve-axum", true)]
    );
    println!(
        "fresh tokens:    host-runtime / signature verification alone = {:.0} %",
        100.0 * rates[&("serve-sdk", true)] / verify_rate
    );
    recorder_overhead(seconds, &jwks, &pool);
}

/// The cost of a metrics recorder on the hot path: repeated tokens (the fastest path, where a
/// fixed cost shows most), the server without and with Prometheus' recorder taken in turn, five
/// rounds each; medians compared.
fn recorder_overhead(seconds: u64, jwks: &Value, pool: &Arc<Vec<String>>) {
    let mut without = Vec::new();
    let mut with = Vec::new();
    for _ in 0..5 {
        for (kind, rates) in [
            ("serve-sdk", &mut without),
            ("serve-sdk-metrics", &mut with),
        ] {
            let server = Server::start(kind, jwks);
            let _warm = load(server.port, 1, pool.clone(), false);
            let out = load(server.port, seconds, pool.clone(), false);
            rates.push(out.requests as f64 / out.seconds);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (a, b) = (median(&mut without), median(&mut with));
    println!();
    println!("recorder overhead, repeated tokens, 5 rounds in turn:");
    println!("  without a recorder: {without:.0?} req/s, median {a:.0}");
    println!("  Prometheus recorder: {with:.0?} req/s, median {b:.0}");
    println!(
        "  with / without = {:.3} ({:+.1} %)",
        b / a,
        100.0 * (b / a - 1.0)
    );
}

/// How many of the pool's token signatures one core verifies per second, with the same library and
/// call the SDK uses (`ed25519-dalek`, `verify_strict`) and nothing else: the ceiling for a server that
/// verifies a fresh token on every call with one worker thread.
fn verification_rate(jwks: &Value, pool: &[String]) -> f64 {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let x = jwks["keys"][0]["x"].as_str().unwrap();
    let key: [u8; 32] = URL_SAFE_NO_PAD.decode(x).unwrap().try_into().unwrap();
    let key = ed25519_dalek::VerifyingKey::from_bytes(&key).unwrap();
    let signed: Vec<(&[u8], ed25519_dalek::Signature)> = pool
        .iter()
        .take(20_000)
        .map(|token| {
            let (message, signature) = token.rsplit_once('.').unwrap();
            let signature = URL_SAFE_NO_PAD.decode(signature).unwrap();
            (
                message.as_bytes(),
                ed25519_dalek::Signature::from_slice(&signature).unwrap(),
            )
        })
        .collect();
    let mut best = 0.0f64;
    for _ in 0..3 {
        let started = Instant::now();
        for (message, signature) in &signed {
            assert!(key.verify_strict(message, signature).is_ok());
        }
        best = best.max(signed.len() as f64 / started.elapsed().as_secs_f64());
    }
    best
}
