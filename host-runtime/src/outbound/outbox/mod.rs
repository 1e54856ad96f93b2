//! The outbox: the vendor's own events, stored before they are sent and removed only once the host
//! took them.
//!
//! [`EventSender`](crate::EventSender) writes every event it is given to an [`OutboxStore`] (its id,
//! the exact envelope bytes, the attempts made and when the next one is due) and reports it accepted
//! only once the store holds it. A dispatcher then drains the store: it posts each due event (signed
//! anew on every attempt, with the same `webhook-id` and the same bytes), removes it on a 2xx, moves it
//! to the dead letters on a final 4xx or when the [`RetryPolicy`] runs out, and otherwise schedules
//! the next attempt. A process that starts again with the same store picks up where the last one
//! stopped, so a deploy, a crash or an out-of-memory kill loses nothing that was accepted. Delivery
//! is at least once: an event whose 2xx arrived just before a crash is posted again, with the same
//! `webhook-id`, and the host drops the copy.
//!
//! Stores:
//!
//! - [`FileOutbox`] (feature `redb`, on by default): one file on local disk, no server; each accepted
//!   event is on disk (fsync) before the send reports it accepted. For one instance.
//! - [`RedisOutbox`] (feature `redis`): several instances drain one outbox; an event is in flight at
//!   one instance at a time (a lease, as for event deduplication).
//! - `PostgresOutbox` (feature `postgres`): several instances drain one table of the vendor's own
//!   database, and an event a handler sends commits with the handler's writes.
//! - [`MemoryOutbox`]: the default of a sender given no store; nothing survives the process. For tests
//!   and for events you can afford to lose.
//!
//! Where no task outlives a request (Lambda, Vercel, Workers), each request runs as an
//! [`Invocation`]: the events it hands to the outbox get one bounded attempt before it answers, and
//! what is left in the store is posted by [`EventSender::drain`](crate::EventSender::drain), called
//! by a scheduled trigger (or a Durable Object's alarm).
//!
//! The signing of each attempt is [`crate::outbound::webhook`]'s; this module stores and schedules.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::BoxFuture;
pub use crate::stores::store::{StoreError, StoreErrorKind};

#[cfg(any(feature = "redb", feature = "redis", feature = "fuzzing"))]
pub(crate) mod codec;
#[cfg(feature = "redb")]
mod file;
mod invocation;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "redis")]
mod redis;
mod schedule;

#[cfg(feature = "redb")]
pub use file::FileOutbox;
pub(crate) use invocation::defer;
pub use invocation::{AfterAnswer, Invocation};
pub use memory::MemoryOutbox;
#[cfg(feature = "postgres")]
pub use postgres::PostgresOutbox;
#[cfg(feature = "redis")]
pub use redis::RedisOutbox;
pub(crate) use schedule::{Courier, Outbox, Try, lease_for};
pub use schedule::{DrainMode, DrainReport};

/// How sends are retried: a 5xx, a 429, a timeout or an unreachable host is retried with capped
/// exponential backoff (or after the host's `Retry-After`); any other 4xx is final.
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

/// The default retries span 18.5 minutes (12 attempts, waits from 1 s doubling to at most 5 min),
/// longer than the host's own 12.5-minute retry schedule for its events: an outage of the host's
/// event endpoint that the host itself would ride out does not lose the vendor's events.
impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 12,
            first_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(300),
            timeout: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// The waits between all attempts added up: how long an outage the policy rides out.
    pub fn total_wait(&self) -> Duration {
        (1..self.attempts.max(1)).map(|n| self.backoff(n)).sum()
    }

    /// The wait after failed attempt `n` (1-based).
    pub fn backoff(&self, n: u32) -> Duration {
        let factor = 2u32.saturating_pow(n.saturating_sub(1));
        self.first_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

/// Why an event was not delivered (yet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// The host answered 4xx: final, not retried. The event is in the dead letters.
    #[error("the host refused the event ({status}): {body}")]
    Rejected {
        /// The status.
        status: u16,
        /// The host's answer, as text (at most 2 KB).
        body: String,
    },
    /// Every attempt failed with a 5xx, a timeout or no connection. The event is in the dead
    /// letters.
    #[error("the event was not delivered after {attempts} attempts; last: {last}")]
    Exhausted {
        /// Attempts made.
        attempts: u32,
        /// What the last attempt met.
        last: String,
    },
    /// The request could not be built or no HTTP client is available; the client's error is the
    /// source.
    #[error("the event could not be sent")]
    Request(#[source] crate::platform::client::ClientError),
    /// The outbox could not store the event, so it was not accepted and will not be sent: tell
    /// whoever asked for it, or try again once the store is back. The store's error is the source.
    #[error("the event was not accepted: the outbox could not store it")]
    Store(#[source] StoreError),
    /// Refused: another event (other content) has this id, waiting in the outbox or delivered
    /// within the last [`SENT_WINDOW`]. The host keeps one event per id and would drop this one as
    /// a copy, so it is not sent. Give each event an id of its own: derive it from what the event
    /// says (a version, a count, the day), not only from what it is about. Nothing was stored.
    #[error(
        "event id `{id}` is taken by another event with different content (waiting in the outbox, or delivered within the last 24 hours); the host keeps one event per id, so this one is not sent: derive the id from what the event says"
    )]
    Conflict {
        /// The id.
        id: String,
    },
    /// Not delivered yet: the event is in the outbox and a later attempt (the dispatcher's, or the
    /// next [`drain`](crate::EventSender::drain) on serverless platforms) will post it.
    #[error(
        "the event is in the outbox, not delivered yet after {attempts} attempt(s) (last: {last}); a later attempt will post it"
    )]
    Pending {
        /// Attempts made so far.
        attempts: u32,
        /// What the last attempt met.
        last: String,
    },
}

/// The answer to the host when an event could not be handed over, so that a handler can write
/// `event.enqueue().await?`: an outbox that could not store the event is `503 OUTBOX_UNAVAILABLE`
/// with `Retry-After: 30`, so the host calls again and the event is not lost; an id taken by
/// another event is `500 INTERNAL` naming the id; any other failure is `500 INTERNAL`, also
/// retried. The send error is kept as the cause, for the log.
///
/// [`SendError::Pending`] from [`send`](crate::webhook::OutboundEvent::send) means the outbox holds
/// the event: do not fail the call over it.
impl From<SendError> for crate::HostError {
    fn from(e: SendError) -> Self {
        let answer = match &e {
            SendError::Store(_) => crate::HostError::new(
                "OUTBOX_UNAVAILABLE",
                "an event could not be stored in the outbox; call again",
            )
            .with_status(503)
            .with_retry_after(30),
            SendError::Conflict { id } => crate::HostError::internal(format!(
                "event id `{id}` is taken by another event with different content, so the event was not sent"
            )),
            _ => crate::HostError::internal("an event could not be handed to the outbox"),
        };
        answer.with_source(e)
    }
}

/// One stored event: pending (waiting for its next attempt) or dead (given up on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The `webhook-id`: the event's dedupe key.
    pub id: String,
    /// The envelope, exactly as signed on every attempt.
    pub body: Vec<u8>,
    /// Attempts made so far.
    pub attempts: u32,
    /// Pending: when the next attempt is due; dead: when it was given up on (Unix milliseconds).
    pub due: i64,
    /// When the event was accepted (Unix milliseconds).
    pub accepted: i64,
    /// What the last attempt met, if one was made.
    pub last_error: Option<String>,
}

impl Entry {
    /// What the event says, as a SHA-256 digest: see [`content_digest`].
    pub fn digest(&self) -> [u8; 32] {
        content_digest(&self.body)
    }

    /// Applies `settlement` to the entry (its attempts, its due time, its last error) and says
    /// where the entry goes now: what every store does when a dispatcher settles an attempt, in
    /// one place, so that a store only moves the entry.
    pub fn settle(&mut self, settlement: Settlement) -> Destination {
        match settlement {
            Settlement::Delivered => Destination::Delivered,
            Settlement::Retry {
                attempts,
                due,
                error,
            } => {
                self.attempts = attempts;
                self.due = due;
                self.last_error = Some(error);
                Destination::Pending
            }
            Settlement::Dead {
                attempts,
                at,
                reason,
            } => {
                self.attempts = attempts;
                self.due = at;
                self.last_error = Some(reason);
                Destination::Dead
            }
        }
    }

    /// A new event, due now.
    pub fn new(id: impl Into<String>, body: Vec<u8>, now: i64) -> Self {
        Entry {
            id: id.into(),
            body,
            attempts: 0,
            due: now,
            accepted: now,
            last_error: None,
        }
    }
}

/// How long a store remembers the digest of an event it delivered: 24 hours. Within it, an event
/// sent again under the same id is recognised: with the same content it is not posted again
/// ([`Put::AlreadyDelivered`]), with other content it is refused ([`Put::Conflict`],
/// [`SendError::Conflict`]). The host keeps one event per id for at least as long as it retries its
/// own deliveries, which this covers many times over. What a store keeps per delivered event is
/// its id, a 32-byte digest and an expiry time.
pub const SENT_WINDOW: Duration = Duration::from_secs(24 * 60 * 60);

/// What an event says, as a SHA-256 digest: whether two events under one id are the same event.
///
/// For a JSON object (an event envelope) it is taken over the members other than `occurredAt` and
/// `build`, in sorted order at every depth: a handler that runs again sends the same event with a
/// later `occurredAt`, and a redelivery after a deploy carries the new build; neither is another
/// event. Anything else (which the SDK never stores) is digested as its bytes.
pub fn content_digest(body: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(mut envelope)) => {
            envelope.remove("occurredAt");
            envelope.remove("build");
            hasher.update(b"json:");
            canonical(&serde_json::Value::Object(envelope), &mut hasher);
        }
        _ => {
            hasher.update(b"bytes:");
            hasher.update(body);
        }
    }
    hasher.finalize().into()
}

/// Feeds `value` to `hasher` as JSON with every object's members in sorted order, so that two
/// values equal as JSON digest alike whatever order their members were written in.
fn canonical(value: &serde_json::Value, hasher: &mut sha2::Sha256) {
    use serde_json::Value;
    use sha2::Digest;
    match value {
        Value::Object(members) => {
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            hasher.update(b"{");
            for (n, (name, member)) in sorted.into_iter().enumerate() {
                if n > 0 {
                    hasher.update(b",");
                }
                hasher.update(Value::String(name.clone()).to_string().as_bytes());
                hasher.update(b":");
                canonical(member, hasher);
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    hasher.update(b",");
                }
                canonical(item, hasher);
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

/// What a store did with an event given to [`OutboxStore::put`] (`T` is `()`) or
/// [`OutboxStore::put_claimed`] (`T` is the event as stored).
///
/// Stores tell the event apart from one already under its id by [`Entry::digest`]: the same digest
/// is the same event; another digest is another event, which the host would take for a copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Put<T = ()> {
    /// Stored: the event is pending. A dead letter of the same id is replaced by it.
    Stored(T),
    /// The same event is pending already: nothing was stored, and the one pending is posted.
    AlreadyPending,
    /// The same event was delivered within [`SENT_WINDOW`]: nothing was stored or posted.
    AlreadyDelivered,
    /// Another event with this id (another digest) is pending, or was delivered within
    /// [`SENT_WINDOW`]: refused, nothing was stored.
    Conflict,
}

impl<T> Put<T> {
    /// Whether the event was stored.
    pub fn is_stored(&self) -> bool {
        matches!(self, Put::Stored(_))
    }

    /// The same answer with what was stored mapped by `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Put<U> {
        match self {
            Put::Stored(t) => Put::Stored(f(t)),
            Put::AlreadyPending => Put::AlreadyPending,
            Put::AlreadyDelivered => Put::AlreadyDelivered,
            Put::Conflict => Put::Conflict,
        }
    }

    /// The answer for an event found under its id: the same event (digest `found` equal to
    /// `given`, as bytes or in the form the store keeps them) already `pending` or delivered, or a
    /// conflict. For stores that compare digests themselves.
    pub fn found<D: PartialEq + ?Sized>(found: &D, given: &D, pending: bool) -> Self {
        match (found == given, pending) {
            (false, _) => Put::Conflict,
            (true, true) => Put::AlreadyPending,
            (true, false) => Put::AlreadyDelivered,
        }
    }
}

/// Which list of a store to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Events waiting for an attempt (or in one).
    Pending,
    /// Events given up on: a final 4xx, or retries run out.
    Dead,
}

/// How an attempt ended, for the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// The host took it: remove it.
    Delivered,
    /// Try again at `due` (Unix milliseconds), with `attempts` made so far.
    Retry {
        /// Attempts made so far.
        attempts: u32,
        /// When the next attempt is due.
        due: i64,
        /// What this attempt met.
        error: String,
    },
    /// Give up: move it to the dead letters.
    Dead {
        /// Attempts made.
        attempts: u32,
        /// Now (Unix milliseconds).
        at: i64,
        /// Why.
        reason: String,
    },
}

/// Where a settled entry goes: the answer of [`Entry::settle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// Out of the store, its digest kept for [`SENT_WINDOW`].
    Delivered,
    /// Back among the pending events, due at its new `due`.
    Pending,
    /// To the dead letters.
    Dead,
}

/// Where accepted events wait. Every method is a single atomic step of the store.
///
/// A claim is a lease held by one dispatcher, named by `owner`: the event's due time moves to the
/// lease's end, so no other dispatcher takes it meanwhile, and only the holder settles it. A
/// dispatcher that died holding a claim leaves the event due again when the lease ends.
///
/// One id is one event: a store remembers the [digest](Entry::digest) of each pending event and,
/// for [`SENT_WINDOW`], of each delivered one, and [`put`](Self::put) answers by it whether an
/// event given under a known id is the same event or another (see [`Put`]).
pub trait OutboxStore: Send + Sync + 'static {
    /// Stores a new pending event, durably before it answers [`Put::Stored`]; or stores nothing
    /// and answers what holds its id: the same event pending ([`Put::AlreadyPending`]) or delivered
    /// within [`SENT_WINDOW`] ([`Put::AlreadyDelivered`]), or another event ([`Put::Conflict`]).
    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>>;

    /// Claims up to `limit` pending events due at `now`, earliest first, for `owner` until
    /// `lease_until` (all Unix milliseconds).
    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>>;

    /// Claims those of `ids` that are pending and due at `now`, in any order, for `owner` until
    /// `lease_until`, as [`claim`](Self::claim) does: an event under another dispatcher's claim, not
    /// due yet, dead or unknown is left out. How an invocation attempts the events it sent itself
    /// before it answers, whatever else the store holds.
    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>>;

    /// Stores a new pending event already claimed by `owner` until `lease_until`, for a sender
    /// about to make its attempt at once: what [`put`](Self::put) then
    /// [`claim_ids`](Self::claim_ids) do, which is the default, and one request for a store that
    /// answers it in one (the Durable Object outbox). Answers the event as it was stored (due at its
    /// `due`), or, as [`put`](Self::put) does, what holds its id; then nothing is claimed.
    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
        Box::pin(put_then_claim(self, entry, lease_until, owner))
    }

    /// Settles an attempt on `id`, if `owner` still holds its claim: `Ok(false)` when it does not
    /// (the lease ran out and another dispatcher took it, or it was dropped).
    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// When the earliest pending event is due (claimed ones count at their lease's end).
    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>>;

    /// Up to `limit` events of one list, earliest first.
    fn list(&self, which: Which, limit: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>>;

    /// Moves dead event `id` back to pending, due at `now` with no attempts counted. `Ok(false)`:
    /// no dead event has that id.
    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Removes event `id`, pending or dead, for good. `Ok(false)`: no event has that id.
    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Resolves when events may have been added by someone else (another instance, a transaction
    /// that committed), for a store that can tell (PostgreSQL's `LISTEN`): the dispatcher then
    /// looks at once rather than at its next look. The default never resolves.
    fn changed(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::pending())
    }
}

/// [`OutboxStore::put_claimed`] in two steps: [`put`](OutboxStore::put), then
/// [`claim_ids`](OutboxStore::claim_ids) if it stored the event. The default, and what a store
/// that answers it in one falls back on where it cannot (PostgreSQL inside a handler's
/// transaction).
pub(crate) async fn put_then_claim<S: OutboxStore + ?Sized>(
    store: &S,
    entry: Entry,
    lease_until: i64,
    owner: &str,
) -> Result<Put<Entry>, StoreError> {
    let (id, due) = (entry.id.clone(), entry.due);
    match store.put(entry).await? {
        Put::Stored(()) => {}
        Put::AlreadyPending => return Ok(Put::AlreadyPending),
        Put::AlreadyDelivered => return Ok(Put::AlreadyDelivered),
        Put::Conflict => return Ok(Put::Conflict),
    }
    let claimed = store
        .claim_ids(std::slice::from_ref(&id), due, lease_until, owner)
        .await?;
    // Stored a moment ago and due at its own `due`: only a dispatcher that claimed it in between
    // leaves it out, and then that one posts it.
    Ok(match claimed.into_iter().next() {
        Some(entry) => Put::Stored(entry),
        None => Put::AlreadyPending,
    })
}

/// Where a final outcome goes.
type Tell = futures_channel::oneshot::Sender<Result<u16, SendError>>;

/// Final outcomes waited for by senders in this process, by event id.
#[derive(Default)]
pub(crate) struct Waiters {
    by_id: Mutex<HashMap<String, Vec<Tell>>>,
    /// How many ids the map held after it was last swept; it is swept again at twice that.
    swept: std::sync::atomic::AtomicUsize,
}

impl Waiters {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Tell>>> {
        // Every update is one insert or remove: a panic elsewhere leaves a usable map.
        self.by_id
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn wait(
        &self,
        id: &str,
    ) -> futures_channel::oneshot::Receiver<Result<u16, SendError>> {
        use std::sync::atomic::Ordering;
        let (tell, told) = futures_channel::oneshot::channel();
        let mut by_id = self.lock();
        by_id.entry(id.to_owned()).or_default().push(tell);
        // Receipts that were dropped (most are: the outcome is logged anyway) leave nobody to tell;
        // sweeping them whenever the map doubles keeps it as small as the receipts still held, in
        // constant amortised time, however many events wait in the store.
        if by_id.len()
            >= self
                .swept
                .load(Ordering::Relaxed)
                .saturating_mul(2)
                .max(1024)
        {
            by_id.retain(|_, tells| {
                tells.retain(|tell| !tell.is_canceled());
                !tells.is_empty()
            });
            let left = by_id.len();
            by_id.shrink_to(left.saturating_mul(2));
            self.swept.store(left, Ordering::Relaxed);
        }
        told
    }

    pub(crate) fn finish(&self, id: &str, outcome: &Result<u16, SendError>) {
        let waiting = self.lock().remove(id);
        for tell in waiting.into_iter().flatten() {
            let _ = tell.send(outcome.clone());
        }
    }
}

/// Now, in Unix milliseconds.
pub(crate) fn now_ms() -> i64 {
    crate::platform::rt::SystemTime::now()
        .duration_since(crate::platform::rt::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `d` in milliseconds, saturating.
pub(crate) fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The outcome of an event: await it for the final status, or drop it and let the delivery finish
/// on its own (its outcome is logged either way).
#[derive(Debug)]
pub struct Receipt {
    pub(crate) outcome: futures_channel::oneshot::Receiver<Result<u16, SendError>>,
}

impl Receipt {
    /// A receipt that is already settled.
    pub(crate) fn settled(outcome: Result<u16, SendError>) -> Self {
        let (tell, told) = futures_channel::oneshot::channel();
        let _ = tell.send(outcome);
        Receipt { outcome: told }
    }

    /// The final outcome: the host's 2xx status, or why the event was not delivered. If this
    /// process stops first, the event stays in a durable store and the next process delivers it;
    /// the receipt then answers [`SendError::Pending`].
    pub async fn outcome(self) -> Result<u16, SendError> {
        match self.outcome.await {
            Ok(outcome) => outcome,
            Err(_) => Err(SendError::Pending {
                attempts: 0,
                last: "the dispatcher of this process stopped before the event was settled"
                    .to_owned(),
            }),
        }
    }
}

/// An outbox store behind an `Arc` is one too: a sender and your own code (a health check, a
/// dead-letter report) can share it.
impl<S: OutboxStore + ?Sized> OutboxStore for Arc<S> {
    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
        (**self).put(entry)
    }
    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        (**self).claim(now, limit, lease_until, owner)
    }
    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        (**self).claim_ids(ids, now, lease_until, owner)
    }
    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
        (**self).put_claimed(entry, lease_until, owner)
    }
    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).settle(id, owner, settlement)
    }
    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        (**self).next_due()
    }
    fn list(&self, which: Which, limit: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        (**self).list(which, limit)
    }
    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).revive(id, now)
    }
    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).discard(id)
    }
    fn changed(&self) -> BoxFuture<'_, ()> {
        (**self).changed()
    }
}

#[cfg(test)]
pub(crate) mod tests;
