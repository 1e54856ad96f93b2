//! The stores in this process's memory: [`MemoryDedupe`] for event deduplication and
//! [`MemoryOutbox`] for the outbox. Nothing survives the process: for development, tests and a
//! single instance that accepts what a restart forgets.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;

use crate::platform::BoxFuture;
use crate::platform::rt::Instant;
use crate::stores::dedupe::{Claim, DedupeStore, WINDOW};
use crate::stores::outbox::{
    Destination, Entry, OutboxStore, Put, SENT_WINDOW, Settlement, StoreError, Which,
};

/// An outbox in memory, for development and tests. Events are retried as long as the
/// process lives and lost with it; use [`FileOutbox`](crate::outbox::FileOutbox) or
/// [`RedisOutbox`](crate::outbox::RedisOutbox) for events that must survive a restart.
///
/// What it keeps besides pending events is capped, so a long-lived process does not grow without
/// bound: the digests of delivered events (which make a second send of a delivered id a copy or a
/// conflict) for [`SENT_WINDOW`] and at most [`MemoryOutbox::MAX_DELIVERED`] of them, the oldest
/// forgotten first; dead letters, at most [`MemoryOutbox::MAX_DEAD`], the oldest dropped first
/// with a warning. [`with_limits`](Self::with_limits) sets other caps. Pending events are never
/// dropped: each leaves when it is delivered or dead.
pub struct MemoryOutbox {
    state: Mutex<State>,
    /// How long a delivered event's digest is kept: [`SENT_WINDOW`] but in tests.
    window: Duration,
    /// At most this many delivered events' digests.
    max_delivered: usize,
    /// At most this many dead letters.
    max_dead: usize,
}

impl Default for MemoryOutbox {
    fn default() -> Self {
        MemoryOutbox {
            state: Mutex::default(),
            window: SENT_WINDOW,
            max_delivered: MemoryOutbox::MAX_DELIVERED,
            max_dead: MemoryOutbox::MAX_DEAD,
        }
    }
}

#[derive(Default)]
struct State {
    /// Pending events and the owner of their claim (empty: none).
    pending: HashMap<String, (Entry, String)>,
    /// (due, id) of every pending event: the claim order.
    order: BTreeSet<(i64, String)>,
    /// Dead letters, each with its number in `died`.
    dead: HashMap<String, (u64, Entry)>,
    /// (number, id) of every dead letter, oldest first: the order they are dropped in past the cap.
    died: BTreeSet<(u64, String)>,
    /// The next dead letter's number.
    deaths: u64,
    /// The digest of each event delivered within the window, and when it is forgotten.
    sent: HashMap<String, ([u8; 32], i64)>,
    /// (forgotten at, id) of every entry of `sent`, to forget them in order.
    forget: BTreeSet<(i64, String)>,
}

impl State {
    fn unlink(&mut self, id: &str) -> Option<(Entry, String)> {
        let (entry, owner) = self.pending.remove(id)?;
        self.order.remove(&(entry.due, entry.id.clone()));
        Some((entry, owner))
    }

    fn link(&mut self, entry: Entry, owner: String) {
        self.order.insert((entry.due, entry.id.clone()));
        self.pending.insert(entry.id.clone(), (entry, owner));
    }

    /// Keeps `entry` as a dead letter, dropping the oldest past `max`.
    fn bury(&mut self, entry: Entry, max: usize) {
        self.exhume(&entry.id);
        let number = self.deaths;
        self.deaths += 1;
        self.died.insert((number, entry.id.clone()));
        self.dead.insert(entry.id.clone(), (number, entry));
        while self.dead.len() > max {
            let Some((_, oldest)) = self.died.pop_first() else {
                break;
            };
            self.dead.remove(&oldest);
            tracing::warn!(
                event_id = %oldest,
                kept = max,
                "the memory outbox dropped its oldest dead letter: it keeps at most this many"
            );
        }
    }

    /// Takes dead letter `id` out, if there is one.
    fn exhume(&mut self, id: &str) -> Option<Entry> {
        let (number, entry) = self.dead.remove(id)?;
        self.died.remove(&(number, entry.id.clone()));
        Some(entry)
    }

    /// Remembers that `id` with `digest` was delivered until `until`, forgetting the oldest
    /// delivered events past `max`.
    fn sent(&mut self, id: String, digest: [u8; 32], until: i64, max: usize) {
        if let Some((_, before)) = self.sent.insert(id.clone(), (digest, until)) {
            self.forget.remove(&(before, id.clone()));
        }
        self.forget.insert((until, id));
        while self.sent.len() > max {
            let Some((_, oldest)) = self.forget.pop_first() else {
                break;
            };
            self.sent.remove(&oldest);
        }
    }

    /// Forgets the delivered events whose window ended by `now`.
    fn forget_sent(&mut self, now: i64) {
        while let Some((until, id)) = self.forget.first().cloned() {
            if until > now {
                break;
            }
            self.forget.pop_first();
            if self.sent.get(&id).is_some_and(|(_, u)| *u == until) {
                self.sent.remove(&id);
            }
        }
    }

    /// What holds `entry`'s id, if anything does; else stores it for `owner`.
    fn put(&mut self, entry: Entry, owner: &str) -> Put {
        self.forget_sent(crate::stores::outbox::now_ms());
        // Digested only when the id is taken: a new id, the usual case, costs no digest.
        if let Some((found, _)) = self.pending.get(&entry.id) {
            return Put::found(&found.digest(), &entry.digest(), true);
        }
        if let Some((found, _)) = self.sent.get(&entry.id) {
            return Put::found(found, &entry.digest(), false);
        }
        self.exhume(&entry.id);
        self.link(entry, owner.to_owned());
        Put::Stored(())
    }
}

impl MemoryOutbox {
    /// How many delivered events' digests a store keeps at most, by default: past it, an id
    /// delivered earlier than the newest 100,000 takes any event again.
    pub const MAX_DELIVERED: usize = 100_000;

    /// How many dead letters a store keeps at most, by default.
    pub const MAX_DEAD: usize = 10_000;

    /// An empty store.
    pub fn new() -> Self {
        MemoryOutbox::default()
    }

    /// An empty store keeping at most `delivered` delivered events' digests and `dead` dead
    /// letters (each at least 1), the oldest forgotten first.
    pub fn with_limits(delivered: usize, dead: usize) -> Self {
        MemoryOutbox {
            max_delivered: delivered.max(1),
            max_dead: dead.max(1),
            ..MemoryOutbox::default()
        }
    }

    /// How many delivered events' digests and dead letters the store holds now.
    pub fn kept(&self) -> (usize, usize) {
        let state = self.state();
        (state.sent.len(), state.dead.len())
    }

    /// An empty store that keeps delivered events' digests for `window` (tests of the window).
    #[cfg(test)]
    pub(crate) fn with_window(window: Duration) -> Self {
        MemoryOutbox {
            window,
            ..MemoryOutbox::default()
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Each operation leaves the maps consistent before it can panic (it cannot): a poisoned
        // lock still guards whole data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn ready<T: Send + 'static>(value: T) -> BoxFuture<'static, T> {
    Box::pin(std::future::ready(value))
}

impl OutboxStore for MemoryOutbox {
    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
        ready(Ok(self.state().put(entry, "")))
    }

    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
        let leased = Entry {
            due: lease_until,
            ..entry.clone()
        };
        ready(Ok(self.state().put(leased, owner).map(|()| entry)))
    }

    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        let mut state = self.state();
        let due: Vec<String> = state
            .order
            .iter()
            .take_while(|(at, _)| *at <= now)
            .take(limit)
            .map(|(_, id)| id.clone())
            .collect();
        let mut claimed = Vec::with_capacity(due.len());
        for id in due {
            if let Some((mut entry, _)) = state.unlink(&id) {
                claimed.push(entry.clone());
                entry.due = lease_until;
                state.link(entry, owner.to_owned());
            }
        }
        ready(Ok(claimed))
    }

    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        let mut state = self.state();
        let mut claimed = Vec::new();
        for id in ids {
            if !matches!(state.pending.get(id.as_str()), Some((entry, _)) if entry.due <= now) {
                continue;
            }
            if let Some((mut entry, _)) = state.unlink(id) {
                claimed.push(entry.clone());
                entry.due = lease_until;
                state.link(entry, owner.to_owned());
            }
        }
        ready(Ok(claimed))
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = self.state();
        if !matches!(state.pending.get(id), Some((_, o)) if o == owner) {
            return ready(Ok(false));
        }
        let Some((mut entry, _)) = state.unlink(id) else {
            return ready(Ok(false));
        };
        match entry.settle(settlement) {
            Destination::Delivered => {
                let until = crate::stores::outbox::now_ms()
                    .saturating_add(crate::stores::outbox::millis(self.window));
                let digest = entry.digest();
                state.sent(entry.id, digest, until, self.max_delivered);
            }
            Destination::Pending => state.link(entry, String::new()),
            Destination::Dead => state.bury(entry, self.max_dead),
        }
        ready(Ok(true))
    }

    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        ready(Ok(self.state().order.first().map(|(at, _)| *at)))
    }

    fn list(&self, which: Which, limit: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        let state = self.state();
        let mut out: Vec<Entry> = match which {
            Which::Pending => state
                .order
                .iter()
                .take(limit)
                .filter_map(|(_, id)| state.pending.get(id).map(|(e, _)| e.clone()))
                .collect(),
            Which::Dead => state.dead.values().map(|(_, e)| e.clone()).collect(),
        };
        out.sort_by(|a, b| (a.due, &a.id).cmp(&(b.due, &b.id)));
        out.truncate(limit);
        ready(Ok(out))
    }

    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = self.state();
        let Some(mut entry) = state.exhume(id) else {
            return ready(Ok(false));
        };
        entry.attempts = 0;
        entry.due = now;
        state.link(entry, String::new());
        ready(Ok(true))
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = self.state();
        let found = state.unlink(id).is_some() | state.exhume(id).is_some();
        // A dropped event was never delivered: its id is free again, for any content.
        ready(Ok(found))
    }

    fn name(&self) -> &'static str {
        "memory"
    }

    fn backlog(&self) -> BoxFuture<'_, Result<crate::stores::outbox::Backlog, StoreError>> {
        let state = self.state();
        ready(Ok(crate::stores::outbox::Backlog {
            pending: state.pending.len() as u64,
            oldest_accepted: state.pending.values().map(|(e, _)| e.accepted).min(),
            dead: state.dead.len() as u64,
        }))
    }
}

/// The state of a key in a [`MemoryDedupe`].
enum Slot {
    InFlight { owner: String, done: Arc<Notify> },
    Done(Instant),
}

/// A map in this process: the store of development mode, or of a single instance that accepts
/// running an event again when a restart forgets its keys. Processed keys are forgotten after [`WINDOW`], oldest
/// first from a queue in the order they were recorded, so each claim costs a constant amortised
/// time however many keys the window holds. An in-flight claim lives until its attempt settles it;
/// the pipeline settles it however the attempt ends (also when the host gives up on the call).
///
/// At most [`MemoryDedupe::MAX_RECORDED`] processed keys are kept (about 15 MB), the oldest
/// forgotten first, so a long-lived process does not grow without bound; a delivery whose key was
/// forgotten runs again, as after a restart. [`with_capacity`](Self::with_capacity) sets another cap.
pub struct MemoryDedupe {
    state: Mutex<Memory>,
    /// At most this many processed keys.
    max_recorded: usize,
}

impl Default for MemoryDedupe {
    fn default() -> Self {
        MemoryDedupe {
            state: Mutex::default(),
            max_recorded: MemoryDedupe::MAX_RECORDED,
        }
    }
}

#[derive(Default)]
struct Memory {
    slots: HashMap<Arc<str>, Slot>,
    /// Recorded keys, oldest first, with when they were recorded: the same allocations as the
    /// map's keys, so the window holds each key once.
    recorded: VecDeque<(Instant, Arc<str>)>,
}

impl MemoryDedupe {
    /// How many processed keys a store keeps at most, by default.
    pub const MAX_RECORDED: usize = 100_000;

    /// An empty store.
    pub fn new() -> Self {
        MemoryDedupe::default()
    }

    /// An empty store keeping at most `recorded` processed keys (at least 1), the oldest
    /// forgotten first.
    pub fn with_capacity(recorded: usize) -> Self {
        MemoryDedupe {
            max_recorded: recorded.max(1),
            ..MemoryDedupe::default()
        }
    }

    fn claim_now(&self, key: &str, owner: &str) -> Claim {
        let Ok(mut memory) = self.state.lock() else {
            return Claim::Run;
        };
        let now = Instant::now();
        // Forget what left the window: the queue is in recording order, so this stops at the
        // first key still inside it.
        while let Some((at, _)) = memory.recorded.front() {
            if now.duration_since(*at) <= WINDOW {
                break;
            }
            if let Some((at, old)) = memory.recorded.pop_front()
                && matches!(memory.slots.get(&*old), Some(Slot::Done(t)) if *t == at)
            {
                memory.slots.remove(&*old);
            }
        }
        match memory.slots.get(key) {
            Some(Slot::Done(_)) => Claim::Done,
            Some(Slot::InFlight { done, .. }) => Claim::Wait(done.clone()),
            None => {
                memory.slots.insert(
                    Arc::from(key),
                    Slot::InFlight {
                        owner: owner.to_owned(),
                        done: Arc::new(Notify::new()),
                    },
                );
                Claim::Run
            }
        }
    }

    fn settle(&self, key: &str, owner: &str, processed: bool) {
        let Ok(mut memory) = self.state.lock() else {
            return;
        };
        let held =
            matches!(memory.slots.get(key), Some(Slot::InFlight { owner: o, .. }) if o == owner);
        if !held {
            return;
        }
        let previous = if processed {
            let at = Instant::now();
            // Taken out and put back rather than overwritten: `insert` would keep the map's old key
            // and the queue's copy would be a second allocation of it.
            let previous = memory.slots.remove_entry(key);
            let key = previous
                .as_ref()
                .map_or_else(|| Arc::from(key), |(k, _)| Arc::clone(k));
            memory.recorded.push_back((at, Arc::clone(&key)));
            memory.slots.insert(key, Slot::Done(at));
            while memory.recorded.len() > self.max_recorded {
                if let Some((at, old)) = memory.recorded.pop_front()
                    && matches!(memory.slots.get(&*old), Some(Slot::Done(t)) if *t == at)
                {
                    memory.slots.remove(&*old);
                }
            }
            previous.map(|(_, slot)| slot)
        } else {
            memory.slots.remove(key)
        };
        if let Some(Slot::InFlight { done, .. }) = previous {
            done.notify_waiters();
        }
    }

    /// Whether the attempt `owner` holds `key` (in flight, not recorded).
    #[cfg_attr(not(feature = "redb"), allow(dead_code))] // Only the file store asks.
    pub(crate) fn holds(&self, key: &str, owner: &str) -> bool {
        self.state.lock().is_ok_and(|memory| {
            matches!(memory.slots.get(key), Some(Slot::InFlight { owner: o, .. }) if o == owner)
        })
    }

    /// How many keys the store holds (in flight and recorded).
    pub fn len(&self) -> usize {
        self.state.lock().map_or(0, |m| m.slots.len())
    }

    /// Whether the store holds no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl DedupeStore for MemoryDedupe {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(std::future::ready(Ok(self.claim_now(key, owner))))
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, true);
        Box::pin(std::future::ready(()))
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, false);
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_recorded_key_is_held_once_by_the_map_and_the_queue() {
        let store = MemoryDedupe::new();
        assert!(matches!(store.claim("k", "a").await, Ok(Claim::Run)));
        store.complete("k", "a").await;
        let memory = store.state.lock().unwrap();
        let (in_map, _) = memory.slots.get_key_value("k").unwrap();
        let (_, in_queue) = memory.recorded.front().unwrap();
        assert!(Arc::ptr_eq(in_map, in_queue));
        assert_eq!(Arc::strong_count(in_map), 2);
    }

    #[tokio::test]
    async fn the_memory_store_keeps_the_store_contract() {
        let store = MemoryDedupe::new();
        assert_eq!(crate::testing::contract::dedupe_store(&store).await, Ok(()));
        // Every claim was settled: what is left is recorded, nothing is in flight.
        let memory = store.state.lock().unwrap();
        assert!(
            memory
                .slots
                .values()
                .all(|slot| matches!(slot, Slot::Done(_)))
        );
        assert_eq!(memory.recorded.len(), memory.slots.len());
    }

    #[tokio::test]
    async fn recorded_keys_are_forgotten_oldest_first_in_constant_time() {
        let store = MemoryDedupe::new();
        for i in 0..100_000 {
            let key = format!("k{i}");
            assert!(matches!(store.claim(&key, "a").await, Ok(Claim::Run)));
            store.complete(&key, "a").await;
        }
        assert_eq!(store.len(), 100_000);
        // Age every record past the window, then one claim clears them from the queue's front.
        {
            let mut memory = store.state.lock().unwrap();
            let old = Instant::now()
                .checked_sub(WINDOW + Duration::from_secs(1))
                .unwrap();
            let aged: Vec<(Instant, Arc<str>)> =
                memory.recorded.drain(..).map(|(_, k)| (old, k)).collect();
            for (at, key) in &aged {
                memory.slots.insert(key.clone(), Slot::Done(*at));
            }
            memory.recorded.extend(aged);
        }
        assert!(matches!(store.claim("k1", "b").await, Ok(Claim::Run)));
        assert_eq!(store.len(), 1, "only the new claim is left");
    }

    /// A million deliveries through a store capped at 1,000 keys: it never holds more, the newest
    /// are still recognised, and the oldest run again as after a restart.
    #[tokio::test]
    async fn a_million_deliveries_keep_the_dedupe_within_its_cap() {
        let store = MemoryDedupe::with_capacity(1_000);
        for i in 0..1_000_000u32 {
            let key = i.to_string();
            assert!(matches!(store.claim(&key, "a").await, Ok(Claim::Run)));
            store.complete(&key, "a").await;
        }
        assert_eq!(store.len(), 1_000);
        assert_eq!(store.state.lock().unwrap().recorded.len(), 1_000);
        assert!(matches!(store.claim("999999", "b").await, Ok(Claim::Done)));
        assert!(matches!(store.claim("999000", "b").await, Ok(Claim::Done)));
        assert!(matches!(store.claim("998999", "b").await, Ok(Claim::Run)));
    }

    /// A million events through an outbox capped at 1,000 digests and 100 dead letters: it never
    /// holds more, and what it still holds keeps its promises.
    #[tokio::test]
    async fn a_million_events_keep_the_memory_outbox_within_its_caps() {
        use crate::stores::outbox::{Put, Settlement};
        let store = MemoryOutbox::with_limits(1_000, 100);
        for i in 0..1_000_000u32 {
            let id = i.to_string();
            let body = id.as_bytes().to_vec();
            let put = store.put(Entry::new(&id, body, 0)).await.unwrap();
            assert_eq!(put, Put::Stored(()));
            let claimed = store.claim_ids(std::slice::from_ref(&id), 0, 1, "me").await;
            assert_eq!(claimed.unwrap().len(), 1);
            // One in ten dies (a 4xx), the rest are delivered.
            let settlement = if i % 10 == 0 {
                Settlement::Dead {
                    attempts: 1,
                    at: 0,
                    reason: "400".into(),
                }
            } else {
                Settlement::Delivered
            };
            assert!(store.settle(&id, "me", settlement).await.unwrap());
            if i % 100_000 == 0 {
                let (delivered, dead) = store.kept();
                assert!(
                    delivered <= 1_000 && dead <= 100,
                    "{delivered}, {dead} at {i}"
                );
            }
        }
        assert_eq!(store.kept(), (1_000, 100));
        assert_eq!(store.state().pending.len(), 0);
        // The newest delivered id is still one event; an old one takes any event again.
        let newest = Entry::new("999999", b"other".to_vec(), 0);
        assert_eq!(store.put(newest).await.unwrap(), Put::Conflict);
        let old = Entry::new("1", b"other".to_vec(), 0);
        assert_eq!(store.put(old).await.unwrap(), Put::Stored(()));
        let dead = store.list(Which::Dead, 1_000).await.unwrap();
        assert_eq!(dead.len(), 100);
        assert!(dead.iter().all(|e| e.id.parse::<u32>().unwrap() >= 999_000));
    }
}
