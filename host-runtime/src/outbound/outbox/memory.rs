//! [`MemoryOutbox`]: the outbox in this process's memory.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use super::{Destination, Entry, OutboxStore, Put, SENT_WINDOW, Settlement, StoreError, Which};
use crate::BoxFuture;

/// An outbox in memory: what a sender uses when given no store. Events are retried as long as the
/// process lives and lost with it; use [`FileOutbox`](super::FileOutbox) or
/// [`RedisOutbox`](super::RedisOutbox) for events that must survive a restart.
pub struct MemoryOutbox {
    state: Mutex<State>,
    /// How long a delivered event's digest is kept: [`SENT_WINDOW`] but in tests.
    window: Duration,
}

impl Default for MemoryOutbox {
    fn default() -> Self {
        MemoryOutbox {
            state: Mutex::default(),
            window: SENT_WINDOW,
        }
    }
}

#[derive(Default)]
struct State {
    /// Pending events and the owner of their claim (empty: none).
    pending: HashMap<String, (Entry, String)>,
    /// (due, id) of every pending event: the claim order.
    order: BTreeSet<(i64, String)>,
    dead: HashMap<String, Entry>,
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
        self.forget_sent(super::now_ms());
        // Digested only when the id is taken: a new id, the usual case, costs no digest.
        if let Some((found, _)) = self.pending.get(&entry.id) {
            return Put::found(&found.digest(), &entry.digest(), true);
        }
        if let Some((found, _)) = self.sent.get(&entry.id) {
            return Put::found(found, &entry.digest(), false);
        }
        self.dead.remove(&entry.id);
        self.link(entry, owner.to_owned());
        Put::Stored(())
    }
}

impl MemoryOutbox {
    /// An empty store.
    pub fn new() -> Self {
        MemoryOutbox::default()
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
                let until = super::now_ms().saturating_add(super::millis(self.window));
                state.sent.insert(entry.id.clone(), (entry.digest(), until));
                state.forget.insert((until, entry.id));
            }
            Destination::Pending => state.link(entry, String::new()),
            Destination::Dead => {
                state.dead.insert(entry.id.clone(), entry);
            }
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
            Which::Dead => state.dead.values().cloned().collect(),
        };
        out.sort_by(|a, b| (a.due, &a.id).cmp(&(b.due, &b.id)));
        out.truncate(limit);
        ready(Ok(out))
    }

    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = self.state();
        let Some(mut entry) = state.dead.remove(id) else {
            return ready(Ok(false));
        };
        entry.attempts = 0;
        entry.due = now;
        state.link(entry, String::new());
        ready(Ok(true))
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = self.state();
        let found = state.unlink(id).is_some() | state.dead.remove(id).is_some();
        // A dropped event was never delivered: its id is free again, for any content.
        ready(Ok(found))
    }
}
