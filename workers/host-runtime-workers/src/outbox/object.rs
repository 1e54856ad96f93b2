//! [`HostOutbox`], the Durable Object class behind [`DurableOutbox`](crate::DurableOutbox): it
//! answers each store operation from its storage ([`StorageOutbox`]) and drains due events on its
//! alarm with the sender [`drain_with`] builds.
//!
//! The alarm rings by the earliest time anything stored is due: a request that stores something
//! due sooner than the alarm moves it earlier, and nothing else moves it (an alarm that rings with
//! nothing due sets itself for what is left). So most requests set no alarm at all. A
//! deduplication request moves it a moment after its answer rather than before (`ARM_DELAY`,
//! 50 ms), off the path of the delivery that is waiting for its claim.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::Duration;

use host_runtime::BoxFuture;
use host_runtime::EventSender;
use host_runtime::outbox::{Entry, OutboxStore, Put, StoreError, StoreErrorKind, Which};
use host_runtime::serde_json::{self, Value, json};
use send_wrapper::SendWrapper;
use worker::{DurableObject, Env, Request, Response, Result, State, durable_object};

use super::codec::{entry_json, entry_of, put_name, settlement_of};
use super::storage::{StorageOutbox, failed};
use crate::dedupe::now_ms;

/// How long one alarm drains before it sets the alarm again for what is left.
pub const ALARM_BUDGET: Duration = Duration::from_secs(25);

/// How long after answering a deduplication request the object sets the alarm that erases the
/// record it wrote. Setting an alarm writes the runtime's alarm store as well as the object's, and
/// a delivery's claim is on its way to the handler: set before the answer, it held up the first
/// event delivery of a fresh runtime by about 0.4 ms (see BENCHMARKS.md). A record ends no sooner
/// than its lease (300 ms at least), so the delay costs nothing but this: should the object stop
/// within it, the record waits for the next alarm a later write sets.
const ARM_DELAY: Duration = Duration::from_millis(50);

/// Builds the extension's event sender from the Worker's environment (its post URL, signing secret,
/// HTTP client and retry policy); the alarm gives it the object's own storage as its outbox.
pub type SenderFactory = fn(&Env) -> Result<EventSender>;

static SENDER: OnceLock<SenderFactory> = OnceLock::new();

/// Tells [`HostOutbox`] objects how to build the sender that drains them: call it from the Worker's
/// `#[event(start)]` function, which runs wherever the module is loaded (the object may run in an
/// isolate that never served a request). The first call counts.
///
/// ```ignore
/// #[worker::event(start)]
/// fn start() {
///     host_runtime_workers::drain_with(sender);
/// }
///
/// fn sender(env: &worker::Env) -> worker::Result<EventSender> { /* as in the fetch handler */ }
/// ```
pub fn drain_with(factory: SenderFactory) {
    let _ = SENDER.set(factory);
}

// The constructor and methods `#[durable_object]` generates are the JavaScript class's, which
// the runtime calls; they carry no documentation of their own.
#[allow(missing_docs)]
mod class {
    use super::*;

    /// The Durable Object class behind [`DurableOutbox`](crate::DurableOutbox): keeps the waiting
    /// events and dead letters, answers the sender's store operations, and drains due events on its
    /// alarm with the sender [`drain_with`] builds. Bind it in `wrangler.toml` (see
    /// [`DurableOutbox`](crate::DurableOutbox)); the Worker exports it by linking this crate.
    #[durable_object]
    pub struct HostOutbox {
        state: State,
        env: Env,
        /// When the alarm is set for, as this object last set it (`None` until read once).
        alarm: Rc<Cell<Option<Option<i64>>>>,
        /// The earliest end of the deduplication records written since the last [`ARM_DELAY`]
        /// timer started, while one runs.
        arm_pending: Rc<Cell<Option<i64>>>,
    }

    impl HostOutbox {
        /// Has the alarm cover what a deduplication request wrote ([`ARM_DELAY`] after its
        /// answer, not before: see there). Requests within one delay share one timer.
        fn arm_soon(&self, store: &StorageOutbox) {
            let Some(wake) = Cell::take(&store.wake) else {
                return;
            };
            let running = self.arm_pending.get();
            self.arm_pending
                .set(Some(running.map_or(wake, |earliest| earliest.min(wake))));
            if running.is_some() {
                return;
            }
            let storage = self.state.storage();
            let (pending, known) = (Rc::clone(&self.arm_pending), Rc::clone(&self.alarm));
            self.state.wait_until(async move {
                worker::Delay::from(ARM_DELAY).await;
                let store = StorageOutbox::new(storage);
                if let Some(wake) = pending.take() {
                    store.due_at(wake);
                }
                if let Err(e) = store.arm(&known).await {
                    // The records are then erased by the next alarm any later write sets.
                    worker::console_error!(
                        "HostOutbox: the alarm that erases deduplication records was not set: {e}"
                    );
                }
            });
        }
    }

    impl DurableObject for HostOutbox {
        fn new(state: State, env: Env) -> Self {
            HostOutbox {
                state,
                env,
                alarm: Rc::default(),
                arm_pending: Rc::default(),
            }
        }

        async fn fetch(&self, mut request: Request) -> Result<Response> {
            let Ok(asked) = serde_json::from_str::<Value>(&request.text().await?) else {
                return Response::error("the body is not a JSON request to HostOutbox", 400);
            };
            let store = StorageOutbox::new(self.state.storage());
            if asked["op"] == "sweep" {
                // What the alarm does to ended deduplication records, at the time asked (the
                // Workers test asks for a day ahead, to see them erased without waiting).
                let now = asked["now"].as_i64().unwrap_or_else(now_ms);
                let erased = store.sweep(now).await?;
                let left = store.records().await?;
                return Response::from_json(&json!({ "erased": erased, "left": left }));
            }
            if asked["op"] == "dedupe" {
                return match store.dedupe(&asked).await? {
                    Ok(answer) => {
                        self.arm_soon(&store);
                        Response::from_json(&json!({ "claim": answer }))
                    }
                    Err(refused) => Response::error(refused, 400),
                };
            }
            let answer = serve(&store, &asked)
                .await
                .unwrap_or_else(|e| json!({ "error": e.to_string() }));
            // Every change can move the earliest due time; the alarm follows it.
            store.arm(&self.alarm).await?;
            Response::from_json(&answer)
        }

        async fn alarm(&self) -> Result<Response> {
            // The alarm that rang is set no more.
            self.alarm.set(Some(None));
            let storage = self.state.storage();
            let store = StorageOutbox::new(self.state.storage());
            store.sweep(now_ms()).await?;
            let due = store
                .next_due()
                .await
                .map_err(|e| worker::Error::RustError(e.to_string()))?;
            if due.is_none_or(|due| due > now_ms()) {
                store.rearm(true, &self.alarm).await?;
                return Response::empty();
            }
            let Some(factory) = SENDER.get() else {
                worker::console_error!(
                    "HostOutbox: events are waiting but no sender was given to drain them; call \
                     host_runtime_workers::drain_with(...) from the Worker's #[event(start)] function"
                );
                // The records still expire; the events wait for a request that arms the alarm.
                store.rearm(false, &self.alarm).await?;
                return Response::empty();
            };
            let sender = match factory(&self.env) {
                Ok(sender) => sender,
                Err(e) => {
                    worker::console_error!("HostOutbox: the sender cannot be built: {e}");
                    // Try again in a minute: a missing secret may be set meanwhile.
                    storage.set_alarm(Duration::from_secs(60)).await?;
                    self.alarm.set(Some(Some(now_ms().saturating_add(60_000))));
                    return Response::empty();
                }
            };
            let report = sender
                .with_outbox(StorageOutbox::new(self.state.storage()))
                .drain(ALARM_BUDGET)
                .await;
            worker::console_log!(
                "HostOutbox alarm: {} delivered, {} retrying, {} dead{}",
                report.delivered,
                report.retrying,
                report.dead,
                match &report.error {
                    Some(e) => format!("; the store failed: {e}"),
                    None => String::new(),
                }
            );
            store.rearm(true, &self.alarm).await?;
            Response::empty()
        }
    }
}

pub use class::HostOutbox;

/// Answers one store operation of a [`DurableOutbox`](crate::DurableOutbox). Each operation is a future of its own:
/// the runtime compiles a function when it is first called, so the common operations (put, settle)
/// compile alone.
fn serve<'a>(
    store: &'a StorageOutbox,
    asked: &'a Value,
) -> BoxFuture<'a, std::result::Result<Value, StoreError>> {
    let str_of = |name: &'static str| asked[name].as_str().ok_or_else(|| lacks(name));
    let int_of = |name: &'static str| asked[name].as_i64().ok_or_else(|| lacks(name));
    let entries = |listed: Vec<Entry>| -> std::result::Result<Value, StoreError> {
        let listed = listed
            .iter()
            .map(entry_json)
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(json!({ "entries": listed }))
    };
    match asked["op"].as_str().unwrap_or_default() {
        "put" => Box::pin(async move {
            let entry = entry_of(&asked["entry"]).ok_or_else(|| lacks("an entry"))?;
            Ok(json!({ "put": put_name(&store.put(entry).await?) }))
        }),
        "put_claimed" => Box::pin(async move {
            let entry = entry_of(&asked["entry"]).ok_or_else(|| lacks("an entry"))?;
            let put = store
                .put_claimed(entry, int_of("lease_until")?, str_of("owner")?)
                .await?;
            let entry = match &put {
                Put::Stored(entry) => entry_json(entry)?,
                _ => Value::Null,
            };
            Ok(json!({ "put": put_name(&put), "entry": entry }))
        }),
        "claim" => Box::pin(async move {
            let limit = usize::try_from(int_of("limit")?).unwrap_or(0);
            let (now, until, owner) = (int_of("now")?, int_of("lease_until")?, str_of("owner")?);
            entries(store.claim(now, limit, until, owner).await?)
        }),
        "claim_ids" => Box::pin(async move {
            let ids: Vec<String> = asked["ids"]
                .as_array()
                .ok_or_else(|| lacks("ids"))?
                .iter()
                .filter_map(|id| id.as_str().map(str::to_owned))
                .collect();
            let (now, until, owner) = (int_of("now")?, int_of("lease_until")?, str_of("owner")?);
            entries(store.claim_ids(&ids, now, until, owner).await?)
        }),
        "settle" => Box::pin(async move {
            let settlement =
                settlement_of(&asked["settlement"]).ok_or_else(|| lacks("a settlement"))?;
            let settled = store
                .settle(str_of("id")?, str_of("owner")?, settlement)
                .await?;
            Ok(json!({ "ok": settled }))
        }),
        "next_due" => Box::pin(async move { Ok(json!({ "due": store.next_due().await? })) }),
        // When the alarm rings (Unix milliseconds), if it is set: for tests and diagnostics.
        "alarm" => Box::pin(SendWrapper::new(async move {
            let set = store.storage.get_alarm().await.map_err(failed)?;
            Ok(json!({ "alarm": set }))
        })),
        "list" => Box::pin(async move {
            let which = match asked["which"].as_str() {
                Some("dead") => Which::Dead,
                _ => Which::Pending,
            };
            let limit = usize::try_from(int_of("limit")?).unwrap_or(0);
            entries(store.list(which, limit).await?)
        }),
        "revive" => Box::pin(async move {
            Ok(json!({ "ok": store.revive(str_of("id")?, int_of("now")?).await? }))
        }),
        "discard" => {
            Box::pin(async move { Ok(json!({ "ok": store.discard(str_of("id")?).await? })) })
        }
        other => Box::pin(std::future::ready(Err(StoreError::new(
            "durable object",
            StoreErrorKind::Refused,
            format!("HostOutbox has no operation `{other}`"),
        )))),
    }
}

/// A request to the object that lacks `what`.
fn lacks(what: &str) -> StoreError {
    StoreError::new(
        "durable object",
        StoreErrorKind::Refused,
        format!("the request lacks {what}"),
    )
}
