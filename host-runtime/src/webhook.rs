//! Events the vendor server posts to the host: the signed envelope and the Standard Webhooks `v1`
//! signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
//!
//! [`sign_webhook`] and [`verify_webhook`] are the primitives; [`EventSender`] builds the signed request
//! for one declared event. The generated `Webhooks` type wraps an `EventSender` with one typed method
//! per webhook the manifest declares, so an undeclared event or a payload of the wrong type does not
//! compile.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Largest accepted skew between a signature's timestamp and now.
pub const TIMESTAMP_TOLERANCE: Duration = Duration::from_secs(300);

/// A Standard Webhooks secret: `whsec_` followed by base64 of at least 24 bytes.
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Why a secret or a signature was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WebhookError {
    /// The secret is not `whsec_` + base64 of at least 24 bytes.
    BadSecret(&'static str),
    /// The timestamp header is not unix seconds.
    BadTimestamp,
    /// The timestamp is more than 300 s away from now.
    TimestampOutOfTolerance,
    /// No `v1` signature in the header matches.
    NoMatchingSignature,
    /// The payload could not be serialised.
    Payload(String),
}

impl fmt::Display for WebhookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebhookError::BadSecret(why) => write!(f, "invalid webhook secret: {why}"),
            WebhookError::BadTimestamp => f.write_str("`webhook-timestamp` is not unix seconds"),
            WebhookError::TimestampOutOfTolerance => {
                f.write_str("`webhook-timestamp` is more than 300 s from now")
            }
            WebhookError::NoMatchingSignature => {
                f.write_str("no signature in `webhook-signature` matches")
            }
            WebhookError::Payload(e) => write!(f, "the payload cannot be serialised: {e}"),
        }
    }
}

impl std::error::Error for WebhookError {}

impl Secret {
    /// Parses `whsec_<base64>`; the prefix may be omitted.
    pub fn parse(text: &str) -> Result<Self, WebhookError> {
        let b64 = text.trim().strip_prefix("whsec_").unwrap_or(text.trim());
        let bytes = BASE64
            .decode(b64)
            .map_err(|_| WebhookError::BadSecret("not base64 after `whsec_`"))?;
        if bytes.len() < 24 {
            return Err(WebhookError::BadSecret("it decodes to fewer than 24 bytes"));
        }
        Ok(Secret(bytes))
    }

    fn mac(&self, id: &str, timestamp: i64, body: &[u8]) -> [u8; 32] {
        // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
        let mut mac = match Hmac::<Sha256>::new_from_slice(&self.0) {
            Ok(m) => m,
            Err(_) => unreachable_hmac(),
        };
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac.finalize().into_bytes().into()
    }
}

#[cold]
fn unreachable_hmac() -> ! {
    // `Hmac::new_from_slice` only fails for fixed-key-size MACs, which HMAC is not.
    std::process::abort()
}

/// The `webhook-signature` value for one message: `v1,` + base64 of HMAC-SHA256 over
/// `"{id}.{timestamp}.{body}"`.
pub fn sign_webhook(secret: &Secret, id: &str, timestamp: i64, body: &[u8]) -> String {
    format!("v1,{}", BASE64.encode(secret.mac(id, timestamp, body)))
}

/// Checks a `webhook-signature` header (several space-separated signatures allowed while secrets
/// rotate) against the raw body, in constant time, with 300 s of timestamp skew.
pub fn verify_webhook(
    secret: &Secret,
    id: &str,
    timestamp: &str,
    signature_header: &str,
    body: &[u8],
    now: SystemTime,
) -> Result<(), WebhookError> {
    let ts: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| WebhookError::BadTimestamp)?;
    let now_s = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    if (now_s - ts).unsigned_abs() > TIMESTAMP_TOLERANCE.as_secs() {
        return Err(WebhookError::TimestampOutOfTolerance);
    }
    let expected = secret.mac(id, ts, body);
    let matched = signature_header
        .split_whitespace()
        .filter_map(|s| s.strip_prefix("v1,"))
        .filter_map(|b64| BASE64.decode(b64).ok())
        // Lengths are compared first (a wrong length can never match), then bytes in constant time.
        .any(|given| given.len() == expected.len() && bool::from(given.ct_eq(&expected)));
    if matched {
        Ok(())
    } else {
        Err(WebhookError::NoMatchingSignature)
    }
}

/// How [`OutboundEvent::send`] retries: a 5xx, a timeout or an unreachable host is retried with
/// capped exponential backoff; a 4xx is final.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// Wait before the second attempt; it doubles after each failure.
    pub first_backoff: Duration,
    /// The longest wait between attempts.
    pub max_backoff: Duration,
    /// How long one attempt may take.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 6,
            first_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// The wait after failed attempt `n` (1-based).
    pub fn backoff(&self, n: u32) -> Duration {
        let factor = 2u32.saturating_pow(n.saturating_sub(1));
        self.first_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

/// Why an event was not delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SendError {
    /// The host answered 4xx: final, not retried.
    Rejected {
        /// The status.
        status: u16,
        /// The host's answer, as text (at most 2 KB).
        body: String,
    },
    /// Every attempt failed with a 5xx, a timeout or no connection.
    Exhausted {
        /// Attempts made.
        attempts: u32,
        /// What the last attempt met.
        last: String,
    },
    /// The request could not be built or no HTTP client is available.
    Request(String),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Rejected { status, body } => {
                write!(f, "the host refused the event ({status}): {body}")
            }
            SendError::Exhausted { attempts, last } => write!(
                f,
                "the event was not delivered after {attempts} attempts; last: {last}"
            ),
            SendError::Request(e) => write!(f, "the event could not be sent: {e}"),
        }
    }
}

impl std::error::Error for SendError {}

/// Posts the vendor's declared events to the host, signed with the install's inbound secret.
#[derive(Debug, Clone)]
pub struct EventSender {
    post_url: String,
    secret: Secret,
    build: Option<String>,
    retry: RetryPolicy,
}

impl EventSender {
    /// A sender posting to `post_url` (no default) with `secret` (`whsec_...`).
    pub fn new(post_url: impl Into<String>, secret: &str) -> Result<Self, WebhookError> {
        Ok(EventSender {
            post_url: post_url.into(),
            secret: Secret::parse(secret)?,
            build: None,
            retry: RetryPolicy::default(),
        })
    }

    /// Sets how sends are retried.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets the vendor build identifier sent as `build`.
    pub fn with_build(mut self, build: impl Into<String>) -> Self {
        self.build = Some(build.into());
        self
    }

    /// Builds the signed envelope of one event. Generated code calls this with the declared event name
    /// and the typed payload; `dedupe_key` is the vendor's idempotency key, stable across retries, and
    /// becomes `webhook-id`.
    #[doc(hidden)]
    pub fn event<P: Serialize>(
        &self,
        event: &'static str,
        source: &str,
        dedupe_key: &str,
        payload: &P,
    ) -> Result<OutboundEvent, WebhookError> {
        let occurred_at = crate::events::Timestamp::from(chrono::Utc::now());
        let envelope = serde_json::json!({
            "event": event,
            "source": source,
            "occurredAt": occurred_at,
            "build": self.build,
            "dedupeKey": dedupe_key,
            "payload": payload,
        });
        let body =
            serde_json::to_vec(&envelope).map_err(|e| WebhookError::Payload(e.to_string()))?;
        Ok(OutboundEvent {
            url: self.post_url.clone(),
            id: dedupe_key.to_owned(),
            body,
            secret: self.secret.clone(),
            retry: self.retry,
        })
    }
}

/// One signed event, ready to post.
#[derive(Debug, Clone)]
pub struct OutboundEvent {
    url: String,
    id: String,
    body: Vec<u8>,
    secret: Secret,
    retry: RetryPolicy,
}

impl OutboundEvent {
    /// Posts the event: every attempt is signed anew with the same `webhook-id`; a 5xx, a timeout or
    /// no connection is retried with capped exponential backoff; a 4xx is final and returned.
    pub async fn send(&self) -> Result<u16, SendError> {
        // reqwest is built without a default TLS provider (the SDK uses ring).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(self.retry.timeout)
            .build()
            .map_err(|e| SendError::Request(e.to_string()))?;
        let attempts = self.retry.attempts.max(1);
        let mut last = String::new();
        for attempt in 1..=attempts {
            let request = self
                .to_request()
                .map_err(|e| SendError::Request(e.to_string()))?;
            let mut builder = client.post(&self.url);
            for (name, value) in request.headers() {
                builder = builder.header(name, value);
            }
            match builder.body(request.into_body()).send().await {
                Ok(response) if response.status().is_success() => {
                    return Ok(response.status().as_u16());
                }
                Ok(response) if response.status().is_client_error() => {
                    let status = response.status().as_u16();
                    let body = response
                        .text()
                        .await
                        .unwrap_or_default()
                        .chars()
                        .take(2048)
                        .collect();
                    return Err(SendError::Rejected { status, body });
                }
                Ok(response) => last = format!("status {}", response.status().as_u16()),
                Err(e) => last = e.without_url().to_string(),
            }
            tracing::debug!(attempt, event_id = %self.id, reason = %last, "event post failed; retrying");
            if attempt < attempts {
                tokio::time::sleep(self.retry.backoff(attempt)).await;
            }
        }
        Err(SendError::Exhausted { attempts, last })
    }

    /// The envelope's bytes, exactly as signed.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The `POST` request with the Standard Webhooks headers, signed now. Every retry of the same event
    /// keeps `webhook-id`; sign each attempt anew so its timestamp is current.
    pub fn to_request(&self) -> Result<http::Request<bytes::Bytes>, http::Error> {
        let ts = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        http::Request::post(&self.url)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header("webhook-id", &self.id)
            .header("webhook-timestamp", ts.to_string())
            .header(
                "webhook-signature",
                sign_webhook(&self.secret, &self.id, ts, &self.body),
            )
            .body(bytes::Bytes::from(self.body.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    const ID: &str = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
    const TS: i64 = 1649367553;
    const BODY: &[u8] = br#"{"email":"test@example.com","username":"test_user"}"#;
    const SIG: &str = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=";

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
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nno"
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
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
        let out = sender
            .event(
                "rank.dropped",
                "ins_1",
                "drop-7",
                &serde_json::json!({ "why": "x" }),
            )
            .unwrap();
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

    #[tokio::test]
    async fn a_4xx_is_final() {
        let (url, seen) = fake_host(vec![422, 200]).await;
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
        let out = sender
            .event(
                "rank.dropped",
                "ins_1",
                "drop-8",
                &serde_json::json!({ "why": "x" }),
            )
            .unwrap();
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
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
        let out = sender
            .event(
                "rank.dropped",
                "ins_1",
                "drop-9",
                &serde_json::json!({ "why": "x" }),
            )
            .unwrap();
        assert!(matches!(
            out.send().await,
            Err(SendError::Exhausted { attempts: 4, .. })
        ));
    }

    #[test]
    fn outbound_events_are_signed_envelopes() {
        let sender = EventSender::new("https://events.host.example/v1", SECRET)
            .unwrap()
            .with_build("1.4.2");
        let out = sender
            .event(
                "rank.dropped",
                "ins_1",
                "drop-42",
                &serde_json::json!({ "why": "x" }),
            )
            .unwrap();
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
        assert!(
            verify_webhook(&secret, "drop-42", &ts, &sig, req.body(), SystemTime::now()).is_ok()
        );
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
}
