//! Event deduplication on Durable Objects: [`DurableDedupe`] is the handler's store, and
//! [`HostDedupe`] the Durable Object class that holds each key. (A store from
//! [`DurableOutbox::dedupe_store`](crate::DurableOutbox::dedupe_store) keeps the same records, by
//! the same rules, in the outbox's own object instead.)
//!
//! Every deduplication key has a Durable Object of its own (`id_from_name(key)`): Cloudflare runs
//! one instance of it in the world at a time, and its storage is transactional, so two deliveries
//! of the same event (in two isolates, two locations, or before and after an isolate was evicted)
//! ask the same object and only one of them is told to run. The object keeps one record:
//!
//! - `inflight`: claimed by one delivery attempt (its `owner`) until its lease ends. The attempt
//!   renews the lease every third of it while its handler runs; a claim whose attempt died (the
//!   isolate was evicted mid-handler) is free again when the lease ends.
//! - `done`: the handler succeeded. Kept for [`host_runtime::dedupe::WINDOW`] (20 minutes, longer
//!   than the host's 12.5 minutes of retries), then erased by the object's alarm.
//!
//! The requests, answers and record are the types of [`wire`](crate::wire). A record this version
//! cannot read refuses its key's requests (the object answers 500, the store
//! [`Unavailable`](StoreErrorKind::Unavailable)) until the alarm erases it: counting it as absent
//! would let a delivery run again.
//!
//! Each claim, completion, release or renewal is one request to the object, which reads and writes
//! its storage without awaiting anything else in between: the Workers runtime delivers no other
//! request to the object meanwhile (its input gate) and commits the writes together, so each step
//! is atomic.

use std::time::Duration;

use host_runtime::BoxFuture;
use host_runtime::dedupe::{Claim, DedupeStore, StoreError, StoreErrorKind, WINDOW};
use host_runtime::serde_json::{self, Value};
use send_wrapper::SendWrapper;
use serde::Deserialize;
use worker::{
    DurableObject, Env, ObjectNamespace, Request, Response, Result, State, Storage, durable_object,
};

use crate::millis;
use crate::wire::{
    ClaimAnswer, DedupeAnswer, DedupeOp, DedupeRecord, DedupeRequest, Ends, KeptDedupeRequest,
    OutboxRequest,
};

/// The storage key of the one record a [`HostDedupe`] object keeps.
const RECORD: &str = "claim";

/// A deduplication store on the Durable Object namespace bound as `binding` (class
/// [`HostDedupe`]): give it to the handler with `with_dedupe_store`.
///
/// ```toml
/// # wrangler.toml
/// [[durable_objects.bindings]]
/// name = "HOST_DEDUPE"
/// class_name = "HostDedupe"
///
/// [[migrations]]
/// tag = "v1"
/// new_sqlite_classes = ["HostDedupe"]
/// ```
///
/// ```ignore
/// let handler = handler(MyServer::default())
///     .with_dedupe_store(host_runtime_workers::DurableDedupe::new(&env, "HOST_DEDUPE")?);
/// ```
pub struct DurableDedupe {
    // JavaScript values live on the isolate's one thread; the wrapper only satisfies `Send`.
    namespace: SendWrapper<ObjectNamespace>,
    /// The `HostOutbox` object that keeps every record, or `None`: a `HostDedupe` object per key.
    shared: Option<String>,
    lease: Duration,
}

impl DurableDedupe {
    /// How long a claim lasts without renewal unless [`with_lease`](Self::with_lease) says
    /// otherwise: what an attempt whose isolate was evicted mid-handler holds its key for.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

    /// The store on the Durable Object namespace bound as `binding` in `wrangler.toml`. Fails,
    /// naming the binding, when the Worker has no such binding.
    pub fn new(env: &Env, binding: &str) -> Result<Self> {
        let namespace = env.durable_object(binding).map_err(|e| {
            worker::Error::RustError(format!(
                "the Durable Object binding `{binding}` for event deduplication is missing ({e}); \
                 add it under [[durable_objects.bindings]] in wrangler.toml with class_name = \"HostDedupe\""
            ))
        })?;
        Ok(DurableDedupe {
            namespace: SendWrapper::new(namespace),
            shared: None,
            lease: Self::DEFAULT_LEASE,
        })
    }

    /// The records kept in the `HostOutbox` object `name` of `namespace`, beside its events: see
    /// [`DurableOutbox::dedupe_store`](crate::DurableOutbox::dedupe_store).
    pub(crate) fn in_outbox(namespace: ObjectNamespace, name: String) -> Self {
        DurableDedupe {
            namespace: SendWrapper::new(namespace),
            shared: Some(name),
            lease: Self::DEFAULT_LEASE,
        }
    }

    /// How long a claim lasts without renewal (default 60 s, at least 300 ms). Attempts renew it
    /// every third of it.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(300));
        self
    }

    /// Asks the object of `key` (or the outbox's object that keeps it) for the step `op`: its
    /// answer, as JSON.
    async fn call(&self, key: &str, op: DedupeOp, owner: &str) -> Result<Value> {
        let lease = millis(self.lease);
        let owner = owner.to_owned();
        let (body, object) = match &self.shared {
            Some(name) => {
                let asked = KeptDedupeRequest {
                    dedupe: op,
                    key: key.to_owned(),
                    owner,
                    lease,
                };
                let asked = OutboxRequest::from(asked);
                (serde_json::to_string(&asked)?, name.as_str())
            }
            None => {
                let asked = DedupeRequest { op, owner, lease };
                (serde_json::to_string(&asked)?, key)
            }
        };
        let (status, text) =
            crate::ask_object(&self.namespace, object, "https://host-dedupe/", &body).await?;
        if status != 200 {
            return Err(worker::Error::RustError(format!(
                "the deduplication object answered {status}: {text}"
            )));
        }
        serde_json::from_str(&text).map_err(|e| {
            worker::Error::RustError(format!(
                "the deduplication object's answer is not JSON: {e}"
            ))
        })
    }

    fn settle<'a>(&'a self, key: &'a str, owner: &'a str, op: DedupeOp) -> BoxFuture<'a, ()> {
        Box::pin(SendWrapper::new(async move {
            if let Err(e) = self.call(key, op, owner).await {
                worker::console_error!("event deduplication: {} failed: {e}", op.name());
            }
        }))
    }
}

impl DedupeStore for DurableDedupe {
    fn name(&self) -> &'static str {
        "durable-object"
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Claim, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            // worker's error holds JavaScript values, which cannot cross threads: its text is kept.
            let answer = self.call(key, DedupeOp::Claim, owner).await.map_err(|e| {
                StoreError::new(
                    "durable object",
                    StoreErrorKind::Unavailable,
                    format!("the deduplication object cannot be reached: {e}"),
                )
            })?;
            let corrupt = || {
                StoreError::new(
                    "durable object",
                    StoreErrorKind::Corrupt,
                    format!("the deduplication object answered {answer}, not a claim"),
                )
            };
            match ClaimAnswer::deserialize(&answer).map(|answer| answer.claim) {
                Ok(DedupeAnswer::Run) => Ok(Claim::Run),
                Ok(DedupeAnswer::Done) => Ok(Claim::Done),
                Ok(DedupeAnswer::Busy) => Ok(Claim::Busy),
                // The answers of the other steps are no claim.
                Ok(_) => Err(corrupt()),
                Err(e) => Err(corrupt().with_source(e)),
            }
        }))
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, DedupeOp::Complete)
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, DedupeOp::Release)
    }

    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, DedupeOp::Renew)
    }

    fn renew_every(&self) -> Option<Duration> {
        Some(self.lease / 3)
    }
}

// The constructor and methods `#[durable_object]` generates are the JavaScript class's, which
// the runtime calls; they carry no documentation of their own.
#[allow(missing_docs)]
mod class {
    use super::*;

    /// The Durable Object class behind [`DurableDedupe`]: one object per deduplication key, holding
    /// whether the key is claimed (by whom, until when) or processed. Bind it in `wrangler.toml` (see
    /// [`DurableDedupe`]); the Worker exports it by linking this crate.
    #[durable_object]
    pub struct HostDedupe {
        state: State,
    }

    impl DurableObject for HostDedupe {
        fn new(state: State, _env: Env) -> Self {
            HostDedupe { state }
        }

        async fn fetch(&self, mut request: Request) -> Result<Response> {
            let asked = match serde_json::from_str::<DedupeRequest>(&request.text().await?) {
                Ok(asked) => asked,
                Err(e) => {
                    return Response::error(
                        format!("the body is not a request to HostDedupe: {e}"),
                        400,
                    );
                }
            };
            let storage = self.state.storage();
            let record = match stored_record(&storage).await? {
                Ok(record) => record,
                Err(e) => return Response::error(unreadable(&e), 500),
            };
            let (answer, change) = decide(
                record.as_ref(),
                asked.op,
                &asked.owner,
                asked.lease,
                now_ms(),
            );
            match change {
                Change::Write(record) => {
                    storage.put(RECORD, serde_json::to_string(&record)?).await?;
                    // The alarm erases the record once it ends (or finds it renewed and waits again).
                    if storage.get_alarm().await?.is_none() {
                        storage.set_alarm(at(record.until())).await?;
                    }
                }
                Change::Erase => {
                    storage.delete_all().await?;
                    storage.delete_alarm().await?;
                }
                Change::None => {}
            }
            Response::from_json(&ClaimAnswer { claim: answer })
        }

        async fn alarm(&self) -> Result<Response> {
            let storage = self.state.storage();
            // A record this version cannot read is erased, as an ended one.
            let until = stored_record(&storage)
                .await?
                .ok()
                .flatten()
                .map(|r| r.until());
            match until {
                Some(until) if until > now_ms() => storage.set_alarm(at(until)).await?,
                _ => storage.delete_all().await?,
            }
            Response::empty()
        }
    }
}

pub use class::HostDedupe;

/// What a deduplication step does to its record.
pub(crate) enum Change {
    /// Nothing.
    None,
    /// Writes this record, which may be erased once it ends.
    Write(DedupeRecord),
    /// Erases it.
    Erase,
}

/// Decides the deduplication step `op` of the attempt `owner` (its lease in milliseconds) on
/// `record` at `now`: the answer the client reads and what to do to the record. The caller reads
/// and writes the record within one request to its object, which the Workers runtime runs without
/// interleaving another.
pub(crate) fn decide(
    record: Option<&DedupeRecord>,
    op: DedupeOp,
    owner: &str,
    lease: i64,
    now: i64,
) -> (DedupeAnswer, Change) {
    let lease = lease.max(300);
    // A record past its end counts as absent (its alarm may not have run yet).
    let live = record.filter(|r| r.until() > now);
    let holds =
        matches!(live, Some(DedupeRecord::Inflight { owner: held_by, .. }) if held_by == owner);
    let inflight = || {
        Change::Write(DedupeRecord::Inflight {
            owner: owner.to_owned(),
            until: now.saturating_add(lease),
        })
    };
    match op {
        DedupeOp::Claim => match live {
            Some(DedupeRecord::Done { .. }) => (DedupeAnswer::Done, Change::None),
            Some(DedupeRecord::Inflight { .. }) => (DedupeAnswer::Busy, Change::None),
            None => (DedupeAnswer::Run, inflight()),
        },
        DedupeOp::Renew if holds => (DedupeAnswer::Renewed, inflight()),
        DedupeOp::Complete if holds => {
            let until = now.saturating_add(millis(WINDOW));
            (
                DedupeAnswer::Completed,
                Change::Write(DedupeRecord::Done { until }),
            )
        }
        DedupeOp::Release if holds => (DedupeAnswer::Released, Change::Erase),
        DedupeOp::Renew | DedupeOp::Complete | DedupeOp::Release => {
            (DedupeAnswer::NotHeld, Change::None)
        }
    }
}

/// The record a [`HostDedupe`] object keeps, if it has one, or why it cannot be read.
async fn stored_record(
    storage: &Storage,
) -> Result<std::result::Result<Option<DedupeRecord>, serde_json::Error>> {
    Ok(storage
        .get::<String>(RECORD)
        .await?
        .map(|text| serde_json::from_str(&text))
        .transpose())
}

/// Why a deduplication request is refused when its key's record cannot be read: counting it as
/// absent would let a delivery run again, which is what the record is there to prevent.
pub(crate) fn unreadable(e: &serde_json::Error) -> String {
    format!("the deduplication record of this key is not one this version reads: {e}")
}

/// Now, in Unix milliseconds, from the Workers clock.
pub(crate) fn now_ms() -> i64 {
    // `Date.now()`, not a `Date` made to be read once.
    js_sys::Date::now() as i64
}

/// The instant `ms` (Unix milliseconds) for an alarm (an `i64` alone would be an offset from now).
pub(crate) fn at(ms: i64) -> worker::ScheduledTime {
    // Exact for every millisecond timestamp until the year 285,000.
    #[allow(clippy::cast_precision_loss)]
    let ms = ms as f64;
    worker::ScheduledTime::new(js_sys::Date::new(&ms.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_000_000;

    fn inflight(owner: &str, until: i64) -> DedupeRecord {
        DedupeRecord::Inflight {
            owner: owner.to_owned(),
            until,
        }
    }

    /// The answer and the record written (`None` for no change, `Some(None)` for an erasure).
    fn step(
        record: Option<DedupeRecord>,
        op: DedupeOp,
        owner: &str,
        lease: i64,
    ) -> (DedupeAnswer, Option<Option<DedupeRecord>>) {
        let (answer, change) = decide(record.as_ref(), op, owner, lease, NOW);
        let change = match change {
            Change::None => None,
            Change::Write(record) => Some(Some(record)),
            Change::Erase => Some(None),
        };
        (answer, change)
    }

    #[test]
    fn a_free_key_is_claimed_for_the_lease() {
        assert_eq!(
            step(None, DedupeOp::Claim, "a", 60_000),
            (DedupeAnswer::Run, Some(Some(inflight("a", NOW + 60_000))))
        );
        // A lease is 300 ms at least.
        assert_eq!(
            step(None, DedupeOp::Claim, "a", 5),
            (DedupeAnswer::Run, Some(Some(inflight("a", NOW + 300))))
        );
    }

    #[test]
    fn a_live_record_holds_its_key() {
        assert_eq!(
            step(Some(inflight("a", NOW + 1)), DedupeOp::Claim, "b", 60_000),
            (DedupeAnswer::Busy, None)
        );
        // The holder's own second claim is busy too: one attempt runs the handler.
        assert_eq!(
            step(Some(inflight("a", NOW + 1)), DedupeOp::Claim, "a", 60_000),
            (DedupeAnswer::Busy, None)
        );
        let done = DedupeRecord::Done { until: NOW + 1 };
        assert_eq!(
            step(Some(done), DedupeOp::Claim, "b", 60_000),
            (DedupeAnswer::Done, None)
        );
    }

    #[test]
    fn an_ended_record_counts_as_absent() {
        for ended in [inflight("a", NOW), DedupeRecord::Done { until: NOW }] {
            assert_eq!(
                step(Some(ended.clone()), DedupeOp::Claim, "b", 60_000),
                (DedupeAnswer::Run, Some(Some(inflight("b", NOW + 60_000))))
            );
            assert_eq!(
                step(Some(ended), DedupeOp::Complete, "a", 60_000),
                (DedupeAnswer::NotHeld, None)
            );
        }
    }

    #[test]
    fn only_the_holder_settles_its_claim() {
        let held = || Some(inflight("a", NOW + 1));
        assert_eq!(
            step(held(), DedupeOp::Renew, "a", 60_000),
            (
                DedupeAnswer::Renewed,
                Some(Some(inflight("a", NOW + 60_000)))
            )
        );
        let window_ends = NOW + millis(WINDOW);
        assert_eq!(
            step(held(), DedupeOp::Complete, "a", 60_000),
            (
                DedupeAnswer::Completed,
                Some(Some(DedupeRecord::Done { until: window_ends }))
            )
        );
        assert_eq!(
            step(held(), DedupeOp::Release, "a", 60_000),
            (DedupeAnswer::Released, Some(None))
        );
        for op in [DedupeOp::Renew, DedupeOp::Complete, DedupeOp::Release] {
            assert_eq!(step(held(), op, "b", 60_000), (DedupeAnswer::NotHeld, None));
            assert_eq!(step(None, op, "a", 60_000), (DedupeAnswer::NotHeld, None));
            let done = Some(DedupeRecord::Done { until: NOW + 1 });
            assert_eq!(step(done, op, "a", 60_000), (DedupeAnswer::NotHeld, None));
        }
    }
}
