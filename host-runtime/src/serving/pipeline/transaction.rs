//! A handler's transaction: when the deduplication store keeps its keys in a database that can hold
//! the vendor's writes too ([`DedupeStore::transactions`]), every handler runs in a scope of that
//! database. What the handler wrote there, the events it sent through an outbox of the same
//! database and an event delivery's record commit once the handler returned `Ok`; anything else
//! rolls them back (see [`crate::transaction`]).

use std::future::Future;
use std::time::Duration;

use crate::calls::error::{ErrorCode, HostError};
use crate::generated::dispatch::Reply;
use crate::stores::transaction::{Failed, Scope};

use super::{Inner, RETRY_AFTER_SECS};

/// How long the writes after the handler and the commit may take: past it the call is answered
/// `503` and the transaction rolled back (or, if the database committed meanwhile, found recorded
/// by the host's retry).
const COMMIT_DEADLINE: Duration = Duration::from_secs(10);

/// Runs `handling` in a transaction scope when the handler has a database for one, and commits
/// after it succeeded, recording `record` (an event's key and the attempt holding it) in the same
/// transaction. Also answers whether the key was recorded that way: if not, it is still to be
/// recorded as usual.
pub(super) async fn within<F>(
    inner: &Inner,
    handling: F,
    record: Option<(&str, &str)>,
) -> Result<(Reply, bool), HostError>
where
    F: Future<Output = Result<Reply, HostError>> + Send,
{
    match inner
        .config
        .dedupe
        .as_ref()
        .and_then(|d| d.store().transactions())
    {
        None => handling.await.map(|reply| (reply, false)),
        // A future of its own: a handler with no database never runs (nor compiles) this part.
        Some(database) => {
            crate::platform::rt::apart(in_transaction(database, handling, record)).await
        }
    }
}

/// Runs `handling` in a transaction of `database`, and commits after it succeeded (see [`within`]).
async fn in_transaction<F>(
    database: std::sync::Arc<dyn crate::transaction::Database>,
    handling: F,
    record: Option<(&str, &str)>,
) -> Result<(Reply, bool), HostError>
where
    F: Future<Output = Result<Reply, HostError>>,
{
    let scope = Scope::new(database);
    match scope.enter(handling).await {
        Ok(reply) => {
            match crate::platform::rt::timeout(COMMIT_DEADLINE, scope.commit(record)).await {
                Ok(Ok(recorded)) => Ok((reply, recorded)),
                Ok(Err(failed)) => Err(refusal(failed)),
                Err(_) => Err(HostError::new(
                    "STORE_UNAVAILABLE",
                    "the handler's transaction did not commit in time; call again",
                )
                .with_status(503)
                .with_retry_after(RETRY_AFTER_SECS)),
            }
        }
        Err(e) => {
            scope.roll_back().await;
            Err(e)
        }
    }
}

/// The answer when a transaction could not commit: nothing the handler did happened, so the host's
/// retry runs it again.
fn refusal(failed: Failed) -> HostError {
    match failed {
        Failed::Store(e) => {
            tracing::warn!(error = %crate::calls::error::Chain(&e), "the handler's transaction was rolled back");
            e.into()
        }
        Failed::NotHeld => HostError::from_code(
            ErrorCode::EventInFlight,
            "the delivery's claim ran out while its handler ran, so its effects were rolled back; \
             retry later",
        )
        .with_retry_after(RETRY_AFTER_SECS),
        Failed::StillLent => {
            tracing::error!(
                "a handler returned while something it started still held its transaction; the \
                 transaction was rolled back"
            );
            HostError::internal("the handler's transaction was still in use when it returned")
        }
    }
}
