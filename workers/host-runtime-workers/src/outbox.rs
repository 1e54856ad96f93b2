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
//! reads only the due ones), and `d:<id>` holds a dead letter. Each store operation is one request
//! to the object that awaits nothing but its own storage, which the Workers runtime runs without
//! interleaving another request (its input gate) and commits at once.

use std::sync::OnceLock;
use std::time::Duration;

use host_runtime::BoxFuture;
use host_runtime::EventSender;
use host_runtime::outbox::{Entry, OutboxStore, Settlement, StoreError, StoreErrorKind, Which};
use host_runtime::serde_json::{self, Value, json};
use send_wrapper::SendWrapper;
use worker::{
    DurableObject, Env, ListOptions, Method, ObjectNamespace, Request, RequestInit, Response,
    Result, State, Storage, durable_object,
};

use crate::dedupe::{at, now_ms};

/// How long one alarm drains before it sets the alarm again for what is left.
pub const ALARM_BUDGET: Duration = Duration::from_secs(25);

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
        let stub = self.namespace.id_from_name(&self.name)?.get_stub()?;
        let mut init = RequestInit::new();
        init.with_method(Method::Post)
            .with_body(Some(request.to_string().into()));
        let request = Request::new_with_init("https://host-outbox/", &init)?;
        let mut answer = stub.fetch_with_request(request).await?;
        let text = answer.text().await?;
        serde_json::from_str(&text).map_err(|_| {
            worker::Error::RustError(format!(
                "the HostOutbox object answered {}: {text}",
                answer.status_code()
            ))
        })
    }
}

impl OutboxStore for DurableOutbox {
    fn put(&self, entry: Entry) -> BoxFuture<'_, std::result::Result<bool, StoreError>> {
        let entry = match entry_json(&entry) {
            Ok(entry) => entry,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        self.call(json!({ "op": "put", "entry": entry }), |a| {
            a["ok"].as_bool()
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
    }

    impl DurableObject for HostOutbox {
        fn new(state: State, env: Env) -> Self {
            HostOutbox { state, env }
        }

        async fn fetch(&self, mut request: Request) -> Result<Response> {
            let Ok(asked) = request.json::<Value>().await else {
                return Response::error("the body is not a JSON request to HostOutbox", 400);
            };
            let store = StorageOutbox::new(self.state.storage());
            let answer = match serve(&store, &asked).await {
                Ok(answer) => answer,
                Err(e) => json!({ "error": e.to_string() }),
            };
            // Every change can move the earliest due time; the alarm follows it.
            if asked["op"] != "list" && asked["op"] != "next_due" {
                store.arm().await?;
            }
            Response::from_json(&answer)
        }

        async fn alarm(&self) -> Result<Response> {
            let storage = self.state.storage();
            let Some(factory) = SENDER.get() else {
                worker::console_error!(
                    "HostOutbox: events are waiting but no sender was given to drain them; call \
                     host_runtime_workers::drain_with(...) from the Worker's #[event(start)] function"
                );
                return Response::empty();
            };
            let sender = match factory(&self.env) {
                Ok(sender) => sender,
                Err(e) => {
                    worker::console_error!("HostOutbox: the sender cannot be built: {e}");
                    // Try again in a minute: a missing secret may be set meanwhile.
                    storage.set_alarm(Duration::from_secs(60)).await?;
                    return Response::empty();
                }
            };
            let store = StorageOutbox::new(storage);
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
            store.arm().await?;
            Response::empty()
        }
    }
}

pub use class::HostOutbox;

/// Answers one store operation of a [`DurableOutbox`].
async fn serve(store: &StorageOutbox, asked: &Value) -> std::result::Result<Value, StoreError> {
    let bad = |what: &str| {
        StoreError::new(
            "durable object",
            StoreErrorKind::Refused,
            format!("the request lacks {what}"),
        )
    };
    let str_of = |name: &'static str| asked[name].as_str().ok_or_else(|| bad(name));
    let int_of = |name: &'static str| asked[name].as_i64().ok_or_else(|| bad(name));
    Ok(match asked["op"].as_str().unwrap_or_default() {
        "put" => {
            let entry = entry_of(&asked["entry"]).ok_or_else(|| bad("an entry"))?;
            json!({ "ok": store.put(entry).await? })
        }
        "claim" => {
            let limit = usize::try_from(int_of("limit")?).unwrap_or(0);
            let claimed = store
                .claim(
                    int_of("now")?,
                    limit,
                    int_of("lease_until")?,
                    str_of("owner")?,
                )
                .await?;
            json!({ "entries": claimed.iter().map(entry_json).collect::<std::result::Result<Vec<_>, _>>()? })
        }
        "claim_ids" => {
            let ids: Vec<String> = asked["ids"]
                .as_array()
                .ok_or_else(|| bad("ids"))?
                .iter()
                .filter_map(|id| id.as_str().map(str::to_owned))
                .collect();
            let claimed = store
                .claim_ids(
                    &ids,
                    int_of("now")?,
                    int_of("lease_until")?,
                    str_of("owner")?,
                )
                .await?;
            json!({ "entries": claimed.iter().map(entry_json).collect::<std::result::Result<Vec<_>, _>>()? })
        }
        "settle" => {
            let settlement =
                settlement_of(&asked["settlement"]).ok_or_else(|| bad("a settlement"))?;
            json!({ "ok": store.settle(str_of("id")?, str_of("owner")?, settlement).await? })
        }
        "next_due" => json!({ "due": store.next_due().await? }),
        "list" => {
            let which = match asked["which"].as_str() {
                Some("dead") => Which::Dead,
                _ => Which::Pending,
            };
            let limit = usize::try_from(int_of("limit")?).unwrap_or(0);
            let listed = store.list(which, limit).await?;
            json!({ "entries": listed.iter().map(entry_json).collect::<std::result::Result<Vec<_>, _>>()? })
        }
        "revive" => json!({ "ok": store.revive(str_of("id")?, int_of("now")?).await? }),
        "discard" => json!({ "ok": store.discard(str_of("id")?).await? }),
        other => {
            return Err(StoreError::new(
                "durable object",
                StoreErrorKind::Refused,
                format!("HostOutbox has no operation `{other}`"),
            ));
        }
    })
}

/// An [`OutboxStore`] on a Durable Object's own storage: what a [`HostOutbox`] object serves and
/// its alarm drains.
struct StorageOutbox {
    // JavaScript values live on the isolate's one thread; the wrapper only satisfies `Send`.
    storage: SendWrapper<Storage>,
}

fn pending_key(id: &str) -> String {
    format!("p:{id}")
}

fn dead_key(id: &str) -> String {
    format!("d:{id}")
}

/// `q:<due, 20 digits>:<id>`: keys sort by due time.
fn order_key(due: i64, id: &str) -> String {
    format!("q:{:020}:{id}", due.max(0))
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
        }
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

    /// Sets the alarm to when the earliest pending event is due, or clears it when none waits.
    async fn arm(&self) -> Result<()> {
        let due = self
            .next_due()
            .await
            .map_err(|e| worker::Error::RustError(e.to_string()))?;
        let set = self.storage.get_alarm().await?;
        match due {
            Some(due) if set != Some(due) => self.storage.set_alarm(at(due.max(now_ms()))).await,
            Some(_) => Ok(()),
            None if set.is_some() => self.storage.delete_alarm().await,
            None => Ok(()),
        }
    }
}

impl OutboxStore for StorageOutbox {
    fn put(&self, entry: Entry) -> BoxFuture<'_, std::result::Result<bool, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            if self.pending(&entry.id).await.map_err(failed)?.is_some() {
                return Ok(false);
            }
            self.link(&entry, "").await?;
            Ok(true)
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
            // Keys `q:<due>:<id>` with due <= now sort before `q:<now>;` (`;` follows `:`).
            let end = format!("q:{:020};", now.max(0));
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
                Settlement::Delivered => {}
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
            let first = self
                .listing(ListOptions::new().prefix("q:").limit(1))
                .await
                .map_err(failed)?;
            Ok(first
                .first()
                .and_then(|(key, _)| key.get(2..22))
                .and_then(|due| due.parse().ok()))
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
