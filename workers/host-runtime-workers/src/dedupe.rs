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
//! Each claim, completion, release or renewal is one request to the object, which reads and writes
//! its storage without awaiting anything else in between: the Workers runtime delivers no other
//! request to the object meanwhile (its input gate) and commits the writes together, so each step
//! is atomic.

use std::time::Duration;

use host_runtime::BoxFuture;
use host_runtime::dedupe::{Claim, DedupeStore, StoreError, StoreErrorKind, WINDOW};
use host_runtime::serde_json::{self, Value, json};
use send_wrapper::SendWrapper;
use worker::{
    DurableObject, Env, ObjectNamespace, Request, Response, Result, State, Storage, durable_object,
};

use crate::millis;

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

    async fn call(&self, key: &str, op: &str, owner: &str) -> Result<Value> {
        let lease = millis(self.lease);
        let (body, object) = match &self.shared {
            Some(name) => (
                json!({ "op": "dedupe", "dedupe": op, "key": key, "owner": owner, "lease": lease }),
                name.as_str(),
            ),
            None => (json!({ "op": op, "owner": owner, "lease": lease }), key),
        };
        let (status, text) = crate::ask_object(
            &self.namespace,
            object,
            "https://host-dedupe/",
            &body.to_string(),
        )
        .await?;
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

    fn settle<'a>(&'a self, key: &'a str, owner: &'a str, op: &'static str) -> BoxFuture<'a, ()> {
        Box::pin(SendWrapper::new(async move {
            if let Err(e) = self.call(key, op, owner).await {
                worker::console_error!("event deduplication: {op} failed: {e}");
            }
        }))
    }
}

impl DedupeStore for DurableDedupe {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Claim, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            // worker's error holds JavaScript values, which cannot cross threads: its text is kept.
            let answer = self.call(key, "claim", owner).await.map_err(|e| {
                StoreError::new(
                    "durable object",
                    StoreErrorKind::Unavailable,
                    format!("the deduplication object cannot be reached: {e}"),
                )
            })?;
            match answer.get("claim").and_then(Value::as_str) {
                Some("run") => Ok(Claim::Run),
                Some("done") => Ok(Claim::Done),
                Some("busy") => Ok(Claim::Busy),
                _ => Err(StoreError::new(
                    "durable object",
                    StoreErrorKind::Corrupt,
                    format!("the deduplication object answered {answer}, not a claim"),
                )),
            }
        }))
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, "complete")
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, "release")
    }

    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, "renew")
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
            let Ok(asked) = serde_json::from_str::<Value>(&request.text().await?) else {
                return Response::error("the body is not a JSON request to HostDedupe", 400);
            };
            let storage = self.state.storage();
            let record = stored_record(&storage).await?;
            let op = asked.get("op").and_then(Value::as_str).unwrap_or_default();
            let (answer, change) = match decide(record.as_ref(), op, &asked, now_ms()) {
                Ok(decided) => decided,
                Err(refused) => return Response::error(refused, 400),
            };
            match change {
                Change::Write(record, until) => {
                    storage.put(RECORD, record.to_string()).await?;
                    // The alarm erases the record once it ends (or finds it renewed and waits again).
                    if storage.get_alarm().await?.is_none() {
                        storage.set_alarm(at(until)).await?;
                    }
                }
                Change::Erase => {
                    storage.delete_all().await?;
                    storage.delete_alarm().await?;
                }
                Change::None => {}
            }
            Response::from_json(&json!({ "claim": answer }))
        }

        async fn alarm(&self) -> Result<Response> {
            let storage = self.state.storage();
            let until = stored_record(&storage)
                .await?
                .and_then(|r| r.get("until").and_then(Value::as_i64));
            match until {
                Some(until) if until > now_ms() => storage.set_alarm(at(until)).await?,
                _ => storage.delete_all().await?,
            }
            Response::empty()
        }
    }
}

pub use class::HostDedupe;

/// What a deduplication operation does to its record.
pub(crate) enum Change {
    /// Nothing.
    None,
    /// Writes this record, which ends at this time (Unix milliseconds) and may then be erased.
    Write(Value, i64),
    /// Erases it.
    Erase,
}

/// Decides one deduplication operation `op` of `asked` (`owner`, and `lease` in milliseconds) on
/// `record` at `now`: the answer the client reads and what to do to the record, or why the request
/// is refused. The caller reads and writes the record within one request to its object, which the
/// Workers runtime runs without interleaving another.
pub(crate) fn decide(
    record: Option<&Value>,
    op: &str,
    asked: &Value,
    now: i64,
) -> std::result::Result<(&'static str, Change), String> {
    let owner = asked
        .get("owner")
        .and_then(Value::as_str)
        .ok_or("a deduplication request names its `owner`")?;
    let lease = asked
        .get("lease")
        .and_then(Value::as_i64)
        .unwrap_or(60_000)
        .max(300);
    // A record past its end counts as absent (its alarm may not have run yet).
    let live = record.filter(|r| r.get("until").and_then(Value::as_i64) > Some(now));
    let state = live.and_then(|r| r.get("state")).and_then(Value::as_str);
    let holds = live.and_then(|r| r.get("owner")).and_then(Value::as_str) == Some(owner)
        && state == Some("inflight");
    let inflight = || {
        let until = now.saturating_add(lease);
        Change::Write(
            json!({ "state": "inflight", "owner": owner, "until": until }),
            until,
        )
    };
    Ok(match op {
        "claim" => match state {
            Some("done") => ("done", Change::None),
            Some(_) => ("busy", Change::None),
            None => ("run", inflight()),
        },
        "renew" if holds => ("renewed", inflight()),
        "complete" if holds => {
            let until = now.saturating_add(millis(WINDOW));
            let done = json!({ "state": "done", "until": until });
            ("completed", Change::Write(done, until))
        }
        "release" if holds => ("released", Change::Erase),
        "renew" | "complete" | "release" => ("not held", Change::None),
        _ => return Err(format!("deduplication has no operation `{op}`")),
    })
}

/// The record a [`HostDedupe`] object keeps, if it has one.
async fn stored_record(storage: &Storage) -> Result<Option<Value>> {
    Ok(storage
        .get::<String>(RECORD)
        .await?
        .and_then(|text| serde_json::from_str::<Value>(&text).ok()))
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
