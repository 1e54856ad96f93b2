//! The deduplication rules: what a step (claim, renew, complete, release) of one delivery attempt
//! answers and does to its key's record, at a given time. The same rules serve both places a record
//! is kept, a `HostDedupe` object's one record and `k:<key>` in a `HostOutbox` object, so each
//! place only reads the record, calls [`decide`] and applies the [`Change`].
//!
//! Nothing here touches the Workers runtime or storage, so the tests run on the build machine.

use host_runtime::dedupe::WINDOW;
use host_runtime::serde_json;

use crate::clock::millis;
use crate::wire::{DedupeAnswer, DedupeOp, DedupeRecord, Ends};

/// What a deduplication step does to its record.
pub(crate) enum Change {
    /// Nothing.
    None,
    /// Writes this record, which may be erased once it ends.
    Write(DedupeRecord),
    /// Erases it.
    Erase,
}

/// Decides the deduplication step `op` of the attempt `owner` (its lease in milliseconds) on
/// `record` at `now`: the answer the client reads and what to do to the record. The caller reads
/// and writes the record within one request to its object, which the Workers runtime runs without
/// interleaving another.
pub(crate) fn decide(
    record: Option<&DedupeRecord>,
    op: DedupeOp,
    owner: &str,
    lease: i64,
    now: i64,
) -> (DedupeAnswer, Change) {
    let lease = lease.max(300);
    // A record past its end counts as absent (its alarm may not have run yet).
    let live = record.filter(|r| r.until() > now);
    let holds =
        matches!(live, Some(DedupeRecord::Inflight { owner: held_by, .. }) if held_by == owner);
    let inflight = || {
        Change::Write(DedupeRecord::Inflight {
            owner: owner.to_owned(),
            until: now.saturating_add(lease),
        })
    };
    match op {
        DedupeOp::Claim => match live {
            Some(DedupeRecord::Done { .. }) => (DedupeAnswer::Done, Change::None),
            Some(DedupeRecord::Inflight { .. }) => (DedupeAnswer::Busy, Change::None),
            None => (DedupeAnswer::Run, inflight()),
        },
        DedupeOp::Renew if holds => (DedupeAnswer::Renewed, inflight()),
        DedupeOp::Complete if holds => {
            let until = now.saturating_add(millis(WINDOW));
            (
                DedupeAnswer::Completed,
                Change::Write(DedupeRecord::Done { until }),
            )
        }
        DedupeOp::Release if holds => (DedupeAnswer::Released, Change::Erase),
        DedupeOp::Renew | DedupeOp::Complete | DedupeOp::Release => {
            (DedupeAnswer::NotHeld, Change::None)
        }
    }
}

/// Why a deduplication request is refused when its key's record cannot be read: counting it as
/// absent would let a delivery run again, which is what the record is there to prevent.
pub(crate) fn unreadable(e: &serde_json::Error) -> String {
    format!("the deduplication record of this key is not one this version reads: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_000_000;

    fn inflight(owner: &str, until: i64) -> DedupeRecord {
        DedupeRecord::Inflight {
            owner: owner.to_owned(),
            until,
        }
    }

    /// The answer and the record written (`None` for no change, `Some(None)` for an erasure).
    fn step(
        record: Option<DedupeRecord>,
        op: DedupeOp,
        owner: &str,
        lease: i64,
    ) -> (DedupeAnswer, Option<Option<DedupeRecord>>) {
        let (answer, change) = decide(record.as_ref(), op, owner, lease, NOW);
        let change = match change {
            Change::None => None,
            Change::Write(record) => Some(Some(record)),
            Change::Erase => Some(None),
        };
        (answer, change)
    }

    #[test]
    fn a_free_key_is_claimed_for_the_lease() {
        assert_eq!(
            step(None, DedupeOp::Claim, "a", 60_000),
            (DedupeAnswer::Run, Some(Some(inflight("a", NOW + 60_000))))
        );
        // A lease is 300 ms at least.
        assert_eq!(
            step(None, DedupeOp::Claim, "a", 5),
            (DedupeAnswer::Run, Some(Some(inflight("a", NOW + 300))))
        );
    }

    #[test]
    fn a_live_record_holds_its_key() {
        assert_eq!(
            step(Some(inflight("a", NOW + 1)), DedupeOp::Claim, "b", 60_000),
            (DedupeAnswer::Busy, None)
        );
        // The holder's own second claim is busy too: one attempt runs the handler.
        assert_eq!(
            step(Some(inflight("a", NOW + 1)), DedupeOp::Claim, "a", 60_000),
            (DedupeAnswer::Busy, None)
        );
        let done = DedupeRecord::Done { until: NOW + 1 };
        assert_eq!(
            step(Some(done), DedupeOp::Claim, "b", 60_000),
            (DedupeAnswer::Done, None)
        );
    }

    #[test]
    fn an_ended_record_counts_as_absent() {
        for ended in [inflight("a", NOW), DedupeRecord::Done { until: NOW }] {
            assert_eq!(
                step(Some(ended.clone()), DedupeOp::Claim, "b", 60_000),
                (DedupeAnswer::Run, Some(Some(inflight("b", NOW + 60_000))))
            );
            assert_eq!(
                step(Some(ended), DedupeOp::Complete, "a", 60_000),
                (DedupeAnswer::NotHeld, None)
            );
        }
    }

    #[test]
    fn only_the_holder_settles_its_claim() {
        let held = || Some(inflight("a", NOW + 1));
        assert_eq!(
            step(held(), DedupeOp::Renew, "a", 60_000),
            (
                DedupeAnswer::Renewed,
                Some(Some(inflight("a", NOW + 60_000)))
            )
        );
        let window_ends = NOW + millis(WINDOW);
        assert_eq!(
            step(held(), DedupeOp::Complete, "a", 60_000),
            (
                DedupeAnswer::Completed,
                Some(Some(DedupeRecord::Done { until: window_ends }))
            )
        );
        assert_eq!(
            step(held(), DedupeOp::Release, "a", 60_000),
            (DedupeAnswer::Released, Some(None))
        );
        for op in [DedupeOp::Renew, DedupeOp::Complete, DedupeOp::Release] {
            assert_eq!(step(held(), op, "b", 60_000), (DedupeAnswer::NotHeld, None));
            assert_eq!(step(None, op, "a", 60_000), (DedupeAnswer::NotHeld, None));
            let done = Some(DedupeRecord::Done { until: NOW + 1 });
            assert_eq!(step(done, op, "a", 60_000), (DedupeAnswer::NotHeld, None));
        }
    }
}
