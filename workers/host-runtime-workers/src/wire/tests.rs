//! The protocols' tests: every request, answer and record is written as the JSON the stores and
//! objects exchanged and stored before these types (the literal forms below), reads back from it,
//! and a name this version does not know is a decode error.

use super::*;
use host_runtime::serde_json::{self, Value, json};

fn entry() -> EntryRecord {
    EntryRecord {
        id: "evt_1".to_owned(),
        body: r#"{"type":"release.published"}"#.to_owned(),
        attempts: 2,
        due: 1_700_000_000_000,
        accepted: 1_699_999_000_000,
        last_error: Some("503".to_owned()),
    }
}

/// The entry as the codec before these types wrote it.
fn entry_json() -> Value {
    json!({
        "id": "evt_1",
        "body": r#"{"type":"release.published"}"#,
        "attempts": 2,
        "due": 1_700_000_000_000_i64,
        "accepted": 1_699_999_000_000_i64,
        "last_error": "503",
    })
}

/// `value` is written as `expected` (the literal JSON the stores and objects exchanged and
/// stored before these types) and reads back from it, and from its own text, as itself.
fn same<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: T, expected: Value) {
    let written = serde_json::to_value(&value).expect("a wire value is JSON");
    assert_eq!(written, expected, "{value:?} is written as {written}");
    let read: T = serde_json::from_value(expected.clone()).expect("the literal form reads");
    assert_eq!(read, value, "{expected} reads back");
    let text = serde_json::to_string(&value).expect("a wire value is JSON");
    let reread: T = serde_json::from_str(&text).expect("its text reads");
    assert_eq!(reread, value, "{text} reads back");
}

/// Why `value` does not read as `T`, which it must not.
fn refused<T: DeserializeOwned + std::fmt::Debug>(value: Value) -> String {
    match serde_json::from_value::<T>(value.clone()) {
        Ok(read) => panic!("{value} read as {read:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn outbox_requests_are_written_as_before() {
    let cases = [
        (
            OutboxRequest::Put(PutRequest { entry: entry() }),
            json!({ "op": "put", "entry": entry_json() }),
        ),
        (
            OutboxRequest::PutClaimed(PutClaimedRequest {
                entry: entry(),
                lease_until: 1_700_000_060_000,
                owner: "attempt-1".to_owned(),
            }),
            json!({
                "op": "put_claimed", "entry": entry_json(),
                "lease_until": 1_700_000_060_000_i64, "owner": "attempt-1",
            }),
        ),
        (
            OutboxRequest::Claim(ClaimRequest {
                now: 5,
                limit: 100,
                lease_until: 60_005,
                owner: "attempt-1".to_owned(),
            }),
            json!({
                "op": "claim", "now": 5, "limit": 100, "lease_until": 60_005,
                "owner": "attempt-1",
            }),
        ),
        (
            OutboxRequest::ClaimIds(ClaimIdsRequest {
                ids: vec!["evt_1".to_owned(), "evt_2".to_owned()],
                now: 5,
                lease_until: 60_005,
                owner: "attempt-1".to_owned(),
            }),
            json!({
                "op": "claim_ids", "ids": ["evt_1", "evt_2"], "now": 5,
                "lease_until": 60_005, "owner": "attempt-1",
            }),
        ),
        (
            OutboxRequest::Settle(SettleRequest {
                id: "evt_1".to_owned(),
                owner: "attempt-1".to_owned(),
                settlement: SettlementRecord::Delivered,
            }),
            json!({
                "op": "settle", "id": "evt_1", "owner": "attempt-1",
                "settlement": { "kind": "delivered" },
            }),
        ),
        (
            OutboxRequest::NextDue(NextDueRequest {}),
            json!({ "op": "next_due" }),
        ),
        (
            OutboxRequest::List(ListRequest {
                which: WhichList::Pending,
                limit: 10,
            }),
            json!({ "op": "list", "which": "pending", "limit": 10 }),
        ),
        (
            OutboxRequest::List(ListRequest {
                which: WhichList::Dead,
                limit: 10,
            }),
            json!({ "op": "list", "which": "dead", "limit": 10 }),
        ),
        (
            OutboxRequest::Revive(ReviveRequest {
                id: "evt_1".to_owned(),
                now: 5,
            }),
            json!({ "op": "revive", "id": "evt_1", "now": 5 }),
        ),
        (
            OutboxRequest::Discard(DiscardRequest {
                id: "evt_1".to_owned(),
            }),
            json!({ "op": "discard", "id": "evt_1" }),
        ),
        (
            OutboxRequest::Alarm(AlarmRequest {}),
            json!({ "op": "alarm" }),
        ),
        (
            OutboxRequest::Sweep(SweepRequest {
                now: Some(86_400_000),
            }),
            json!({ "op": "sweep", "now": 86_400_000 }),
        ),
        (
            OutboxRequest::Sweep(SweepRequest { now: None }),
            json!({ "op": "sweep" }),
        ),
        (
            OutboxRequest::Dedupe(KeptDedupeRequest {
                dedupe: DedupeOp::Claim,
                key: "delivery-1".to_owned(),
                owner: "attempt-1".to_owned(),
                lease: 60_000,
            }),
            json!({
                "op": "dedupe", "dedupe": "claim", "key": "delivery-1",
                "owner": "attempt-1", "lease": 60_000,
            }),
        ),
    ];
    for (request, expected) in cases {
        same(request, expected);
    }
}

#[test]
fn settlements_are_written_as_before() {
    same(SettlementRecord::Delivered, json!({ "kind": "delivered" }));
    same(
        SettlementRecord::Retry {
            attempts: 3,
            due: 70_000,
            error: "503".to_owned(),
        },
        json!({ "kind": "retry", "attempts": 3, "due": 70_000, "error": "503" }),
    );
    same(
        SettlementRecord::Dead {
            attempts: 8,
            at: 90_000,
            reason: "410".to_owned(),
        },
        json!({ "kind": "dead", "attempts": 8, "at": 90_000, "reason": "410" }),
    );
}

#[test]
fn settlements_convert_both_ways() {
    for settlement in [
        Settlement::Delivered,
        Settlement::Retry {
            attempts: 3,
            due: 70_000,
            error: "503".to_owned(),
        },
        Settlement::Dead {
            attempts: 8,
            at: 90_000,
            reason: "410".to_owned(),
        },
    ] {
        let record = SettlementRecord::from(settlement.clone());
        assert_eq!(Settlement::from(record), settlement);
    }
    for which in [Which::Pending, Which::Dead] {
        assert_eq!(Which::from(WhichList::from(which)), which);
    }
}

#[test]
fn dedupe_requests_are_written_as_before() {
    for (op, name) in [
        (DedupeOp::Claim, "claim"),
        (DedupeOp::Renew, "renew"),
        (DedupeOp::Complete, "complete"),
        (DedupeOp::Release, "release"),
    ] {
        same(
            DedupeRequest {
                op,
                owner: "attempt-1".to_owned(),
                lease: 300,
            },
            json!({ "op": name, "owner": "attempt-1", "lease": 300 }),
        );
        same(
            OutboxRequest::Dedupe(KeptDedupeRequest {
                dedupe: op,
                key: "k".to_owned(),
                owner: "attempt-1".to_owned(),
                lease: 300,
            }),
            json!({
                "op": "dedupe", "dedupe": name, "key": "k", "owner": "attempt-1", "lease": 300,
            }),
        );
        assert_eq!(op.name(), name, "the name in log lines is the wire's");
    }
}

/// `value` is written as exactly `text`, member order and all, and reads back from it as itself.
fn to_the_byte<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    value: T,
    text: &str,
) {
    let written = serde_json::to_string(&value).expect("a wire value is JSON");
    assert_eq!(written, text, "{value:?}");
    let read: T = serde_json::from_str(text).expect("the literal text reads");
    assert_eq!(read, value, "{text} reads back");
}

/// Every message between a `DurableDedupe` store and the object that keeps its key, as text, to
/// the byte: the store and the objects wrote these before the store's ask was typed. During a
/// rolling deploy an object of the previous version answers a store of this one, and the other way
/// round, and a `HostDedupe` object reads the record it stored before an upgrade.
#[test]
fn dedupe_messages_are_the_same_text_as_before() {
    let own = |op| DedupeRequest {
        op,
        owner: "attempt-1".to_owned(),
        lease: 60_000,
    };
    let kept = |op| {
        OutboxRequest::from(KeptDedupeRequest {
            dedupe: op,
            key: "delivery-1".to_owned(),
            owner: "attempt-1".to_owned(),
            lease: 60_000,
        })
    };
    // To a `HostDedupe` object, the one object of its key.
    to_the_byte(
        own(DedupeOp::Claim),
        r#"{"op":"claim","owner":"attempt-1","lease":60000}"#,
    );
    to_the_byte(
        own(DedupeOp::Renew),
        r#"{"op":"renew","owner":"attempt-1","lease":60000}"#,
    );
    to_the_byte(
        own(DedupeOp::Complete),
        r#"{"op":"complete","owner":"attempt-1","lease":60000}"#,
    );
    to_the_byte(
        own(DedupeOp::Release),
        r#"{"op":"release","owner":"attempt-1","lease":60000}"#,
    );
    // To a `HostOutbox` object that keeps the record beside its events.
    to_the_byte(
        kept(DedupeOp::Claim),
        r#"{"op":"dedupe","dedupe":"claim","key":"delivery-1","owner":"attempt-1","lease":60000}"#,
    );
    to_the_byte(
        kept(DedupeOp::Renew),
        r#"{"op":"dedupe","dedupe":"renew","key":"delivery-1","owner":"attempt-1","lease":60000}"#,
    );
    to_the_byte(
        kept(DedupeOp::Complete),
        r#"{"op":"dedupe","dedupe":"complete","key":"delivery-1","owner":"attempt-1","lease":60000}"#,
    );
    to_the_byte(
        kept(DedupeOp::Release),
        r#"{"op":"dedupe","dedupe":"release","key":"delivery-1","owner":"attempt-1","lease":60000}"#,
    );
    // The answers, from either object.
    for (claim, text) in [
        (DedupeAnswer::Run, r#"{"claim":"run"}"#),
        (DedupeAnswer::Done, r#"{"claim":"done"}"#),
        (DedupeAnswer::Busy, r#"{"claim":"busy"}"#),
        (DedupeAnswer::Renewed, r#"{"claim":"renewed"}"#),
        (DedupeAnswer::Completed, r#"{"claim":"completed"}"#),
        (DedupeAnswer::Released, r#"{"claim":"released"}"#),
        (DedupeAnswer::NotHeld, r#"{"claim":"not held"}"#),
    ] {
        to_the_byte(ClaimAnswer { claim }, text);
    }
    // The record, as a `HostDedupe` object stores it (and a `HostOutbox` object at `k:<key>`).
    to_the_byte(
        DedupeRecord::Inflight {
            owner: "attempt-1".to_owned(),
            until: 1_700_000_060_000,
        },
        r#"{"state":"inflight","owner":"attempt-1","until":1700000060000}"#,
    );
    to_the_byte(
        DedupeRecord::Done {
            until: 1_700_001_200_000,
        },
        r#"{"state":"done","until":1700001200000}"#,
    );
}

#[test]
fn a_dedupe_request_without_a_lease_has_the_default_one() {
    let read: DedupeRequest =
        serde_json::from_value(json!({ "op": "claim", "owner": "a" })).expect("it reads");
    assert_eq!(read.lease, 60_000);
    let read: OutboxRequest = serde_json::from_value(
        json!({ "op": "dedupe", "dedupe": "renew", "key": "k", "owner": "a" }),
    )
    .expect("it reads");
    assert!(matches!(
        read,
        OutboxRequest::Dedupe(KeptDedupeRequest { lease: 60_000, .. })
    ));
    assert_eq!(
        default_lease(),
        crate::clock::millis(crate::DurableDedupe::DEFAULT_LEASE)
    );
}

#[test]
fn answers_are_written_as_before() {
    for (outcome, name) in [
        (PutOutcome::Stored, "stored"),
        (PutOutcome::Pending, "pending"),
        (PutOutcome::Delivered, "delivered"),
        (PutOutcome::Conflict, "conflict"),
    ] {
        same(PutAnswer { put: outcome }, json!({ "put": name }));
        let entry = (outcome == PutOutcome::Stored).then(entry);
        let expected = json!({ "put": name, "entry": entry.as_ref().map(|_| entry_json()) });
        same(
            PutClaimedAnswer {
                put: outcome,
                entry,
            },
            expected,
        );
    }
    same(
        EntriesAnswer {
            entries: vec![entry()],
        },
        json!({ "entries": [entry_json()] }),
    );
    same(EntriesAnswer { entries: vec![] }, json!({ "entries": [] }));
    same(OkAnswer { ok: true }, json!({ "ok": true }));
    same(OkAnswer { ok: false }, json!({ "ok": false }));
    same(NextDueAnswer { due: Some(7) }, json!({ "due": 7 }));
    same(NextDueAnswer { due: None }, json!({ "due": null }));
    same(AlarmAnswer { alarm: Some(7) }, json!({ "alarm": 7 }));
    same(AlarmAnswer { alarm: None }, json!({ "alarm": null }));
    same(
        SweepAnswer { erased: 2, left: 0 },
        json!({ "erased": 2, "left": 0 }),
    );
    same(
        Failure {
            error: "durable object: the object's storage failed".to_owned(),
        },
        json!({ "error": "durable object: the object's storage failed" }),
    );
    for (claim, name) in [
        (DedupeAnswer::Run, "run"),
        (DedupeAnswer::Done, "done"),
        (DedupeAnswer::Busy, "busy"),
        (DedupeAnswer::Renewed, "renewed"),
        (DedupeAnswer::Completed, "completed"),
        (DedupeAnswer::Released, "released"),
        (DedupeAnswer::NotHeld, "not held"),
    ] {
        same(ClaimAnswer { claim }, json!({ "claim": name }));
    }
}

#[test]
fn puts_convert_both_ways() {
    let puts: [Put<u8>; 4] = [
        Put::Stored(1),
        Put::AlreadyPending,
        Put::AlreadyDelivered,
        Put::Conflict,
    ];
    for put in puts {
        let stored = match &put {
            Put::Stored(n) => Some(*n),
            _ => None,
        };
        assert_eq!(PutOutcome::of(&put).into_put(stored), Some(put));
    }
    assert_eq!(PutOutcome::Stored.into_put::<u8>(None), None);
}

#[test]
fn records_are_stored_as_before() {
    same(entry(), entry_json());
    same(
        EntryRecord {
            last_error: None,
            ..entry()
        },
        json!({
            "id": "evt_1", "body": r#"{"type":"release.published"}"#, "attempts": 2,
            "due": 1_700_000_000_000_i64, "accepted": 1_699_999_000_000_i64,
            "last_error": null,
        }),
    );
    same(
        PendingRecord {
            entry: entry(),
            owner: String::new(),
        },
        json!({ "entry": entry_json(), "owner": "" }),
    );
    same(
        SentRecord {
            digest: "ab".repeat(32),
            until: 86_400_000,
        },
        json!({ "digest": "ab".repeat(32), "until": 86_400_000 }),
    );
    same(
        DedupeRecord::Inflight {
            owner: "attempt-1".to_owned(),
            until: 60_000,
        },
        json!({ "state": "inflight", "owner": "attempt-1", "until": 60_000 }),
    );
    same(
        DedupeRecord::Done { until: 1_200_000 },
        json!({ "state": "done", "until": 1_200_000 }),
    );
}

#[test]
fn records_read_as_the_codec_before_stored_them() {
    // Text exactly as the hand-written codec stored it (`json!`, members in sorted order).
    let stored = r#"{"accepted":1,"attempts":0,"body":"{}","due":2,"id":"e","last_error":null}"#;
    let read: EntryRecord = serde_json::from_str(stored).expect("it reads");
    let expected = Entry {
        due: 2,
        ..Entry::new("e", b"{}".to_vec(), 1)
    };
    assert_eq!(Entry::from(read), expected);
    let stored = r#"{"owner":"a","state":"inflight","until":3}"#;
    let read: DedupeRecord = serde_json::from_str(stored).expect("it reads");
    assert_eq!(read.until(), 3);
    // A record without `last_error` or `owner` reads as the codec read it: none, and unclaimed.
    let read: PendingRecord = serde_json::from_value(json!({
        "entry": { "id": "e", "body": "{}", "attempts": 0, "due": 2, "accepted": 1 },
    }))
    .expect("it reads");
    assert_eq!(read.owner, "");
    assert_eq!(read.entry.last_error, None);
}

#[test]
fn entries_convert_both_ways() {
    let entry = Entry {
        last_error: Some("timeout".to_owned()),
        attempts: 4,
        ..Entry::new("evt_9", br#"{"a":1}"#.to_vec(), 10)
    };
    let record = EntryRecord::try_from(&entry).expect("a JSON body is text");
    assert_eq!(record.body, r#"{"a":1}"#);
    assert_eq!(Entry::from(record), entry);
    let binary = Entry::new("evt_bin", vec![0xff, 0xfe], 10);
    let refused = EntryRecord::try_from(&binary).expect_err("a body that is not text");
    assert_eq!(refused.kind(), StoreErrorKind::Refused);
    assert!(refused.to_string().contains("evt_bin"), "{refused}");
}

#[test]
fn an_unknown_operation_is_a_decode_error() {
    let error = refused::<OutboxRequest>(json!({ "op": "putt", "entry": entry_json() }));
    assert!(error.contains("putt"), "{error}");
    refused::<OutboxRequest>(json!({ "op": "Put", "entry": entry_json() }));
    refused::<OutboxRequest>(json!({ "entry": entry_json() }));
    refused::<OutboxRequest>(json!({ "op": "claim", "owner": "a", "lease": 1 }));
    refused::<DedupeRequest>(json!({ "op": "claimm", "owner": "a", "lease": 1 }));
    refused::<DedupeRequest>(json!({ "op": "dedupe", "owner": "a", "lease": 1 }));
    refused::<OutboxRequest>(
        json!({ "op": "dedupe", "dedupe": "finish", "key": "k", "owner": "a", "lease": 1 }),
    );
}

#[test]
fn a_request_without_a_member_it_needs_is_a_decode_error() {
    let error = refused::<OutboxRequest>(json!({ "op": "settle", "id": "e", "owner": "a" }));
    assert!(error.contains("settlement"), "{error}");
    refused::<OutboxRequest>(json!({ "op": "put" }));
    refused::<OutboxRequest>(json!({ "op": "claim", "now": 1, "limit": 1, "owner": "a" }));
    refused::<OutboxRequest>(
        json!({ "op": "claim", "now": 1, "limit": -1, "lease_until": 2, "owner": "a" }),
    );
    refused::<OutboxRequest>(json!({ "op": "dedupe", "dedupe": "claim", "owner": "a" }));
    refused::<DedupeRequest>(json!({ "op": "claim", "lease": 1 }));
}

#[test]
fn a_misspelled_state_is_a_decode_error() {
    let error = refused::<DedupeRecord>(json!({ "state": "in-flight", "owner": "a", "until": 1 }));
    assert!(error.contains("in-flight"), "{error}");
    refused::<DedupeRecord>(json!({ "state": "Done", "until": 1 }));
    refused::<DedupeRecord>(json!({ "until": 1 }));
    refused::<DedupeRecord>(json!({ "state": "inflight", "until": 1 }));
    refused::<ClaimAnswer>(json!({ "claim": "running" }));
    refused::<ClaimAnswer>(json!({ "claim": "not_held" }));
    refused::<PutAnswer>(json!({ "put": "store" }));
    refused::<PutClaimedAnswer>(json!({ "put": "stored!", "entry": entry_json() }));
    refused::<SettlementRecord>(json!({ "kind": "deliverd" }));
    refused::<SettlementRecord>(json!({ "kind": "retry", "attempts": 1, "due": 2 }));
    refused::<OutboxRequest>(json!({ "op": "list", "which": "failed", "limit": 1 }));
    refused::<EntriesAnswer>(json!({ "entries": [{ "id": "e" }] }));
    refused::<NextDueAnswer>(json!({ "due": "soon" }));
}

#[test]
fn warming_writes_and_reads_back_a_first_delivery_s_exchanges() {
    assert!(super::warm());
}
