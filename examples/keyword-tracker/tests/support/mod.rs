//! What the example's process tests share: the example binary started as a real process, a
//! stand-in host that receives the events it posts, and the host's `release.shipped` delivery.
//! Each test file uses some of it (`mod support;`), so the unused rest is allowed.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use host_runtime::testing::{DEVELOPMENT_WEBHOOK_SECRET, TestHost};
use host_runtime::webhook::{Secret, verify_webhook};
use serde_json::{Value, json};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_keyword-tracker");

/// The settings a developer's shell may hold that would change what a test starts; each start
/// clears them before it applies its own.
const INHERITED: [&str; 15] = [
    "HOST_MODE",
    "HOST_JWKS_URL",
    "HOST_ISSUER",
    "HOST_EVENT_POST_URL",
    "HOST_SIGNING_SECRET",
    "LISTEN_ADDR",
    "HOST_OUTBOX",
    "HOST_DATABASE_URL",
    "HOST_DATABASE_DIRECT_URL",
    "HOST_DATABASE_MIGRATIONS",
    "HOST_DATABASE_POOL_SIZE",
    "HOST_DATABASE_ACQUIRE_TIMEOUT_SECS",
    "HOST_DATABASE_START_TIMEOUT_SECS",
    "HOST_DEDUPE_LEASE_SECS",
    "HOST_OUTBOX_LEASE_SECS",
];

/// A child process killed (SIGKILL) when dropped, passed or failed.
pub(crate) struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The example binary with none of the inherited settings, in a folder of its own, so the default
/// outbox (`.host-outbox` in the working directory) is each run's own.
pub(crate) fn command() -> Command {
    let mut command = Command::new(BIN);
    command.current_dir(tempfile::tempdir().unwrap().keep());
    for var in INHERITED {
        command.env_remove(var);
    }
    command
}

/// Starts the example in development mode on a free port, posting its events to `post_url`, with
/// `env` set; returns it and its base URL, read from the first line it prints.
pub(crate) fn start(post_url: &str, env: &[(&str, &str)]) -> (Proc, String) {
    started(spawn(post_url, env)).unwrap_or_else(|why| panic!("{why}"))
}

/// Starts the example as [`start`] does, without waiting for it: instances spawned one after
/// another this way start at the same moment.
pub(crate) fn spawn(post_url: &str, env: &[(&str, &str)]) -> Child {
    let mut command = command();
    command
        .args(["--listen", "127.0.0.1:0"])
        .env("HOST_EVENT_POST_URL", post_url)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.spawn().unwrap()
}

/// Waits for a spawned example to print its address; gives it and the address, or what it said on
/// stderr when it stopped instead.
pub(crate) fn started(mut child: Child) -> Result<(Proc, String), String> {
    let first = BufReader::new(child.stdout.take().unwrap()).lines().next();
    let stderr = child.stderr.take();
    match first {
        Some(Ok(line)) => {
            // Nobody reads the rest of stderr: drained, so the server never blocks on it.
            if let Some(stderr) = stderr {
                std::thread::spawn(move || std::io::copy(&mut { stderr }, &mut std::io::sink()));
            }
            Ok((Proc(child), address_in(&line)))
        }
        _ => {
            let mut said = String::new();
            if let Some(mut stderr) = stderr {
                let _ = std::io::Read::read_to_string(&mut stderr, &mut said);
            }
            let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
            Err(format!(
                "the example did not start ({status}): {}",
                said.trim()
            ))
        }
    }
}

/// The `http://` address in the server's first line.
pub(crate) fn address_in(line: &str) -> String {
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned()
}

/// One post the stand-in host received.
#[derive(Debug, Clone)]
pub(crate) struct Post {
    pub id: String,
    pub body: Vec<u8>,
    pub status: u16,
    /// Whether its signature verified with the development secret.
    pub signed: bool,
}

/// The stand-in host's event-post endpoint: answers 503 while `refusing`, records every post and
/// notes when two posts of one event overlap.
#[derive(Default)]
pub(crate) struct Endpoint {
    pub refusing: bool,
    /// Events whose id starts with this are refused for good (422), once `refusing` is over.
    pub rejecting: Option<&'static str>,
    pub posts: Vec<Post>,
    in_flight: HashMap<String, usize>,
    pub overlaps: Vec<String>,
}

pub(crate) type Shared = Arc<Mutex<Endpoint>>;

/// Serves the stand-in host's `/v1/events` on a free port, holding each post for `hold`; its URL.
pub(crate) async fn stand_in_host(refusing: bool, hold: Duration) -> (String, Shared) {
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
                let status = match (s.refusing, s.rejecting) {
                    (true, _) => 503,
                    (false, Some(prefix)) if id.starts_with(prefix) => 422,
                    (false, _) => 200,
                };
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

/// The ids the host acknowledged (2xx), with how often each was.
pub(crate) fn acknowledged(s: &Endpoint) -> HashMap<String, usize> {
    let mut acks = HashMap::new();
    for post in s.posts.iter().filter(|p| p.status == 200) {
        *acks.entry(post.id.clone()).or_default() += 1;
    }
    acks
}

/// Waits until `done` holds of the endpoint, or fails after `limit` with what it saw.
pub(crate) async fn wait_for(
    shared: &Shared,
    limit: Duration,
    what: &str,
    done: impl Fn(&Endpoint) -> bool,
) {
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

/// After a stand-in host that refused every post for a while: lets it take them, then checks that
/// each of `events` distinct events was acknowledged exactly once, never posted by two instances at
/// once, and that the refusals were retried.
pub(crate) async fn refusals_then_each_event_acknowledged_once(shared: &Shared, events: usize) {
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    shared.lock().unwrap().refusing = false;
    wait_for(
        shared,
        Duration::from_secs(30),
        &format!("all {events} events acknowledged"),
        |s| acknowledged(s).len() == events,
    )
    .await;
    // A little longer: nothing is posted again once acknowledged.
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

/// The host, as it delivers `release.shipped` for `install`, and the delivery's body.
pub(crate) fn release_host(install: &str) -> (TestHost, Value) {
    let mut host = TestHost::development("keyword-tracker");
    host.install_id = install.to_owned();
    host.credentials = json!({ "api_key": "kt_demo_key" });
    let mut release = host_runtime::events::example_payload("release.shipped").unwrap();
    release["releaseId"] = json!(format!("rel_{install}"));
    let body = host.event_body("release.shipped", release);
    (host, body)
}

/// The delivery's request; `attempt` names its event id, as each of the host's retries has one.
pub(crate) fn delivery(host: &TestHost, body: &Value, attempt: u32) -> http::Request<bytes::Bytes> {
    let mut request = host.request(http::Method::POST, "/host/events", Some(body));
    request.headers_mut().insert(
        "x-host-event-id",
        http::HeaderValue::from_str(&format!("evt_{attempt}")).unwrap(),
    );
    request
}

/// Delivers `release.shipped` for `install` to the server at `base`; the answer's status, or 0
/// when there was none (a connection the server closed).
pub(crate) async fn ship(base: &str, install: &str, attempt: u32) -> u16 {
    let (host, body) = release_host(install);
    match host.send_http(base, delivery(&host, &body, attempt)).await {
        Ok(r) => {
            if r.status >= 400 {
                eprintln!("release.shipped answered {}: {}", r.status, r.json);
            }
            r.status
        }
        Err(_) => 0,
    }
}
