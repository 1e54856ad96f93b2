//! Event deduplication across instances with the Redis store (instances sharing Redis, outages; the
//! store contract runs in host-runtime's `contract_redis.rs`), against a real Redis server: the test starts `redis-server` on a free loopback
//! port (`.ci/run` installs it). Without the binary the test is skipped locally and fails in CI.
//! The fault tests pause Redis (SIGSTOP), kill it and start it again on the same port: deliveries
//! are answered a retryable 503 within the store timeout, never hang, and the store finds Redis
//! again once it is back.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use host_runtime::Handler;
use host_runtime::HostEvent;
use host_runtime::dedupe::RedisDedupe;
use host_runtime::testing::TestHost;
use host_sdk_tests::{Server, handler};
use host_test_support::RedisServer;
use serde_json::json;

/// A send whose Redis outbox is down fails with an error whose chain reaches the I/O error Redis
/// met: a vendor's report shows the connection refused, not only "the event was not accepted".
#[tokio::test]
async fn a_send_to_a_redis_outbox_that_is_down_keeps_the_io_error_as_its_cause() {
    use host_runtime::outbox::{RedisOutbox, SendError, StoreErrorKind};
    use std::error::Error as _;

    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let outbox = RedisOutbox::connect(&redis.url()).await.unwrap();
    drop(redis);
    let sender = host_runtime::EventSender::new(
        "http://127.0.0.1:9/events",
        host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET,
        outbox,
    )
    .unwrap();
    let hooks = host_sdk_tests::Webhooks::new(sender);
    let payload = host_sdk_tests::webhooks::rank_dropped::Payload {
        why: "Notes fell to 9".parse().unwrap(),
        country: Some("DE".to_owned()),
        keyword: Some("notes".to_owned()),
        previous: None,
        current: None,
    };
    let e = hooks
        .rank_dropped("ins_1", "drop-1", &payload)
        .unwrap()
        .enqueue()
        .await
        .unwrap_err();
    let SendError::Store(store) = &e else {
        panic!("not a store error: {e:?}");
    };
    assert_eq!(store.store(), "redis");
    assert!(
        matches!(
            store.kind(),
            StoreErrorKind::Unavailable | StoreErrorKind::Timeout
        ),
        "{store:?}"
    );
    // The chain: the send error, the store's error, Redis's error, the I/O error.
    let mut chain = vec![e.to_string()];
    let mut cause = e.source();
    let mut io = None;
    while let Some(c) = cause {
        chain.push(c.to_string());
        io = io.or_else(|| c.downcast_ref::<std::io::Error>().map(std::io::Error::kind));
        cause = c.source();
    }
    assert!(chain.len() >= 4, "{chain:#?}");
    assert!(io.is_some(), "no I/O error in the chain: {chain:#?}");
}

#[tokio::test]
async fn two_instances_sharing_redis_run_a_delivery_once() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "k" });
    let server = Arc::new(Server::default());
    // Two handlers, as two instances would be, each with its own connection to the same Redis.
    let a = host
        .configure(handler(server.clone()))
        .with_dedupe_store(RedisDedupe::connect(&redis.url()).await.unwrap());
    let b = host
        .configure(handler(server.clone()))
        .with_dedupe_store(RedisDedupe::connect(&redis.url()).await.unwrap());
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

fn signal(redis: &RedisServer, signal: &str) {
    let pid = redis.pid().unwrap().to_string();
    assert!(
        Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success()
    );
}

/// A test host and an instance on `redis` whose store calls time out after 500 ms.
async fn impatient_instance(redis: &RedisServer) -> (TestHost, Handler) {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "k" });
    let handler = host
        .configure(handler(Arc::new(Server::default())))
        .with_dedupe_store(RedisDedupe::connect(&redis.url()).await.unwrap())
        .with_dedupe_timeout(Duration::from_millis(500));
    (host, handler)
}

/// A `release.shipped` payload of its own content (so it is not a duplicate of another).
fn release(version: &str) -> serde_json::Value {
    let mut payload =
        serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap();
    payload["version"] = json!(version);
    payload["releaseId"] = json!(format!("rel_{version}"));
    payload
}

/// Delivers until the answer is 204 or `within` passes; the last answer's status.
async fn deliver_until_done(
    host: &TestHost,
    handler: &host_runtime::Handler,
    version: &str,
    within: Duration,
) -> u16 {
    let deadline = Instant::now() + within;
    loop {
        let r = host
            .deliver(handler, "release.shipped", release(version), "evt")
            .await;
        if r.status == 204 || Instant::now() > deadline {
            return r.status;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_paused_redis_answers_a_retryable_503_quickly_then_recovers() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let (host, handler) = impatient_instance(&redis).await;
    let ok = host
        .deliver(&handler, "release.shipped", release("1.0.0"), "evt_1")
        .await;
    assert_eq!(ok.status, 204);
    signal(&redis, "-STOP");
    let started = Instant::now();
    let r = host
        .deliver(&handler, "release.shipped", release("1.0.1"), "evt_2")
        .await;
    r.assert_error(503, "DEDUPE_UNAVAILABLE");
    assert!(r.headers.contains_key(http::header::RETRY_AFTER));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "answered in {:?}, not hung",
        started.elapsed()
    );
    signal(&redis, "-CONT");
    assert_eq!(
        deliver_until_done(&host, &handler, "1.0.1", Duration::from_secs(10)).await,
        204
    );
}

#[tokio::test]
async fn a_killed_redis_answers_503_and_a_restarted_one_is_found_again() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let port = redis.port();
    let (host, handler) = impatient_instance(&redis).await;
    drop(redis);
    let started = Instant::now();
    let r = host
        .deliver(&handler, "release.shipped", release("2.0.0"), "evt_1")
        .await;
    r.assert_error(503, "DEDUPE_UNAVAILABLE");
    assert!(started.elapsed() < Duration::from_secs(2));
    let _again = RedisServer::start_on(port).unwrap();
    assert_eq!(
        deliver_until_done(&host, &handler, "2.0.0", Duration::from_secs(15)).await,
        204,
        "the store did not reconnect"
    );
}

#[tokio::test]
async fn connecting_to_a_redis_that_is_down_fails_within_the_timeout() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let connected = RedisDedupe::connect(&format!("redis://127.0.0.1:{port}/")).await;
    assert!(connected.is_err());
    assert!(
        started.elapsed() <= RedisDedupe::CONNECT_TIMEOUT + Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
}

/// Two instances; the first attempt outlives the claim's lease (so the lease must be renewed) and
/// then fails; a duplicate reaches the other instance meanwhile. Before leases, the duplicate ran
/// concurrently once the claim expired, and the failing first attempt then deleted its record, so
/// the host's retry ran the event a second time.
#[tokio::test]
async fn a_slow_failing_attempt_and_a_duplicate_on_another_instance_run_the_event_once() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "k" });
    let server = Arc::new(Server::default());
    server
        .behaviour
        .event_delay_ms
        .store(1_500, Ordering::SeqCst);
    server.behaviour.fail_events.store(1, Ordering::SeqCst);
    let instance = |store: RedisDedupe| -> Handler {
        host.configure(handler(server.clone()))
            .with_dedupe_store(store.with_lease(Duration::from_millis(600)))
            .with_event_wait(Duration::from_millis(200))
    };
    let a = instance(RedisDedupe::connect(&redis.url()).await.unwrap());
    let b = instance(RedisDedupe::connect(&redis.url()).await.unwrap());
    let host = Arc::new(host);
    let first = {
        let (host, a) = (host.clone(), a.clone());
        tokio::spawn(async move {
            host.deliver(&a, "release.shipped", release("3.0.0"), "evt_1")
                .await
        })
    };
    // Past the lease: the first attempt still holds its claim, renewed.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let duplicate = host
        .deliver(&b, "release.shipped", release("3.0.0"), "evt_2")
        .await;
    duplicate.assert_error(503, "EVENT_IN_FLIGHT");
    first.await.unwrap().assert_error(503, "RANKS_DOWN");
    // The host retries: the event runs once, and once only.
    server.behaviour.event_delay_ms.store(0, Ordering::SeqCst);
    let retry = host
        .deliver(&b, "release.shipped", release("3.0.0"), "evt_3")
        .await;
    assert_eq!(retry.status, 204, "{}", retry.json);
    let again = host
        .deliver(&a, "release.shipped", release("3.0.0"), "evt_4")
        .await;
    assert_eq!(again.status, 204);
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
}
