//! [`HostOutbox`], the Durable Object class behind [`DurableOutbox`](crate::DurableOutbox): it
//! reads each request as an [`OutboxRequest`], answers it from its storage ([`StorageOutbox`]) with
//! the answer type the request names, and drains due events on its alarm with the sender
//! [`drain_with`] builds.
//!
//! The alarm rings by the earliest time anything stored is due: a request that stores something
//! due sooner than the alarm moves it earlier, and nothing else moves it (an alarm that rings with
//! nothing due sets itself for what is left). So most requests set no alarm at all. A
//! deduplication request moves it a moment after its answer rather than before (`ARM_DELAY`,
//! 50 ms), off the path of the delivery that is waiting for its claim.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::Duration;

use host_runtime::EventSender;
use host_runtime::outbox::{Entry, OutboxStore, Put, StoreError};
use host_runtime::serde_json;
use worker::{DurableObject, Env, Request, Response, Result, State, durable_object};

use super::storage::{StorageOutbox, failed};
use crate::clock::now_ms;
use crate::wire::{
    AlarmAnswer, Ask, ClaimAnswer, EntriesAnswer, EntryRecord, Failure, NextDueAnswer, OkAnswer,
    OutboxRequest, PutAnswer, PutClaimedAnswer, PutOutcome, SweepAnswer,
};

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
            let Some(wake) = store.take_wake() else {
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
            let asked = match serde_json::from_str::<OutboxRequest>(&request.text().await?) {
                Ok(asked) => asked,
                Err(e) => {
                    // In the store's failure form, so its store reads why.
                    let why = format!("the body is not a request to HostOutbox: {e}");
                    return Ok(Response::from_json(&Failure { error: why })?.with_status(400));
                }
            };
            let store = StorageOutbox::new(self.state.storage());
            let deduplication = matches!(asked, OutboxRequest::Dedupe(_));
            let response = serve(&store, asked).await?;
            // Every change can move the earliest due time; the alarm follows it (a deduplication
            // record's a moment after the answer).
            if deduplication {
                self.arm_soon(&store);
            } else {
                store.arm(&self.alarm).await?;
            }
            Ok(response)
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
                .replace_outbox(StorageOutbox::new(self.state.storage()))
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

/// A future on the object's one thread.
type Local<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Answers one request to a [`HostOutbox`] object. Each operation is a future of its own: the
/// runtime compiles a function when it is first called, so the common operations (put, settle)
/// compile alone.
fn serve(store: &StorageOutbox, asked: OutboxRequest) -> Local<'_, Result<Response>> {
    match asked {
        OutboxRequest::Put(asked) => answer(asked, |asked| async move {
            let put = store.put(asked.entry.into()).await?;
            Ok(PutAnswer {
                put: PutOutcome::of(&put),
            })
        }),
        OutboxRequest::PutClaimed(asked) => answer(asked, |asked| async move {
            let put = store
                .put_claimed(asked.entry.into(), asked.lease_until, &asked.owner)
                .await?;
            let entry = match &put {
                Put::Stored(entry) => Some(EntryRecord::try_from(entry)?),
                _ => None,
            };
            Ok(PutClaimedAnswer {
                put: PutOutcome::of(&put),
                entry,
            })
        }),
        OutboxRequest::Claim(asked) => answer(asked, |asked| async move {
            let claimed = store
                .claim(asked.now, asked.limit, asked.lease_until, &asked.owner)
                .await?;
            entries(claimed)
        }),
        OutboxRequest::ClaimIds(asked) => answer(asked, |asked| async move {
            let claimed = store
                .claim_ids(&asked.ids, asked.now, asked.lease_until, &asked.owner)
                .await?;
            entries(claimed)
        }),
        OutboxRequest::Settle(asked) => answer(asked, |asked| async move {
            let settled = store
                .settle(&asked.id, &asked.owner, asked.settlement.into())
                .await?;
            Ok(OkAnswer { ok: settled })
        }),
        OutboxRequest::NextDue(asked) => answer(asked, |_| async move {
            Ok(NextDueAnswer {
                due: store.next_due().await?,
            })
        }),
        OutboxRequest::List(asked) => answer(asked, |asked| async move {
            entries(store.list(asked.which.into(), asked.limit).await?)
        }),
        OutboxRequest::Revive(asked) => answer(asked, |asked| async move {
            Ok(OkAnswer {
                ok: store.revive(&asked.id, asked.now).await?,
            })
        }),
        OutboxRequest::Discard(asked) => answer(asked, |asked| async move {
            Ok(OkAnswer {
                ok: store.discard(&asked.id).await?,
            })
        }),
        OutboxRequest::Alarm(asked) => answer(asked, |_| async move {
            Ok(AlarmAnswer {
                alarm: store.alarm_at().await.map_err(failed)?,
            })
        }),
        // What the alarm does to ended deduplication records, at the time asked (the Workers test
        // asks for a day ahead, to see them erased without waiting).
        OutboxRequest::Sweep(asked) => Box::pin(async move {
            let erased = store.sweep(asked.now.unwrap_or_else(now_ms)).await?;
            let left = store.records().await?;
            crate::reply(&asked, &SweepAnswer { erased, left })
        }),
        OutboxRequest::Dedupe(asked) => Box::pin(async move {
            match store.dedupe(&asked).await? {
                Ok(claim) => crate::reply(&asked, &ClaimAnswer { claim }),
                Err(unreadable) => Response::error(unreadable, 500),
            }
        }),
    }
}

/// The answer to the store operation `asked` once `work` has done it: the answer's type is the one
/// the request names, and a failure is answered [`Failure`], which the store reads as its error.
fn answer<'a, R, F>(asked: R, work: impl FnOnce(R) -> F) -> Local<'a, Result<Response>>
where
    R: Ask,
    F: Future<Output = std::result::Result<R::Answer, StoreError>> + 'a,
{
    let done = work(asked);
    Box::pin(async move {
        match done.await {
            Ok(answer) => Response::from_json(&answer),
            Err(e) => Response::from_json(&Failure {
                error: e.to_string(),
            }),
        }
    })
}

/// The events of an answer.
fn entries(listed: Vec<Entry>) -> std::result::Result<EntriesAnswer, StoreError> {
    let entries = listed
        .iter()
        .map(EntryRecord::try_from)
        .collect::<std::result::Result<_, _>>()?;
    Ok(EntriesAnswer { entries })
}
