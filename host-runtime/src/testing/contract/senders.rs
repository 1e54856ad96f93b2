//! Senders of one event id, over an [`OutboxStore`]: each send's outcome is its own.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::Shared;

use super::{Violation, expect};
use crate::outbound::outbox::{Courier, Outbox, Put, RetryPolicy, SendError, Try, lease_for};
use crate::outbox::{DrainMode, OutboxStore};
use crate::platform::BoxFuture;

/// How long a step may wait for the dispatcher before the contract calls it stuck.
const PATIENCE: Duration = Duration::from_secs(20);

/// A host that takes every event, once the gate opens, and notes what it was given.
struct Gated {
    gate: Shared<futures_channel::oneshot::Receiver<()>>,
    seen: Mutex<Vec<(String, Vec<u8>)>>,
}

impl Courier for Gated {
    fn attempt<'a>(&'a self, id: &'a str, body: &'a [u8], _: Duration) -> BoxFuture<'a, Try> {
        Box::pin(async move {
            let _ = self.gate.clone().await;
            self.seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((id.to_owned(), body.to_vec()));
            Try::Delivered(200)
        })
    }
}

/// Drives senders of one event id through an outbox over `store`, with its own background
/// dispatcher and a host that holds every post until the contract lets it through:
///
/// - a second send under the id of a pending event, with other content, is refused
///   ([`SendError::Conflict`]) to that sender and its receipt alone: the first sender's receipt
///   still answers the first event's delivery;
/// - a send of the same content under the id is accepted, and its receipt answers that delivery;
/// - two senders of one id with other contents at the same instant: one is stored and delivered,
///   the other refused, and each receipt says which;
/// - the host is given one event per id, the one that was stored.
///
/// `store` may hold other events: the contract's ids are its own. Needs an async runtime that
/// runs background tasks (a server's); the dispatcher is left running on it.
pub async fn outbox_senders(store: Arc<dyn OutboxStore>) -> Result<(), Violation> {
    let (open, gate) = futures_channel::oneshot::channel::<()>();
    let host = Arc::new(Gated {
        gate: gate.shared(),
        seen: Mutex::new(Vec::new()),
    });
    let retry = RetryPolicy {
        timeout: Duration::from_secs(30),
        ..RetryPolicy::default()
    };
    let outbox = Arc::new(Outbox::new(
        store,
        Arc::clone(&host) as Arc<dyn Courier>,
        retry,
        DrainMode::Background,
        8,
        lease_for(None, &retry),
    ));
    let run = crate::platform::rt::random_token();
    let (one, two) = (format!("senders-{run}-1"), format!("senders-{run}-2"));
    let body =
        |n: u8| format!(r#"{{"event":"e","source":"s","payload":{{"n":{n}}}}}"#).into_bytes();

    // One pending event, then another sender with other content, and one with the same.
    let first = outbox.wait(&one);
    let stored = outbox.accept(&one, body(1), first.ticket).await;
    expect(
        "the first send of an id is stored",
        stored,
        Ok(Put::Stored(())),
    )?;
    let other = outbox.wait(&one);
    let refused = outbox.accept(&one, body(2), other.ticket).await;
    expect(
        "a send under a pending id with other content is refused",
        refused.map(|_| ()),
        Err(SendError::Conflict { id: one.clone() }),
    )?;
    expect(
        "the refused sender's receipt hears the refusal",
        within(other.outcome()).await,
        Some(Err(SendError::Conflict { id: one.clone() })),
    )?;
    let same = outbox.wait(&one);
    let again = outbox.accept(&one, body(1), same.ticket).await;
    expect(
        "a send of the same content under a pending id is accepted",
        again,
        Ok(Put::AlreadyPending),
    )?;
    let mut first = first.outcome().boxed();
    expect(
        "the first sender's receipt is not told of another sender's refusal",
        (&mut first).now_or_never(),
        None,
    )?;

    // Two senders of one id with other contents, at the same instant.
    let (a, b) = (outbox.wait(&two), outbox.wait(&two));
    let (sent_a, sent_b) = futures_util::future::join(
        outbox.accept(&two, body(3), a.ticket),
        outbox.accept(&two, body(4), b.ticket),
    )
    .await;
    let (winner, loser, won) = match (&sent_a, &sent_b) {
        (Ok(Put::Stored(())), Err(SendError::Conflict { .. })) => (a, b, body(3)),
        (Err(SendError::Conflict { .. }), Ok(Put::Stored(()))) => (b, a, body(4)),
        _ => {
            return Err(Violation {
                step: "of two senders of one id with other contents at once, one is stored and \
                       the other refused",
                found: format!("{sent_a:?} and {sent_b:?}"),
            });
        }
    };
    expect(
        "the refused one's receipt hears its refusal",
        within(loser.outcome()).await,
        Some(Err(SendError::Conflict { id: two.clone() })),
    )?;

    // The host takes what was stored: each stored event's receipts hear its delivery.
    let _ = open.send(());
    expect(
        "the first sender's receipt answers its event's delivery",
        within(first).await,
        Some(Ok(200)),
    )?;
    expect(
        "the same content's receipt answers that delivery",
        within(same.outcome()).await,
        Some(Ok(200)),
    )?;
    expect(
        "the stored one's receipt answers its delivery",
        within(winner.outcome()).await,
        Some(Ok(200)),
    )?;
    let mut seen = host
        .seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    seen.sort();
    let mut expected = vec![(one, body(1)), (two, won)];
    expected.sort();
    expect(
        "the host is given the stored event of each id, once",
        seen,
        expected,
    )
}

/// What `outcome` answers within [`PATIENCE`], if it does.
async fn within<T>(outcome: impl std::future::Future<Output = T>) -> Option<T> {
    crate::platform::rt::timeout(PATIENCE, outcome).await.ok()
}
