//! [`DurableOutbox`]: the outbox store a Worker's sender uses. Each store operation is one request
//! to the `HostOutbox` object.

use host_runtime::BoxFuture;
use host_runtime::outbox::{
    Entry, OutboxStore, Put, Settlement, StoreError, StoreErrorKind, Which,
};
use host_runtime::serde_json::{self, Value, json};
use send_wrapper::SendWrapper;
use worker::{Env, ObjectNamespace, Result};

use super::codec::{entries, entry_json, entry_of, put_of, settlement_json};
use crate::DurableDedupe;

/// An outbox on the Durable Object namespace bound as `binding` (class
/// [`HostOutbox`](crate::HostOutbox)): give it to the sender with `with_outbox`. Waiting events
/// are posted by the object's alarm, with the sender [`drain_with`](crate::drain_with) builds.
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
