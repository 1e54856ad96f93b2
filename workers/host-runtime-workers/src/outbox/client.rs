//! [`DurableOutbox`]: the outbox store a Worker's sender uses. Each store operation is one request
//! to the `HostOutbox` object, a [`wire`](crate::wire) request answered with the type it names.

use host_runtime::BoxFuture;
use host_runtime::outbox::{
    Entry, OutboxStore, Put, Settlement, StoreError, StoreErrorKind, Which,
};
use host_runtime::serde_json::{self, Value};
use send_wrapper::SendWrapper;
use serde::Deserialize;
use worker::{Env, ObjectNamespace, Result};

use crate::DurableDedupe;
use crate::wire::{
    Ask, ClaimIdsRequest, ClaimRequest, DiscardRequest, EntriesAnswer, EntryRecord, Failure,
    ListRequest, NextDueRequest, OutboxRequest, PutClaimedRequest, PutRequest, ReviveRequest,
    SettleRequest,
};

/// An outbox on the Durable Object namespace bound as `binding` (class
/// [`HostOutbox`](crate::HostOutbox)): the outbox argument of `EventSender::new`. Waiting events
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
    /// let sender = EventSender::new(post_url, &secret, outbox.clone())?;
    /// let handler = handler(MyServer::new(sender)).with_dedupe_store(outbox.dedupe_store());
    /// ```
    pub fn dedupe_store(&self) -> DurableDedupe {
        DurableDedupe::in_outbox((*self.namespace).clone(), self.name.clone())
    }

    /// Asks the object `asked` and reads its answer with `read`. An object that cannot be reached
    /// is [`Unavailable`](StoreErrorKind::Unavailable); one that answers [`Failure`] fails with its
    /// text; an answer this version does not read is [`Corrupt`](StoreErrorKind::Corrupt).
    fn call<'a, R, T>(
        &'a self,
        asked: R,
        read: impl FnOnce(R::Answer) -> Option<T> + 'a,
    ) -> BoxFuture<'a, std::result::Result<T, StoreError>>
    where
        R: Ask + Into<OutboxRequest> + 'a,
        T: Send + 'a,
    {
        Box::pin(SendWrapper::new(async move {
            let answer = self.rpc(&asked.into()).await.map_err(|e| {
                StoreError::new(
                    "durable object",
                    StoreErrorKind::Unavailable,
                    format!("the HostOutbox object cannot be reached: {e}"),
                )
            })?;
            if let Ok(Failure { error }) = Failure::deserialize(&answer) {
                return Err(StoreError::new(
                    "durable object",
                    StoreErrorKind::Other,
                    error,
                ));
            }
            let corrupt = || {
                StoreError::new(
                    "durable object",
                    StoreErrorKind::Corrupt,
                    format!(
                        "the HostOutbox object answered {answer}, which this version does not read"
                    ),
                )
            };
            match R::Answer::deserialize(&answer) {
                Ok(typed) => read(typed).ok_or_else(corrupt),
                Err(e) => Err(corrupt().with_source(e)),
            }
        }))
    }

    /// Posts `asked` to the object: its answer, as JSON.
    async fn rpc(&self, asked: &OutboxRequest) -> Result<Value> {
        let (status, text) = crate::ask_object(
            &self.namespace,
            &self.name,
            "https://host-outbox/",
            &serde_json::to_string(asked)?,
        )
        .await?;
        serde_json::from_str(&text).map_err(|_| {
            worker::Error::RustError(format!("the HostOutbox object answered {status}: {text}"))
        })
    }
}

/// The entries of an answer.
fn entries(answer: EntriesAnswer) -> Option<Vec<Entry>> {
    Some(answer.entries.into_iter().map(Entry::from).collect())
}

impl OutboxStore for DurableOutbox {
    fn name(&self) -> &'static str {
        "durable-object"
    }

    fn put(&self, entry: Entry) -> BoxFuture<'_, std::result::Result<Put, StoreError>> {
        let entry = match EntryRecord::try_from(&entry) {
            Ok(entry) => entry,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        self.call(PutRequest { entry }, |a| a.put.into_put(Some(())))
    }

    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Put<Entry>, StoreError>> {
        let entry = match EntryRecord::try_from(&entry) {
            Ok(entry) => entry,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        let asked = PutClaimedRequest {
            entry,
            lease_until,
            owner: owner.to_owned(),
        };
        self.call(asked, |a| match a.entry {
            None => a.put.into_put(None),
            Some(entry) => Some(Put::Stored(entry.into())),
        })
    }

    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<Entry>, StoreError>> {
        let asked = ClaimRequest {
            now,
            limit,
            lease_until,
            owner: owner.to_owned(),
        };
        self.call(asked, entries)
    }

    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<Entry>, StoreError>> {
        let asked = ClaimIdsRequest {
            ids: ids.to_vec(),
            now,
            lease_until,
            owner: owner.to_owned(),
        };
        self.call(asked, entries)
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        let asked = SettleRequest {
            id: id.to_owned(),
            owner: owner.to_owned(),
            settlement: settlement.into(),
        };
        self.call(asked, |a| Some(a.ok))
    }

    fn next_due(&self) -> BoxFuture<'_, std::result::Result<Option<i64>, StoreError>> {
        self.call(NextDueRequest {}, |a| Some(a.due))
    }

    fn list(
        &self,
        which: Which,
        limit: usize,
    ) -> BoxFuture<'_, std::result::Result<Vec<Entry>, StoreError>> {
        let asked = ListRequest {
            which: which.into(),
            limit,
        };
        self.call(asked, entries)
    }

    fn revive<'a>(
        &'a self,
        id: &'a str,
        now: i64,
    ) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        let asked = ReviveRequest {
            id: id.to_owned(),
            now,
        };
        self.call(asked, |a| Some(a.ok))
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, std::result::Result<bool, StoreError>> {
        self.call(DiscardRequest { id: id.to_owned() }, |a| Some(a.ok))
    }
}
