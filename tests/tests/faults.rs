//! Faults a host and its network inflict on a vendor server, each over real processes and sockets:
//! the server (`src/bin/fault_server.rs`, the fixture extension on `Handler::serve_on`) runs in its
//! own process with tight limits, and the test is its clients.
//!
//! - a process out of file descriptors keeps serving once they free up (it used to exit);
//! - clients that send nothing, or headers one byte at a time, are disconnected;
//! - a body that stops arriving is answered 408, and on the event route a retryable 503;
//! - past the connection limit, new connections wait instead of failing;
//! - SIGTERM lets the calls in flight finish, then the process exits;
//! - an event handler that never returns is cut off at the handler deadline with a retryable 504,
//!   and its retry is not blocked by it;
//! - an event delivered while the key set cannot be fetched is answered a retryable 503, not a 401;
//! - a host that gives up on an event delivery while its handler runs does not leave the event
//!   "in flight" for ever: the retry runs it.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use host_runtime::testing::TestHost;
use serde_json::json;

/// A host for the fixture extension, with the credentials its connector declares.
fn test_host() -> TestHost {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    host
}

/// The server process; killed if a test ends early.
struct Server {
    child: Child,
    addr: SocketAddr,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the fault server trusting `host`, with `env` settings, under an open-file limit if given.
fn start(host: &TestHost, env: &[(&str, &str)], open_files: Option<u32>) -> Server {
    let bin = env!("CARGO_BIN_EXE_fault_server");
    let mut command = match open_files {
        // `ulimit` is a shell builtin; `exec` keeps the server's pid the child's.
        Some(n) => {
            let mut c = Command::new("sh");
            c.args(["-c", &format!("ulimit -n {n} && exec \"$0\""), bin]);
            c
        }
        None => Command::new(bin),
    };
    command
        .env("HOST_JWKS", host.jwks().to_string())
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().expect("the fault server starts");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .parse()
        .unwrap();
    Server {
        child,
        addr,
        stdout,
    }
}

/// One tool call over a new connection: the status, or `None` when the connection failed.
fn call(server: SocketAddr, host: &TestHost, timeout: Duration) -> Option<u16> {
    let mut stream = TcpStream::connect(server).ok()?;
    stream.set_read_timeout(Some(timeout)).ok()?;
    request(&mut stream, host)
}

/// Sends a tool call on `stream` and reads the answer's status (the connection stays open).
fn request(stream: &mut TcpStream, host: &TestHost) -> Option<u16> {
    let body = host.call_body(json!({ "keyword": "notes" })).to_string();
    let head = format!(
        "POST /host/tools/keyword-ranks HTTP/1.1\r\nhost: test\r\nauthorization: Bearer {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        host.token(),
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let answer = read_answer(stream);
    // No status unless the whole head arrived.
    answer.contains("\r\n\r\n").then_some(())?;
    answer.get(9..12)?.parse().ok()
}

/// Sends an event delivery on `stream` (the answer is not read).
fn send_event(stream: &mut TcpStream, host: &TestHost, event_id: &str) {
    let payload = serde_json::to_value(
        <host_runtime::events::ReleaseShipped as host_runtime::HostEvent>::example(),
    )
    .unwrap();
    let body = host.event_body("release.shipped", payload).to_string();
    let head = format!(
        "POST /host/events HTTP/1.1\r\nhost: test\r\nauthorization: Bearer {}\r\ncontent-type: application/json\r\nx-host-event-id: {event_id}\r\ncontent-length: {}\r\n\r\n",
        host.token(),
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
}

/// The whole answer on `stream` (head and body, by `content-length`), as text.
fn read_answer(stream: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).unwrap_or(0);
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&answer).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length: usize = text[..end]
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().ok())?
                })
                .unwrap_or(0);
            if answer.len() >= end + 4 + length {
                break;
            }
        }
    }
    String::from_utf8_lossy(&answer).to_string()
}

/// The status of the answer on `stream`.
fn status_of(stream: &mut TcpStream) -> Option<u16> {
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// Whether the server closed `stream` within `within` (a read returns end of file or an error).
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

#[test]
fn running_out_of_file_descriptors_does_not_stop_the_server() {
    let host = test_host();
    // 64 files for everything (the runtime, tokio, stdio): 80 connections cannot all be accepted.
    let mut server = start(&host, &[("MAX_CONNECTIONS", "10000")], Some(64));
    assert_eq!(call(server.addr, &host, Duration::from_secs(5)), Some(200));
    let hogs: Vec<TcpStream> = (0..80)
        .filter_map(|_| TcpStream::connect(server.addr).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server exited when it ran out of file descriptors"
    );
    assert!(hogs.len() > 64, "the listen queue took the connections");
    drop(hogs);
    // Once the descriptors are free again, calls are answered.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut status = None;
    while Instant::now() < deadline && status != Some(200) {
        status = call(server.addr, &host, Duration::from_secs(2));
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(status, Some(200));
    assert!(server.child.try_wait().unwrap().is_none());
}

#[test]
fn idle_and_slow_clients_are_disconnected() {
    let host = test_host();
    let server = start(
        &host,
        &[("HEADER_TIMEOUT_MS", "400"), ("IDLE_TIMEOUT_MS", "400")],
        None,
    );
    // Connected, never a byte.
    let mut silent = TcpStream::connect(server.addr).unwrap();
    // Headers that never end (a byte now and then would not help: the limit is on the whole head).
    let mut slow = TcpStream::connect(server.addr).unwrap();
    slow.write_all(b"POST /host/tools/keyword-ranks HTTP/1.1\r\nhost: t")
        .unwrap();
    // A kept-alive connection after one call.
    let mut kept = TcpStream::connect(server.addr).unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(request(&mut kept, &host), Some(200));
    for (what, stream) in [
        ("silent", &mut silent),
        ("slow", &mut slow),
        ("kept-alive", &mut kept),
    ] {
        assert!(
            closed_within(stream, Duration::from_secs(3)),
            "the {what} connection was not closed"
        );
    }
    // The server itself is fine.
    assert_eq!(call(server.addr, &host, Duration::from_secs(5)), Some(200));
}

#[test]
fn a_body_that_stops_arriving_is_answered_408() {
    let host = test_host();
    let server = start(&host, &[("BODY_TIMEOUT_MS", "400")], None);
    // The head in full, then part of a 100-byte body, then nothing.
    let mut stalled = TcpStream::connect(server.addr).unwrap();
    stalled
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let head = format!(
        "POST /host/tools/keyword-ranks HTTP/1.1\r\nhost: test\r\nauthorization: Bearer {}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"input\":",
        host.token()
    );
    stalled.write_all(head.as_bytes()).unwrap();
    let started = std::time::Instant::now();
    let answer = read_answer(&mut stalled);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("REQUEST_TIMEOUT"), "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "answered after {:?}",
        started.elapsed()
    );
    // The server itself is fine.
    assert_eq!(call(server.addr, &host, Duration::from_secs(5)), Some(200));
}

/// On the event route a 4xx would tell the host the delivery was recorded and lose the event: the
/// stalled delivery is answered a retryable 503, and the host's next delivery of it runs.
#[test]
fn an_event_body_that_stops_arriving_is_answered_a_retryable_503() {
    let host = test_host();
    let server = start(&host, &[("BODY_TIMEOUT_MS", "400")], None);
    let mut stalled = TcpStream::connect(server.addr).unwrap();
    stalled
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let head = format!(
        "POST /host/events HTTP/1.1\r\nhost: test\r\nauthorization: Bearer {}\r\ncontent-type: application/json\r\nx-host-event-id: evt_stalled\r\ncontent-length: 300\r\n\r\n{{\"event\":",
        host.token()
    );
    stalled.write_all(head.as_bytes()).unwrap();
    let started = Instant::now();
    let answer = read_answer(&mut stalled);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("EVENT_BODY_TIMEOUT"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("\r\nretry-after: 30\r\n"),
        "{answer}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "answered after {:?}",
        started.elapsed()
    );
    // The host delivers it again, in full this time: it runs.
    let mut retry = TcpStream::connect(server.addr).unwrap();
    retry
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    send_event(&mut retry, &host, "evt_stalled");
    assert_eq!(status_of(&mut retry), Some(204));
}

#[test]
fn past_the_connection_limit_new_connections_wait() {
    let host = test_host();
    let server = start(
        &host,
        &[("MAX_CONNECTIONS", "2"), ("IDLE_TIMEOUT_MS", "60000")],
        None,
    );
    let mut first = TcpStream::connect(server.addr).unwrap();
    first
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    assert_eq!(request(&mut first, &host), Some(200));
    let mut second = TcpStream::connect(server.addr).unwrap();
    second
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    assert_eq!(request(&mut second, &host), Some(200));
    // The third waits in the listen queue: no answer while both others are open.
    let waiting = {
        let (addr, host) = (server.addr, TestHost::clone(&host));
        std::thread::spawn(move || {
            let started = Instant::now();
            let status = call(addr, &host, Duration::from_secs(10));
            (status, started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(600));
    drop(first);
    let (status, waited) = waiting.join().unwrap();
    assert_eq!(status, Some(200), "answered once a connection closed");
    assert!(
        waited >= Duration::from_millis(500),
        "it did wait: {waited:?}"
    );
}

#[test]
fn sigterm_lets_calls_in_flight_finish() {
    let host = test_host();
    let mut server = start(&host, &[("DELAY_MS", "800"), ("GRACE_MS", "5000")], None);
    let calls: Vec<_> = (0..5)
        .map(|_| {
            let (addr, host) = (server.addr, TestHost::clone(&host));
            std::thread::spawn(move || call(addr, &host, Duration::from_secs(10)))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    for call in calls {
        assert_eq!(
            call.join().unwrap(),
            Some(200),
            "a call in flight was dropped"
        );
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let mut rest = String::new();
    server.stdout.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("stopped"), "{rest}");
    assert!(
        TcpStream::connect(server.addr).is_err(),
        "the listener is closed"
    );
}

#[test]
fn a_delivery_the_host_gave_up_on_is_run_by_the_retry() {
    let host = test_host();
    let server = start(
        &host,
        &[("EVENT_DELAY_MS", "600"), ("EVENT_WAIT_MS", "300")],
        None,
    );
    // The host sends the event and gives up on it (a timeout, a dropped connection) mid-handler.
    let mut first = TcpStream::connect(server.addr).unwrap();
    send_event(&mut first, &host, "evt_1");
    std::thread::sleep(Duration::from_millis(150));
    drop(first);
    // Its retry, after the abandoned attempt would have finished, runs the event.
    std::thread::sleep(Duration::from_millis(700));
    let mut retry = TcpStream::connect(server.addr).unwrap();
    retry
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    send_event(&mut retry, &host, "evt_2");
    assert_eq!(
        status_of(&mut retry),
        Some(204),
        "the retry was not run (an abandoned claim kept the event in flight)"
    );
    // And it is recorded now: the next duplicate is answered at once.
    let mut again = TcpStream::connect(server.addr).unwrap();
    again
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let started = Instant::now();
    send_event(&mut again, &host, "evt_3");
    assert_eq!(status_of(&mut again), Some(204));
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "it ran again"
    );
}

/// An RSA key of `bits` made by openssl in `dir`: its PEM file and its public JWK (`kid`).
fn openssl_rsa(
    dir: &std::path::Path,
    bits: u32,
    kid: &str,
) -> (std::path::PathBuf, serde_json::Value) {
    use base64::Engine as _;
    let pem = dir.join(format!("{kid}.pem"));
    let made = Command::new("openssl")
        .args(["genrsa", "-out"])
        .arg(&pem)
        .arg(bits.to_string())
        .output()
        .expect("openssl runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let modulus = Command::new("openssl")
        .args(["rsa", "-noout", "-modulus", "-in"])
        .arg(&pem)
        .output()
        .unwrap();
    let hex = String::from_utf8_lossy(&modulus.stdout);
    let hex = hex.trim().trim_start_matches("Modulus=");
    let n: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let jwk = json!({ "kty": "RSA", "alg": "RS256", "kid": kid, "n": b64.encode(n), "e": "AQAB" });
    (pem, jwk)
}

/// `host`'s token for this moment, re-signed RS256 by openssl with the key at `pem`.
fn openssl_token(host: &TestHost, pem: &std::path::Path, kid: &str) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let claims = host.token().split('.').nth(1).unwrap().to_owned();
    let header = b64.encode(json!({ "alg": "RS256", "typ": "JWT", "kid": kid }).to_string());
    let input = format!("{header}.{claims}");
    let mut signer = Command::new("openssl")
        .args(["dgst", "-sha256", "-sign"])
        .arg(pem)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    signer
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let signature = signer.wait_with_output().unwrap().stdout;
    format!("{input}.{}", b64.encode(signature))
}

/// A tool call with `token` over a new connection: the answer's status.
fn call_with(server: SocketAddr, host: &TestHost, token: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(server).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let body = host.call_body(json!({ "keyword": "notes" })).to_string();
    let head = format!(
        "POST /host/tools/keyword-ranks HTTP/1.1\r\nhost: test\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    read_answer(&mut stream).get(9..12)?.parse().ok()
}

#[test]
fn tokens_signed_with_weak_rsa_keys_are_refused_by_a_running_server() {
    let host = test_host();
    let dir = tempfile_dir("weak-rsa");
    let (weak_pem, weak) = openssl_rsa(&dir, 1024, "weak-1024");
    let (tiny_pem, tiny) = openssl_rsa(&dir, 512, "weak-512");
    let (good_pem, good) = openssl_rsa(&dir, 2048, "rsa-2048");
    let jwks = json!({ "keys": [weak, tiny, good] }).to_string();
    let server = start(&host, &[("HOST_JWKS", jwks.as_str())], None);
    // The same claims and the same signing path: only the key size differs.
    let accepted = openssl_token(&host, &good_pem, "rsa-2048");
    assert_eq!(call_with(server.addr, &host, &accepted), Some(200));
    for (pem, kid) in [(&weak_pem, "weak-1024"), (&tiny_pem, "weak-512")] {
        let forgeable = openssl_token(&host, pem, kid);
        assert_eq!(
            call_with(server.addr, &host, &forgeable),
            Some(401),
            "{kid}"
        );
    }
}

/// A fresh folder under the test's scratch space.
fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("faults")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_duplicate_of_a_failing_delivery_is_neither_lost_nor_run_twice() {
    let host = test_host();
    // The first attempt takes 850 ms and then fails; a duplicate waits 200 ms for it.
    let server = start(
        &host,
        &[
            ("EVENT_DELAY_MS", "800"),
            ("EVENT_WAIT_MS", "200"),
            ("FAIL_EVENTS", "1"),
        ],
        None,
    );
    let connect = || {
        let stream = TcpStream::connect(server.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
    };
    let mut first = connect();
    send_event(&mut first, &host, "evt_first");
    std::thread::sleep(Duration::from_millis(100));
    // The same content under another event id while the first is in flight: a retryable 503, not a
    // 4xx the host would take as "recorded".
    let mut duplicate = connect();
    send_event(&mut duplicate, &host, "evt_duplicate");
    let answer = read_answer(&mut duplicate);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("EVENT_IN_FLIGHT"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after:"),
        "{answer}"
    );
    // The first attempt fails; its claim is released, so the host's retry runs the handler.
    let answer = read_answer(&mut first);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("RANKS_DOWN"), "{answer}");
    let mut retry = connect();
    let started = Instant::now();
    send_event(&mut retry, &host, "evt_retry");
    assert_eq!(status_of(&mut retry), Some(204));
    assert!(
        started.elapsed() >= Duration::from_millis(800),
        "the handler ran"
    );
    // Recorded now: another retry is answered at once, without running the handler again.
    let mut late = connect();
    let started = Instant::now();
    send_event(&mut late, &host, "evt_late");
    assert_eq!(status_of(&mut late), Some(204));
    // The handler takes 800 ms; anything well under that was answered without it.
    assert!(
        started.elapsed() < Duration::from_millis(700),
        "the handler ran a second time ({:?})",
        started.elapsed()
    );
}

#[test]
fn an_event_handler_that_never_returns_hits_the_deadline() {
    let host = test_host();
    let server = start(
        &host,
        &[
            ("EVENT_DELAY_MS", "600000"),
            ("HANDLER_DEADLINE_MS", "300"),
            ("EVENT_WAIT_MS", "200"),
        ],
        None,
    );
    for event_id in ["evt_1", "evt_2"] {
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let started = Instant::now();
        send_event(&mut stream, &host, event_id);
        // 504, retryable: the host tries again later; and the timed-out attempt released its claim,
        // so the retry is run (and times out) rather than answered "in flight".
        assert_eq!(status_of(&mut stream), Some(504), "{event_id}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}

#[test]
fn an_event_is_not_lost_while_the_key_set_is_unreachable() {
    let host = test_host();
    // A port nothing listens on: every fetch is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks.json", closed.local_addr().unwrap());
    drop(closed);
    let server = start(&host, &[("HOST_JWKS_URL", url.as_str())], None);
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    send_event(&mut stream, &host, "evt_1");
    let answer = read_answer(&mut stream);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("KEYS_UNAVAILABLE"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 30"),
        "{answer}"
    );
    // Other routes keep answering 401: the call is the host's to retry or not.
    assert_eq!(call(server.addr, &host, Duration::from_secs(10)), Some(401));
}

/// The host's event endpoint is down for a while (connections refused), then back: an event sent
/// meanwhile arrives, from a send detached from its caller.
#[tokio::test]
async fn a_vendor_event_survives_a_short_outage_of_the_hosts_endpoint() {
    use host_runtime::EventSender;
    use host_runtime::webhook::RetryPolicy;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let policy = RetryPolicy {
        attempts: 40,
        first_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(300),
        timeout: Duration::from_secs(2),
    };
    let sender = EventSender::new(
        format!("http://127.0.0.1:{port}/v1/events"),
        "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        host_runtime::outbox::MemoryOutbox::new(),
    )
    .unwrap()
    .with_retry(policy);
    let payload = host_sdk_tests::webhooks::rank_dropped::Payload {
        why: "Notes fell to 9".parse().unwrap(),
        country: Some("DE".into()),
        keyword: Some("notes".into()),
        previous: None,
        current: None,
    };
    let receipt = host_sdk_tests::Webhooks::new(sender)
        .rank_dropped("ins_1", "drop-1", &payload)
        .unwrap()
        .spawn();
    // Down for 1.5 s: every attempt meanwhile is refused.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let endpoint = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut seen = Vec::new();
        let mut chunk = [0u8; 4096];
        while !String::from_utf8_lossy(&seen).contains("\"drop-1\"") {
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the request ended early");
            seen.extend_from_slice(&chunk[..n]);
        }
        stream
            .write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
            .await
            .unwrap();
        String::from_utf8_lossy(&seen).to_string()
    });
    let outcome = tokio::time::timeout(Duration::from_secs(10), receipt.outcome())
        .await
        .expect("the event was delivered within 10 s of the endpoint's return");
    assert_eq!(outcome, Ok(202));
    let request = endpoint.await.unwrap();
    assert!(
        request.to_ascii_lowercase().contains("webhook-id: drop-1"),
        "{request}"
    );
}
