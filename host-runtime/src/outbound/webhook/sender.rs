//! [`EventSender`]: builds the signed envelope of each declared event and hands it to the outbox,
//! whose dispatcher posts it with a fresh signature on every attempt.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::Serialize;

use crate::outbound::outbox::{Courier, DrainMode, DrainReport, Outbox, OutboxStore, Try};
use crate::platform::BoxFuture;

use super::{
    OutboundEvent, PayloadSchema, RetryPolicy, Secret, SendError, WebhookError, sign_webhook,
};

/// Posts the vendor's declared events to the host, signed with the install's inbound secret,
/// through an outbox: each event is stored before it counts as accepted, and a dispatcher posts it
/// until the host takes it (see [`crate::outbound::outbox`]).
///
/// The outbox is a required argument of [`new`](Self::new), so a sender cannot exist without one: a
/// [`FileOutbox`](crate::outbound::outbox::FileOutbox) on a server's disk, a
/// [`RedisOutbox`](crate::outbound::outbox::RedisOutbox) shared by instances or serverless
/// invocations, a `PostgresOutbox` in your own database (feature `postgres`), a
/// Durable Object on Workers, or a [`MemoryOutbox`](crate::outbound::outbox::MemoryOutbox) for tests
/// (events in memory are lost with the process).
#[derive(Clone)]
pub struct EventSender {
    post_url: String,
    /// What posts the events (default: the platform's, hyper's client natively).
    client: Option<crate::platform::client::Client>,
    secret: Secret,
    /// Also signed with, while the host may still hold it (a rotation).
    previous: Option<Secret>,
    build: Option<String>,
    retry: RetryPolicy,
    store: Arc<dyn OutboxStore>,
    dispatch: DrainMode,
    concurrency: usize,
    /// The claim's length asked for with `with_lease` (`None`: the default).
    lease: Option<Duration>,
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
    /// A sender posting to `post_url` (no default), signing with `secret` (`whsec_...`), and keeping
    /// each accepted event in `store` until the host takes it. One store per sender (per signing
    /// secret): the dispatcher signs every stored event with this sender's secrets.
    ///
    /// The published development secret is refused while a [`Handler`](crate::Handler) of this
    /// process trusts a deployed host's key set (and such a handler refuses to start while a sender
    /// signs with it): a production server signs with the install's own secret.
    ///
    /// ```
    /// use host_runtime::outbox::MemoryOutbox;
    /// use host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET;
    ///
    /// let sender = host_runtime::EventSender::new(
    ///     "https://host.example/v1/events",
    ///     DEVELOPMENT_WEBHOOK_SECRET,
    ///     MemoryOutbox::new(),
    /// )?;
    /// # Ok::<(), host_runtime::webhook::WebhookError>(())
    /// ```
    pub fn new(
        post_url: impl Into<String>,
        secret: &str,
        store: impl OutboxStore,
    ) -> Result<Self, WebhookError> {
        let secret = Secret::parse(secret).and_then(|parsed| {
            if super::development::is_development_secret(secret) {
                super::development::sender_signs_with_it()?;
            }
            Ok(parsed)
        })?;
        Ok(EventSender {
            post_url: post_url.into(),
            client: crate::platform::client::Client::platform_default(),
            secret,
            previous: None,
            build: None,
            retry: RetryPolicy::default(),
            store: Arc::new(store),
            dispatch: DrainMode::default(),
            concurrency: 64,
            lease: None,
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
    pub fn with_http_client(self, client: crate::platform::client::Client) -> Self {
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

    /// The same sender (URL, secrets, retry policy, lease) over another store. For a store's own
    /// dispatcher: a Durable Object's alarm drains the object's storage directly, where the
    /// Worker's sender reaches the same events through the object. Clones made before keep their
    /// store.
    pub fn replace_outbox(self, store: impl OutboxStore) -> Self {
        let store: Arc<dyn OutboxStore> = Arc::new(store);
        self.configure(|s| s.store = store)
    }

    /// Gone: the outbox is now the third argument of [`new`](Self::new). Kept so that code written
    /// against the release before fails to compile with a message naming the fix, rather than with
    /// "no method named `with_outbox`".
    #[doc(hidden)]
    pub fn with_outbox<S: OutboxIsAnArgumentOfNew>(self, store: S) -> Self {
        let _ = store;
        self
    }

    /// Sets who makes the attempts outside an [`Invocation`](crate::outbox::Invocation): a
    /// background task ([`DrainMode::Background`], the default on servers) or each send and
    /// [`drain`](Self::drain) ([`DrainMode::OnDemand`], the default on wasm32). Inside an
    /// invocation (the serverless adapters run every request in one) no background task starts
    /// whatever the mode, and the request's own events are attempted before it answers.
    pub fn with_drain_mode(self, dispatch: DrainMode) -> Self {
        self.configure(|s| s.dispatch = dispatch)
    }

    /// Sets how many attempts the background dispatcher makes at once (default 64).
    pub fn with_concurrency(self, attempts: usize) -> Self {
        self.configure(|s| s.concurrency = attempts.max(1))
    }

    /// Sets how long a dispatcher's claim on an event lasts (default 60 s). An instance that dies
    /// while it holds claims (a crash, a kill, a frozen serverless instance) leaves those events to
    /// the others until the claims end: a shorter lease posts them sooner after a crash, at the cost
    /// of one store write per event per lease for attempts that are slow to settle.
    ///
    /// The lease is never shorter than two attempt timeouts (the retry policy's `timeout`, 10 s by
    /// default): an attempt and the record of its outcome must fit inside the claim, or another
    /// instance could take the event while it is being posted and post it again. A shorter lease is
    /// raised to that, with a warning in the log; lower the retry policy's `timeout` with it. All
    /// instances sharing a store should use the same lease.
    pub fn with_lease(self, lease: Duration) -> Self {
        self.configure(|s| s.lease = Some(lease))
    }

    /// How long a claim lasts: the lease asked for with [`with_lease`](Self::with_lease) (or 60 s,
    /// or three attempt timeouts if that is longer), raised to two attempt timeouts if it was
    /// shorter.
    pub fn lease(&self) -> Duration {
        self.outbox().lease()
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
                crate::outbound::outbox::lease_for(self.lease, &self.retry),
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

    /// What the outbox holds now (pending events, when the oldest was accepted, dead letters),
    /// also set in the outbox gauges (`host_outbox_pending`, `host_outbox_oldest_pending_age_seconds`,
    /// `host_outbox_dead_letters`; see [`crate::observe`]). The background dispatcher samples it
    /// every 15 s; [`Probes`](crate::observe::Probes) before each `/metrics` answer.
    pub async fn backlog(&self) -> Result<crate::outbox::Backlog, crate::outbox::StoreError> {
        self.outbox().backlog().await
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
            "occurredAt": crate::calls::events::Timestamp::from(crate::platform::rt::now_utc()),
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

/// Implemented by nothing: the bound of the removed [`EventSender::with_outbox`], whose error
/// message names the fix.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`EventSender::with_outbox` was removed: pass the outbox to `EventSender::new(post_url, secret, outbox)`",
    label = "give this store to `EventSender::new` as its third argument",
    note = "a sender can no longer be built without an outbox (it used to refuse every event at run time)"
)]
pub trait OutboxIsAnArgumentOfNew: sealed::Nothing {}

/// Seals [`OutboxIsAnArgumentOfNew`]: no crate can implement it, so `with_outbox` compiles for no
/// store (it would have dropped the store it was given).
mod sealed {
    /// Implemented by nothing, and unnameable outside this crate.
    pub trait Nothing {}
}

/// Signs and posts stored events: the courier of a sender's outbox.
pub(super) struct Poster {
    url: String,
    client: Option<crate::platform::client::Client>,
    /// Each signs every attempt: the current secret, then the previous one during a rotation.
    secrets: Vec<Secret>,
}

impl Poster {
    pub(super) fn client(&self) -> Result<&crate::platform::client::Client, SendError> {
        self.client.as_ref().ok_or_else(|| {
            SendError::Request(crate::platform::client::ClientError::new(
                crate::platform::client::ClientErrorKind::Request,
                "no HTTP client on this platform: give the sender one with `with_http_client`",
            ))
        })
    }

    /// The `POST` of `body` as event `id`, signed now with every secret.
    pub(super) fn request(
        &self,
        id: &str,
        body: &[u8],
    ) -> Result<http::Request<bytes::Bytes>, http::Error> {
        let ts = crate::platform::rt::unix_seconds();
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
                Err(e) => return failed(crate::calls::error::Chain(&e).to_string()),
            };
            let request = match self.request(id, body) {
                Ok(request) => request,
                Err(e) => return failed(format!("the request cannot be built: {e}")),
            };
            match crate::platform::rt::timeout(timeout, client.send(request, ANSWER_LIMIT)).await {
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
                Ok(Err(e)) => failed(crate::calls::error::Chain(&e).to_string()),
                Err(_) => failed(format!("no answer within {} ms", timeout.as_millis())),
            }
        })
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
