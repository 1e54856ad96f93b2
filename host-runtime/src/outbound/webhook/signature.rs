//! The Standard Webhooks `v1` signature: the secret, signing and verifying, and why a secret, a
//! signature or a payload was refused.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Largest accepted skew between a signature's timestamp and now.
pub const TIMESTAMP_TOLERANCE: Duration =
    Duration::from_secs(host_interface::limits::WEBHOOK_TIMESTAMP_TOLERANCE_SECS);

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
    /// The payload could not be serialised; serde_json's error is the source.
    Payload(PayloadEncodingError),
    /// The payload breaks what the manifest declares for the event; nothing was signed or sent.
    PayloadInvalid(PayloadError),
    /// The secret is the published development secret, and a handler of this process trusts a
    /// deployed host's key set: a production server signs with the install's own secret.
    DevelopmentSecret {
        /// The key set URL the handler trusts.
        key_set: String,
    },
}

/// Why a payload was refused before signing: the event, where in the payload (a JSON pointer, `/` for
/// the payload itself) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadError {
    /// The declared event name.
    pub event: &'static str,
    /// The JSON pointer of the failing value inside the payload.
    pub pointer: String,
    /// What is wrong, for a person.
    pub reason: String,
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the `{}` payload is invalid at `{}`: {}",
            self.event, self.pointer, self.reason
        )
    }
}

impl std::error::Error for PayloadError {}

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
            WebhookError::Payload(_) => f.write_str("the payload cannot be serialised"),
            WebhookError::PayloadInvalid(e) => write!(f, "{e}; the event was not sent"),
            WebhookError::DevelopmentSecret { key_set } => write!(
                f,
                "the secret is the development secret published with the SDK, and this server \
                 trusts a deployed host's key set ({key_set}): anyone could sign its events. Give \
                 the install's own signing secret (`whsec_...`, the example reads \
                 HOST_SIGNING_SECRET)"
            ),
        }
    }
}

impl std::error::Error for WebhookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WebhookError::Payload(e) => Some(e),
            WebhookError::PayloadInvalid(e) => Some(e),
            _ => None,
        }
    }
}

/// serde_json's error for a payload that cannot be serialised (a map with non-string keys, a
/// failing `Serialize` implementation).
#[derive(Debug, Clone)]
pub struct PayloadEncodingError(Arc<serde_json::Error>);

impl fmt::Display for PayloadEncodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for PayloadEncodingError {}

/// Two errors are equal when they say the same.
impl PartialEq for PayloadEncodingError {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for PayloadEncodingError {}

impl From<serde_json::Error> for WebhookError {
    fn from(e: serde_json::Error) -> Self {
        WebhookError::Payload(PayloadEncodingError(Arc::new(e)))
    }
}

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
    verify_webhook_any(
        std::slice::from_ref(secret),
        id,
        timestamp,
        signature_header,
        body,
        now,
    )
}

/// [`verify_webhook`] against several secrets: the message is authentic when any signature of the
/// header matches any of them. Secrets rotate with the install token's generation
/// (`install.token_rotated`); during the switch, accept the current and the previous one.
pub fn verify_webhook_any(
    secrets: &[Secret],
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
    let given: Vec<Vec<u8>> = signature_header
        .split_whitespace()
        .filter_map(|s| s.strip_prefix("v1,"))
        .filter_map(|b64| BASE64.decode(b64).ok())
        .collect();
    let matched = secrets.iter().any(|secret| {
        let expected = secret.mac(id, ts, body);
        // Lengths are compared first (a wrong length can never match), then bytes in constant time.
        given
            .iter()
            .any(|g| g.len() == expected.len() && bool::from(g.ct_eq(&expected)))
    });
    if matched {
        Ok(())
    } else {
        Err(WebhookError::NoMatchingSignature)
    }
}
