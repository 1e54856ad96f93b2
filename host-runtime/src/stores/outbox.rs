//! The outbox's store side: what a store keeps ([`Entry`]), what it answers ([`Put`],
//! [`Destination`]), how an attempt ended ([`Settlement`]) and the [`OutboxStore`] trait every
//! backend implements. The backends are in their own rooms (`stores::memory`, `stores::file`,
//! `stores::redis`, `stores::postgres`); the dispatcher that drains a store is
//! `outbound::outbox`. Vendors reach all of it at `host_runtime::outbox`.

use std::sync::Arc;
use std::time::Duration;

use crate::platform::BoxFuture;
pub use crate::stores::store::{StoreError, StoreErrorKind};

#[cfg(any(feature = "redb", feature = "redis", feature = "fuzzing"))]
pub(crate) mod codec;

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
/// [`SendError::Conflict`](crate::outbox::SendError::Conflict)). The host keeps one event per id for at least as long as it retries its
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

    /// Settles attempts of `owner` on several events, each as [`settle`](Self::settle) would: one
    /// answer per settlement, in their order. The background dispatcher hands over together the
    /// attempts that ended while the store was settling earlier ones, so a store that settles them
    /// in one request (one statement, one commit) makes one request where it would make many. The
    /// default settles them all at once, each on its own (a store that groups concurrent writes,
    /// as the file outbox does, commits them together).
    fn settle_all<'a>(
        &'a self,
        owner: &'a str,
        settlements: &'a [(String, Settlement)],
    ) -> BoxFuture<'a, Vec<Result<bool, StoreError>>> {
        Box::pin(futures_util::future::join_all(settlements.iter().map(
            |(id, settlement)| self.settle(id, owner, settlement.clone()),
        )))
    }

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

    /// The store's name in metrics and readiness reports (`memory`, `file`, `redis`, `postgres`,
    /// ...). The default: `custom`.
    fn name(&self) -> &'static str {
        "custom"
    }

    /// What the store holds, for the operator ([`Backlog`]): sampled by the background dispatcher
    /// every [`BACKLOG_EVERY`] into the outbox gauges (see `host_runtime::observe`). The default
    /// reads both lists, at most [`BACKLOG_SCAN`] events each; the SDK's stores count without
    /// reading the events.
    fn backlog(&self) -> BoxFuture<'_, Result<Backlog, StoreError>> {
        Box::pin(async move {
            let pending = self.list(Which::Pending, BACKLOG_SCAN).await?;
            let dead = self.list(Which::Dead, BACKLOG_SCAN).await?;
            Ok(Backlog {
                pending: pending.len() as u64,
                oldest_accepted: pending.iter().map(|e| e.accepted).min(),
                dead: dead.len() as u64,
            })
        })
    }

    /// Whether the store answers and is ready for use, for a readiness probe: `Ok` when it can be
    /// reached (and, for PostgreSQL, its migrations are the ones this build expects). The
    /// default asks for [`next_due`](Self::next_due).
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move { self.next_due().await.map(drop) })
    }
}

/// How often the background dispatcher samples its store's [`Backlog`].
pub const BACKLOG_EVERY: Duration = Duration::from_secs(15);

/// The most events of each list the default [`OutboxStore::backlog`] reads.
pub const BACKLOG_SCAN: usize = 10_000;

/// What an outbox store holds: the answer of [`OutboxStore::backlog`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Backlog {
    /// Events waiting (claimed ones included).
    pub pending: u64,
    /// When the oldest waiting event was accepted (Unix milliseconds); `None` when none waits.
    pub oldest_accepted: Option<i64>,
    /// Events in the dead letters.
    pub dead: u64,
}

impl Backlog {
    /// Seconds since the oldest waiting event was accepted, at `now` (Unix milliseconds); 0 when
    /// none waits.
    pub fn oldest_age_secs(&self, now: i64) -> f64 {
        self.oldest_accepted
            .map_or(0.0, |at| (now.saturating_sub(at).max(0) as f64) / 1000.0)
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
    fn settle_all<'a>(
        &'a self,
        owner: &'a str,
        settlements: &'a [(String, Settlement)],
    ) -> BoxFuture<'a, Vec<Result<bool, StoreError>>> {
        (**self).settle_all(owner, settlements)
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
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn backlog(&self) -> BoxFuture<'_, Result<Backlog, StoreError>> {
        (**self).backlog()
    }
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).ready()
    }
}

/// What a store says when it refuses an event whose id another event (other content) holds: the
/// text of [`SendError::Conflict`](crate::outbox::SendError::Conflict), also the message of a
/// handler's commit that a PostgreSQL outbox refuses for that reason.
pub(crate) fn conflict_message(id: &str) -> String {
    format!(
        "event id `{id}` is taken by another event with different content (waiting in the outbox, or delivered within the last 24 hours); the host keeps one event per id, so this one is not sent: derive the id from what the event says"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Entry::settle`, what every store applies: a retry and a death carry their count, time and
    /// reason; a delivery changes nothing, since the entry leaves.
    #[test]
    fn settling_an_entry_records_the_attempt_and_names_where_it_goes() {
        let mut entry = Entry::new("e", b"{}".to_vec(), 1_000);
        let before = entry.clone();
        assert_eq!(entry.settle(Settlement::Delivered), Destination::Delivered);
        assert_eq!(entry, before);
        let retry = Settlement::Retry {
            attempts: 2,
            due: 5_000,
            error: "503".into(),
        };
        assert_eq!(entry.settle(retry), Destination::Pending);
        assert_eq!(
            (entry.attempts, entry.due, entry.last_error.as_deref()),
            (2, 5_000, Some("503"))
        );
        let dead = Settlement::Dead {
            attempts: 12,
            at: 9_000,
            reason: "gone".into(),
        };
        assert_eq!(entry.settle(dead), Destination::Dead);
        assert_eq!(
            (entry.attempts, entry.due, entry.last_error.as_deref()),
            (12, 9_000, Some("gone"))
        );
        assert_eq!(entry.accepted, 1_000, "acceptance is never rewritten");
    }
}
