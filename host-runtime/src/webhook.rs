//! Events the vendor server posts to the host (D2): the signed envelope and the Standard Webhooks `v1`
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

/// Largest accepted skew between a signature's timestamp and now (D2).
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

/// Posts the vendor's declared events to the host, signed with the install's inbound secret.
#[derive(Debug, Clone)]
pub struct EventSender {
    post_url: String,
    secret: Secret,
    build: Option<String>,
}

impl EventSender {
    /// A sender posting to `post_url` (no default; D2) with `secret` (`whsec_...`).
    pub fn new(post_url: impl Into<String>, secret: &str) -> Result<Self, WebhookError> {
        Ok(EventSender {
            post_url: post_url.into(),
            secret: Secret::parse(secret)?,
            build: None,
        })
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
}

impl OutboundEvent {
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
