//! Cold starts: from starting the process to its first answered invocation, for the Lambda function
//! (against the stand-in Runtime API of the tests) and the Vercel function (`examples/vercel`, over
//! HTTP as `vercel dev` runs it), both release builds.
//!
//! ```text
//! cargo bench -p keyword-tracker-lambda --bench cold_start          # 60 runs of each
//! COLD_START_RUNS=200 cargo bench -p keyword-tracker-lambda --bench cold_start
//! ```
//!
//! The first invocation is a tool call with a valid install token (development mode: the inline
//! development key set, so no key set fetch), answered 200. For Lambda it also prints the init
//! time: process start to the runtime's first `GET /runtime/invocation/next`, what AWS reports as
//! "Init Duration". The Vercel binary is built first with `cargo build --release -p
//! keyword-tracker-vercel`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // A benchmark fails loudly.

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use host_runtime::testing::TestHost;
use serde_json::json;

fn host() -> TestHost {
    let mut host = TestHost::development("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    host
}

fn tool_body(host: &TestHost) -> String {
    host.call_body(json!({ "keyword": "habit tracker", "days": 3 }))
        .to_string()
}

/// Median and 90th percentile, in milliseconds.
fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[i].as_secs_f64() * 1000.0
    };
    println!(
        "{name:<44} runs {:>4}  median {:>6.1} ms  p90 {:>6.1} ms  min {:>6.1} ms  max {:>6.1} ms",
        samples.len(),
        at(0.5),
        at(0.9),
        at(0.0),
        at(1.0)
    );
}

async fn lambda_once(host: &TestHost) -> (Duration, Duration) {
    let api = common::RuntimeApi::start().await;
    let event = common::function_url_event(
        "POST",
        "/host/tools/keyword-ranks",
        &[
            ("authorization", format!("Bearer {}", host.token())),
            ("content-type", "application/json".to_owned()),
        ],
        Some(&tool_body(host)),
    );
    // Queued before the start, as Lambda holds the invocation that caused the cold start.
    let answer = api.invoke(event);
    let started = Instant::now();
    let function = common::start_function(&api, &[("HOST_OUTBOX", "memory".to_owned())]);
    let outcome = tokio::time::timeout(Duration::from_secs(30), answer)
        .await
        .unwrap()
        .unwrap();
    let answered = started.elapsed();
    let init = api.first_poll().unwrap().duration_since(started);
    let (status, body) = common::http_answer(&outcome);
    assert_eq!(status, 200, "{body}");
    common::stop(function);
    (init, answered)
}

fn vercel_once(binary: &std::path::Path, host: &TestHost) -> Duration {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let body = tool_body(host);
    let request = format!(
        "POST /host/tools/keyword-ranks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        host.token(),
        body.len()
    );
    let started = Instant::now();
    let mut child = Command::new(binary)
        .env_clear()
        .env("VERCEL_DEV_PORT", port.to_string())
        .env("HOST_OUTBOX", "memory")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stream = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => break stream,
            Err(_) => {
                assert!(
                    started.elapsed() < Duration::from_secs(30),
                    "never listened"
                );
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    };
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let elapsed = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let _ = child.kill();
    let _ = child.wait();
    elapsed
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::var("COLD_START_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    let host = host();

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let built = Command::new(cargo)
        .args(["build", "--release", "-p", "keyword-tracker-vercel"])
        .status()
        .unwrap();
    assert!(built.success(), "building the Vercel function failed");
    let lambda = std::path::PathBuf::from(env!("CARGO_BIN_EXE_keyword-tracker-lambda"));
    let vercel = lambda.with_file_name("host");
    // One unmeasured run of each, so both binaries are in the page cache as on a warm host.
    lambda_once(&host).await;
    vercel_once(&vercel, &host);

    let (mut init, mut answered) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let (i, a) = lambda_once(&host).await;
        init.push(i);
        answered.push(a);
    }
    let vercel_runs: Vec<Duration> = (0..runs).map(|_| vercel_once(&vercel, &host)).collect();
    summary("Lambda: start to first GET /next (init)", init);
    summary("Lambda: start to first answered invocation", answered);
    summary("Vercel: start to first answered call", vercel_runs);
}
