//! The example's own events survive what servers meet: a host that refuses them for a while, the
//! server killed with SIGKILL in the middle of the retries (a deploy, a crash, the OOM killer) and
//! started again on the same outbox, several instances draining one Redis outbox, and an outbox
//! that is down when an event is sent. Real processes: the example binary, a stand-in host over
//! HTTP, `redis-server`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use host_runtime::testing::{DEVELOPMENT_WEBHOOK_SECRET, TestHost};
use host_runtime::webhook::{Secret, verify_webhook};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_keyword-tracker");

/// A child process killed (SIGKILL) when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One post the stand-in host received.
#[derive(Debug, Clone)]
struct Post {
    id: String,
    body: Vec<u8>,
    status: u16,
    signed: bool,
}

/// The stand-in host's event-post endpoint: refuses with 503 while `refusing`, records every post,
/// and notes when two posts of one event overlap.
#[derive(Default)]
struct Endpoint {
    refusing: bool,
    posts: Vec<Post>,
    in_flight: HashMap<String, usize>,
    overlaps: Vec<String>,
}

type Shared = Arc<Mutex<Endpoint>>;

async fn stand_in_host(refusing: bool, hold: Duration) -> (String, Shared) {
    let shared: Shared = Arc::new(Mutex::new(Endpoint {
        refusing,
        ..Endpoint::default()
    }));
    let state = Arc::clone(&shared);
    let app = axum::Router::new().route(
        "/v1/events",
        axum::routing::post(move |headers: http::HeaderMap, body: bytes::Bytes| {
            let state = Arc::clone(&state);
            async move {
                let header = |name: &str| {
                    headers
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned()
                };
                let id = header("webhook-id");
                let secret = Secret::parse(DEVELOPMENT_WEBHOOK_SECRET).unwrap();
                let signed = verify_webhook(
                    &secret,
                    &id,
                    &header("webhook-timestamp"),
                    &header("webhook-signature"),
                    &body,
                    SystemTime::now(),
                )
                .is_ok();
                {
                    let mut s = state.lock().unwrap();
                    let n = s.in_flight.entry(id.clone()).or_default();
                    *n += 1;
                    if *n > 1 {
                        s.overlaps.push(id.clone());
                    }
                }
                tokio::time::sleep(hold).await;
                let mut s = state.lock().unwrap();
                *s.in_flight.entry(id.clone()).or_default() -= 1;
                let status = if s.refusing { 503 } else { 200 };
                s.posts.push(Post {
                    id,
                    body: body.to_vec(),
                    status,
                    signed,
                });
                http::StatusCode::from_u16(status).unwrap()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/events", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, shared)
}

/// Starts the example in development mode on a free port, posting to `post_url` through the outbox
/// `outbox`; returns it and its base URL.
fn start(post_url: &str, outbox: &str) -> (Proc, String) {
    let mut child = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0"])
        .env_remove("HOST_MODE")
        .env_remove("HOST_JWKS_URL")
        .env("HOST_EVENT_POST_URL", post_url)
        .env("HOST_OUTBOX", outbox)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .next()
        .expect("the server prints its address")
        .unwrap();
    let base = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_owned();
    (Proc(child), base)
}

/// Delivers `release.shipped` for `install` to the server at `base`; the answer's status.
async fn ship(base: &str, install: &str) -> u16 {
    let mut host = TestHost::development("keyword-tracker");
    host.install_id = install.to_owned();
    host.credentials = json!({ "api_key": "kt_demo_key" });
    let mut release = host_runtime::events::example_payload("release.shipped").unwrap();
    release["releaseId"] = json!(format!("rel_{install}"));
    let body = host.event_body("release.shipped", release);
    let mut request = host.request(http::Method::POST, "/host/events", Some(&body));
    request
        .headers_mut()
        .insert("x-host-event-id", http::HeaderValue::from_static("evt_1"));
    let r = host.send_http(base, request).await.unwrap();
    if r.status >= 400 {
        eprintln!("release.shipped answered {}: {}", r.status, r.json);
    }
    r.status
}

/// Waits until `done` holds of the endpoint, or fails after `limit` with what it saw.
async fn wait_for(shared: &Shared, limit: Duration, what: &str, done: impl Fn(&Endpoint) -> bool) {
    let until = Instant::now() + limit;
    loop {
        if done(&shared.lock().unwrap()) {
            return;
        }
        if Instant::now() > until {
            let s = shared.lock().unwrap();
            panic!("{what}: not within {limit:?}; saw {:#?}", s.posts);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The ids acknowledged (2xx), with how often each was.
fn acknowledged(s: &Endpoint) -> HashMap<String, usize> {
    let mut acks = HashMap::new();
    for post in s.posts.iter().filter(|p| p.status == 200) {
        *acks.entry(post.id.clone()).or_default() += 1;
    }
    acks
}

/// Every event refused before the crash reaches the host once after the restart, with the same id
/// and the same bytes, signed.
async fn survives_kill_9(outbox: &str) {
    let (url, shared) = stand_in_host(true, Duration::ZERO).await;
    let (server, base) = start(&url, outbox);
    assert_eq!(ship(&base, "ins_crash").await, 204);
    // Three alerts and a banner, each refused twice (1 s apart), then the process is killed.
    wait_for(
        &shared,
        Duration::from_secs(20),
        "two refused attempts of each event",
        |s| {
            let mut tries: HashMap<&str, usize> = HashMap::new();
            for p in &s.posts {
                *tries.entry(p.id.as_str()).or_default() += 1;
            }
            tries.len() == 4 && tries.values().all(|&n| n >= 2)
        },
    )
    .await;
    drop(server);
    let refused: HashMap<String, Vec<u8>> = shared
        .lock()
        .unwrap()
        .posts
        .iter()
        .map(|p| (p.id.clone(), p.body.clone()))
        .collect();
    assert_eq!(refused.len(), 4, "{refused:?}");

    shared.lock().unwrap().refusing = false;
    let (_server, _) = start(&url, outbox);
    wait_for(
        &shared,
        Duration::from_secs(30),
        "every event acknowledged after the restart",
        |s| acknowledged(s).len() == 4,
    )
    .await;
    // A little longer: nothing is posted again once acknowledged.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let s = shared.lock().unwrap();
    let acks = acknowledged(&s);
    assert!(
        acks.values().all(|&n| n == 1),
        "each acknowledged once: {acks:?}"
    );
    for post in &s.posts {
        assert!(post.signed, "every attempt is signed: {}", post.id);
        assert_eq!(
            Some(&post.body),
            refused.get(&post.id),
            "the bytes of {} changed across the restart",
            post.id
        );
    }
    let kinds: Vec<String> = acks
        .keys()
        .map(|id| id.split('-').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "rank.dropped").count(),
        3,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "rank.collapsed").count(),
        1,
        "{kinds:?}"
    );
}

#[tokio::test]
async fn events_refused_before_a_kill_9_are_delivered_after_the_restart_from_the_embedded_outbox() {
    let dir = tempfile::tempdir().unwrap();
    survives_kill_9(dir.path().to_str().unwrap()).await;
}

#[tokio::test]
async fn events_refused_before_a_kill_9_are_delivered_after_the_restart_from_a_redis_outbox() {
    let Some(redis) = host_runtime::testing::RedisServer::start_or_skip() else {
        return;
    };
    survives_kill_9(&redis.url()).await;
}

#[tokio::test]
async fn three_instances_on_one_redis_outbox_never_post_one_event_at_once() {
    let Some(redis) = host_runtime::testing::RedisServer::start_or_skip() else {
        return;
    };
    // Each post is held 30 ms, so two instances posting one event would overlap.
    let (url, shared) = stand_in_host(true, Duration::from_millis(30)).await;
    let servers: Vec<(Proc, String)> = (0..3).map(|_| start(&url, &redis.url())).collect();
    // Ten installs, each release shipped to every instance: 40 distinct events, each offered by
    // three instances.
    for n in 0..10 {
        for (_, base) in &servers {
            assert_eq!(ship(base, &format!("ins_{n}")).await, 204);
        }
    }
    // Refused for a while so every event is retried, then taken.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    shared.lock().unwrap().refusing = false;
    wait_for(
        &shared,
        Duration::from_secs(30),
        "all 40 events acknowledged",
        |s| acknowledged(s).len() == 40,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let s = shared.lock().unwrap();
    assert!(
        s.overlaps.is_empty(),
        "posted by two instances at once: {:?}",
        s.overlaps
    );
    let acks = acknowledged(&s);
    assert!(
        acks.values().all(|&n| n == 1),
        "each acknowledged once: {acks:?}"
    );
    assert!(
        s.posts.iter().any(|p| p.status == 503),
        "the refusals were retried"
    );
}

#[tokio::test]
async fn an_outbox_that_is_down_fails_the_hosts_call_so_the_host_retries_it() {
    let Some(mut redis) = host_runtime::testing::RedisServer::start_or_skip() else {
        return;
    };
    let (url, shared) = stand_in_host(false, Duration::ZERO).await;
    let (_server, base) = start(&url, &redis.url());
    redis.stop();
    // The release handler cannot queue its alerts: the call fails with a 5xx (retried by the host),
    // not a 204 that would have lost them.
    let status = ship(&base, "ins_down").await;
    assert!((500..600).contains(&status), "answered {status}");
    assert!(shared.lock().unwrap().posts.is_empty());
}
