//! The outbox on a Durable Object: [`DurableOutbox`] is the sender's store, [`HostOutbox`] the
//! Durable Object class that keeps the events and drains them on its alarm.
//!
//! A Worker's tasks end with its request, so its sender runs on demand: a send stores the event and
//! makes one attempt before the handler answers. An event the host did not take then waits in the
//! `HostOutbox` object, whose alarm is always set to when the earliest waiting event is due. When
//! it rings, the object builds the sender with the function given to [`drain_with`], points it at
//! its own storage and drains what is due (up to [`ALARM_BUDGET`]), then sets the alarm for what is
//! left. So an event refused with a 5xx, a 429 or a timeout is posted again on the retry policy's
//! schedule with no request to the Worker, and survives the isolate that sent it.
//!
//! Storage layout, one object per outbox (per signing secret): `p:<id>` holds a pending event and
//! the owner of its claim, `q:<due>:<id>` orders pending events by when they are due (so a claim
//! reads only the due ones), `d:<id>` holds a dead letter, and `s:<id>` the digest of an event
//! delivered within the window (`host_runtime::outbox::SENT_WINDOW`), with `z:<minute>:<id>` the
//! minute its window ends in, when the alarm erases it. With
//! [`DurableOutbox::dedupe_store`], `k:<key>` holds a delivery's deduplication record and
//! `x:<minute>:<key>` the minute it ends in, when the alarm erases it. Each store operation is one
//! request to the object that awaits nothing but its own storage, which the Workers runtime runs
//! without interleaving another request (its input gate) and commits at once.
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
use host_runtime::outbox::{
    Entry, OutboxStore, Put, SENT_WINDOW, Settlement, StoreError, StoreErrorKind, Which,
};
use host_runtime::serde_json::{self, Value, json};
use send_wrapper::SendWrapper;
use worker::{
    DurableObject, Env, ListOptions, ObjectNamespace, Request, Response, Result, State, Storage,
    durable_object,
};

use crate::DurableDedupe;
use crate::dedupe::{Change, at, decide, now_ms};

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

/// An outbox on the Durable Object namespace bound as `binding` (class [`HostOutbox`]): give it to
/// the sender with `with_outbox`. Waiting events are posted by the object's alarm, with the sender
/// [`drain_with`] builds.
///
/// ```toml
/// # wrangler.toml
/// [[durable_objects.bindings]]
/// name = "HOST_OUTBOX"
/// class_name = "HostOutbox"
///
/// [[migrations]]
/// tag = "v1"
/// new_sqlite_classes = ["HostOutbox"]
/// ```
#[derive(Clone)]
pub struct DurableOutbox {
    // JavaScript values live on the isolate's one thread; the wrapper only satisfies `Send`.
    namespace: SendWrapper<ObjectNamespace>,
    name: String,
}

impl DurableOutbox {
    /// The outbox object named `outbox` in the namespace bound as `binding`. Fails, naming the
    /// binding, when the Worker has no such binding.
    pub fn new(env: &Env, binding: &str) -> Result<Self> {
        let namespace = env.durable_object(binding).map_err(|e| {
            worker::Error::RustError(format!(
                "the Durable Object binding `{binding}` for the outbox is missing ({e}); add it \
                 under [[durable_objects.bindings]] in wrangler.toml with class_name = \"HostOutbox\""
            ))
        })?;
        Ok(DurableOutbox {
            namespace: SendWrapper::new(namespace),
            name: "outbox".to_owned(),
        })
    }

    /// Uses the object named `name` instead (one outbox per signing secret: two senders with
    /// different secrets need two names).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// A deduplication store whose records this outbox's object keeps beside its events: give it to
    /// the handler with `with_dedupe_store`. An event delivery then asks one object for everything
    /// (its claim, its completion, any event the host did not take at once), created once, where a
    /// [`DurableDedupe::new`] store asks a new object per delivery, a first request each time. All
    /// of a Worker's deliveries then go through this one object, which the Workers runtime runs one
    /// request at a time: past a few hundred deliveries a second, use `DurableDedupe::new` (an
    /// object per key) or several outbox names.
    ///
    /// ```ignore
    /// let outbox = DurableOutbox::new(&env, "HOST_OUTBOX")?;
    /// let handler = handler(MyServer::new(sender.with_outbox(outbox.clone())))
    ///     .with_dedupe_store(outbox.dedupe_store());
    /// ```
    pub fn dedupe_store(&self) -> DurableDedupe {
        DurableDedupe::in_outbox((*self.namespace).clone(), self.name.clone())
    }

    fn call<'a, T: Send + 'a>(
        &'a self,
        request: Value,
        read: impl FnOnce(&Value) -> Option<T> + 'a,
    ) -> BoxFuture<'a, std::result::Result<T, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let answer = self.rpc(&request).await.map_err(|e| {
                StoreError::new(
                    "durable object",
                    StoreErrorKind::Unavailable,
                    format!("the HostOutbox object cannot be reached: {e}"),
                )
            })?;
            if let Some(error) = answer.get("error").and_then(Value::as_str) {
                return Err(StoreError::new(
                    "durable object",
                    StoreErrorKind::Other,
                    error,
                ));
            }
            read(&answer).ok_or_else(|| {
                StoreError::new(
                    "durable object",
                    StoreErrorKind::Corrupt,
                    format!(
                        "the HostOutbox object answered {answer}, which this version does not read"
                    ),
                )
            })
        }))
    }

    async fn rpc(&self, request: &Value) -> Result<Value> {
        let (status, text) = crate::ask_object(
            &self.namespace,
            &self.name,
            "https://host-outbox/",
            &request.to_string(),
        )
        .await?;
        serde_json::from_str(&text).map_err(|_| {
            worker::Error::RustError(format!("the HostOutbox object answered {status}: {text}"))
        })
    }
}

impl OutboxStore for DurableOutbox {
    fn put(&self, entry: Entry) -> BoxFuture<'_, std::result::Result<Put, StoreError>> {
        let entry = match entry_json(&entry) {
            Ok(entry) => entry,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        self.call(json!({ "op": "put", "entry": entry }), |a| {
            put_of(&a["put"], Some(()))
        })
    }

    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Put<Entry>, StoreError>> {
        let entry = match entry_json(&entry) {
            Ok(entry) => entry,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        let request = json!({
            "op": "put_claimed", "entry": entry, "lease_until": lease_until, "owner": owner,
        });
        self.call(request, |a| match &a["entry"] {
            Value::Null => put_of(&a["put"], None),
            entry => entry_of(entry).map(Put::Stored),
        })
    }

    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<Entry>, StoreError>> {
        let request = json!({
            "op": "claim", "now": now, "limit": limit, "lease_until": lease_until, "owner": owner,
        });
        self.call(request, |a| entries(&a["entries"]))
    }

    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<Entry>, StoreError>> {
        let request = json!({
            "op": "claim_ids", "ids": ids, "now": now, "lease_until": lease_until, "owner": owner,
        });
        self.call(request, |a| entries(&a["entries"]))
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        let request = json!({
            "op": "settle", "id": id, "owner": owner, "settlement": settlement_json(&settlement),
        });
        self.call(request, |a| a["ok"].as_bool())
    }

    fn next_due(&self) -> BoxFuture<'_, std::result::Result<Option<i64>, StoreError>> {
        self.call(json!({ "op": "next_due" }), |a| match &a["due"] {
            Value::Null => Some(None),
            due => due.as_i64().map(Some),
        })
    }

    fn list(
        &self,
        which: Which,
        limit: usize,
    ) -> BoxFuture<'_, std::result::Result<Vec<Entry>, StoreError>> {
        let which = match which {
            Which::Pending => "pending",
            Which::Dead => "dead",
        };
        self.call(
            json!({ "op": "list", "which": which, "limit": limit }),
            |a| entries(&a["entries"]),
        )
    }

    fn revive<'a>(
        &'a self,
        id: &'a str,
        now: i64,
    ) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        self.call(json!({ "op": "revive", "id": id, "now": now }), |a| {
            a["ok"].as_bool()
        })
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        self.call(json!({ "op": "discard", "id": id }), |a| a["ok"].as_bool())
    }
}

// The constructor and methods `#[durable_object]` generates are the JavaScript class's, which
// the runtime calls; they carry no documentation of their own.
#[allow(missing_docs)]
mod class {
    use super::*;

    /// The Durable Object class behind [`DurableOutbox`]: keeps the waiting events and dead letters,
    /// answers the sender's store operations, and drains due events on its alarm with the sender
    /// [`drain_with`] builds. Bind it in `wrangler.toml` (see [`DurableOutbox`]); the Worker exports it
    /// by linking this crate.
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

/// Answers one store operation of a [`DurableOutbox`]. Each operation is a future of its own:
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

/// An [`OutboxStore`] on a Durable Object's own storage: what a [`HostOutbox`] object serves and
/// its alarm drains.
struct StorageOutbox {
    // JavaScript values live on the isolate's one thread; the wrapper only satisfies `Send`.
    storage: SendWrapper<Storage>,
    /// The earliest time something written through this store is due (an event, or the minute a
    /// deduplication record ends): the alarm must ring by then.
    wake: SendWrapper<Cell<Option<i64>>>,
}

fn pending_key(id: &str) -> String {
    format!("p:{id}")
}

fn dead_key(id: &str) -> String {
    format!("d:{id}")
}

/// `s:<id>`: the digest of an event delivered within the window, and when the window ends.
fn sent_key(id: &str) -> String {
    format!("s:{id}")
}

/// `d` in milliseconds, saturating.
fn host_runtime_millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A digest in lowercase hex, as `s:` records keep it.
fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// How a put ended, on the wire.
fn put_name<T>(put: &Put<T>) -> &'static str {
    match put {
        Put::Stored(_) => "stored",
        Put::AlreadyPending => "pending",
        Put::AlreadyDelivered => "delivered",
        Put::Conflict => "conflict",
    }
}

/// How a put ended, from the wire; `stored` is the value stored (none: the answer cannot be
/// `stored`).
fn put_of<T>(name: &Value, stored: Option<T>) -> Option<Put<T>> {
    Some(match name.as_str()? {
        "stored" => Put::Stored(stored?),
        "pending" => Put::AlreadyPending,
        "delivered" => Put::AlreadyDelivered,
        "conflict" => Put::Conflict,
        _ => return None,
    })
}

/// `q:<due, 20 digits>:<id>`: keys sort by due time.
fn order_key(due: i64, id: &str) -> String {
    timed_key('q', due, id)
}

/// `<index>:<at, 20 digits>:<name>`: an index whose keys sort by time (`q` for events by when they
/// are due, `x` for deduplication records and `z` for delivered events by the minute they end in).
fn timed_key(index: char, at: i64, name: &str) -> String {
    format!("{index}:{:020}:{name}", at.max(0))
}

/// Where the keys of `index` timed at or before `now` end: keys `<index>:<at>:<name>` with
/// `at <= now` sort before `<index>:<now>;` (`;` follows `:`).
fn timed_until(index: char, now: i64) -> String {
    format!("{index}:{:020};", now.max(0))
}

/// A storage call that failed. worker's error holds JavaScript values, which cannot cross threads,
/// so its text is kept rather than the error itself.
fn failed(e: worker::Error) -> StoreError {
    StoreError::new(
        "durable object",
        StoreErrorKind::Unavailable,
        format!("the object's storage failed: {e}"),
    )
}

impl StorageOutbox {
    fn new(storage: Storage) -> Self {
        StorageOutbox {
            storage: SendWrapper::new(storage),
            wake: SendWrapper::new(Cell::new(None)),
        }
    }

    /// Notes that something written is due at `at`.
    fn due_at(&self, at: i64) {
        let wake = self.wake.get().map_or(at, |wake| wake.min(at));
        self.wake.set(Some(wake));
    }

    /// The value at `key`, as JSON.
    async fn read(&self, key: &str) -> Result<Option<Value>> {
        Ok(self
            .storage
            .get::<String>(key)
            .await?
            .and_then(|text| serde_json::from_str(&text).ok()))
    }

    async fn write(&self, key: &str, value: &Value) -> Result<()> {
        self.storage.put(key, value.to_string()).await
    }

    /// The keys and values of one listing, in key order.
    async fn listing(&self, options: ListOptions<'_>) -> Result<Vec<(String, Value)>> {
        let map = self.storage.list_with_options(options).await?;
        let mut out = Vec::new();
        map.for_each(&mut |value, key| {
            if let (Some(key), Some(value)) = (key.as_string(), value.as_string()) {
                out.push((key, serde_json::from_str(&value).unwrap_or(Value::Null)));
            }
        });
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// A pending event and the owner of its claim.
    async fn pending(&self, id: &str) -> Result<Option<(Entry, String)>> {
        Ok(self.read(&pending_key(id)).await?.and_then(|record| {
            let entry = entry_of(&record["entry"])?;
            Some((
                entry,
                record["owner"].as_str().unwrap_or_default().to_owned(),
            ))
        }))
    }

    async fn link(&self, entry: &Entry, owner: &str) -> std::result::Result<(), StoreError> {
        self.due_at(entry.due);
        let record = json!({ "entry": entry_json(entry)?, "owner": owner });
        self.write(&pending_key(&entry.id), &record)
            .await
            .map_err(failed)?;
        self.write(
            &order_key(entry.due, &entry.id),
            &Value::String(entry.id.clone()),
        )
        .await
        .map_err(failed)
    }

    /// Links `entry` for `owner` unless its id is taken by an event pending or delivered within
    /// the window; answers what holds it then. A dead letter of the id is replaced.
    async fn link_new(&self, entry: &Entry, owner: &str) -> std::result::Result<Put, StoreError> {
        // Digested only when the id is taken: a new id, the usual case, costs no digest.
        if let Some((found, _)) = self.pending(&entry.id).await.map_err(failed)? {
            return Ok(Put::found(&found.digest(), &entry.digest(), true));
        }
        if let Some(sent) = self.read(&sent_key(&entry.id)).await.map_err(failed)?
            && sent["until"].as_i64().is_some_and(|until| until > now_ms())
        {
            return Ok(match sent["digest"].as_str() {
                Some(found) => Put::found(found, hex(&entry.digest()).as_str(), false),
                None => Put::Conflict,
            });
        }
        self.storage
            .delete(&dead_key(&entry.id))
            .await
            .map_err(failed)?;
        self.link(entry, owner).await?;
        Ok(Put::Stored(()))
    }

    /// Remembers that `entry` was delivered, until the window ends; the alarm erases it then.
    async fn remember_sent(&self, entry: &Entry) -> Result<()> {
        let until = now_ms().saturating_add(host_runtime_millis(SENT_WINDOW));
        let key = sent_key(&entry.id);
        if let Some(old) = self.read(&key).await?.and_then(|v| v["until"].as_i64()) {
            self.storage
                .delete(&timed_key('z', end_minute(old), &entry.id))
                .await?;
        }
        let record = json!({ "digest": hex(&entry.digest()), "until": until });
        self.write(&key, &record).await?;
        self.write(
            &timed_key('z', end_minute(until), &entry.id),
            &Value::String(entry.id.clone()),
        )
        .await?;
        self.due_at(end_minute(until));
        Ok(())
    }

    /// The time of the earliest key of the timed index `index` (see [`timed_key`]).
    async fn earliest(&self, index: char) -> Result<Option<i64>> {
        let prefix = format!("{index}:");
        let first = self
            .listing(ListOptions::new().prefix(&prefix).limit(1))
            .await?;
        Ok(first
            .first()
            .and_then(|(key, _)| key.get(2..22))
            .and_then(|at| at.parse().ok()))
    }

    async fn unlink(&self, entry: &Entry) -> Result<()> {
        self.storage.delete(&pending_key(&entry.id)).await?;
        self.storage
            .delete(&order_key(entry.due, &entry.id))
            .await?;
        Ok(())
    }

    /// Claims `entry` for `owner` until `lease_until`; answers it as it was before the claim.
    async fn lease(
        &self,
        entry: Entry,
        lease_until: i64,
        owner: &str,
    ) -> std::result::Result<Entry, StoreError> {
        self.unlink(&entry).await.map_err(failed)?;
        let leased = Entry {
            due: lease_until,
            ..entry.clone()
        };
        self.link(&leased, owner).await?;
        Ok(entry)
    }

    /// Makes sure the alarm rings by the earliest time something this store wrote is due.
    /// `known` is when the object last set the alarm (`None` until read once). An alarm set for
    /// earlier stays: it rings, finds nothing due and sets itself for what is left (see
    /// [`rearm`](Self::rearm)), which costs less than following every change.
    async fn arm(&self, known: &Cell<Option<Option<i64>>>) -> Result<()> {
        let Some(wake) = Cell::take(&self.wake) else {
            return Ok(());
        };
        let set = match known.get() {
            Some(set) => set,
            None => self.storage.get_alarm().await?,
        };
        if set.is_some_and(|set| set <= wake) {
            known.set(Some(set));
            return Ok(());
        }
        self.storage.set_alarm(at(wake.max(now_ms()))).await?;
        known.set(Some(Some(wake)));
        Ok(())
    }

    /// Sets the alarm for when the earliest pending event is due (when `events`) or the first
    /// minute in which a deduplication record ends, or for nothing when neither waits: what an
    /// alarm that rang leaves behind.
    async fn rearm(&self, events: bool, known: &Cell<Option<Option<i64>>>) -> Result<()> {
        Cell::take(&self.wake);
        let due = if events {
            self.next_due()
                .await
                .map_err(|e| worker::Error::RustError(e.to_string()))?
        } else {
            None
        };
        let ends = self.earliest('x').await?;
        let forgotten = self.earliest('z').await?;
        match due.into_iter().chain(ends).chain(forgotten).min() {
            Some(next) => {
                self.storage.set_alarm(at(next.max(now_ms()))).await?;
                known.set(Some(Some(next)));
            }
            None => {
                self.storage.delete_alarm().await?;
                known.set(Some(None));
            }
        }
        Ok(())
    }
}

/// A deduplication record kept in the outbox's object: `k:<key>`.
fn record_key(key: &str) -> String {
    format!("k:{key}")
}

/// Where a record ending at `until` is found to be erased: `x:<the minute it ends in>:<key>`, so
/// one alarm erases the records of a minute together.
fn ends_key(until: i64, key: &str) -> String {
    timed_key('x', end_minute(until), key)
}

/// The end of the minute `until` (Unix milliseconds) falls in.
fn end_minute(until: i64) -> i64 {
    until.clamp(0, i64::MAX - 60_000).saturating_add(59_999) / 60_000 * 60_000
}

impl StorageOutbox {
    /// Serves a deduplication request (`{"op": "dedupe", "dedupe": claim | renew | complete |
    /// release, "key", "owner", "lease"}`) on the record of its key, kept beside the events: the
    /// answer, or why the request is refused.
    async fn dedupe(&self, asked: &Value) -> Result<std::result::Result<&'static str, String>> {
        let Some(key) = asked["key"].as_str() else {
            return Ok(Err("a deduplication request names its `key`".to_owned()));
        };
        let at_key = record_key(key);
        let record = self.read(&at_key).await?;
        let op = asked["dedupe"].as_str().unwrap_or_default();
        let (answer, change) = match decide(record.as_ref(), op, asked, now_ms()) {
            Ok(decided) => decided,
            Err(refused) => return Ok(Err(refused)),
        };
        let old = record
            .as_ref()
            .and_then(|r| r["until"].as_i64())
            .map(|until| ends_key(until, key));
        match change {
            Change::None => {}
            Change::Write(record, until) => {
                let new = ends_key(until, key);
                if let Some(old) = old.filter(|old| *old != new) {
                    self.storage.delete(&old).await?;
                }
                self.write(&at_key, &record).await?;
                self.write(&new, &Value::String(key.to_owned())).await?;
                self.due_at(end_minute(until));
            }
            Change::Erase => {
                self.storage.delete(&at_key).await?;
                if let Some(old) = old {
                    self.storage.delete(&old).await?;
                }
            }
        }
        Ok(Ok(answer))
    }

    /// Erases the deduplication records that ended by `now`; how many.
    async fn sweep(&self, now: i64) -> Result<usize> {
        // Delivered events whose window ended go too; only deduplication records are counted.
        self.sweep_index('z', sent_key, now).await?;
        self.sweep_index('x', record_key, now).await
    }

    /// Erases the records of the timed index `index` (record `key_of(name)` for each) that ended by
    /// `now`; how many.
    async fn sweep_index(
        &self,
        index: char,
        key_of: fn(&str) -> String,
        now: i64,
    ) -> Result<usize> {
        let end = timed_until(index, now);
        let ended = self
            .listing(ListOptions::new().start(&format!("{index}:")).end(&end))
            .await?;
        let mut erased = 0;
        for (at_index, name) in ended {
            if let Some(name) = name.as_str() {
                let at_key = key_of(name);
                // A record renewed since is indexed again under its new end: only the index goes.
                if self
                    .read(&at_key)
                    .await?
                    .and_then(|r| r["until"].as_i64())
                    .is_none_or(|until| until <= now)
                    && self.storage.delete(&at_key).await?
                {
                    erased += 1;
                }
            }
            self.storage.delete(&at_index).await?;
        }
        Ok(erased)
    }

    /// How many deduplication records are kept.
    async fn records(&self) -> Result<usize> {
        Ok(self.listing(ListOptions::new().prefix("k:")).await?.len())
    }
}

impl OutboxStore for StorageOutbox {
    fn put(&self, entry: Entry) -> BoxFuture<'_, std::result::Result<Put, StoreError>> {
        Box::pin(SendWrapper::new(
            async move { self.link_new(&entry, "").await },
        ))
    }

    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Put<Entry>, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let leased = Entry {
                due: lease_until,
                ..entry.clone()
            };
            Ok(self.link_new(&leased, owner).await?.map(|()| entry))
        }))
    }

    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<Entry>, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let end = timed_until('q', now);
            let due = self
                .listing(ListOptions::new().start("q:").end(&end).limit(limit))
                .await
                .map_err(failed)?;
            let mut claimed = Vec::with_capacity(due.len());
            for (_, id) in due {
                let Some(id) = id.as_str() else { continue };
                let Some((entry, _)) = self.pending(id).await.map_err(failed)? else {
                    continue;
                };
                claimed.push(self.lease(entry, lease_until, owner).await?);
            }
            Ok(claimed)
        }))
    }

    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<Entry>, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let mut claimed = Vec::new();
            for id in ids {
                let Some((entry, _)) = self.pending(id).await.map_err(failed)? else {
                    continue;
                };
                if entry.due <= now {
                    claimed.push(self.lease(entry, lease_until, owner).await?);
                }
            }
            Ok(claimed)
        }))
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let Some((mut entry, held_by)) = self.pending(id).await.map_err(failed)? else {
                return Ok(false);
            };
            if held_by != owner {
                return Ok(false);
            }
            self.unlink(&entry).await.map_err(failed)?;
            match settlement {
                Settlement::Delivered => self.remember_sent(&entry).await.map_err(failed)?,
                Settlement::Retry {
                    attempts,
                    due,
                    error,
                } => {
                    entry.attempts = attempts;
                    entry.due = due;
                    entry.last_error = Some(error);
                    self.link(&entry, "").await?;
                }
                Settlement::Dead {
                    attempts,
                    at,
                    reason,
                } => {
                    entry.attempts = attempts;
                    entry.due = at;
                    entry.last_error = Some(reason);
                    self.write(&dead_key(id), &entry_json(&entry)?)
                        .await
                        .map_err(failed)?;
                }
            }
            Ok(true)
        }))
    }

    fn next_due(&self) -> BoxFuture<'_, std::result::Result<Option<i64>, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            self.earliest('q').await.map_err(failed)
        }))
    }

    fn list(
        &self,
        which: Which,
        limit: usize,
    ) -> BoxFuture<'_, std::result::Result<Vec<Entry>, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let mut out = Vec::new();
            match which {
                Which::Pending => {
                    let order = self
                        .listing(ListOptions::new().prefix("q:").limit(limit))
                        .await
                        .map_err(failed)?;
                    for (_, id) in order {
                        if let Some(id) = id.as_str()
                            && let Some((entry, _)) = self.pending(id).await.map_err(failed)?
                        {
                            out.push(entry);
                        }
                    }
                }
                Which::Dead => {
                    let dead = self
                        .listing(ListOptions::new().prefix("d:"))
                        .await
                        .map_err(failed)?;
                    out.extend(dead.iter().filter_map(|(_, v)| entry_of(v)));
                    out.sort_by(|a, b| (a.due, &a.id).cmp(&(b.due, &b.id)));
                    out.truncate(limit);
                }
            }
            Ok(out)
        }))
    }

    fn revive<'a>(
        &'a self,
        id: &'a str,
        now: i64,
    ) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let Some(mut entry) = self
                .read(&dead_key(id))
                .await
                .map_err(failed)?
                .and_then(|v| entry_of(&v))
            else {
                return Ok(false);
            };
            self.storage.delete(&dead_key(id)).await.map_err(failed)?;
            entry.attempts = 0;
            entry.due = now;
            self.link(&entry, "").await?;
            Ok(true)
        }))
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            let pending = self.pending(id).await.map_err(failed)?;
            if let Some((entry, _)) = &pending {
                self.unlink(entry).await.map_err(failed)?;
            }
            let dead = self.storage.delete(&dead_key(id)).await.map_err(failed)?;
            Ok(pending.is_some() || dead)
        }))
    }
}

/// An entry as JSON. The body is an event envelope, which is JSON and so UTF-8.
fn entry_json(entry: &Entry) -> std::result::Result<Value, StoreError> {
    let body = std::str::from_utf8(&entry.body).map_err(|_| {
        StoreError::new(
            "durable object",
            StoreErrorKind::Refused,
            format!(
                "event {} has a body that is not UTF-8 text; only JSON envelopes are stored",
                entry.id
            ),
        )
    })?;
    Ok(json!({
        "id": entry.id,
        "body": body,
        "attempts": entry.attempts,
        "due": entry.due,
        "accepted": entry.accepted,
        "last_error": entry.last_error,
    }))
}

fn entry_of(value: &Value) -> Option<Entry> {
    Some(Entry {
        id: value["id"].as_str()?.to_owned(),
        body: value["body"].as_str()?.as_bytes().to_vec(),
        attempts: u32::try_from(value["attempts"].as_u64()?).ok()?,
        due: value["due"].as_i64()?,
        accepted: value["accepted"].as_i64()?,
        last_error: value["last_error"].as_str().map(str::to_owned),
    })
}

fn entries(value: &Value) -> Option<Vec<Entry>> {
    value.as_array()?.iter().map(entry_of).collect()
}

fn settlement_json(settlement: &Settlement) -> Value {
    match settlement {
        Settlement::Delivered => json!({ "kind": "delivered" }),
        Settlement::Retry {
            attempts,
            due,
            error,
        } => json!({ "kind": "retry", "attempts": attempts, "due": due, "error": error }),
        Settlement::Dead {
            attempts,
            at,
            reason,
        } => json!({ "kind": "dead", "attempts": attempts, "at": at, "reason": reason }),
    }
}

fn settlement_of(value: &Value) -> Option<Settlement> {
    let attempts = || u32::try_from(value["attempts"].as_u64()?).ok();
    Some(match value["kind"].as_str()? {
        "delivered" => Settlement::Delivered,
        "retry" => Settlement::Retry {
            attempts: attempts()?,
            due: value["due"].as_i64()?,
            error: value["error"].as_str()?.to_owned(),
        },
        "dead" => Settlement::Dead {
            attempts: attempts()?,
            at: value["at"].as_i64()?,
            reason: value["reason"].as_str()?.to_owned(),
        },
        _ => return None,
    })
}
