//! The protocols between a Worker's stores and this crate's Durable Objects, as types both sides
//! use: what a store asks ([`OutboxRequest`] of a `HostOutbox` object, [`DedupeRequest`] of a
//! `HostDedupe` object), what the object answers (one type per operation, named by [`Ask`]), and
//! the records the objects keep in their storage.
//!
//! The JSON is the contract, and it is the one earlier versions sent and stored: an object keeps
//! reading what it stored before an upgrade. Unknown members are ignored, as they always were; an
//! operation or a state this version does not know (a misspelled `op`, `state` or `kind`) is a
//! decode error, never a default. Nothing here touches the Workers runtime, so its tests
//! (`wire/tests.rs`) run on the build machine: `cargo test --manifest-path workers/Cargo.toml -p
//! host-runtime-workers --lib`.

use host_runtime::outbox::{Entry, Put, Settlement, StoreError, StoreErrorKind, Which};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

/// A request whose answer has a type of its own: the object answers `Self` with `Self::Answer`,
/// and the store reads that type back.
pub(crate) trait Ask: Serialize {
    /// What the object answers.
    type Answer: Serialize + DeserializeOwned;
}

/// A request to a `HostOutbox` object: `{"op": "<operation>", ...}`, with the operation's own
/// members beside `op`. The store operations (all but `alarm`, `sweep` and `dedupe`) are those of
/// [`OutboxStore`](host_runtime::outbox::OutboxStore); a failed one is answered with [`Failure`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum OutboxRequest {
    /// `put`.
    #[serde(deserialize_with = "apart")]
    Put(PutRequest),
    /// `put_claimed`.
    #[serde(deserialize_with = "apart")]
    PutClaimed(PutClaimedRequest),
    /// `claim`.
    #[serde(deserialize_with = "apart")]
    Claim(ClaimRequest),
    /// `claim_ids`.
    #[serde(deserialize_with = "apart")]
    ClaimIds(ClaimIdsRequest),
    /// `settle`.
    #[serde(deserialize_with = "apart")]
    Settle(SettleRequest),
    /// `next_due`.
    #[serde(deserialize_with = "apart")]
    NextDue(NextDueRequest),
    /// `list`.
    #[serde(deserialize_with = "apart")]
    List(ListRequest),
    /// `revive`.
    #[serde(deserialize_with = "apart")]
    Revive(ReviveRequest),
    /// `discard`.
    #[serde(deserialize_with = "apart")]
    Discard(DiscardRequest),
    /// `alarm`: when the object's alarm rings, for tests and diagnostics.
    #[serde(deserialize_with = "apart")]
    Alarm(AlarmRequest),
    /// `sweep`: what the alarm does to ended deduplication records, at a time of the asker's.
    #[serde(deserialize_with = "apart")]
    Sweep(SweepRequest),
    /// `dedupe`: a deduplication step on a record kept beside the events.
    #[serde(deserialize_with = "apart")]
    Dedupe(KeptDedupeRequest),
}

/// Reads one operation's members in a function of its own, never inlined into the request's: the
/// Workers runtime compiles a function on its first call, so the object compiles an operation's
/// reading when that operation first comes, not every operation's with its first request.
#[inline(never)]
fn apart<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<T, D::Error> {
    T::deserialize(deserializer)
}

/// Each outbox operation's request type, its variant of [`OutboxRequest`] and its answer: one row
/// per operation.
macro_rules! outbox_operations {
    ($($variant:ident($request:ty) -> $answer:ty;)*) => {$(
        impl From<$request> for OutboxRequest {
            fn from(asked: $request) -> Self {
                OutboxRequest::$variant(asked)
            }
        }

        impl Ask for $request {
            type Answer = $answer;
        }
    )*};
}

outbox_operations! {
    Put(PutRequest) -> PutAnswer;
    PutClaimed(PutClaimedRequest) -> PutClaimedAnswer;
    Claim(ClaimRequest) -> EntriesAnswer;
    ClaimIds(ClaimIdsRequest) -> EntriesAnswer;
    Settle(SettleRequest) -> OkAnswer;
    NextDue(NextDueRequest) -> NextDueAnswer;
    List(ListRequest) -> EntriesAnswer;
    Revive(ReviveRequest) -> OkAnswer;
    Discard(DiscardRequest) -> OkAnswer;
    Alarm(AlarmRequest) -> AlarmAnswer;
    Sweep(SweepRequest) -> SweepAnswer;
    Dedupe(KeptDedupeRequest) -> ClaimAnswer;
}

/// Stores a new event: `{"op": "put", "entry"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PutRequest {
    /// The event.
    pub(crate) entry: EntryRecord,
}

/// Stores a new event claimed by `owner` until `lease_until`: `{"op": "put_claimed", "entry",
/// "lease_until", "owner"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PutClaimedRequest {
    /// The event, as due before the claim.
    pub(crate) entry: EntryRecord,
    /// When the claim ends (Unix milliseconds).
    pub(crate) lease_until: i64,
    /// Who claims it.
    pub(crate) owner: String,
}

/// Claims up to `limit` events due at `now`: `{"op": "claim", "now", "limit", "lease_until",
/// "owner"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClaimRequest {
    /// Now (Unix milliseconds).
    pub(crate) now: i64,
    /// How many events at most.
    pub(crate) limit: usize,
    /// When the claims end (Unix milliseconds).
    pub(crate) lease_until: i64,
    /// Who claims them.
    pub(crate) owner: String,
}

/// Claims the events `ids` that are due at `now`: `{"op": "claim_ids", "ids", "now",
/// "lease_until", "owner"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClaimIdsRequest {
    /// The events' ids.
    pub(crate) ids: Vec<String>,
    /// Now (Unix milliseconds).
    pub(crate) now: i64,
    /// When the claims end (Unix milliseconds).
    pub(crate) lease_until: i64,
    /// Who claims them.
    pub(crate) owner: String,
}

/// Settles the claimed event `id`: `{"op": "settle", "id", "owner", "settlement"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SettleRequest {
    /// The event's id.
    pub(crate) id: String,
    /// Who holds its claim.
    pub(crate) owner: String,
    /// How its attempt ended.
    pub(crate) settlement: SettlementRecord,
}

/// When the earliest pending event is due: `{"op": "next_due"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NextDueRequest {}

/// Up to `limit` events of one list: `{"op": "list", "which", "limit"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ListRequest {
    /// Which list.
    pub(crate) which: WhichList,
    /// How many events at most.
    pub(crate) limit: usize,
}

/// Makes the dead letter `id` pending again, due `now`: `{"op": "revive", "id", "now"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ReviveRequest {
    /// The event's id.
    pub(crate) id: String,
    /// Now (Unix milliseconds).
    pub(crate) now: i64,
}

/// Forgets the event `id`, pending or dead: `{"op": "discard", "id"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DiscardRequest {
    /// The event's id.
    pub(crate) id: String,
}

/// When the object's alarm rings: `{"op": "alarm"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AlarmRequest {}

/// Erases the deduplication records ended by `now` (the object's clock when absent): `{"op":
/// "sweep", "now"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SweepRequest {
    /// The time to sweep at (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) now: Option<i64>,
}

/// A deduplication step on the record of `key`, kept in a `HostOutbox` object beside its events:
/// `{"op": "dedupe", "dedupe", "key", "owner", "lease"}`. The step's own name is `dedupe`, since
/// `op` names the outbox's operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeptDedupeRequest {
    /// The step.
    pub(crate) dedupe: DedupeOp,
    /// The deduplication key.
    pub(crate) key: String,
    /// The delivery attempt asking.
    pub(crate) owner: String,
    /// How long a claim lasts (milliseconds).
    #[serde(default = "default_lease")]
    pub(crate) lease: i64,
}

/// A deduplication step asked of a `HostDedupe` object, the one object of its key: `{"op",
/// "owner", "lease"}`. Every step takes the same members, so the step is a member rather than a
/// variant of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DedupeRequest {
    /// The step.
    pub(crate) op: DedupeOp,
    /// The delivery attempt asking.
    pub(crate) owner: String,
    /// How long a claim lasts (milliseconds).
    #[serde(default = "default_lease")]
    pub(crate) lease: i64,
}

impl Ask for DedupeRequest {
    type Answer = ClaimAnswer;
}

/// The lease of a deduplication request that names none: 60 s, as
/// `DurableDedupe::DEFAULT_LEASE`.
fn default_lease() -> i64 {
    60_000
}

/// A deduplication step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DedupeOp {
    /// Claims the key for a delivery attempt: answered `run`, `done` or `busy`.
    Claim,
    /// Extends the claim the attempt holds.
    Renew,
    /// Marks the key processed.
    Complete,
    /// Frees the claim the attempt holds.
    Release,
}

impl DedupeOp {
    /// The step's name, as on the wire: for log lines.
    pub(crate) fn name(self) -> &'static str {
        match self {
            DedupeOp::Claim => "claim",
            DedupeOp::Renew => "renew",
            DedupeOp::Complete => "complete",
            DedupeOp::Release => "release",
        }
    }
}

/// Answers `put`: `{"put"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PutAnswer {
    /// How the put ended.
    pub(crate) put: PutOutcome,
}

/// Answers `put_claimed`: `{"put", "entry"}`, with the event as stored when it was (`null`
/// otherwise).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PutClaimedAnswer {
    /// How the put ended.
    pub(crate) put: PutOutcome,
    /// The event as stored, when `put` is `stored`.
    pub(crate) entry: Option<EntryRecord>,
}

/// Answers `claim`, `claim_ids` and `list`: `{"entries"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EntriesAnswer {
    /// The events.
    pub(crate) entries: Vec<EntryRecord>,
}

/// Answers `settle`, `revive` and `discard`: `{"ok"}`, whether it was done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OkAnswer {
    /// Whether it was done.
    pub(crate) ok: bool,
}

/// Answers `next_due`: `{"due"}` (Unix milliseconds, or `null` when nothing is pending).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NextDueAnswer {
    /// When the earliest pending event is due.
    pub(crate) due: Option<i64>,
}

/// Answers `alarm`: `{"alarm"}` (Unix milliseconds, or `null` when it is not set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AlarmAnswer {
    /// When the alarm rings.
    pub(crate) alarm: Option<i64>,
}

/// Answers `sweep`: `{"erased", "left"}`, counts of deduplication records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SweepAnswer {
    /// How many ended records were erased.
    pub(crate) erased: usize,
    /// How many records are kept.
    pub(crate) left: usize,
}

/// Answers a deduplication step: `{"claim"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClaimAnswer {
    /// What the step found or did.
    pub(crate) claim: DedupeAnswer,
}

/// What a deduplication step found or did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DedupeAnswer {
    /// `claim`: the key is the attempt's, which runs the handler.
    Run,
    /// `claim`: the key was processed.
    Done,
    /// `claim`: another attempt holds the key.
    Busy,
    /// `renew`: the claim was extended.
    Renewed,
    /// `complete`: the key is processed.
    Completed,
    /// `release`: the claim was freed.
    Released,
    /// `renew`, `complete` or `release` by an attempt that does not hold the claim: nothing done.
    #[serde(rename = "not held")]
    NotHeld,
}

/// Answers a store operation that failed: `{"error"}`, the store's error as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Failure {
    /// What failed.
    pub(crate) error: String,
}

/// How a put ended: `stored`, `pending`, `delivered` or `conflict` (see [`Put`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PutOutcome {
    /// [`Put::Stored`].
    Stored,
    /// [`Put::AlreadyPending`].
    Pending,
    /// [`Put::AlreadyDelivered`].
    Delivered,
    /// [`Put::Conflict`].
    Conflict,
}

impl PutOutcome {
    /// How `put` ended.
    pub(crate) fn of<T>(put: &Put<T>) -> Self {
        match put {
            Put::Stored(_) => PutOutcome::Stored,
            Put::AlreadyPending => PutOutcome::Pending,
            Put::AlreadyDelivered => PutOutcome::Delivered,
            Put::Conflict => PutOutcome::Conflict,
        }
    }

    /// The put, with `stored` as what was stored; `None` when it was stored but `stored` is none.
    pub(crate) fn into_put<T>(self, stored: Option<T>) -> Option<Put<T>> {
        Some(match self {
            PutOutcome::Stored => Put::Stored(stored?),
            PutOutcome::Pending => Put::AlreadyPending,
            PutOutcome::Delivered => Put::AlreadyDelivered,
            PutOutcome::Conflict => Put::Conflict,
        })
    }
}

/// Which list `list` reads: `pending` or `dead`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WhichList {
    /// [`Which::Pending`].
    Pending,
    /// [`Which::Dead`].
    Dead,
}

impl From<Which> for WhichList {
    fn from(which: Which) -> Self {
        match which {
            Which::Pending => WhichList::Pending,
            Which::Dead => WhichList::Dead,
        }
    }
}

impl From<WhichList> for Which {
    fn from(which: WhichList) -> Self {
        match which {
            WhichList::Pending => Which::Pending,
            WhichList::Dead => Which::Dead,
        }
    }
}

/// How an attempt ended (see [`Settlement`]): `{"kind": "delivered"}`, `{"kind": "retry",
/// "attempts", "due", "error"}` or `{"kind": "dead", "attempts", "at", "reason"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum SettlementRecord {
    /// [`Settlement::Delivered`].
    Delivered,
    /// [`Settlement::Retry`].
    Retry {
        /// Attempts made so far.
        attempts: u32,
        /// When the next attempt is due.
        due: i64,
        /// What this attempt met.
        error: String,
    },
    /// [`Settlement::Dead`].
    Dead {
        /// Attempts made.
        attempts: u32,
        /// Now (Unix milliseconds).
        at: i64,
        /// Why.
        reason: String,
    },
}

impl From<Settlement> for SettlementRecord {
    fn from(settlement: Settlement) -> Self {
        match settlement {
            Settlement::Delivered => SettlementRecord::Delivered,
            Settlement::Retry {
                attempts,
                due,
                error,
            } => SettlementRecord::Retry {
                attempts,
                due,
                error,
            },
            Settlement::Dead {
                attempts,
                at,
                reason,
            } => SettlementRecord::Dead {
                attempts,
                at,
                reason,
            },
        }
    }
}

impl From<SettlementRecord> for Settlement {
    fn from(settlement: SettlementRecord) -> Self {
        match settlement {
            SettlementRecord::Delivered => Settlement::Delivered,
            SettlementRecord::Retry {
                attempts,
                due,
                error,
            } => Settlement::Retry {
                attempts,
                due,
                error,
            },
            SettlementRecord::Dead {
                attempts,
                at,
                reason,
            } => Settlement::Dead {
                attempts,
                at,
                reason,
            },
        }
    }
}

/// An event as requests and answers carry it and a `HostOutbox` object stores it: `{"id", "body",
/// "attempts", "due", "accepted", "last_error"}`, the body (a JSON envelope) as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EntryRecord {
    /// [`Entry::id`].
    pub(crate) id: String,
    /// [`Entry::body`], as text.
    pub(crate) body: String,
    /// [`Entry::attempts`].
    pub(crate) attempts: u32,
    /// [`Entry::due`].
    pub(crate) due: i64,
    /// [`Entry::accepted`].
    pub(crate) accepted: i64,
    /// [`Entry::last_error`] (`null` when none).
    pub(crate) last_error: Option<String>,
}

impl TryFrom<&Entry> for EntryRecord {
    type Error = StoreError;

    /// The event as a record; refused when its body is not UTF-8 text, which no JSON envelope is.
    fn try_from(entry: &Entry) -> Result<Self, StoreError> {
        let body = String::from_utf8(entry.body.clone()).map_err(|e| {
            StoreError::new(
                "durable object",
                StoreErrorKind::Refused,
                format!(
                    "event {} has a body that is not UTF-8 text; only JSON envelopes are stored",
                    entry.id
                ),
            )
            .with_source(e)
        })?;
        Ok(EntryRecord {
            id: entry.id.clone(),
            body,
            attempts: entry.attempts,
            due: entry.due,
            accepted: entry.accepted,
            last_error: entry.last_error.clone(),
        })
    }
}

impl From<EntryRecord> for Entry {
    fn from(record: EntryRecord) -> Self {
        Entry {
            id: record.id,
            body: record.body.into_bytes(),
            attempts: record.attempts,
            due: record.due,
            accepted: record.accepted,
            last_error: record.last_error,
        }
    }
}

/// A pending event and the owner of its claim (empty when unclaimed), stored at `p:<id>`:
/// `{"entry", "owner"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PendingRecord {
    /// The event.
    pub(crate) entry: EntryRecord,
    /// Who holds its claim.
    #[serde(default)]
    pub(crate) owner: String,
}

/// An event delivered within the window, stored at `s:<id>`: `{"digest", "until"}`, its digest in
/// lowercase hex and when the window ends (Unix milliseconds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SentRecord {
    /// [`Entry::digest`], in lowercase hex.
    pub(crate) digest: String,
    /// When the window ends.
    pub(crate) until: i64,
}

/// A deduplication record, one per key (the one record of a `HostDedupe` object, or `k:<key>` in
/// a `HostOutbox` object): `{"state": "inflight", "owner", "until"}` or `{"state": "done",
/// "until"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum DedupeRecord {
    /// Claimed by the attempt `owner` until its lease ends.
    Inflight {
        /// The attempt holding the claim.
        owner: String,
        /// When the lease ends (Unix milliseconds).
        until: i64,
    },
    /// Processed; remembered until the window ends.
    Done {
        /// When the window ends (Unix milliseconds).
        until: i64,
    },
}

/// A stored record that ends, after which the alarm erases it.
pub(crate) trait Ends: DeserializeOwned {
    /// When it ends (Unix milliseconds).
    fn until(&self) -> i64;
}

impl Ends for DedupeRecord {
    fn until(&self) -> i64 {
        match self {
            DedupeRecord::Inflight { until, .. } | DedupeRecord::Done { until } => *until,
        }
    }
}

impl Ends for SentRecord {
    fn until(&self) -> i64 {
        self.until
    }
}

#[cfg(test)]
mod tests;

/// Writes and reads, once, what a first event delivery exchanges with the outbox object, each side
/// as it does: the deduplication claim and the event stored under its claim, and their answers.
/// Pure work for the module's load (see [`crate::warm`]): the Workers runtime compiles a function
/// on its first call. Says whether each came back as it was written.
pub(crate) fn warm() -> bool {
    use host_runtime::serde_json::{self, Value};
    let entry = EntryRecord {
        id: "evt_warm".to_owned(),
        body: "{}".to_owned(),
        attempts: 0,
        due: 0,
        accepted: 0,
        last_error: None,
    };
    let asked = [
        OutboxRequest::Dedupe(KeptDedupeRequest {
            dedupe: DedupeOp::Claim,
            key: "warm".to_owned(),
            owner: "warm".to_owned(),
            lease: default_lease(),
        }),
        OutboxRequest::PutClaimed(PutClaimedRequest {
            entry: entry.clone(),
            lease_until: 0,
            owner: "warm".to_owned(),
        }),
    ];
    // The store writes each request; the object reads it.
    let requests = asked.iter().all(|request| {
        serde_json::to_string(request).is_ok_and(|text| {
            serde_json::from_str::<OutboxRequest>(&text).ok().as_ref() == Some(request)
        })
    });
    // The object writes its answers; the deduplication store reads a claim's from the text, the
    // outbox store a put's through a JSON tree, checking first for a failure.
    let claimed = ClaimAnswer {
        claim: DedupeAnswer::Run,
    };
    let claim = serde_json::to_string(&claimed)
        .is_ok_and(|text| serde_json::from_str::<ClaimAnswer>(&text).ok() == Some(claimed));
    let stored = PutClaimedAnswer {
        put: PutOutcome::Stored,
        entry: Some(entry),
    };
    let put = serde_json::to_string(&stored)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|tree| {
            Failure::deserialize(&tree).is_err()
                && PutClaimedAnswer::deserialize(&tree).ok() == Some(stored)
        });
    requests && claim && put
}
