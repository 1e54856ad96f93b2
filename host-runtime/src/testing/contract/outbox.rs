//! The [`OutboxStore`](crate::outbox::OutboxStore) contract.

use super::{Violation, answered, expect};
use crate::outbox::{Entry, OutboxStore, Put, Settlement, Which};

/// 2100-01-01T00:00:00Z in Unix milliseconds: the contract's times are a few seconds after it.
pub const BASE: i64 = 4_102_444_800_000;

/// `offset` milliseconds after [`BASE`].
fn t(offset: i64) -> i64 {
    BASE + offset
}

/// Drives `store`, which must be empty, through the outbox contract: one id is one event, so `put`
/// of an id that is pending or was delivered answers whether it is the same event (by
/// [`Entry::digest`]: `occurredAt`, `build` and the order of members aside) or another, stores
/// nothing then, and replaces a dead letter; `claim` takes due events earliest first within its limit and hides them
/// from every claimer until the lease ends; `claim_ids` takes only the named events that are due
/// and unclaimed; only the holder of a claim settles it, and a lease that ran out passes the event
/// to the next claimer; a retry keeps the attempts, due time and error; dead letters are listed,
/// revived with no attempts counted, and discarded; `put_claimed` stores an event under its
/// sender's claim; `next_due` follows all of it.
///
/// The times are made up, a few seconds apart in the year 2100 ([`BASE`] plus 100, 1 000, 5 000
/// milliseconds): a store must take the times it is given, and no dispatcher draining the same
/// store at the real time (a Durable Object's alarm, a background task) finds them due meanwhile.
pub async fn outbox_store(store: &dyn OutboxStore) -> Result<(), Violation> {
    let body = |n: u8| vec![b'{', n, b'}'];
    let ids = |entries: &[Entry]| -> Vec<String> { entries.iter().map(|e| e.id.clone()).collect() };

    for (id, n, at) in [("b", 2, t(200)), ("a", 1, t(100)), ("late", 3, t(10_000))] {
        let stored = answered(
            "put stores a new event",
            store.put(Entry::new(id, body(n), at)).await,
        )?;
        expect("put stores a new event", stored, Put::Stored(()))?;
    }
    let again = answered(
        "put of a pending id",
        store.put(Entry::new("a", body(1), t(50))).await,
    )?;
    expect(
        "put of a pending id with the same content stores nothing and answers AlreadyPending",
        again,
        Put::AlreadyPending,
    )?;
    let other = answered(
        "put of a pending id",
        store.put(Entry::new("a", body(9), t(50))).await,
    )?;
    expect(
        "put of a pending id with other content stores nothing and answers Conflict",
        other,
        Put::Conflict,
    )?;
    // Envelopes: the same event whatever its `occurredAt`, `build` and order of members.
    let envelope = |at: &str, build: &str, payload: &str| {
        format!(
            r#"{{"event":"e","source":"i","occurredAt":"{at}","build":{build},"dedupeKey":"j","payload":{payload}}}"#
        )
        .into_bytes()
    };
    let stored = answered(
        "put an envelope",
        store
            .put(Entry::new(
                "j",
                envelope(
                    "2100-01-01T00:00:00Z",
                    "\"1.0\"",
                    r#"{"a":1,"b":[1,{"c":2,"d":3}]}"#,
                ),
                t(20_000),
            ))
            .await,
    )?;
    expect("put stores a new event", stored, Put::Stored(()))?;
    let same = answered(
        "put an envelope",
        store
            .put(Entry::new(
                "j",
                envelope(
                    "2100-01-01T00:05:00Z",
                    "null",
                    r#"{"b":[1,{"d":3,"c":2}],"a":1}"#,
                ),
                t(20_000),
            ))
            .await,
    )?;
    expect(
        "an envelope that differs only in occurredAt, build and the order of members is the same event",
        same,
        Put::AlreadyPending,
    )?;
    let other = answered(
        "put an envelope",
        store
            .put(Entry::new(
                "j",
                envelope(
                    "2100-01-01T00:00:00Z",
                    "\"1.0\"",
                    r#"{"a":1,"b":[{"c":2,"d":3},1]}"#,
                ),
                t(20_000),
            ))
            .await,
    )?;
    expect(
        "an envelope whose payload differs is another event",
        other,
        Put::Conflict,
    )?;
    let pending = answered("list pending", store.list(Which::Pending, 10).await)?;
    expect(
        "put of a pending id keeps the first event",
        pending
            .iter()
            .find(|e| e.id == "a")
            .map(|e| (e.body.clone(), e.due)),
        Some((body(1), t(100))),
    )?;
    let next = answered("next_due", store.next_due().await)?;
    expect("next_due is the earliest due time", next, Some(t(100)))?;

    let claimed = answered("claim", store.claim(t(1_000), 10, t(5_000), "one").await)?;
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
    let again = answered("claim", store.claim(t(4_999), 10, t(9_000), "two").await)?;
    expect(
        "a claimed event is hidden from every claimer until its lease ends",
        ids(&again),
        vec![],
    )?;
    let next = answered("next_due", store.next_due().await)?;
    expect(
        "next_due counts a claimed event at its lease's end",
        next,
        Some(t(5_000)),
    )?;

    let settled = answered(
        "settle",
        store.settle("a", "two", Settlement::Delivered).await,
    )?;
    expect(
        "settle by another than the holder answers false",
        settled,
        false,
    )?;
    let settled = answered(
        "settle",
        store.settle("a", "one", Settlement::Delivered).await,
    )?;
    expect("settle by the holder answers true", settled, true)?;
    let settled = answered(
        "settle",
        store.settle("a", "one", Settlement::Delivered).await,
    )?;
    expect(
        "a delivered event is gone: settling it again answers false",
        settled,
        false,
    )?;
    let again = answered(
        "put of a delivered id",
        store.put(Entry::new("a", body(1), t(1_000))).await,
    )?;
    expect(
        "put of an id delivered just now with the same content stores nothing and answers AlreadyDelivered",
        again,
        Put::AlreadyDelivered,
    )?;
    let other = answered(
        "put of a delivered id",
        store.put(Entry::new("a", body(9), t(1_000))).await,
    )?;
    expect(
        "put of an id delivered just now with other content answers Conflict",
        other,
        Put::Conflict,
    )?;
    let claimed = answered(
        "claim_ids",
        store
            .claim_ids(&["a".to_owned()], t(1_000), t(2_000), "one")
            .await,
    )?;
    expect(
        "nothing was stored for a delivered id",
        ids(&claimed),
        vec![],
    )?;

    let retry = Settlement::Retry {
        attempts: 1,
        due: t(300),
        error: "status 503".into(),
    };
    let settled = answered("settle a retry", store.settle("b", "one", retry).await)?;
    expect("settle a retry by the holder answers true", settled, true)?;
    let pending = answered("list pending", store.list(Which::Pending, 10).await)?;
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
    )?;

    // Claims by id: only the named events that are due and not under another's claim.
    let named = ["b".to_owned(), "late".to_owned(), "unknown".to_owned()];
    let claimed = answered(
        "claim_ids",
        store.claim_ids(&named, t(400), t(600), "one").await,
    )?;
    expect(
        "claim_ids takes the named due events only (not one due later, not an unknown id)",
        ids(&claimed),
        vec!["b".to_owned()],
    )?;
    let again = answered(
        "claim_ids",
        store.claim_ids(&named, t(500), t(900), "two").await,
    )?;
    expect(
        "claim_ids leaves an event under another's claim alone",
        ids(&again),
        vec![],
    )?;

    // A lease that ran out: another dispatcher takes the event; the first can no longer settle it.
    let claimed = answered("claim", store.claim(t(700), 1, t(900), "two").await)?;
    expect(
        "a lease that ran out passes the event on",
        ids(&claimed),
        vec!["b".to_owned()],
    )?;
    let settled = answered(
        "settle",
        store.settle("b", "one", Settlement::Delivered).await,
    )?;
    expect(
        "the holder of a lease that ran out can no longer settle",
        settled,
        false,
    )?;
    let dead = Settlement::Dead {
        attempts: 2,
        at: t(800),
        reason: "refused with 422".into(),
    };
    let settled = answered("settle a dead letter", store.settle("b", "two", dead).await)?;
    expect(
        "settle a dead letter by the holder answers true",
        settled,
        true,
    )?;
    let dead = answered("list dead", store.list(Which::Dead, 10).await)?;
    expect(
        "a dead letter keeps its id, attempts and body",
        dead.iter()
            .map(|e| (e.id.as_str(), e.attempts, e.body.clone()))
            .collect::<Vec<_>>(),
        vec![("b", 2, body(2))],
    )?;
    let claimed = answered(
        "claim_ids",
        store.claim_ids(&named, t(10_000), t(20_000), "one").await,
    )?;
    expect(
        "claim_ids leaves a dead letter alone",
        ids(&claimed),
        vec!["late".to_owned()],
    )?;
    let settled = answered(
        "settle",
        store
            .settle(
                "late",
                "one",
                Settlement::Retry {
                    attempts: 1,
                    due: t(10_000),
                    error: "status 500".into(),
                },
            )
            .await,
    )?;
    expect("settle a retry by the holder answers true", settled, true)?;

    let revived = answered("revive", store.revive("b", t(1_000)).await)?;
    expect("revive of a dead letter answers true", revived, true)?;
    let revived = answered("revive", store.revive("b", t(1_000)).await)?;
    expect(
        "revive of an id that is not dead answers false",
        revived,
        false,
    )?;
    let dead = answered("list dead", store.list(Which::Dead, 10).await)?;
    expect("a revived event is no longer dead", dead.len(), 0)?;
    let claimed = answered("claim", store.claim(t(1_000), 10, t(2_000), "one").await)?;
    expect(
        "a revived event is due at once with no attempts counted",
        claimed
            .iter()
            .map(|e| (e.id.as_str(), e.attempts))
            .collect::<Vec<_>>(),
        vec![("b", 0)],
    )?;

    // A dead letter gives its id up to the next event sent under it, whatever it says.
    let dead = Settlement::Dead {
        attempts: 1,
        at: t(1_000),
        reason: "refused with 400".into(),
    };
    let settled = answered("settle a dead letter", store.settle("b", "one", dead).await)?;
    expect(
        "settle a dead letter by the holder answers true",
        settled,
        true,
    )?;
    let stored = answered(
        "put of a dead id",
        store.put(Entry::new("b", body(7), t(1_000))).await,
    )?;
    expect(
        "put of an id whose event is dead stores the new event",
        stored,
        Put::Stored(()),
    )?;
    let dead = answered("list dead", store.list(Which::Dead, 10).await)?;
    expect("the new event replaced the dead letter", ids(&dead), vec![])?;

    let dropped = answered("discard", store.discard("b").await)?;
    expect("discard of a pending event answers true", dropped, true)?;
    let stored = answered(
        "put of a dropped id",
        store.put(Entry::new("b", body(8), t(1_000))).await,
    )?;
    expect(
        "a dropped event was never delivered: its id takes any event",
        stored,
        Put::Stored(()),
    )?;
    let dropped = answered("discard", store.discard("b").await)?;
    expect("discard of a pending event answers true", dropped, true)?;
    let dropped = answered("discard", store.discard("j").await)?;
    expect("discard of a pending event answers true", dropped, true)?;
    let dropped = answered("discard", store.discard("late").await)?;
    expect("discard of a pending event answers true", dropped, true)?;
    let dropped = answered("discard", store.discard("late").await)?;
    expect("discard of an unknown id answers false", dropped, false)?;

    // Stored already claimed, for a sender about to attempt it: hidden from other claimers until
    // the lease ends, settled by its holder; an id already pending is kept and not claimed.
    let stored = answered(
        "put_claimed",
        store
            .put_claimed(Entry::new("c", body(4), t(1_000)), t(3_000), "one")
            .await,
    )?;
    expect(
        "put_claimed stores a new event and answers it as stored",
        stored.map(|e| (e.id, e.body, e.due, e.attempts)),
        Put::Stored(("c".to_owned(), body(4), t(1_000), 0)),
    )?;
    let again = answered(
        "put_claimed",
        store
            .put_claimed(Entry::new("c", body(4), t(1_000)), t(3_000), "two")
            .await,
    )?;
    expect(
        "put_claimed of a pending id with the same content claims nothing and answers AlreadyPending",
        again.map(|e| e.id),
        Put::AlreadyPending,
    )?;
    let other = answered(
        "put_claimed",
        store
            .put_claimed(Entry::new("c", body(5), t(1_000)), t(3_000), "two")
            .await,
    )?;
    expect(
        "put_claimed of a pending id with other content answers Conflict",
        other.map(|e| e.id),
        Put::Conflict,
    )?;
    let claimed = answered("claim", store.claim(t(2_000), 10, t(4_000), "two").await)?;
    expect(
        "an event put claimed is hidden from every claimer until its lease ends",
        ids(&claimed),
        vec![],
    )?;
    let next = answered("next_due", store.next_due().await)?;
    expect(
        "next_due counts an event put claimed at its lease's end",
        next,
        Some(t(3_000)),
    )?;
    let settled = answered(
        "settle",
        store.settle("c", "one", Settlement::Delivered).await,
    )?;
    expect(
        "the holder of an event put claimed settles it",
        settled,
        true,
    )?;
    let again = answered(
        "put_claimed",
        store
            .put_claimed(Entry::new("c", body(4), t(4_000)), t(6_000), "two")
            .await,
    )?;
    expect(
        "put_claimed of an id delivered just now with the same content answers AlreadyDelivered",
        again.map(|e| e.id),
        Put::AlreadyDelivered,
    )?;

    settle_all(store).await?;

    let pending = answered("list pending", store.list(Which::Pending, 10).await)?;
    expect("nothing is left pending", pending.len(), 0)?;
    let next = answered("next_due", store.next_due().await)?;
    expect("next_due of an empty store is none", next, None)?;
    Ok(())
}

/// `settle_all` answers each settlement as `settle` would, in order: the holder's are settled
/// (delivered, retried, dead), another owner's and an unknown id's are not. Leaves nothing pending.
async fn settle_all(store: &dyn OutboxStore) -> Result<(), Violation> {
    for (id, n) in [("s1", 11), ("s2", 12), ("s3", 13), ("s4", 14)] {
        let stored = answered(
            "put",
            store
                .put(Entry::new(id, vec![b'{', n, b'}'], t(20_000)))
                .await,
        )?;
        expect("put stores a new event", stored, Put::Stored(()))?;
    }
    let claimed = answered("claim", store.claim(t(20_000), 3, t(30_000), "one").await)?;
    expect("claim takes three of four", claimed.len(), 3)?;
    let theirs = answered("claim", store.claim(t(20_000), 3, t(30_000), "two").await)?;
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
    let answers: Result<Vec<bool>, _> = store
        .settle_all("one", &settlements)
        .await
        .into_iter()
        .collect();
    let answers = answered("settle_all", answers)?;
    expect(
        "settle_all answers each settlement in order: the holder's settle, another's and an unknown id do not",
        answers,
        vec![true, false, true, false, true],
    )?;
    let again = answered(
        "put",
        store
            .put(Entry::new("s1", vec![b'{', 11, b'}'], t(21_000)))
            .await,
    )?;
    expect(
        "an event settled as delivered by settle_all is remembered as delivered",
        again,
        Put::AlreadyDelivered,
    )?;
    let retried = answered("claim", store.claim(t(25_000), 10, t(40_000), "one").await)?;
    expect(
        "an event settled as a retry by settle_all is due again at its new time, with its attempt",
        retried
            .iter()
            .map(|e| (e.id.clone(), e.attempts))
            .collect::<Vec<_>>(),
        vec![("s2".to_owned(), 1)],
    )?;
    for (id, owner) in [("s2", "one"), ("s4", "two")] {
        let settled = answered(
            "settle",
            store.settle(id, owner, Settlement::Delivered).await,
        )?;
        expect("the holder settles what is left", settled, true)?;
    }
    Ok(())
}
