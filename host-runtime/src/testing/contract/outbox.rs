//! The [`OutboxStore`](crate::outbox::OutboxStore) contract: what the outbox's dispatchers and
//! senders rely on from any outbox store, checked promise by promise.

use super::{Violation, answered, expect};
use crate::outbox::{Entry, OutboxStore, Put, Settlement, Which};

/// 2100-01-01T00:00:00Z in Unix milliseconds: the contract's times are a few seconds after it.
pub const BASE: i64 = 4_102_444_800_000;

/// `offset` milliseconds after [`BASE`].
fn t(offset: i64) -> i64 {
    BASE + offset
}

/// The contract's event number `n`: a body of three bytes.
fn body(n: u8) -> Vec<u8> {
    vec![b'{', n, b'}']
}

/// An envelope as a sender signs it, with its `occurredAt`, `build` and `payload` (JSON).
fn envelope(at: &str, build: &str, payload: &str) -> Vec<u8> {
    format!(
        r#"{{"event":"e","source":"i","occurredAt":"{at}","build":{build},"dedupeKey":"j","payload":{payload}}}"#
    )
    .into_bytes()
}

/// The ids of `entries`, in their order.
fn ids(entries: &[Entry]) -> Vec<String> {
    entries.iter().map(|e| e.id.clone()).collect()
}

/// Drives `store`, which must be empty, through the outbox contract and returns the first promise
/// it breaks:
///
/// 1. one id is one event: `put` of an id that is pending answers whether it is the same event
///    (by [`Entry::digest`]: `occurredAt`, `build` and the order of members aside) or another,
///    and stores nothing then;
/// 2. `claim` takes due events earliest first within its limit and hides them from every claimer
///    until the lease ends; `next_due` counts a claimed event at its lease's end;
/// 3. only the holder of a claim settles it, and a delivered event is gone;
/// 4. `put` of an id that was delivered answers whether it is the same event or another, and
///    stores nothing then;
/// 5. a retry keeps the attempts, due time and error;
/// 6. `claim_ids` takes only the named events that are due and unclaimed;
/// 7. a lease that ran out passes the event to the next claimer, and its former holder can no
///    longer settle it;
/// 8. dead letters are listed with their id, attempts and body, and left alone by `claim_ids`;
/// 9. a dead letter is revived due at once with no attempts counted;
/// 10. `put` of an id whose event is dead replaces the dead letter;
/// 11. `discard` removes an event for good: a dropped event's id takes any event;
/// 12. `put_claimed` stores an event under its sender's claim, hidden from every claimer until
///     the lease ends and settled by its holder; an id pending or delivered keeps its event and
///     claims nothing;
/// 13. `settle_all` answers each settlement as `settle` would, in order;
/// 14. `next_due` follows all of it: with nothing left pending, it is none.
///
/// The times are made up, a few seconds apart in the year 2100 ([`BASE`] plus 100, 1 000, 5 000
/// milliseconds): a store must take the times it is given, and no dispatcher draining the same
/// store at the real time (a Durable Object's alarm, a background task) finds them due meanwhile.
pub async fn outbox_store(store: &dyn OutboxStore) -> Result<(), Violation> {
    let run = Run { store };
    run.one_id_is_one_event().await?;
    run.claims_take_due_events_earliest_first().await?;
    run.only_the_holder_settles().await?;
    run.a_delivered_id_is_one_event().await?;
    run.a_retry_keeps_its_attempts_due_time_and_error().await?;
    run.claims_by_id_take_named_due_events().await?;
    run.a_lease_that_ran_out_passes_the_event_on().await?;
    run.dead_letters_are_kept().await?;
    run.dead_letters_are_revived().await?;
    run.a_dead_letter_gives_its_id_up().await?;
    run.discarded_events_are_gone().await?;
    run.put_claimed_stores_under_the_senders_claim().await?;
    run.settle_all_settles_each_in_order().await?;
    run.nothing_is_left().await
}

/// One run of the contract: its store.
struct Run<'a> {
    store: &'a dyn OutboxStore,
}

impl Run<'_> {
    /// Puts `entry`, expecting `expected`; `asked` names the call when the store fails it.
    async fn expect_put(
        &self,
        asked: &'static str,
        step: &'static str,
        entry: Entry,
        expected: Put,
    ) -> Result<(), Violation> {
        let put = answered(asked, self.store.put(entry).await)?;
        expect(step, put, expected)
    }

    /// Claims up to `limit` events due at `now` for `owner` until `lease_until`.
    async fn claim(
        &self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &str,
    ) -> Result<Vec<Entry>, Violation> {
        answered(
            "claim",
            self.store.claim(now, limit, lease_until, owner).await,
        )
    }

    /// Claims those of `named` due at `now` for `owner` until `lease_until`.
    async fn claim_ids(
        &self,
        named: &[String],
        now: i64,
        lease_until: i64,
        owner: &str,
    ) -> Result<Vec<Entry>, Violation> {
        let claimed = self.store.claim_ids(named, now, lease_until, owner).await;
        answered("claim_ids", claimed)
    }

    /// Settles `id` for `owner`; `asked` names the call when the store fails it.
    async fn settle(
        &self,
        asked: &'static str,
        id: &str,
        owner: &str,
        settlement: Settlement,
    ) -> Result<bool, Violation> {
        answered(asked, self.store.settle(id, owner, settlement).await)
    }

    /// Expects `next_due` to be `expected`.
    async fn expect_next_due(
        &self,
        step: &'static str,
        expected: Option<i64>,
    ) -> Result<(), Violation> {
        let next = answered("next_due", self.store.next_due().await)?;
        expect(step, next, expected)
    }

    /// The first ten events of one list.
    async fn list(&self, which: Which) -> Result<Vec<Entry>, Violation> {
        let asked = match which {
            Which::Pending => "list pending",
            Which::Dead => "list dead",
        };
        answered(asked, self.store.list(which, 10).await)
    }

    /// Discards `id`, expecting `expected`.
    async fn expect_discard(
        &self,
        step: &'static str,
        id: &str,
        expected: bool,
    ) -> Result<(), Violation> {
        let dropped = answered("discard", self.store.discard(id).await)?;
        expect(step, dropped, expected)
    }

    /// Promise 1: a pending id is one event, the same whatever its envelope's `occurredAt`,
    /// `build` and order of members; a put under it stores nothing and the first event is kept.
    async fn one_id_is_one_event(&self) -> Result<(), Violation> {
        let stored = "put stores a new event";
        for (id, n, at) in [("b", 2, t(200)), ("a", 1, t(100)), ("late", 3, t(10_000))] {
            let event = Entry::new(id, body(n), at);
            self.expect_put(stored, stored, event, Put::Stored(()))
                .await?;
        }
        self.expect_put(
            "put of a pending id",
            "put of a pending id with the same content stores nothing and answers AlreadyPending",
            Entry::new("a", body(1), t(50)),
            Put::AlreadyPending,
        )
        .await?;
        self.expect_put(
            "put of a pending id",
            "put of a pending id with other content stores nothing and answers Conflict",
            Entry::new("a", body(9), t(50)),
            Put::Conflict,
        )
        .await?;
        let envelopes = [
            (
                stored,
                envelope(
                    "2100-01-01T00:00:00Z",
                    "\"1.0\"",
                    r#"{"a":1,"b":[1,{"c":2,"d":3}]}"#,
                ),
                Put::Stored(()),
            ),
            (
                "an envelope that differs only in occurredAt, build and the order of members is the same event",
                envelope(
                    "2100-01-01T00:05:00Z",
                    "null",
                    r#"{"b":[1,{"d":3,"c":2}],"a":1}"#,
                ),
                Put::AlreadyPending,
            ),
            (
                "an envelope whose payload differs is another event",
                envelope(
                    "2100-01-01T00:00:00Z",
                    "\"1.0\"",
                    r#"{"a":1,"b":[{"c":2,"d":3},1]}"#,
                ),
                Put::Conflict,
            ),
        ];
        for (step, envelope, expected) in envelopes {
            let event = Entry::new("j", envelope, t(20_000));
            self.expect_put("put an envelope", step, event, expected)
                .await?;
        }
        let pending = self.list(Which::Pending).await?;
        expect(
            "put of a pending id keeps the first event",
            pending
                .iter()
                .find(|e| e.id == "a")
                .map(|e| (e.body.clone(), e.due)),
            Some((body(1), t(100))),
        )
    }

    /// Promise 2: `claim` takes the due events earliest first and hides them from every claimer
    /// until the lease ends; `next_due` is the earliest due time, counting a claimed event at its
    /// lease's end.
    async fn claims_take_due_events_earliest_first(&self) -> Result<(), Violation> {
        self.expect_next_due("next_due is the earliest due time", Some(t(100)))
            .await?;
        let claimed = self.claim(t(1_000), 10, t(5_000), "one").await?;
        expect(
            "claim takes the due events, earliest first, and not one due later",
            ids(&claimed),
            vec!["a".to_owned(), "b".to_owned()],
        )?;
        expect(
            "claim returns the first body put",
            claimed[0].body.clone(),
            body(1),
        )?;
        let again = self.claim(t(4_999), 10, t(9_000), "two").await?;
        expect(
            "a claimed event is hidden from every claimer until its lease ends",
            ids(&again),
            vec![],
        )?;
        self.expect_next_due(
            "next_due counts a claimed event at its lease's end",
            Some(t(5_000)),
        )
        .await
    }

    /// Promise 3: only the holder of a claim settles it, and a delivered event is gone.
    async fn only_the_holder_settles(&self) -> Result<(), Violation> {
        let settled = self
            .settle("settle", "a", "two", Settlement::Delivered)
            .await?;
        expect(
            "settle by another than the holder answers false",
            settled,
            false,
        )?;
        let settled = self
            .settle("settle", "a", "one", Settlement::Delivered)
            .await?;
        expect("settle by the holder answers true", settled, true)?;
        let settled = self
            .settle("settle", "a", "one", Settlement::Delivered)
            .await?;
        expect(
            "a delivered event is gone: settling it again answers false",
            settled,
            false,
        )
    }

    /// Promise 4: an id delivered just now is still one event: a put under it stores nothing.
    async fn a_delivered_id_is_one_event(&self) -> Result<(), Violation> {
        self.expect_put(
            "put of a delivered id",
            "put of an id delivered just now with the same content stores nothing and answers AlreadyDelivered",
            Entry::new("a", body(1), t(1_000)),
            Put::AlreadyDelivered,
        )
        .await?;
        self.expect_put(
            "put of a delivered id",
            "put of an id delivered just now with other content answers Conflict",
            Entry::new("a", body(9), t(1_000)),
            Put::Conflict,
        )
        .await?;
        let claimed = self
            .claim_ids(&["a".to_owned()], t(1_000), t(2_000), "one")
            .await?;
        expect(
            "nothing was stored for a delivered id",
            ids(&claimed),
            vec![],
        )
    }

    /// Promise 5: a retry keeps its attempts, due time and error, among the pending events.
    async fn a_retry_keeps_its_attempts_due_time_and_error(&self) -> Result<(), Violation> {
        let retry = Settlement::Retry {
            attempts: 1,
            due: t(300),
            error: "status 503".into(),
        };
        let settled = self.settle("settle a retry", "b", "one", retry).await?;
        expect("settle a retry by the holder answers true", settled, true)?;
        let pending = self.list(Which::Pending).await?;
        expect("list shows every pending event", pending.len(), 3)?;
        expect(
            "a retry keeps its attempts, due time and error",
            (
                pending[0].id.as_str(),
                pending[0].attempts,
                pending[0].due,
                pending[0].last_error.as_deref(),
            ),
            ("b", 1, t(300), Some("status 503")),
        )
    }

    /// Promise 6: `claim_ids` takes only the named events that are due and not under another's
    /// claim.
    async fn claims_by_id_take_named_due_events(&self) -> Result<(), Violation> {
        let named = ["b".to_owned(), "late".to_owned(), "unknown".to_owned()];
        let claimed = self.claim_ids(&named, t(400), t(600), "one").await?;
        expect(
            "claim_ids takes the named due events only (not one due later, not an unknown id)",
            ids(&claimed),
            vec!["b".to_owned()],
        )?;
        let again = self.claim_ids(&named, t(500), t(900), "two").await?;
        expect(
            "claim_ids leaves an event under another's claim alone",
            ids(&again),
            vec![],
        )
    }

    /// Promise 7: when a lease runs out another dispatcher takes the event, and the first can no
    /// longer settle it.
    async fn a_lease_that_ran_out_passes_the_event_on(&self) -> Result<(), Violation> {
        let claimed = self.claim(t(700), 1, t(900), "two").await?;
        expect(
            "a lease that ran out passes the event on",
            ids(&claimed),
            vec!["b".to_owned()],
        )?;
        let settled = self
            .settle("settle", "b", "one", Settlement::Delivered)
            .await?;
        expect(
            "the holder of a lease that ran out can no longer settle",
            settled,
            false,
        )
    }

    /// Promise 8: a dead letter is listed with its id, attempts and body, and `claim_ids` leaves
    /// it alone.
    async fn dead_letters_are_kept(&self) -> Result<(), Violation> {
        let dead = Settlement::Dead {
            attempts: 2,
            at: t(800),
            reason: "refused with 422".into(),
        };
        let settled = self
            .settle("settle a dead letter", "b", "two", dead)
            .await?;
        expect(
            "settle a dead letter by the holder answers true",
            settled,
            true,
        )?;
        let dead = self.list(Which::Dead).await?;
        expect(
            "a dead letter keeps its id, attempts and body",
            dead.iter()
                .map(|e| (e.id.as_str(), e.attempts, e.body.clone()))
                .collect::<Vec<_>>(),
            vec![("b", 2, body(2))],
        )?;
        let named = ["b".to_owned(), "late".to_owned(), "unknown".to_owned()];
        let claimed = self.claim_ids(&named, t(10_000), t(20_000), "one").await?;
        expect(
            "claim_ids leaves a dead letter alone",
            ids(&claimed),
            vec!["late".to_owned()],
        )?;
        let retry = Settlement::Retry {
            attempts: 1,
            due: t(10_000),
            error: "status 500".into(),
        };
        let settled = self.settle("settle", "late", "one", retry).await?;
        expect("settle a retry by the holder answers true", settled, true)
    }

    /// Promise 9: a dead letter is revived once, due at once with no attempts counted.
    async fn dead_letters_are_revived(&self) -> Result<(), Violation> {
        let revived = answered("revive", self.store.revive("b", t(1_000)).await)?;
        expect("revive of a dead letter answers true", revived, true)?;
        let revived = answered("revive", self.store.revive("b", t(1_000)).await)?;
        expect(
            "revive of an id that is not dead answers false",
            revived,
            false,
        )?;
        let dead = self.list(Which::Dead).await?;
        expect("a revived event is no longer dead", dead.len(), 0)?;
        let claimed = self.claim(t(1_000), 10, t(2_000), "one").await?;
        expect(
            "a revived event is due at once with no attempts counted",
            claimed
                .iter()
                .map(|e| (e.id.as_str(), e.attempts))
                .collect::<Vec<_>>(),
            vec![("b", 0)],
        )
    }

    /// Promise 10: a dead letter gives its id up to the next event sent under it, whatever it
    /// says.
    async fn a_dead_letter_gives_its_id_up(&self) -> Result<(), Violation> {
        let dead = Settlement::Dead {
            attempts: 1,
            at: t(1_000),
            reason: "refused with 400".into(),
        };
        let settled = self
            .settle("settle a dead letter", "b", "one", dead)
            .await?;
        expect(
            "settle a dead letter by the holder answers true",
            settled,
            true,
        )?;
        self.expect_put(
            "put of a dead id",
            "put of an id whose event is dead stores the new event",
            Entry::new("b", body(7), t(1_000)),
            Put::Stored(()),
        )
        .await?;
        let dead = self.list(Which::Dead).await?;
        expect("the new event replaced the dead letter", ids(&dead), vec![])
    }

    /// Promise 11: a discarded event is gone for good, and was never delivered: its id takes
    /// any event; discarding an unknown id answers false.
    async fn discarded_events_are_gone(&self) -> Result<(), Violation> {
        let discarded = "discard of a pending event answers true";
        self.expect_discard(discarded, "b", true).await?;
        self.expect_put(
            "put of a dropped id",
            "a dropped event was never delivered: its id takes any event",
            Entry::new("b", body(8), t(1_000)),
            Put::Stored(()),
        )
        .await?;
        for id in ["b", "j", "late"] {
            self.expect_discard(discarded, id, true).await?;
        }
        self.expect_discard("discard of an unknown id answers false", "late", false)
            .await
    }

    /// Promise 12: an event stored already claimed, for a sender about to attempt it, is hidden
    /// from other claimers until the lease ends and settled by its holder; an id already pending
    /// or delivered keeps its event and is not claimed.
    async fn put_claimed_stores_under_the_senders_claim(&self) -> Result<(), Violation> {
        let put_claimed = |n: u8, at: i64, lease_until: i64, owner: &'static str| async move {
            let event = Entry::new("c", body(n), at);
            let put = self.store.put_claimed(event, lease_until, owner).await;
            answered("put_claimed", put)
        };
        expect(
            "put_claimed stores a new event and answers it as stored",
            put_claimed(4, t(1_000), t(3_000), "one")
                .await?
                .map(|e| (e.id, e.body, e.due, e.attempts)),
            Put::Stored(("c".to_owned(), body(4), t(1_000), 0)),
        )?;
        expect(
            "put_claimed of a pending id with the same content claims nothing and answers AlreadyPending",
            put_claimed(4, t(1_000), t(3_000), "two")
                .await?
                .map(|e| e.id),
            Put::AlreadyPending,
        )?;
        expect(
            "put_claimed of a pending id with other content answers Conflict",
            put_claimed(5, t(1_000), t(3_000), "two")
                .await?
                .map(|e| e.id),
            Put::Conflict,
        )?;
        let claimed = self.claim(t(2_000), 10, t(4_000), "two").await?;
        expect(
            "an event put claimed is hidden from every claimer until its lease ends",
            ids(&claimed),
            vec![],
        )?;
        self.expect_next_due(
            "next_due counts an event put claimed at its lease's end",
            Some(t(3_000)),
        )
        .await?;
        let settled = self
            .settle("settle", "c", "one", Settlement::Delivered)
            .await?;
        expect(
            "the holder of an event put claimed settles it",
            settled,
            true,
        )?;
        expect(
            "put_claimed of an id delivered just now with the same content answers AlreadyDelivered",
            put_claimed(4, t(4_000), t(6_000), "two")
                .await?
                .map(|e| e.id),
            Put::AlreadyDelivered,
        )
    }

    /// Promise 13: `settle_all` answers each settlement as `settle` would, in order: the holder's
    /// are settled (delivered, retried, dead), another owner's and an unknown id's are not.
    /// Leaves nothing pending.
    async fn settle_all_settles_each_in_order(&self) -> Result<(), Violation> {
        let stored = "put stores a new event";
        for (id, n) in [("s1", 11), ("s2", 12), ("s3", 13), ("s4", 14)] {
            let event = Entry::new(id, body(n), t(20_000));
            self.expect_put("put", stored, event, Put::Stored(()))
                .await?;
        }
        let claimed = self.claim(t(20_000), 3, t(30_000), "one").await?;
        expect("claim takes three of four", claimed.len(), 3)?;
        let theirs = self.claim(t(20_000), 3, t(30_000), "two").await?;
        expect("another claimer takes the fourth", theirs.len(), 1)?;
        let retry = Settlement::Retry {
            attempts: 1,
            due: t(25_000),
            error: "503".to_owned(),
        };
        let settlements = [
            ("s1".to_owned(), Settlement::Delivered),
            ("s4".to_owned(), Settlement::Delivered),
            ("s2".to_owned(), retry),
            ("unknown".to_owned(), Settlement::Delivered),
            ("s3".to_owned(), Settlement::Delivered),
        ];
        let answers: Result<Vec<bool>, _> = self
            .store
            .settle_all("one", &settlements)
            .await
            .into_iter()
            .collect();
        expect(
            "settle_all answers each settlement in order: the holder's settle, another's and an unknown id do not",
            answered("settle_all", answers)?,
            vec![true, false, true, false, true],
        )?;
        self.expect_put(
            "put",
            "an event settled as delivered by settle_all is remembered as delivered",
            Entry::new("s1", body(11), t(21_000)),
            Put::AlreadyDelivered,
        )
        .await?;
        let retried = self.claim(t(25_000), 10, t(40_000), "one").await?;
        expect(
            "an event settled as a retry by settle_all is due again at its new time, with its attempt",
            retried
                .iter()
                .map(|e| (e.id.clone(), e.attempts))
                .collect::<Vec<_>>(),
            vec![("s2".to_owned(), 1)],
        )?;
        for (id, owner) in [("s2", "one"), ("s4", "two")] {
            let settled = self
                .settle("settle", id, owner, Settlement::Delivered)
                .await?;
            expect("the holder settles what is left", settled, true)?;
        }
        Ok(())
    }

    /// Promise 14: with every event settled or discarded, nothing is pending and `next_due` is
    /// none.
    async fn nothing_is_left(&self) -> Result<(), Violation> {
        let pending = self.list(Which::Pending).await?;
        expect("nothing is left pending", pending.len(), 0)?;
        self.expect_next_due("next_due of an empty store is none", None)
            .await
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use super::*;
    use crate::outbox::{MemoryOutbox, StoreError, StoreErrorKind};
    use crate::platform::BoxFuture;

    /// Which call a [`Sabotaged`] store spoils, counted from 1.
    #[derive(Debug, Clone, Copy)]
    enum At {
        /// The `n`th call of any method.
        Call(usize),
        /// The `n`th call of one method.
        CallOf(&'static str, usize),
    }

    /// How a [`Sabotaged`] store spoils its call.
    #[derive(Debug, Clone, Copy)]
    enum Spoil {
        /// The call fails with a store error.
        Fail,
        /// The call answers otherwise than the memory store did.
        Lie,
    }

    /// The memory store, spoiling one call.
    struct Sabotaged {
        store: MemoryOutbox,
        at: At,
        spoil: Spoil,
        /// Calls so far: of all methods (`""`) and of each.
        calls: Mutex<HashMap<&'static str, usize>>,
    }

    impl Sabotaged {
        fn new(at: At, spoil: Spoil) -> Self {
            Sabotaged {
                store: MemoryOutbox::new(),
                at,
                spoil,
                calls: Mutex::default(),
            }
        }

        fn calls(&self) -> usize {
            self.calls.lock().unwrap().get("").copied().unwrap_or(0)
        }

        /// The answer of a call of `method`, spoiled when it is the one: failed, or replaced by
        /// `lie`.
        fn answer<T>(
            &self,
            method: &'static str,
            answer: Result<T, StoreError>,
            lie: impl FnOnce(T) -> T,
        ) -> Result<T, StoreError> {
            let mut calls = self.calls.lock().unwrap();
            let mut count = |key| {
                let n = calls.entry(key).or_insert(0);
                *n += 1;
                *n
            };
            let (all, of_method) = (count(""), count(method));
            let spoiled = match self.at {
                At::Call(n) => all == n,
                At::CallOf(m, n) => m == method && of_method == n,
            };
            match (spoiled, self.spoil) {
                (false, _) => answer,
                (true, Spoil::Fail) => Err(StoreError::new(
                    "sabotaged",
                    StoreErrorKind::Other,
                    "spoiled",
                )),
                (true, Spoil::Lie) => answer.map(lie),
            }
        }
    }

    fn other_put<T>(put: Put<T>) -> Put<T> {
        match put {
            Put::Stored(_) => Put::Conflict,
            Put::Conflict | Put::AlreadyDelivered => Put::AlreadyPending,
            Put::AlreadyPending => Put::AlreadyDelivered,
        }
    }

    fn other_entries(mut entries: Vec<Entry>) -> Vec<Entry> {
        if entries.pop().is_none() {
            entries.push(Entry::new("invented", b"{}".to_vec(), BASE));
        }
        entries
    }

    impl OutboxStore for Sabotaged {
        fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
            Box::pin(async move { self.answer("put", self.store.put(entry).await, other_put) })
        }
        fn claim<'a>(
            &'a self,
            now: i64,
            limit: usize,
            lease_until: i64,
            owner: &'a str,
        ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
            Box::pin(async move {
                let claimed = self.store.claim(now, limit, lease_until, owner).await;
                self.answer("claim", claimed, other_entries)
            })
        }
        fn claim_ids<'a>(
            &'a self,
            ids: &'a [String],
            now: i64,
            lease_until: i64,
            owner: &'a str,
        ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
            Box::pin(async move {
                let claimed = self.store.claim_ids(ids, now, lease_until, owner).await;
                self.answer("claim_ids", claimed, other_entries)
            })
        }
        fn put_claimed<'a>(
            &'a self,
            entry: Entry,
            lease_until: i64,
            owner: &'a str,
        ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
            Box::pin(async move {
                let put = self.store.put_claimed(entry, lease_until, owner).await;
                self.answer("put_claimed", put, other_put)
            })
        }
        fn settle<'a>(
            &'a self,
            id: &'a str,
            owner: &'a str,
            settlement: Settlement,
        ) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async move {
                let settled = self.store.settle(id, owner, settlement).await;
                self.answer("settle", settled, |b| !b)
            })
        }
        fn settle_all<'a>(
            &'a self,
            owner: &'a str,
            settlements: &'a [(String, Settlement)],
        ) -> BoxFuture<'a, Vec<Result<bool, StoreError>>> {
            Box::pin(async move {
                let answers = self.store.settle_all(owner, settlements).await;
                let answers: Result<Vec<bool>, StoreError> = answers.into_iter().collect();
                let lie = |a: Vec<bool>| a.into_iter().map(|b| !b).collect();
                match self.answer("settle_all", answers, lie) {
                    Ok(answers) => answers.into_iter().map(Ok).collect(),
                    Err(e) => vec![Err(e)],
                }
            })
        }
        fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
            Box::pin(async move {
                let next = self.store.next_due().await;
                self.answer("next_due", next, |n| n.xor(Some(BASE)))
            })
        }
        fn list(
            &self,
            which: Which,
            limit: usize,
        ) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
            Box::pin(async move {
                let listed = self.store.list(which, limit).await;
                self.answer("list", listed, other_entries)
            })
        }
        fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async move { self.answer("revive", self.store.revive(id, now).await, |b| !b) })
        }
        fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async move { self.answer("discard", self.store.discard(id).await, |b| !b) })
        }
    }

    async fn verdict(at: At, spoil: Spoil) -> String {
        match outbox_store(&Sabotaged::new(at, spoil)).await {
            Ok(()) => "kept".to_owned(),
            Err(v) => v.to_string(),
        }
    }

    #[tokio::test]
    async fn the_memory_store_keeps_it_and_any_call_that_fails_breaks_it() {
        let mut at = 1;
        loop {
            let store = Sabotaged::new(At::Call(at), Spoil::Fail);
            let verdict = outbox_store(&store).await;
            if store.calls() < at {
                assert_eq!(verdict, Ok(()));
                break;
            }
            let v = verdict.unwrap_err();
            assert_eq!(v.found, "an error: sabotaged store: spoiled", "call {at}");
            at += 1;
        }
        assert!(at > 50, "the contract made {} calls", at - 1);
    }

    #[tokio::test]
    async fn a_store_that_lets_another_settle_a_claim_is_caught() {
        assert_eq!(
            verdict(At::CallOf("settle", 1), Spoil::Lie).await,
            "settle by another than the holder answers false: the store answered true \
             (expected false)"
        );
    }

    #[tokio::test]
    async fn a_store_that_hands_a_claimed_event_to_another_claimer_is_caught() {
        assert_eq!(
            verdict(At::CallOf("claim", 2), Spoil::Lie).await,
            "a claimed event is hidden from every claimer until its lease ends: the store \
             answered [\"invented\"] (expected [])"
        );
    }

    #[tokio::test]
    async fn a_store_that_forgets_a_delivered_event_is_caught() {
        assert_eq!(
            verdict(At::CallOf("put", 9), Spoil::Lie).await,
            "put of an id delivered just now with the same content stores nothing and answers \
             AlreadyDelivered: the store answered AlreadyPending (expected AlreadyDelivered)"
        );
    }

    #[tokio::test]
    async fn a_store_that_keeps_a_dead_letter_after_its_id_was_reused_is_caught() {
        assert_eq!(
            verdict(At::CallOf("list", 5), Spoil::Lie).await,
            "the new event replaced the dead letter: the store answered [\"invented\"] \
             (expected [])"
        );
    }

    #[tokio::test]
    async fn a_store_whose_settle_all_answers_otherwise_than_settle_is_caught() {
        assert_eq!(
            verdict(At::CallOf("settle_all", 1), Spoil::Lie).await,
            "settle_all answers each settlement in order: the holder's settle, another's and \
             an unknown id do not: the store answered [false, true, false, true, false] \
             (expected [true, false, true, false, true])"
        );
    }

    #[tokio::test]
    async fn a_store_with_an_event_left_is_caught_at_the_end() {
        assert_eq!(
            verdict(At::CallOf("next_due", 4), Spoil::Lie).await,
            "next_due of an empty store is none: the store answered Some(4102444800000) \
             (expected None)"
        );
    }
}
