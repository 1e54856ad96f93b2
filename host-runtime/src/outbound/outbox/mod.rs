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
//! The signing of each attempt is [`crate::outbound::webhook`]'s; this module schedules. The stores
//! are not here: their trait and types ([`OutboxStore`], [`Entry`], [`Settlement`], ...) live in
//! the crate's stores, each backend in a room of its own beside that backend's deduplication store,
//! and are re-exported here, at the path vendors use.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

pub use crate::stores::outbox::{
    BACKLOG_EVERY, BACKLOG_SCAN, Backlog, Destination, Entry, OutboxStore, Put, SENT_WINDOW,
    Settlement, StoreError, StoreErrorKind, Which, content_digest,
};
pub(crate) use crate::stores::outbox::{millis, now_ms};

mod invocation;
mod schedule;

#[cfg(feature = "redb")]
pub use crate::stores::file::FileOutbox;
pub use crate::stores::memory::MemoryOutbox;
#[cfg(feature = "postgres")]
pub use crate::stores::postgres::outbox::PostgresOutbox;
#[cfg(feature = "redis")]
pub use crate::stores::redis::RedisOutbox;
pub(crate) use invocation::defer;
pub use invocation::{AfterAnswer, Invocation};
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
    #[error("{}", crate::stores::outbox::conflict_message(id))]
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
/// another event is `409 EVENT_ID_CONFLICT` naming the id, final, since a retry would meet the
/// same id (a handler that has other events to send should match on [`SendError::Conflict`]
/// instead, and go on); any other failure is `500 INTERNAL`, retried. The send error is kept as
/// the cause, for the log.
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
            SendError::Conflict { id } => crate::HostError::from_code(
                crate::ErrorCode::EventIdConflict,
                format!(
                    "event id `{id}` is taken by another event with different content, so the \
                     event was not sent; calling again would send the same id again"
                ),
            ),
            _ => crate::HostError::internal("an event could not be handed to the outbox"),
        };
        answer.with_source(e)
    }
}

/// Where a final outcome goes.
type Tell = futures_channel::oneshot::Sender<Result<u16, SendError>>;

/// Final outcomes waited for by senders in this process, by event id. Each receipt has a ticket of
/// its own: what becomes of the stored event (delivered, dead-lettered) is told to every receipt
/// of its id, while a send that was not accepted (another event's id, a store that failed), or
/// that found its event delivered already, is told to its own receipt only. The event another sender stored under that id is still on its way.
#[derive(Default)]
pub(crate) struct Waiters {
    by_id: Mutex<HashMap<String, Vec<(u64, Tell)>>>,
    /// The next receipt's ticket.
    next: std::sync::atomic::AtomicU64,
    /// How many ids the map held after it was last swept; it is swept again at twice that.
    swept: std::sync::atomic::AtomicUsize,
}

impl Waiters {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<(u64, Tell)>>> {
        // Every update is one insert or remove: a panic elsewhere leaves a usable map.
        self.by_id
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A receipt for the final outcome of event `id`.
    pub(crate) fn wait(&self, id: &str) -> Receipt {
        use std::sync::atomic::Ordering;
        let (tell, told) = futures_channel::oneshot::channel();
        let ticket = self.next.fetch_add(1, Ordering::Relaxed);
        let mut by_id = self.lock();
        by_id.entry(id.to_owned()).or_default().push((ticket, tell));
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
                tells.retain(|(_, tell)| !tell.is_canceled());
                !tells.is_empty()
            });
            let left = by_id.len();
            by_id.shrink_to(left.saturating_mul(2));
            self.swept.store(left, Ordering::Relaxed);
        }
        Receipt {
            outcome: told,
            ticket,
        }
    }

    /// Tells every receipt of event `id` what became of the event stored under it.
    pub(crate) fn finish(&self, id: &str, outcome: &Result<u16, SendError>) {
        let waiting = self.lock().remove(id);
        for (_, tell) in waiting.into_iter().flatten() {
            let _ = tell.send(outcome.clone());
        }
    }

    /// Tells receipt `ticket` of event `id`, and no other, what became of its own send: not
    /// accepted, or found delivered already.
    pub(crate) fn tell_one(&self, id: &str, ticket: u64, outcome: &Result<u16, SendError>) {
        let tell = {
            let mut by_id = self.lock();
            let Some(tells) = by_id.get_mut(id) else {
                return;
            };
            let tell = tells
                .iter()
                .position(|(t, _)| *t == ticket)
                .map(|at| tells.swap_remove(at).1);
            if tells.is_empty() {
                by_id.remove(id);
            }
            tell
        };
        if let Some(tell) = tell {
            let _ = tell.send(outcome.clone());
        }
    }
}

/// The outcome of an event: await it for the final status, or drop it and let the delivery finish
/// on its own (its outcome is logged either way).
#[derive(Debug)]
pub struct Receipt {
    pub(crate) outcome: futures_channel::oneshot::Receiver<Result<u16, SendError>>,
    /// This receipt's own ticket among those of its event id.
    pub(crate) ticket: u64,
}

impl Receipt {
    /// A receipt that is already settled.
    pub(crate) fn settled(outcome: Result<u16, SendError>) -> Self {
        let (tell, told) = futures_channel::oneshot::channel();
        let _ = tell.send(outcome);
        Receipt {
            outcome: told,
            ticket: u64::MAX,
        }
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

#[cfg(test)]
pub(crate) mod tests;
