//! The webhook module's tests: signatures, the sender, the outbox's attempts.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::outbox::{OutboxStore as _, Which};

use super::*;

const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
const ID: &str = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
const TS: i64 = 1649367553;
const BODY: &[u8] = br#"{"email":"test@example.com","username":"test_user"}"#;
const SIG: &str = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=";

/// `rank.dropped`, an alert: a `why` of at most 280 characters and a two-letter `country`.
static RANK_DROPPED: PayloadSchema = PayloadSchema::new(
    "rank.dropped",
    r#"{"type": "object", "required": ["why"], "additionalProperties": false,
        "properties": {"why": {"type": "string", "minLength": 1, "maxLength": 280},
                       "country": {"type": "string", "pattern": "^[A-Z]{2}$"}}}"#,
    None,
    true,
);

/// A valid `rank.dropped` event from `sender`, with `key` as its dedupe key.
fn alert(sender: &EventSender, key: &str) -> OutboundEvent {
    sender
        .event(
            &RANK_DROPPED,
            "ins_1",
            key,
            &serde_json::json!({ "why": "x" }),
        )
        .unwrap()
}

fn at(ts: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(ts as u64)
}

#[test]
fn reproduces_the_standard_webhooks_reference_vector() {
    let secret = Secret::parse(SECRET).unwrap();
    assert_eq!(sign_webhook(&secret, ID, TS, BODY), SIG);
    assert_eq!(
        verify_webhook(&secret, ID, "1649367553", SIG, BODY, at(TS)),
        Ok(())
    );
}

#[test]
fn bad_signatures_are_refused() {
    let secret = Secret::parse(SECRET).unwrap();
    let truncated = &SIG[..SIG.len() - 4];
    for header in [
        "",
        "v1,",
        truncated,
        "v1,AAAA",
        "v2,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
        "v1,!!!",
    ] {
        assert_eq!(
            verify_webhook(&secret, ID, "1649367553", header, BODY, at(TS)),
            Err(WebhookError::NoMatchingSignature),
            "{header:?}"
        );
    }
}

#[test]
fn timestamps_outside_300_seconds_are_refused() {
    let secret = Secret::parse(SECRET).unwrap();
    assert!(verify_webhook(&secret, ID, "1649367553", SIG, BODY, at(TS + 300)).is_ok());
    assert_eq!(
        verify_webhook(&secret, ID, "1649367553", SIG, BODY, at(TS + 301)),
        Err(WebhookError::TimestampOutOfTolerance)
    );
    assert_eq!(
        verify_webhook(&secret, ID, "1649367553", SIG, BODY, at(TS - 301)),
        Err(WebhookError::TimestampOutOfTolerance)
    );
    assert_eq!(
        verify_webhook(&secret, ID, "soon", SIG, BODY, at(TS)),
        Err(WebhookError::BadTimestamp)
    );
}

#[test]
fn any_of_several_signatures_may_match_during_rotation() {
    let secret = Secret::parse(SECRET).unwrap();
    let header = format!("v1,Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE= {SIG}");
    assert!(verify_webhook(&secret, ID, "1649367553", &header, BODY, at(TS)).is_ok());
}

#[test]
fn a_reserialised_body_fails() {
    let secret = Secret::parse(SECRET).unwrap();
    let v: serde_json::Value = serde_json::from_slice(BODY).unwrap();
    let pretty = serde_json::to_vec_pretty(&v).unwrap();
    assert!(verify_webhook(&secret, ID, "1649367553", SIG, &pretty, at(TS)).is_err());
}

#[test]
fn short_or_malformed_secrets_are_refused() {
    assert!(Secret::parse("whsec_c2hvcnQ=").is_err());
    assert!(Secret::parse("whsec_***").is_err());
}

#[test]
fn backoff_doubles_up_to_the_cap() {
    let p = RetryPolicy {
        attempts: 10,
        first_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_secs(1),
        timeout: Duration::from_secs(1),
    };
    let waits: Vec<u128> = (1..=6).map(|n| p.backoff(n).as_millis()).collect();
    assert_eq!(waits, vec![100, 200, 400, 800, 1000, 1000]);
}

/// A local host that answers each post with the next status of `script`, recording the headers.
async fn fake_host(
    script: Vec<u16>,
) -> (
    String,
    std::sync::Arc<std::sync::Mutex<Vec<(String, String, String, Vec<u8>)>>>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/events", listener.local_addr().unwrap());
    let record = seen.clone();
    tokio::spawn(async move {
        for status in script {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            // Read the head, then the body by Content-Length.
            loop {
                let n = stream.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length: "))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    while buf.len() < end + 4 + len {
                        let n = stream.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                    // Header values keep their case in the raw bytes; the signature is case-sensitive.
                    let raw = String::from_utf8_lossy(&buf[..end]).to_string();
                    let raw_header = |name: &str| {
                        raw.lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(": ")?;
                                k.eq_ignore_ascii_case(name).then(|| v.to_owned())
                            })
                            .unwrap_or_default()
                    };
                    record.lock().unwrap().push((
                        raw_header("webhook-id"),
                        raw_header("webhook-timestamp"),
                        raw_header("webhook-signature"),
                        buf[end + 4..].to_vec(),
                    ));
                    break;
                }
            }
            // Busy answers say when to come back, as a host would.
            let retry = if matches!(status, 429 | 503) {
                "retry-after: 1\r\n"
            } else {
                ""
            };
            let reply = format!(
                "HTTP/1.1 {status} X\r\n{retry}content-length: 2\r\nconnection: close\r\n\r\nno"
            );
            let _ = stream.write_all(reply.as_bytes()).await;
        }
    });
    (url, seen)
}

fn fast() -> RetryPolicy {
    RetryPolicy {
        attempts: 4,
        first_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(40),
        timeout: Duration::from_secs(2),
    }
}

#[tokio::test]
async fn a_5xx_is_retried_with_the_same_webhook_id_until_it_succeeds() {
    let (url, seen) = fake_host(vec![503, 502, 200]).await;
    let sender = EventSender::new(url, SECRET, crate::outbox::MemoryOutbox::new())
        .unwrap()
        .with_retry(fast());
    let out = alert(&sender, "drop-7");
    assert_eq!(out.send().await, Ok(200));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    let secret = Secret::parse(SECRET).unwrap();
    for (id, ts, sig, body) in seen.iter() {
        assert_eq!(id, "drop-7");
        assert!(
            verify_webhook(&secret, id, ts, sig, body, SystemTime::now()).is_ok(),
            "each attempt is signed"
        );
    }
}

/// Each attempt is signed anew, when it is made: a retry carries a fresh `webhook-timestamp` (and so
/// a fresh signature) over the very same bytes and id, so that a host checking the timestamp's
/// tolerance never refuses a late retry, and deduplicates it by its id.
#[tokio::test]
async fn every_attempt_is_signed_with_a_fresh_timestamp_over_the_same_bytes() {
    // The 503 asks to come back in 1 s, which this policy allows: the attempts are at least a
    // second apart, so their timestamps (whole seconds) differ.
    let (url, seen) = fake_host(vec![503, 200]).await;
    let sender = EventSender::new(url, SECRET, crate::outbox::MemoryOutbox::new())
        .unwrap()
        .with_retry(RetryPolicy {
            first_backoff: Duration::from_millis(1_100),
            max_backoff: Duration::from_millis(1_100),
            ..fast()
        });
    assert_eq!(alert(&sender, "drop-9").send().await, Ok(200));
    let seen = seen.lock().unwrap();
    let [(id1, ts1, sig1, body1), (id2, ts2, sig2, body2)] = seen.as_slice() else {
        panic!("two attempts, not {}", seen.len());
    };
    assert_eq!((id1.as_str(), id2.as_str()), ("drop-9", "drop-9"));
    assert_eq!(body1, body2, "the same bytes on every attempt");
    let (t1, t2): (i64, i64) = (ts1.parse().unwrap(), ts2.parse().unwrap());
    assert!(
        t2 > t1,
        "the retry is signed when it is made: {t1} then {t2}"
    );
    assert_ne!(sig1, sig2);
    let secret = Secret::parse(SECRET).unwrap();
    for (ts, sig) in [(ts1, sig1), (ts2, sig2)] {
        assert!(verify_webhook(&secret, id1, ts, sig, body1, SystemTime::now()).is_ok());
    }
}

#[tokio::test]
async fn a_4xx_is_final() {
    let (url, seen) = fake_host(vec![422, 200]).await;
    let sender = EventSender::new(url, SECRET, crate::outbox::MemoryOutbox::new())
        .unwrap()
        .with_retry(fast());
    let out = alert(&sender, "drop-8");
    assert!(matches!(
        out.send().await,
        Err(SendError::Rejected { status: 422, .. })
    ));
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_unreachable_host_exhausts_the_attempts() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/events", listener.local_addr().unwrap());
    drop(listener);
    let sender = EventSender::new(url, SECRET, crate::outbox::MemoryOutbox::new())
        .unwrap()
        .with_retry(fast());
    let out = alert(&sender, "drop-9");
    assert!(matches!(
        out.send().await,
        Err(SendError::Exhausted { attempts: 4, .. })
    ));
}

#[test]
fn outbound_events_are_signed_envelopes() {
    let sender = EventSender::new(
        "https://events.host.example/v1",
        SECRET,
        crate::outbox::MemoryOutbox::new(),
    )
    .unwrap()
    .with_build("1.4.2");
    let out = alert(&sender, "drop-42");
    let req = out.to_request().unwrap();
    assert_eq!(req.headers()["webhook-id"], "drop-42");
    let ts = req.headers()["webhook-timestamp"]
        .to_str()
        .unwrap()
        .to_owned();
    let sig = req.headers()["webhook-signature"]
        .to_str()
        .unwrap()
        .to_owned();
    let secret = Secret::parse(SECRET).unwrap();
    assert!(verify_webhook(&secret, "drop-42", &ts, &sig, req.body(), SystemTime::now()).is_ok());
    let env: serde_json::Value = serde_json::from_slice(req.body()).unwrap();
    for key in [
        "event",
        "source",
        "occurredAt",
        "build",
        "dedupeKey",
        "payload",
    ] {
        assert!(env.get(key).is_some(), "{key}");
    }
}

#[test]
fn payloads_are_checked_before_signing_and_name_the_pointer() {
    let sender = EventSender::new(
        "https://events.host.example/v1",
        SECRET,
        crate::outbox::MemoryOutbox::new(),
    )
    .unwrap();
    let refused =
        |payload: serde_json::Value| match sender.event(&RANK_DROPPED, "ins_1", "k", &payload) {
            Err(WebhookError::PayloadInvalid(e)) => (e.pointer, e.reason),
            other => panic!("{payload} was not refused: {other:?}"),
        };
    let (pointer, reason) = refused(serde_json::json!({ "why": "Rank fell", "country": "de" }));
    assert_eq!(pointer, "/country");
    assert!(reason.contains("^[A-Z]{2}$"), "{reason}");
    assert_eq!(
        refused(serde_json::json!({ "why": "x".repeat(281) })).0,
        "/why"
    );
    assert_eq!(
        refused(serde_json::json!({ "why": "x", "extra": 1 })).0,
        "/"
    );
    // The schema admits a blank `why`; the host does not show one, so it is refused too.
    let (pointer, reason) = refused(serde_json::json!({ "why": "   " }));
    assert_eq!(pointer, "/why");
    assert!(reason.contains("owner reads"), "{reason}");
    let message = WebhookError::PayloadInvalid(PayloadError {
        event: "rank.dropped",
        pointer: "/why".into(),
        reason: "r".into(),
    })
    .to_string();
    assert!(
        message.contains("`rank.dropped`") && message.contains("`/why`"),
        "{message}"
    );
    assert!(
        sender
            .event(
                &RANK_DROPPED,
                "ins_1",
                "k",
                &serde_json::json!({ "why": "Rank fell", "country": "DE" })
            )
            .is_ok()
    );
}

#[test]
fn plain_events_need_no_why() {
    static STORE_UPDATED: PayloadSchema = PayloadSchema::new(
        "store.algorithm_updated",
        r#"{"type": "object"}"#,
        None,
        false,
    );
    let sender = EventSender::new(
        "https://events.host.example/v1",
        SECRET,
        crate::outbox::MemoryOutbox::new(),
    )
    .unwrap();
    assert!(
        sender
            .event(&STORE_UPDATED, "ins_1", "k", &serde_json::json!({}))
            .is_ok()
    );
}

#[test]
fn occurred_at_can_be_set_and_is_signed() {
    let sender = EventSender::new(
        "https://events.host.example/v1",
        SECRET,
        crate::outbox::MemoryOutbox::new(),
    )
    .unwrap();
    let out = alert(&sender, "k").with_occurred_at("2026-11-20T08:00:00Z");
    let req = out.to_request().unwrap();
    let env: serde_json::Value = serde_json::from_slice(req.body()).unwrap();
    assert_eq!(env["occurredAt"], "2026-11-20T08:00:00Z");
    let header = |name: &str| req.headers()[name].to_str().unwrap().to_owned();
    let secret = Secret::parse(SECRET).unwrap();
    assert!(
        verify_webhook(
            &secret,
            "k",
            &header("webhook-timestamp"),
            &header("webhook-signature"),
            req.body(),
            SystemTime::now()
        )
        .is_ok()
    );
}

#[test]
fn rotation_signs_with_both_secrets_and_verifies_with_either() {
    const NEXT: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let sender = EventSender::new(
        "https://events.host.example/v1",
        NEXT,
        crate::outbox::MemoryOutbox::new(),
    )
    .unwrap()
    .with_previous_secret(SECRET)
    .unwrap();
    let req = alert(&sender, "k").to_request().unwrap();
    let header = |name: &str| req.headers()[name].to_str().unwrap().to_owned();
    let (ts, sig) = (header("webhook-timestamp"), header("webhook-signature"));
    assert_eq!(sig.split(' ').count(), 2, "{sig}");
    let (old, new) = (Secret::parse(SECRET).unwrap(), Secret::parse(NEXT).unwrap());
    let now = SystemTime::now();
    // A host holding either secret accepts it.
    assert!(verify_webhook(&old, "k", &ts, &sig, req.body(), now).is_ok());
    assert!(verify_webhook(&new, "k", &ts, &sig, req.body(), now).is_ok());
    // A receiver during the switch accepts a message signed by only one of its secrets.
    let only_old = sign_webhook(&old, "k", ts.parse().unwrap(), req.body());
    assert!(
        verify_webhook_any(
            &[new.clone(), old.clone()],
            "k",
            &ts,
            &only_old,
            req.body(),
            now
        )
        .is_ok()
    );
    let stranger = Secret::parse("whsec_QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB").unwrap();
    assert_eq!(
        verify_webhook_any(&[new, stranger], "k", &ts, &only_old, req.body(), now),
        Err(WebhookError::NoMatchingSignature)
    );
}

#[test]
fn the_default_retries_outlast_the_hosts_own_schedule() {
    let total = RetryPolicy::default().total_wait();
    // The host retries its own deliveries over 30 s + 2 min + 10 min = 12.5 min.
    assert!(total >= Duration::from_secs(750), "{total:?}");
}

#[tokio::test]
async fn a_429_is_retried_after_the_hosts_retry_after() {
    let (url, seen) = fake_host(vec![429, 200]).await;
    let policy = RetryPolicy {
        attempts: 3,
        first_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_secs(5),
        timeout: Duration::from_secs(2),
    };
    let sender = EventSender::new(url, SECRET, crate::outbox::MemoryOutbox::new())
        .unwrap()
        .with_retry(policy);
    let out = alert(&sender, "k");
    let started = std::time::Instant::now();
    assert_eq!(out.send().await, Ok(200));
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "waited as told: {:?}",
        started.elapsed()
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_send_cancelled_by_a_deadline_still_delivers() {
    let (url, seen) = fake_host(vec![503, 200]).await;
    let sender = EventSender::new(url, SECRET, crate::outbox::MemoryOutbox::new())
        .unwrap()
        .with_retry(fast());
    let out = alert(&sender, "k");
    // The handler's deadline passes while the first attempt is refused.
    let cut = tokio::time::timeout(Duration::from_millis(5), out.send()).await;
    assert!(cut.is_err(), "the send was cut short");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while seen.lock().unwrap().len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the cancelled send was not delivered"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_spawned_send_outlives_its_caller_and_reports_its_outcome() {
    let (url, seen) = fake_host(vec![503, 200, 200]).await;
    let sender = EventSender::new(url, SECRET, crate::outbox::MemoryOutbox::new())
        .unwrap()
        .with_retry(fast());
    assert_eq!(alert(&sender, "k").spawn().outcome().await, Ok(200));
    // A dropped receipt: the send still completes.
    drop(alert(&sender, "k2").spawn());
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while seen.lock().unwrap().len() < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "the detached send did not arrive"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A sender in the default mode (a background dispatcher on servers) with a store the test reads.
fn sender_with_store(url: String) -> (EventSender, Arc<crate::outbox::MemoryOutbox>) {
    let store = Arc::new(crate::outbox::MemoryOutbox::new());
    let sender = EventSender::new(url, SECRET, Arc::clone(&store))
        .unwrap()
        .with_retry(fast());
    (sender, store)
}

/// Inside an invocation (Lambda, Vercel, Workers) an enqueued, a spawned and a sent event are all
/// posted before `run` returns, by the invocation itself: no background task is left to do it.
#[tokio::test]
async fn inside_an_invocation_every_event_is_attempted_before_it_returns() {
    let (url, seen) = fake_host(vec![200, 200, 200]).await;
    let (sender, store) = sender_with_store(url);
    let (sent, report) = crate::outbox::Invocation::new()
        .run(async {
            let receipt = alert(&sender, "enqueued").enqueue().await.unwrap();
            drop(receipt);
            let _ = alert(&sender, "spawned").spawn();
            alert(&sender, "sent").send().await
        })
        .await;
    assert_eq!(
        sent,
        Ok(200),
        "a send inside an invocation makes its own attempt"
    );
    let mut ids: Vec<String> = seen.lock().unwrap().iter().map(|s| s.0.clone()).collect();
    ids.sort();
    assert_eq!(ids, ["enqueued", "sent", "spawned"]);
    assert_eq!((report.delivered, report.retrying), (2, 0), "{report:?}");
    assert!(store.list(Which::Pending, 10).await.unwrap().is_empty());
    // Nothing is left running: the three posts were all the fake host saw, and it saw them before
    // `run` returned.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(seen.lock().unwrap().len(), 3);
}

/// One id is one event. On demand (Lambda, Workers) and in the background alike: the same event
/// sent again after its delivery is not posted again and answers 200; another event under the
/// same id is refused, naming the id, and nothing reaches the host; `occurredAt` does not make
/// another event.
#[tokio::test]
async fn an_id_taken_by_another_event_is_refused_before_anything_is_posted() {
    for mode in [
        crate::outbox::DrainMode::OnDemand,
        crate::outbox::DrainMode::Background,
    ] {
        let (url, seen) = fake_host(vec![200, 200]).await;
        let (sender, store) = sender_with_store(url);
        let sender = sender.with_drain_mode(mode);
        let said = |why: &str| {
            sender
                .event(
                    &RANK_DROPPED,
                    "ins_1",
                    "kw-7-drop",
                    &serde_json::json!({ "why": why }),
                )
                .unwrap()
        };
        assert_eq!(said("rank 3 to 9").send().await, Ok(200), "{mode:?}");
        let later = said("rank 3 to 9").with_occurred_at("2099-01-01T00:00:00Z");
        assert_eq!(
            later.send().await,
            Ok(200),
            "{mode:?}: the same event, later: answered as delivered"
        );
        let other = said("rank 9 to 14").send().await;
        assert_eq!(
            other,
            Err(SendError::Conflict {
                id: "kw-7-drop".to_owned()
            }),
            "{mode:?}"
        );
        let message = other.unwrap_err().to_string();
        assert!(message.contains("`kw-7-drop`"), "{message}");
        let answer = crate::HostError::from(SendError::Conflict {
            id: "kw-7-drop".to_owned(),
        });
        assert_eq!(
            (answer.status(), answer.code()),
            (409, "EVENT_ID_CONFLICT"),
            "final: a retry meets the same id"
        );
        assert!(
            answer.message().contains("`kw-7-drop`"),
            "{}",
            answer.message()
        );
        let queued = said("rank 9 to 14").enqueue().await;
        assert!(
            matches!(queued, Err(SendError::Conflict { .. })),
            "{mode:?}: {queued:?}"
        );
        let spawned = said("rank 9 to 14").spawn().outcome().await;
        assert!(
            matches!(spawned, Err(SendError::Conflict { .. })),
            "{mode:?}: {spawned:?}"
        );
        assert_eq!(
            seen.lock().unwrap().len(),
            1,
            "{mode:?}: only the first reached the host"
        );
        assert!(store.list(Which::Pending, 10).await.unwrap().is_empty());
    }
}

/// An event still waiting in the outbox holds its id too: another event under it is refused while
/// the first is retried, and the first is what the host gets.
#[tokio::test]
async fn an_id_taken_by_a_waiting_event_is_refused_and_the_waiting_one_is_posted() {
    let (url, seen) = fake_host(vec![503, 200]).await;
    let (sender, store) = sender_with_store(url);
    let sender = sender.with_drain_mode(crate::outbox::DrainMode::OnDemand);
    let said = |why: &str| {
        sender
            .event(
                &RANK_DROPPED,
                "ins_1",
                "kw-8",
                &serde_json::json!({ "why": why }),
            )
            .unwrap()
    };
    let first = said("first").send().await;
    assert!(matches!(first, Err(SendError::Pending { .. })), "{first:?}");
    let other = said("second").send().await;
    assert_eq!(other, Err(SendError::Conflict { id: "kw-8".into() }));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(sender.drain(Duration::from_secs(2)).await.delivered, 1);
    let bodies: Vec<Vec<u8>> = seen.lock().unwrap().iter().map(|s| s.3.clone()).collect();
    assert_eq!(bodies.len(), 2);
    for body in bodies {
        let sent: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(sent["payload"]["why"], "first");
    }
    assert!(store.list(Which::Pending, 10).await.unwrap().is_empty());
}

/// An event the host does not take within the invocation stays in the store, one attempt counted,
/// for the next drain; the invocation reports it as retrying.
#[tokio::test]
async fn an_event_the_host_did_not_take_stays_in_the_store_for_the_next_drain() {
    let (url, seen) = fake_host(vec![503, 200]).await;
    let (sender, store) = sender_with_store(url);
    let (queued, report) = crate::outbox::Invocation::new()
        .run(alert(&sender, "k").enqueue())
        .await;
    assert!(queued.is_ok());
    assert_eq!((report.delivered, report.retrying), (0, 1), "{report:?}");
    let pending = store.list(Which::Pending, 10).await.unwrap();
    assert_eq!((pending[0].id.as_str(), pending[0].attempts), ("k", 1));
    // The scheduled drain, later, delivers it.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let drained = sender.drain(Duration::from_secs(2)).await;
    assert_eq!(drained.delivered, 1, "{drained:?}");
    assert_eq!(seen.lock().unwrap().len(), 2);
}

/// The invocation attempts its own events, not the store's backlog: 40 older due events do not
/// push the new one out of its attempt.
#[tokio::test]
async fn an_invocation_attempts_its_own_events_before_any_backlog() {
    let (url, seen) = fake_host(vec![200]).await;
    let (sender, store) = sender_with_store(url);
    for n in 0..40 {
        let old = crate::outbox::Entry::new(format!("old-{n}"), b"{}".to_vec(), 1_000 + n);
        assert!(store.put(old).await.unwrap().is_stored());
    }
    let (_, report) = crate::outbox::Invocation::new()
        .run(alert(&sender, "new").enqueue())
        .await;
    assert_eq!(report.delivered, 1, "{report:?}");
    let ids: Vec<String> = seen.lock().unwrap().iter().map(|s| s.0.clone()).collect();
    assert_eq!(ids, ["new"]);
    assert_eq!(store.list(Which::Pending, 100).await.unwrap().len(), 40);
}

/// A host that never answers holds the invocation no longer than its budget; the event stays
/// pending, and the invocation says so.
#[tokio::test]
async fn a_host_that_hangs_holds_the_invocation_no_longer_than_its_budget() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/events", listener.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            open.push(stream);
        }
    });
    let (sender, store) = sender_with_store(url);
    let started = std::time::Instant::now();
    let (_, report) = crate::outbox::Invocation::new()
        .with_budget(Duration::from_millis(300))
        .run(alert(&sender, "k").enqueue())
        .await;
    let took = started.elapsed();
    assert!(took < Duration::from_millis(1_500), "{took:?}");
    assert_eq!((report.delivered, report.retrying), (0, 1), "{report:?}");
    assert_eq!(store.list(Which::Pending, 10).await.unwrap().len(), 1);
    held.abort();
}

/// A send inside an invocation makes its own attempt; the invocation does not claim the event
/// again once the work is done (one store round trip fewer, which counts on Workers).
#[tokio::test]
async fn an_event_a_send_attempted_is_not_claimed_again_by_its_invocation() {
    let (url, _seen) = fake_host(vec![503]).await;
    let (sender, store) = sender_with_store(url);
    let (sent, report) = crate::outbox::Invocation::new()
        .run(alert(&sender, "k").send())
        .await;
    assert!(
        matches!(sent, Err(SendError::Pending { attempts: 1, .. })),
        "{sent:?}"
    );
    assert_eq!(
        report,
        crate::outbox::DrainReport::default(),
        "nothing left to attempt"
    );
    assert_eq!(store.list(Which::Pending, 10).await.unwrap()[0].attempts, 1);
}

/// `replace_outbox` moves the sender, and only the sender built by it, to the other store.
#[tokio::test]
async fn replace_outbox_sends_into_the_new_store_and_leaves_earlier_clones_alone() {
    let (first, second) = (
        Arc::new(crate::outbox::MemoryOutbox::new()),
        Arc::new(crate::outbox::MemoryOutbox::new()),
    );
    let sender = EventSender::new("http://127.0.0.1:9/v1/events", SECRET, Arc::clone(&first))
        .unwrap()
        .with_drain_mode(crate::outbox::DrainMode::OnDemand);
    let moved = sender.clone().replace_outbox(Arc::clone(&second));
    alert(&moved, "moved").enqueue().await.unwrap();
    alert(&sender, "kept").enqueue().await.unwrap();
    let ids = |store: Arc<crate::outbox::MemoryOutbox>| async move {
        store
            .list(Which::Pending, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(second).await, ["moved"]);
    assert_eq!(ids(first).await, ["kept"]);
}
