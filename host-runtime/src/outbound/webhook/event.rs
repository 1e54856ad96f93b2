//! One outbound event, signed and ready: enqueued in the outbox, sent now, or spawned.

use std::fmt;
use std::sync::Arc;

use crate::outbound::outbox::Outbox;

use super::sender::Poster;
use crate::outbound::outbox::{Receipt, SendError};

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
    pub(super) poster: Arc<Poster>,
    pub(super) outbox: Arc<Outbox>,
    pub(super) id: String,
    pub(super) envelope: serde_json::Value,
    pub(super) body: Vec<u8>,
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
    pub fn with_occurred_at(mut self, at: impl Into<crate::calls::events::Timestamp>) -> Self {
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
    /// [`FileOutbox`](crate::outbound::outbox::FileOutbox)): from then on it is posted until the host takes it
    /// or refuses it, across restarts for a durable store. The [`Receipt`] gives the final outcome
    /// and may be dropped. An error means the event was not accepted and will not be sent: among
    /// them [`SendError::Conflict`], for an id another event holds (see [`send`](Self::send)).
    pub async fn enqueue(self) -> Result<Receipt, SendError> {
        self.poster.client()?;
        let receipt = self.outbox.wait(&self.id);
        self.outbox
            .accept(&self.id, self.body, receipt.ticket)
            .await?;
        Ok(receipt)
    }

    /// Hands the event to the outbox and waits for its final outcome: every attempt is signed anew
    /// with the same `webhook-id` and the same bytes; a 5xx, a 429, a timeout or no connection is
    /// retried with capped exponential backoff (a `Retry-After` on a 429 or 503 is waited for, up
    /// to the policy's longest wait); any other 4xx is final and returned.
    ///
    /// Dropping the future (a handler past its deadline, a host that hung up) stops the waiting,
    /// not the delivery: the event is in the outbox and its outcome is logged. With
    /// [`DrainMode::OnDemand`](crate::outbox::DrainMode::OnDemand) the send makes the attempts due within one attempt's timeout and
    /// answers [`SendError::Pending`] if the event is still waiting after them.
    ///
    /// An event with the id of one the outbox holds or delivered within the last 24 hours is the
    /// same event when it says the same (its `occurredAt` and `build` aside): it is not posted
    /// again, and a send of one delivered already answers `Ok(200)`. When it says something else it
    /// is refused with [`SendError::Conflict`], naming the id: the host keeps one event per id.
    ///
    /// Inside a handler's [transaction](crate::transaction), with an outbox of its database, the
    /// event exists only once that commits, after the handler: `send` answers
    /// [`SendError::Pending`] at once.
    pub async fn send(&self) -> Result<u16, SendError> {
        self.poster.client()?;
        let mut waiting = Waiting(Some(&self.id));
        if self.outbox.on_demand() && crate::stores::transaction::current().is_none() {
            // Stored under this outbox's claim and attempted at once: one store request fewer
            // than storing and then claiming, and the store sees the event before the host does,
            // so an id taken by another event is refused before anything is posted.
            let receipt = self.outbox.wait(&self.id);
            let outcome = self
                .outbox
                .store_and_attempt(&self.id, self.body.clone(), receipt)
                .await;
            waiting.0 = None;
            return outcome;
        }
        let receipt = self.outbox.wait(&self.id);
        if let crate::outbound::outbox::Put::AlreadyDelivered = self
            .outbox
            .accept(&self.id, self.body.clone(), receipt.ticket)
            .await?
        {
            waiting.0 = None;
            return receipt.outcome().await;
        }
        if crate::stores::transaction::holds(&self.id) {
            // Written in the handler's transaction: it exists once that commits, after the handler.
            waiting.0 = None;
            return Err(SendError::Pending {
                attempts: 0,
                last: "written in the handler's transaction, to be posted once it commits"
                    .to_owned(),
            });
        }
        let outcome = self.outbox.settle_now(&self.id, receipt).await;
        waiting.0 = None;
        outcome
    }

    /// Hands the event to the outbox from a task of its own and returns at once: the delivery
    /// outlives the handler that started it. Its outcome is logged either way, an outbox that
    /// cannot take the event included; the [`Receipt`] gives it to whoever wants it. Prefer
    /// [`enqueue`](Self::enqueue) where the caller can act on a store that is down. Inside a
    /// handler's [transaction](crate::transaction) the event is handed over just before that
    /// commits, and not at all if the handler fails.
    pub fn spawn(self) -> Receipt {
        if let Err(e) = self.poster.client() {
            tracing::error!(event_id = %self.id, error = %crate::calls::error::Chain(&e), "event not sent");
            return Receipt::settled(Err(e));
        }
        let receipt = self.outbox.wait(&self.id);
        let (outbox, id, ticket) = (Arc::clone(&self.outbox), self.id.clone(), receipt.ticket);
        let hand_over: crate::platform::BoxFuture<'static, ()> = Box::pin(async move {
            // Refused or not stored: the outbox logged it, and told the receipt.
            let _ = self.outbox.accept(&self.id, self.body, ticket).await;
        });
        // Inside a handler's transaction the event is stored just before it commits, with the
        // handler's other effects or not at all; inside an invocation it is stored once the
        // request's work is done, then attempted before the answer; elsewhere a task of its own
        // stores it.
        let Err(hand_over) = crate::stores::transaction::defer(hand_over) else {
            return receipt;
        };
        let Err(hand_over) = crate::outbound::outbox::defer(hand_over) else {
            return receipt;
        };
        if !crate::platform::rt::spawn(hand_over) {
            let e = SendError::Request(crate::platform::client::ClientError::new(
                crate::platform::client::ClientErrorKind::Request,
                "no async runtime to send the event on",
            ));
            tracing::error!(event_id = %id, error = %e, "event not sent");
            outbox.refuse(&id, ticket, &e);
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
