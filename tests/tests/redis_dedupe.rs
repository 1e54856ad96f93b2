//! Event deduplication across instances with the Redis store, against a real Redis server: the test
//! starts `redis-server` on a free loopback port (`.ci/run` installs it). Without the binary the test
//! is skipped locally and fails in CI.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use host_runtime::HostEvent;
use host_runtime::dedupe::{Claim, DedupeStore, RedisStore};
use host_runtime::testing::TestHost;
use host_sdk_tests::{Server, handler};
use serde_json::json;

struct Redis {
    child: Child,
    url: String,
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_redis() -> Option<Redis> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "redis-server is required in CI ({e}); .ci/run installs it"
            );
            eprintln!("skipped: redis-server is not installed ({e})");
            return None;
        }
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Redis {
        child,
        url: format!("redis://127.0.0.1:{port}/"),
    })
}

#[tokio::test]
async fn the_redis_store_claims_records_and_releases() {
    let Some(redis) = start_redis() else { return };
    let store = RedisStore::connect(&redis.url)
        .await
        .unwrap()
        .with_prefix("test:");
    assert!(matches!(store.claim("k").await, Ok(Claim::Run)));
    assert!(
        matches!(store.claim("k").await, Ok(Claim::Busy)),
        "in flight elsewhere"
    );
    store.release("k").await;
    assert!(
        matches!(store.claim("k").await, Ok(Claim::Run)),
        "a failed attempt is retried"
    );
    store.complete("k").await;
    assert!(matches!(store.claim("k").await, Ok(Claim::Done)));
}

#[tokio::test]
async fn two_instances_sharing_redis_run_a_delivery_once() {
    let Some(redis) = start_redis() else { return };
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "k" });
    let server = Arc::new(Server::default());
    // Two handlers, as two instances would be, each with its own connection to the same Redis.
    let a = host
        .configure(handler(server.clone()))
        .with_dedupe_store(RedisStore::connect(&redis.url).await.unwrap());
    let b = host
        .configure(handler(server.clone()))
        .with_dedupe_store(RedisStore::connect(&redis.url).await.unwrap());
    let payload = serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    let host = Arc::new(host);
    let tasks: Vec<_> = (0..6)
        .map(|i| {
            let handler = if i % 2 == 0 { a.clone() } else { b.clone() };
            let (host, payload) = (host.clone(), payload.clone());
            tokio::spawn(async move {
                host.deliver(&handler, "release.shipped", payload, &format!("evt_{i}"))
                    .await
            })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap().status, 204);
    }
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
}
