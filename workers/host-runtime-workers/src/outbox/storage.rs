//! The outbox on a Durable Object's own storage: [`StorageOutbox`], what a `HostOutbox` object
//! serves to its [`DurableOutbox`](crate::DurableOutbox) stores and its alarm drains, and the
//! deduplication records it keeps for a store from `DurableOutbox::dedupe_store`.
//!
//! Storage layout, one object per outbox (per signing secret): `p:<id>` holds a pending event and
//! the owner of its claim, `q:<due>:<id>` orders pending events by when they are due (so a claim
//! reads only the due ones), `d:<id>` holds a dead letter, and `s:<id>` the digest of an event
//! delivered within the window (`host_runtime::outbox::SENT_WINDOW`), with `z:<minute>:<id>` the
//! minute its window ends in, when the alarm erases it. With
//! [`DurableOutbox::dedupe_store`](crate::DurableOutbox::dedupe_store), `k:<key>` holds a
//! delivery's deduplication record and `x:<minute>:<key>` the minute it ends in, when the alarm
//! erases it. Records are the JSON of [`wire`](crate::wire)'s record types; an index (`q`, `z`,
//! `x`) holds the id or key as a JSON string. Each store operation is one request to the object
//! that awaits nothing but its own storage, which the Workers runtime runs without interleaving
//! another request (its input gate) and commits at once.
//!
//! A stored event (`p`, `d`, `s`) this version cannot read counts as absent, as it did before the
//! records had types: a put then replaces it and a discard erases it, where failing on it would
//! keep it forever. A deduplication record (`k`) this version cannot read refuses its key's
//! requests instead (see [`crate::dedupe`]; the same [rules](crate::dedupe::rules) decide each
//! step as in a `HostDedupe` object), until the alarm erases it.

use std::cell::Cell;

use host_runtime::BoxFuture;
use host_runtime::outbox::{
    Destination, Entry, OutboxStore, Put, SENT_WINDOW, Settlement, StoreError, StoreErrorKind,
    Which,
};
use host_runtime::serde_json;
use send_wrapper::SendWrapper;
use serde::Serialize;
use serde::de::DeserializeOwned;
use worker::{ListOptions, Result, Storage};

use crate::clock::{at, millis, now_ms};
use crate::dedupe::rules::{Change, decide, unreadable};
use crate::wire::{
    DedupeAnswer, DedupeRecord, Ends, EntryRecord, KeptDedupeRequest, PendingRecord, SentRecord,
};

/// An [`OutboxStore`] on a Durable Object's own storage: what a `HostOutbox` object serves and
/// its alarm drains.
pub(super) struct StorageOutbox {
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

/// A digest in lowercase hex, as `s:` records keep it.
fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
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
pub(super) fn failed(e: worker::Error) -> StoreError {
    StoreError::new(
        "durable object",
        StoreErrorKind::Unavailable,
        format!("the object's storage failed: {e}"),
    )
}

impl StorageOutbox {
    pub(super) fn new(storage: Storage) -> Self {
        StorageOutbox {
            storage: SendWrapper::new(storage),
            wake: SendWrapper::new(Cell::new(None)),
        }
    }

    /// Notes that something written is due at `at`.
    pub(super) fn due_at(&self, at: i64) {
        let wake = self.wake.get().map_or(at, |wake| wake.min(at));
        self.wake.set(Some(wake));
    }

    /// The earliest time something written through this store is due, which the alarm must now
    /// cover; the store forgets it.
    pub(super) fn take_wake(&self) -> Option<i64> {
        Cell::take(&self.wake)
    }

    /// When the object's alarm rings, if it is set.
    pub(super) async fn alarm_at(&self) -> Result<Option<i64>> {
        self.storage.get_alarm().await
    }

    /// The text stored at `key`.
    async fn read_text(&self, key: &str) -> Result<Option<String>> {
        self.storage.get::<String>(key).await
    }

    /// The record stored at `key`; one this version cannot read counts as absent (see the module
    /// documentation).
    async fn read<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        Ok(self
            .read_text(key)
            .await?
            .and_then(|text| serde_json::from_str(&text).ok()))
    }

    async fn write<T: Serialize + ?Sized>(&self, key: &str, value: &T) -> Result<()> {
        self.storage.put(key, serde_json::to_string(value)?).await
    }

    /// The keys and texts of one listing, in key order.
    async fn listing(&self, options: ListOptions<'_>) -> Result<Vec<(String, String)>> {
        let map = self.storage.list_with_options(options).await?;
        let mut out = Vec::new();
        map.for_each(&mut |value, key| {
            if let (Some(key), Some(value)) = (key.as_string(), value.as_string()) {
                out.push((key, value));
            }
        });
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The ids (or keys) of one listing of an index, in key order; one this version cannot read
    /// is left out.
    async fn names(&self, options: ListOptions<'_>) -> Result<Vec<(String, String)>> {
        Ok(self
            .listing(options)
            .await?
            .into_iter()
            .filter_map(|(key, text)| Some((key, serde_json::from_str(&text).ok()?)))
            .collect())
    }

    /// A pending event and the owner of its claim.
    async fn pending(&self, id: &str) -> Result<Option<(Entry, String)>> {
        Ok(self
            .read::<PendingRecord>(&pending_key(id))
            .await?
            .map(|record| (record.entry.into(), record.owner)))
    }

    async fn link(&self, entry: &Entry, owner: &str) -> std::result::Result<(), StoreError> {
        self.due_at(entry.due);
        let record = PendingRecord {
            entry: EntryRecord::try_from(entry)?,
            owner: owner.to_owned(),
        };
        self.write(&pending_key(&entry.id), &record)
            .await
            .map_err(failed)?;
        self.write(&order_key(entry.due, &entry.id), &entry.id)
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
        if let Some(sent) = self
            .read::<SentRecord>(&sent_key(&entry.id))
            .await
            .map_err(failed)?
            && sent.until > now_ms()
        {
            let given = hex(&entry.digest());
            return Ok(Put::found(sent.digest.as_str(), given.as_str(), false));
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
        let until = now_ms().saturating_add(millis(SENT_WINDOW));
        let key = sent_key(&entry.id);
        if let Some(old) = self.read::<SentRecord>(&key).await? {
            self.storage
                .delete(&timed_key('z', end_minute(old.until), &entry.id))
                .await?;
        }
        let record = SentRecord {
            digest: hex(&entry.digest()),
            until,
        };
        self.write(&key, &record).await?;
        self.write(&timed_key('z', end_minute(until), &entry.id), &entry.id)
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
    pub(super) async fn arm(&self, known: &Cell<Option<Option<i64>>>) -> Result<()> {
        let Some(wake) = self.take_wake() else {
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
    pub(super) async fn rearm(
        &self,
        events: bool,
        known: &Cell<Option<Option<i64>>>,
    ) -> Result<()> {
        self.take_wake();
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
    /// Serves a deduplication step on the record of its key, kept beside the events: the
    /// answer, or why the request is refused (the record cannot be read).
    pub(super) async fn dedupe(
        &self,
        asked: &KeptDedupeRequest,
    ) -> Result<std::result::Result<DedupeAnswer, String>> {
        let key = asked.key.as_str();
        let at_key = record_key(key);
        let record = match self
            .read_text(&at_key)
            .await?
            .map(|text| serde_json::from_str::<DedupeRecord>(&text))
            .transpose()
        {
            Ok(record) => record,
            Err(e) => return Ok(Err(unreadable(&e))),
        };
        let (answer, change) = decide(
            record.as_ref(),
            asked.dedupe,
            &asked.owner,
            asked.lease,
            now_ms(),
        );
        let old = record.as_ref().map(|r| ends_key(r.until(), key));
        match change {
            Change::None => {}
            Change::Write(record) => {
                let until = record.until();
                let new = ends_key(until, key);
                if let Some(old) = old.filter(|old| *old != new) {
                    self.storage.delete(&old).await?;
                }
                self.write(&at_key, &record).await?;
                self.write(&new, key).await?;
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
    pub(super) async fn sweep(&self, now: i64) -> Result<usize> {
        // Delivered events whose window ended go too; only deduplication records are counted.
        self.sweep_index::<SentRecord>('z', sent_key, now).await?;
        self.sweep_index::<DedupeRecord>('x', record_key, now).await
    }

    /// Erases the records `R` of the timed index `index` (record `key_of(name)` for each) that
    /// ended by `now`, or that this version cannot read; how many.
    async fn sweep_index<R: Ends>(
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
            if let Ok(name) = serde_json::from_str::<String>(&name) {
                let at_key = key_of(&name);
                // A record renewed since is indexed again under its new end: only the index goes.
                if self
                    .read::<R>(&at_key)
                    .await?
                    .is_none_or(|r| r.until() <= now)
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
    pub(super) async fn records(&self) -> Result<usize> {
        Ok(self.listing(ListOptions::new().prefix("k:")).await?.len())
    }
}

impl OutboxStore for StorageOutbox {
    fn name(&self) -> &'static str {
        "durable-object-storage"
    }

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
                .names(ListOptions::new().start("q:").end(&end).limit(limit))
                .await
                .map_err(failed)?;
            let mut claimed = Vec::with_capacity(due.len());
            for (_, id) in due {
                let Some((entry, _)) = self.pending(&id).await.map_err(failed)? else {
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
            match entry.settle(settlement) {
                Destination::Delivered => self.remember_sent(&entry).await.map_err(failed)?,
                Destination::Pending => self.link(&entry, "").await?,
                Destination::Dead => {
                    self.write(&dead_key(id), &EntryRecord::try_from(&entry)?)
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
                        .names(ListOptions::new().prefix("q:").limit(limit))
                        .await
                        .map_err(failed)?;
                    for (_, id) in order {
                        if let Some((entry, _)) = self.pending(&id).await.map_err(failed)? {
                            out.push(entry);
                        }
                    }
                }
                Which::Dead => {
                    let dead = self
                        .listing(ListOptions::new().prefix("d:"))
                        .await
                        .map_err(failed)?;
                    out.extend(dead.iter().filter_map(|(_, text)| {
                        serde_json::from_str::<EntryRecord>(text)
                            .ok()
                            .map(Entry::from)
                    }));
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
                .read::<EntryRecord>(&dead_key(id))
                .await
                .map_err(failed)?
                .map(Entry::from)
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
