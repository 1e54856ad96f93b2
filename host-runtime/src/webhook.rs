//! Events the vendor server posts to the host: the signed envelope and the Standard Webhooks `v1`
//! signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
//!
//! [`sign_webhook`] and [`verify_webhook`] are the primitives; [`EventSender`] builds the signed request
//! for one declared event. The generated `Webhooks` type wraps an `EventSender` with one typed method
//! per webhook the manifest declares, so an undeclared event or a payload of the wrong type does not
//! compile, and each payload is checked against the webhook's declared schema (and, for alerts and
//! banners, for a non-empty `why`) before it is signed: the host would refuse it with a 4xx after the
//! fact, and a 4xx is final. See [`crate::interface`], section "Events and deduplication"
//! ([link](crate::interface#events-and-deduplication)).

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::BoxFuture;
use crate::outbox::{Courier, DrainMode, DrainReport, MemoryOutbox, Outbox, OutboxStore, Try};
use crate::schema::{Check, Lazy};

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

pub use crate::outbox::{Receipt, RetryPolicy, SendError};

/// Posts the vendor's declared events to the host, signed with the install's inbound secret,
/// through an outbox: each event is stored before it counts as accepted, and a dispatcher posts it
/// until the host takes it (see [`crate::outbox`]). Without [`with_outbox`](Self::with_outbox) the
/// outbox is in memory and lost with the process.
#[derive(Clone)]
pub struct EventSender {
    post_url: String,
    /// What posts the events (default: the platform's, reqwest natively).
    client: Option<crate::client::Client>,
    secret: Secret,
    /// Also signed with, while the host may still hold it (a rotation).
    previous: Option<Secret>,
    build: Option<String>,
    retry: RetryPolicy,
    store: Arc<dyn OutboxStore>,
    dispatch: DrainMode,
    concurrency: usize,
    /// Made from the settings above on first use, and shared by the clones made after that: the
    /// outbox and the courier that signs and posts its events.
    outbox: Arc<OnceLock<(Arc<Outbox>, Arc<Poster>)>>,
}

impl fmt::Debug for EventSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSender")
            .field("post_url", &self.post_url)
            .field("build", &self.build)
            .field("retry", &self.retry)
            .field("dispatch", &self.dispatch)
            .finish_non_exhaustive()
    }
}

impl EventSender {
    /// A sender posting to `post_url` (no default) with `secret` (`whsec_...`).
    pub fn new(post_url: impl Into<String>, secret: &str) -> Result<Self, WebhookError> {
        Ok(EventSender {
            post_url: post_url.into(),
            client: crate::client::Client::platform_default(),
            secret: Secret::parse(secret)?,
            previous: None,
            build: None,
            retry: RetryPolicy::default(),
            store: Arc::new(MemoryOutbox::new()),
            dispatch: DrainMode::default(),
            concurrency: 64,
            outbox: Arc::default(),
        })
    }

    /// A settings change: the clones made before it keep the outbox they had.
    fn configure(mut self, change: impl FnOnce(&mut Self)) -> Self {
        change(&mut self);
        self.outbox = Arc::default();
        self
    }

    /// Also signs with the previous secret (`whsec_...`) while a rotation is under way, so the host
    /// accepts the events whichever of the two it holds (the header then carries two signatures).
    pub fn with_previous_secret(self, secret: &str) -> Result<Self, WebhookError> {
        let previous = Secret::parse(secret)?;
        Ok(self.configure(|s| s.previous = Some(previous)))
    }

    /// Sets what posts the events: the platform's own client where there is no default (the
    /// Workers adapter's `fetch`), or one of your own.
    pub fn with_http_client(self, client: crate::client::Client) -> Self {
        self.configure(|s| s.client = Some(client))
    }

    /// Sets how sends are retried.
    pub fn with_retry(self, retry: RetryPolicy) -> Self {
        self.configure(|s| s.retry = retry)
    }

    /// Sets the vendor build identifier sent as `build`.
    pub fn with_build(self, build: impl Into<String>) -> Self {
        let build = build.into();
        self.configure(|s| s.build = Some(build))
    }

    /// Keeps accepted events in `store` until the host takes them: a
    /// [`FileOutbox`](crate::outbox::FileOutbox) or [`RedisOutbox`](crate::outbox::RedisOutbox) for
    /// events that must survive a restart. One store per sender (per signing secret): the
    /// dispatcher signs every stored event with this sender's secrets.
    pub fn with_outbox(self, store: impl OutboxStore) -> Self {
        let store: Arc<dyn OutboxStore> = Arc::new(store);
        self.configure(|s| s.store = store)
    }

    /// Sets who makes the attempts: a background task ([`DrainMode::Background`], the default on
    /// servers) or each send and [`drain`](Self::drain) ([`DrainMode::OnDemand`], for Lambda, Vercel
    /// and Workers, the default on wasm32).
    pub fn with_drain_mode(self, dispatch: DrainMode) -> Self {
        self.configure(|s| s.dispatch = dispatch)
    }

    /// Sets how many attempts the background dispatcher makes at once (default 64).
    pub fn with_concurrency(self, attempts: usize) -> Self {
        self.configure(|s| s.concurrency = attempts.max(1))
    }

    fn parts(&self) -> &(Arc<Outbox>, Arc<Poster>) {
        self.outbox.get_or_init(|| {
            let poster = Arc::new(self.poster());
            let outbox = Arc::new(Outbox::new(
                Arc::clone(&self.store),
                Arc::clone(&poster) as Arc<dyn Courier>,
                self.retry,
                self.dispatch,
                self.concurrency,
            ));
            (outbox, poster)
        })
    }

    fn outbox(&self) -> &Arc<Outbox> {
        &self.parts().0
    }

    fn poster(&self) -> Poster {
        let mut secrets = vec![self.secret.clone()];
        secrets.extend(self.previous.clone());
        Poster {
            url: self.post_url.clone(),
            client: self.client.clone(),
            secrets,
        }
    }

    /// The outbox store, to list, retry or drop what it holds.
    pub fn outbox_store(&self) -> &Arc<dyn OutboxStore> {
        self.outbox().store()
    }

    /// Starts the background dispatcher now, so that events a previous process left in the store
    /// are posted without waiting for a new one: call it once at start-up. `false` when there is
    /// no background dispatcher (no async runtime, or [`DrainMode::OnDemand`]).
    pub fn start(&self) -> bool {
        self.outbox().start()
    }

    /// Posts due events from the outbox in the caller's task for up to `budget`, and reports what
    /// happened: for platforms where no task outlives a request, from a scheduled trigger or at
    /// the end of an invocation. Attempts under way when the budget runs out finish (each within
    /// the retry policy's timeout and the budget left when it started).
    pub async fn drain(&self, budget: Duration) -> DrainReport {
        self.outbox().drain(budget).await
    }

    /// Builds the envelope of one event after checking its payload against `schema` (the webhook's
    /// declared schema and the `why` rule): generated code calls this with the event's schema and the
    /// typed payload. `dedupe_key` is the vendor's idempotency key, stable across retries, and becomes
    /// `webhook-id`. `occurredAt` is now unless [`OutboundEvent::with_occurred_at`] sets it.
    #[doc(hidden)]
    pub fn event<P: Serialize>(
        &self,
        schema: &PayloadSchema,
        source: &str,
        dedupe_key: &str,
        payload: &P,
    ) -> Result<OutboundEvent, WebhookError> {
        let payload = serde_json::to_value(payload)?;
        schema
            .check(&payload)
            .map_err(WebhookError::PayloadInvalid)?;
        let envelope = serde_json::json!({
            "event": schema.event,
            "source": source,
            "occurredAt": crate::events::Timestamp::from(crate::rt::now_utc()),
            "build": self.build,
            "dedupeKey": dedupe_key,
            "payload": payload,
        });
        let body = serde_json::to_vec(&envelope)?;
        let (outbox, poster) = self.parts();
        Ok(OutboundEvent {
            poster: Arc::clone(poster),
            outbox: Arc::clone(outbox),
            id: dedupe_key.to_owned(),
            envelope,
            body,
        })
    }
}

/// Signs and posts stored events: the courier of a sender's outbox.
struct Poster {
    url: String,
    client: Option<crate::client::Client>,
    /// Each signs every attempt: the current secret, then the previous one during a rotation.
    secrets: Vec<Secret>,
}

impl Poster {
    fn client(&self) -> Result<&crate::client::Client, SendError> {
        self.client.as_ref().ok_or_else(|| {
            SendError::Request(crate::client::ClientError::new(
                crate::client::ClientErrorKind::Request,
                "no HTTP client on this platform: give the sender one with `with_http_client`",
            ))
        })
    }

    /// The `POST` of `body` as event `id`, signed now with every secret.
    fn request(&self, id: &str, body: &[u8]) -> Result<http::Request<bytes::Bytes>, http::Error> {
        let ts = crate::rt::unix_seconds();
        let signatures = self
            .secrets
            .iter()
            .map(|secret| sign_webhook(secret, id, ts, body))
            .collect::<Vec<_>>()
            .join(" ");
        http::Request::post(&self.url)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header("webhook-id", id)
            .header("webhook-timestamp", ts.to_string())
            .header("webhook-signature", signatures)
            .body(bytes::Bytes::copy_from_slice(body))
    }
}

impl Courier for Poster {
    fn attempt<'a>(&'a self, id: &'a str, body: &'a [u8], timeout: Duration) -> BoxFuture<'a, Try> {
        Box::pin(async move {
            let failed = |reason: String| Try::Failed {
                reason,
                retry_after: None,
            };
            let client = match self.client() {
                Ok(client) => client,
                Err(e) => return failed(crate::error::Chain(&e).to_string()),
            };
            let request = match self.request(id, body) {
                Ok(request) => request,
                Err(e) => return failed(format!("the request cannot be built: {e}")),
            };
            match crate::rt::timeout(timeout, client.send(request, ANSWER_LIMIT)).await {
                Ok(Ok(response)) if response.status().is_success() => {
                    Try::Delivered(response.status().as_u16())
                }
                Ok(Ok(response))
                    if response.status().is_client_error()
                        && response.status() != http::StatusCode::TOO_MANY_REQUESTS =>
                {
                    Try::Refused {
                        status: response.status().as_u16(),
                        body: String::from_utf8_lossy(response.body())
                            .chars()
                            .take(2048)
                            .collect(),
                    }
                }
                Ok(Ok(response)) => Try::Failed {
                    reason: format!("status {}", response.status().as_u16()),
                    retry_after: retry_after(response.headers()),
                },
                Ok(Err(e)) => failed(crate::error::Chain(&e).to_string()),
                Err(_) => failed(format!("no answer within {} ms", timeout.as_millis())),
            }
        })
    }
}

/// What the manifest declares for one outbound event: its name, its payload schema and whether the
/// host shows its `why` (alerts and banners). Generated code holds one per webhook, in a `static`,
/// with the validator the macro generated from the schema.
pub struct PayloadSchema {
    event: &'static str,
    schema: Lazy,
    shows_why: bool,
}

impl fmt::Debug for PayloadSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PayloadSchema")
            .field("event", &self.event)
            .field("shows_why", &self.shows_why)
            .finish_non_exhaustive()
    }
}

impl PayloadSchema {
    /// The declaration of `event`: `schema` is its payload schema as JSON text and `check` the
    /// validator generated from it (`None`: the text is compiled on first use), `shows_why` whether
    /// it is declared `as: "alert"` or `as: "banner"`.
    #[doc(hidden)]
    pub const fn new(
        event: &'static str,
        schema: &'static str,
        check: Option<Check>,
        shows_why: bool,
    ) -> Self {
        PayloadSchema {
            event,
            schema: Lazy::new(schema, check),
            shows_why,
        }
    }

    /// The event name.
    pub fn event(&self) -> &'static str {
        self.event
    }

    /// Checks `payload` as the host will: against the declared schema (draft 2020-12, `format` as an
    /// annotation), then, for alerts and banners, for a `why` that is a string with something besides
    /// white space in it (the sentence the owner reads). The first failure is returned.
    pub fn check(&self, payload: &serde_json::Value) -> Result<(), PayloadError> {
        let fail = |pointer: &str, reason: String| PayloadError {
            event: self.event,
            pointer: if pointer.is_empty() { "/" } else { pointer }.to_owned(),
            reason,
        };
        // The manifest engine compiled every embedded schema before this code was generated, so a
        // schema that cannot be checked is only possible if the generated code was altered.
        match self.schema.violation(payload) {
            Ok(None) => {}
            Ok(Some(v)) => return Err(fail(&v.pointer, v.message)),
            Err(_) => {
                return Err(fail(
                    "/",
                    "the declared payload schema cannot be compiled".into(),
                ));
            }
        }
        if self.shows_why {
            let why = payload.get("why").and_then(serde_json::Value::as_str);
            if why.is_none_or(|w| w.trim().is_empty()) {
                return Err(fail(
                    "/why",
                    "an alert or banner needs a `why` with words in it: the sentence the owner reads"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

/// The largest answer body read from the event-post endpoint.
const ANSWER_LIMIT: usize = 64 * 1024;

/// A `Retry-After` in seconds (the host's form; an HTTP date is not read).
fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let seconds: u64 = headers
        .get(http::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

/// Logs a [`OutboundEvent::send`] dropped before it knew the outcome (a handler deadline, a host
/// that hung up): the event is in the outbox, or was never accepted, and the log says which way to
/// look.
struct Waiting<'a>(Option<&'a str>);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.0 {
            tracing::warn!(
                event_id = %id,
                "a send was cancelled before its outcome was known; an event the outbox accepted is \
                 still delivered, and its outcome logged"
            );
        }
    }
}

/// One event, checked and enveloped, ready to be handed to the outbox.
#[derive(Clone)]
pub struct OutboundEvent {
    poster: Arc<Poster>,
    outbox: Arc<Outbox>,
    id: String,
    envelope: serde_json::Value,
    body: Vec<u8>,
}

impl fmt::Debug for OutboundEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutboundEvent")
            .field("id", &self.id)
            .field("envelope", &self.envelope)
            .finish_non_exhaustive()
    }
}

impl OutboundEvent {
    /// Sets `occurredAt`, when the event happened (by default, when it was built): for an event
    /// detected late or sent from a queue.
    pub fn with_occurred_at(mut self, at: impl Into<crate::events::Timestamp>) -> Self {
        self.envelope["occurredAt"] = serde_json::json!(at.into());
        if let Ok(body) = serde_json::to_vec(&self.envelope) {
            self.body = body;
        }
        self
    }

    /// The `webhook-id`: the event's dedupe key.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Hands the event to the outbox and returns once the outbox holds it (on disk, for a
    /// [`FileOutbox`](crate::outbox::FileOutbox)): from then on it is posted until the host takes it
    /// or refuses it, across restarts for a durable store. The [`Receipt`] gives the final outcome
    /// and may be dropped. An error means the event was not accepted and will not be sent.
    pub async fn enqueue(self) -> Result<Receipt, SendError> {
        self.poster.client()?;
        let receipt = self.outbox.wait(&self.id);
        self.outbox.accept(&self.id, self.body).await?;
        Ok(receipt)
    }

    /// Hands the event to the outbox and waits for its final outcome: every attempt is signed anew
    /// with the same `webhook-id` and the same bytes; a 5xx, a 429, a timeout or no connection is
    /// retried with capped exponential backoff (a `Retry-After` on a 429 or 503 is waited for, up
    /// to the policy's longest wait); any other 4xx is final and returned.
    ///
    /// Dropping the future (a handler past its deadline, a host that hung up) stops the waiting,
    /// not the delivery: the event is in the outbox and its outcome is logged. With
    /// [`DrainMode::OnDemand`] the send makes the attempts due within one attempt's timeout and
    /// answers [`SendError::Pending`] if the event is still waiting after them.
    pub async fn send(&self) -> Result<u16, SendError> {
        self.poster.client()?;
        let receipt = self.outbox.wait(&self.id);
        let mut waiting = Waiting(Some(&self.id));
        self.outbox.accept(&self.id, self.body.clone()).await?;
        let outcome = self.outbox.settle_now(&self.id, receipt).await;
        waiting.0 = None;
        outcome
    }

    /// Hands the event to the outbox from a task of its own and returns at once: the delivery
    /// outlives the handler that started it. Its outcome is logged either way, an outbox that
    /// cannot take the event included; the [`Receipt`] gives it to whoever wants it. Prefer
    /// [`enqueue`](Self::enqueue) where the caller can act on a store that is down.
    pub fn spawn(self) -> Receipt {
        if let Err(e) = self.poster.client() {
            tracing::error!(event_id = %self.id, error = %crate::error::Chain(&e), "event not sent");
            return Receipt::settled(Err(e));
        }
        let receipt = self.outbox.wait(&self.id);
        let (outbox, id) = (Arc::clone(&self.outbox), self.id.clone());
        let started = crate::rt::spawn(async move {
            if let Err(e) = self.outbox.accept(&self.id, self.body).await {
                tracing::error!(event_id = %self.id, error = %crate::error::Chain(&e), "event not sent");
            }
        });
        if !started {
            let e = SendError::Request(crate::client::ClientError::new(
                crate::client::ClientErrorKind::Request,
                "no async runtime to send the event on",
            ));
            tracing::error!(event_id = %id, error = %e, "event not sent");
            outbox.finish(&id, &Err(e));
        }
        receipt
    }

    /// The envelope's bytes, exactly as signed.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The `POST` request with the Standard Webhooks headers, signed now. Every retry of the same event
    /// keeps `webhook-id`; sign each attempt anew so its timestamp is current.
    pub fn to_request(&self) -> Result<http::Request<bytes::Bytes>, http::Error> {
        self.poster.request(&self.id, &self.body)
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
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
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

    #[tokio::test]
    async fn a_4xx_is_final() {
        let (url, seen) = fake_host(vec![422, 200]).await;
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
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
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
        let out = alert(&sender, "drop-9");
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

    #[test]
    fn payloads_are_checked_before_signing_and_name_the_pointer() {
        let sender = EventSender::new("https://events.host.example/v1", SECRET).unwrap();
        let refused = |payload: serde_json::Value| match sender.event(
            &RANK_DROPPED,
            "ins_1",
            "k",
            &payload,
        ) {
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
        let sender = EventSender::new("https://events.host.example/v1", SECRET).unwrap();
        assert!(
            sender
                .event(&STORE_UPDATED, "ins_1", "k", &serde_json::json!({}))
                .is_ok()
        );
    }

    #[test]
    fn occurred_at_can_be_set_and_is_signed() {
        let sender = EventSender::new("https://events.host.example/v1", SECRET).unwrap();
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
        let sender = EventSender::new("https://events.host.example/v1", NEXT)
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
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(policy);
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
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
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
        let sender = EventSender::new(url, SECRET).unwrap().with_retry(fast());
        let make = || alert(&sender, "k");
        assert_eq!(make().spawn().outcome().await, Ok(200));
        // A dropped receipt: the send still completes.
        drop(make().spawn());
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while seen.lock().unwrap().len() < 3 {
            assert!(
                std::time::Instant::now() < deadline,
                "the detached send did not arrive"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
