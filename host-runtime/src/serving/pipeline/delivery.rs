//! An event delivery: claimed in the deduplication store, run once, recorded. A duplicate waits
//! for the attempt in flight; a store that cannot answer makes a retryable 503, never a lost or
//! doubled event.

use std::sync::Arc;

use crate::platform::rt::Instant;

use serde_json::Value as Json;

use crate::calls::error::{ErrorCode, HostError};
use crate::calls::route::Route;
use crate::generated::dispatch::{RawCall, Reply};
use crate::stores::dedupe::{self, Claim, DedupeStore};

use super::{Inner, guarded, transaction};

/// The `Retry-After` of a delivery that could not run yet: the host's own first retry wait.
pub(crate) const RETRY_AFTER_SECS: u32 = host_interface::limits::EVENT_RETRY_WAITS_SECS[0] as u32;

/// An event delivery: 204, once per content key, whatever `X-Host-Event-Id` says.
pub(super) async fn deliver(
    inner: &Inner,
    name: &str,
    raw: Box<RawCall>,
) -> Result<Reply, HostError> {
    // The manifest's own name, for the metrics: a label value no caller can choose.
    let Some(label) = inner.spec.events.iter().copied().find(|e| *e == name) else {
        return Err(HostError::from_code(
            ErrorCode::EventNotSubscribed,
            format!("the server does not subscribe to `{name}`"),
        ));
    };
    let delivered = deliver_subscribed(inner, name, label, raw).await;
    let outcome = match &delivered {
        Ok(Delivered::Ran) => "new",
        Ok(Delivered::Duplicate) => "duplicate",
        Err(e) => match e.error_code() {
            Some(ErrorCode::EventInFlight) => "in_flight",
            Some(ErrorCode::DedupeUnavailable) => "unavailable",
            _ => "failed",
        },
    };
    crate::telemetry::delivery(label, outcome);
    delivered.map(|_| Reply::NoContent)
}

/// What became of a delivery that was answered 204.
enum Delivered {
    /// Its handler ran and succeeded.
    Ran,
    /// Recorded already: no run.
    Duplicate,
}

/// [`deliver`] for an event the server subscribes to (`label`: its name as the manifest has it).
async fn deliver_subscribed(
    inner: &Inner,
    name: &str,
    label: &'static str,
    raw: Box<RawCall>,
) -> Result<Delivered, HostError> {
    let event = raw.body.get("event").and_then(Json::as_object);
    let payload = event
        .and_then(|e| e.get("payload"))
        .cloned()
        .unwrap_or(Json::Null);
    let key = dedupe::key_of(name, &raw.claims.sub, &payload);
    let store = dedupe_store(inner)?;
    // This attempt's name on its claim: only it may renew, record or release the claim.
    let owner = crate::platform::rt::random_token();
    if let Some(key) = &key
        && claim(inner, key, &owner).await?
    {
        return Ok(Delivered::Duplicate);
    }
    // Claimed: from here on the key is released however the attempt ends, also when this future is
    // dropped because the host gave up on the call (the guard releases it in the background).
    let mut claim = ClaimGuard {
        store: Arc::clone(store),
        key,
        owner: owner.clone(),
    };
    // In the handler's transaction, when there is one, the key is recorded with its effects.
    let record = claim.key.as_deref().map(|key| (key, owner.as_str()));
    let handler = guarded(inner, Route::Event(Some(name)), raw);
    let handling = transaction::within(inner, handler, record);
    let started = Instant::now();
    // While the handler runs, its lease is renewed (stores whose claims expire ask for it).
    let result = match (claim.key.clone(), store.renew_every()) {
        (Some(key), Some(every)) => {
            let mut handling = std::pin::pin!(handling);
            loop {
                let tick = std::pin::pin!(crate::platform::rt::sleep(every));
                match futures_util::future::select(handling.as_mut(), tick).await {
                    futures_util::future::Either::Left((result, _)) => break result,
                    futures_util::future::Either::Right(((), _)) => {
                        let renewal = store.renew(&key, &owner);
                        let _ = crate::platform::rt::timeout(inner.config.dedupe_timeout, renewal)
                            .await;
                    }
                }
            }
        }
        _ => handling.await,
    };
    crate::telemetry::handler_duration(label, started.elapsed());
    if let Some(key) = claim.key.take() {
        let settle = async {
            match &result {
                // Recorded in the transaction that committed the handler's effects.
                Ok((_, true)) => {}
                Ok((_, false)) => store.complete(&key, &owner).await,
                Err(_) => store.release(&key, &owner).await,
            }
        };
        if crate::platform::rt::timeout(inner.config.dedupe_timeout, settle)
            .await
            .is_err()
        {
            crate::telemetry::store_error(store.name(), "record");
            tracing::warn!("the deduplication store did not record the delivery in time");
        }
    }
    result.map(|_| Delivered::Ran)
}

/// The handler's deduplication store. A handler served without [`crate::Handler::check_start`]
/// (per request, as a `tower::Service`) may have none: the delivery is then answered a retryable
/// 503, so the host delivers it again once the server is fixed, and the log names the fix.
fn dedupe_store(inner: &Inner) -> Result<&Arc<dyn DedupeStore>, HostError> {
    match &inner.config.dedupe {
        Some(dedupe) => Ok(dedupe.store()),
        None => {
            let why = super::StartError::no_dedupe_store(inner.spec);
            tracing::error!(error = %why, "an event delivery was refused: no deduplication store");
            Err(HostError::from_code(
                ErrorCode::DedupeUnavailable,
                "this server has no deduplication store, so it cannot take events yet; retry later",
            )
            .with_retry_after(RETRY_AFTER_SECS))
        }
    }
}

/// Claims an event's key for this attempt. `true` when the delivery needs no run (recorded
/// already); an error when the store cannot say or an earlier delivery is still in flight past
/// the wait. A function of its own: its waits and the handler's run are never in flight together,
/// so neither future keeps room for the other.
async fn claim(inner: &Inner, key: &str, owner: &str) -> Result<bool, HostError> {
    let store = dedupe_store(inner)?;
    // A concurrent duplicate waits for the delivery in flight, then looks again. Past the wait it
    // answers a retryable 503: a 4xx would mean "recorded" to the host, and the event would be
    // lost if the attempt in flight then failed.
    let give_up = Instant::now() + inner.config.event_wait;
    loop {
        let unavailable = |why: &dyn std::fmt::Display| {
            tracing::warn!(error = %why, "the deduplication store is unavailable");
            HostError::from_code(
                ErrorCode::DedupeUnavailable,
                "events cannot be deduplicated right now; retry later",
            )
            .with_retry_after(RETRY_AFTER_SECS)
        };
        let claimed =
            crate::platform::rt::timeout(inner.config.dedupe_timeout, store.claim(key, owner))
                .await;
        let claim = match claimed {
            Ok(Ok(claim)) => claim,
            failed => {
                crate::telemetry::store_error(store.name(), "claim");
                // The store may still carry out a claim it did not answer in time (a paused
                // Redis works through its queue when it resumes): take back this attempt's own
                // claim, if it was made, so that the host's retry is not locked out by it.
                let (store, key, owner) = (Arc::clone(store), key.to_owned(), owner.to_owned());
                crate::platform::rt::spawn(async move {
                    let _ = store.release(&key, &owner).await;
                });
                return Err(match failed {
                    Ok(Err(e)) => unavailable(&crate::calls::error::Chain(&e)),
                    _ => unavailable(&format_args!(
                        "no answer within {} s",
                        inner.config.dedupe_timeout.as_secs_f64()
                    )),
                });
            }
        };
        let waited = match claim {
            Claim::Run => return Ok(false),
            Claim::Done => return Ok(true),
            // Woken when the delivery in flight settles; the short timeout covers a wake-up that
            // came before this wait began.
            Claim::Wait(notify) => {
                let _ = crate::platform::rt::timeout(
                    std::time::Duration::from_millis(100),
                    notify.notified(),
                )
                .await;
                Instant::now() < give_up
            }
            Claim::Busy => {
                crate::platform::rt::sleep(std::time::Duration::from_millis(100)).await;
                Instant::now() < give_up
            }
        };
        if !waited {
            return Err(HostError::from_code(
                ErrorCode::EventInFlight,
                "this event is still being processed by an earlier delivery; retry later",
            )
            .with_retry_after(RETRY_AFTER_SECS));
        }
    }
}

/// A claimed deduplication key that is released if the delivery ends without settling it: the
/// host closed the connection (or timed out) while the handler ran, and the future was dropped.
/// Without it the key would stay "in flight" and every retry would be answered 503.
struct ClaimGuard {
    store: Arc<dyn DedupeStore>,
    key: Option<String>,
    owner: String,
}

impl Drop for ClaimGuard {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else {
            return;
        };
        tracing::warn!("an event delivery ended before its handler finished; its key is released");
        let (store, owner) = (Arc::clone(&self.store), self.owner.clone());
        let released = crate::platform::rt::spawn(async move {
            let _ = store.release(&key, &owner).await;
        });
        if !released {
            tracing::error!("no runtime to release an event key on");
        }
    }
}
