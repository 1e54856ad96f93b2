//! The dispatcher's tests: retries, dead letters, on-demand sends and leases, over scripted
//! couriers and stores of the tests' own. Each store's own tests are beside it in `stores/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use super::*;
use crate::platform::BoxFuture;

/// A courier that answers each attempt with the next scripted result and records what it was given.
struct Scripted {
    script: Mutex<Vec<Try>>,
    seen: Mutex<Vec<(String, Vec<u8>)>>,
}

impl Scripted {
    fn new(mut script: Vec<Try>) -> Arc<Self> {
        script.reverse();
        Arc::new(Scripted {
            script: Mutex::new(script),
            seen: Mutex::new(Vec::new()),
        })
    }

    fn seen(&self) -> Vec<(String, Vec<u8>)> {
        self.seen.lock().unwrap().clone()
    }
}

impl Courier for Scripted {
    fn attempt<'a>(&'a self, id: &'a str, body: &'a [u8], _: Duration) -> BoxFuture<'a, Try> {
        self.seen
            .lock()
            .unwrap()
            .push((id.to_owned(), body.to_vec()));
        let next = self
            .script
            .lock()
            .unwrap()
            .pop()
            .unwrap_or(Try::Delivered(200));
        Box::pin(std::future::ready(next))
    }
}

/// The ticket of a send whose receipt nobody holds.
const NO_RECEIPT: u64 = u64::MAX;

fn fail() -> Try {
    Try::Failed {
        reason: "status 503".into(),
        retry_after: None,
    }
}

fn quick(attempts: u32) -> RetryPolicy {
    RetryPolicy {
        attempts,
        first_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        timeout: Duration::from_secs(1),
    }
}

fn outbox(
    store: Arc<dyn OutboxStore>,
    courier: Arc<Scripted>,
    retry: RetryPolicy,
    dispatch: DrainMode,
) -> Arc<Outbox> {
    Arc::new(Outbox::new(
        store,
        courier,
        retry,
        dispatch,
        8,
        lease_for(None, &retry),
    ))
}

#[tokio::test]
async fn failed_attempts_are_retried_with_the_same_id_and_bytes_until_delivered() {
    let courier = Scripted::new(vec![fail(), fail(), Try::Delivered(202)]);
    let store: Arc<dyn OutboxStore> = Arc::new(MemoryOutbox::new());
    let outbox = outbox(
        Arc::clone(&store),
        Arc::clone(&courier),
        quick(5),
        DrainMode::Background,
    );
    let receipt = outbox.wait("k");
    outbox
        .accept("k", b"{\"x\":1}".to_vec(), NO_RECEIPT)
        .await
        .unwrap();
    assert_eq!(receipt.outcome().await, Ok(202));
    let seen = courier.seen();
    assert_eq!(seen.len(), 3);
    assert!(
        seen.iter()
            .all(|(id, body)| id == "k" && body == b"{\"x\":1}")
    );
    assert!(
        store.list(Which::Pending, 10).await.unwrap().is_empty(),
        "removed once delivered"
    );
}

#[tokio::test]
async fn a_refusal_and_exhausted_retries_become_dead_letters_that_can_be_retried() {
    let refused = Try::Refused {
        status: 422,
        body: "no".into(),
    };
    let courier = Scripted::new(vec![refused, fail(), fail(), fail(), Try::Delivered(200)]);
    let store: Arc<dyn OutboxStore> = Arc::new(MemoryOutbox::new());
    let outbox = outbox(
        Arc::clone(&store),
        Arc::clone(&courier),
        quick(3),
        DrainMode::Background,
    );

    let receipt = outbox.wait("refused");
    outbox
        .accept("refused", b"1".to_vec(), NO_RECEIPT)
        .await
        .unwrap();
    assert!(matches!(
        receipt.outcome().await,
        Err(SendError::Rejected { status: 422, .. })
    ));
    let receipt = outbox.wait("flaky");
    outbox
        .accept("flaky", b"2".to_vec(), NO_RECEIPT)
        .await
        .unwrap();
    assert!(matches!(
        receipt.outcome().await,
        Err(SendError::Exhausted { attempts: 3, .. })
    ));
    let dead = store.list(Which::Dead, 10).await.unwrap();
    let reasons: Vec<(&str, &str)> = dead
        .iter()
        .map(|e| (e.id.as_str(), e.last_error.as_deref().unwrap()))
        .collect();
    assert_eq!(reasons.len(), 2);
    assert!(
        reasons
            .iter()
            .any(|(id, why)| *id == "refused" && why.contains("422"))
    );
    assert!(
        reasons
            .iter()
            .any(|(id, why)| *id == "flaky" && why.contains("3 attempts"))
    );

    // Retried by hand: delivered on its next attempt.
    let receipt = outbox.wait("flaky");
    assert!(store.revive("flaky", now_ms()).await.unwrap());
    assert_eq!(receipt.outcome().await, Ok(200));
}

#[tokio::test]
async fn retry_after_is_waited_for_and_capped() {
    let told = Try::Failed {
        reason: "status 429".into(),
        retry_after: Some(Duration::from_secs(3_600)),
    };
    let courier = Scripted::new(vec![told]);
    let store: Arc<dyn OutboxStore> = Arc::new(MemoryOutbox::new());
    let retry = RetryPolicy {
        max_backoff: Duration::from_secs(2),
        ..quick(3)
    };
    let outbox = outbox(Arc::clone(&store), courier, retry, DrainMode::OnDemand);
    let before = now_ms();
    outbox.accept("k", b"1".to_vec(), NO_RECEIPT).await.unwrap();
    let report = outbox.drain(Duration::from_secs(1)).await;
    assert_eq!(report.retrying, 1);
    let due = store.list(Which::Pending, 1).await.unwrap()[0].due;
    // An hour asked for, the policy's 2 s longest wait kept.
    assert!(
        (before + 1_900..before + 3_000).contains(&due),
        "{}",
        due - before
    );
}

#[tokio::test]
async fn on_demand_a_send_makes_one_bounded_attempt_and_a_drain_finishes_the_rest() {
    let courier = Scripted::new(vec![fail(), Try::Delivered(200), Try::Delivered(200)]);
    let store: Arc<dyn OutboxStore> = Arc::new(MemoryOutbox::new());
    // The retry comes due after the send has returned (a send makes the attempts due within its
    // budget, so a shorter wait would see it delivered by the send itself).
    let retry = RetryPolicy {
        first_backoff: Duration::from_millis(300),
        ..quick(5)
    };
    let outbox = outbox(
        Arc::clone(&store),
        Arc::clone(&courier),
        retry,
        DrainMode::OnDemand,
    );
    assert!(!outbox.start(), "no background task on demand");

    let receipt = outbox.wait("first");
    outbox
        .accept("first", b"1".to_vec(), NO_RECEIPT)
        .await
        .unwrap();
    let outcome = outbox.settle_now("first", receipt).await;
    assert!(
        matches!(outcome, Err(SendError::Pending { attempts: 1, .. })),
        "{outcome:?}"
    );
    assert_eq!(
        store.list(Which::Pending, 10).await.unwrap().len(),
        1,
        "kept for later"
    );

    outbox
        .accept("second", b"2".to_vec(), NO_RECEIPT)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(350)).await;
    let report = outbox.drain(Duration::from_secs(2)).await;
    assert_eq!((report.delivered, report.retrying, report.dead), (2, 0, 0));
    assert!(!report.more && report.error.is_none());
    assert!(store.list(Which::Pending, 10).await.unwrap().is_empty());
}

/// A memory store that counts the calls a sender makes, and stores claimed events in one call.
#[derive(Default)]
struct Counting {
    inner: MemoryOutbox,
    calls: Mutex<Vec<&'static str>>,
}

impl Counting {
    fn note(&self, call: &'static str) {
        self.calls.lock().unwrap().push(call);
    }

    fn calls(&self) -> Vec<&'static str> {
        self.calls.lock().unwrap().clone()
    }
}

impl OutboxStore for Counting {
    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
        self.note("put");
        self.inner.put(entry)
    }
    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
        self.note("put_claimed");
        self.inner.put_claimed(entry, lease_until, owner)
    }
    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        self.note("claim");
        self.inner.claim(now, limit, lease_until, owner)
    }
    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        self.note("claim_ids");
        self.inner.claim_ids(ids, now, lease_until, owner)
    }
    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.note("settle");
        self.inner.settle(id, owner, settlement)
    }
    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        self.inner.next_due()
    }
    fn list(&self, which: Which, limit: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        self.inner.list(which, limit)
    }
    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.inner.revive(id, now)
    }
    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.inner.discard(id)
    }
}

/// The pending events of `store`, by id, with the attempts each has had.
async fn pending_attempts(store: &dyn OutboxStore) -> Vec<(String, u32)> {
    let pending = store.list(Which::Pending, 10).await.unwrap();
    pending.into_iter().map(|e| (e.id, e.attempts)).collect()
}

/// An on-demand outbox over a counting store, posting through a courier that answers `script`.
fn on_demand(script: Vec<Try>) -> (Arc<Scripted>, Arc<Counting>, Arc<Outbox>) {
    let courier = Scripted::new(script);
    let store = Arc::new(Counting::default());
    let outbox = outbox(
        Arc::clone(&store) as Arc<dyn OutboxStore>,
        Arc::clone(&courier),
        quick(5),
        DrainMode::OnDemand,
    );
    (courier, store, outbox)
}

#[tokio::test]
async fn an_on_demand_send_stores_its_event_claimed_then_attempts_it() {
    let (courier, store, outbox) = on_demand(vec![Try::Delivered(202), fail()]);
    assert!(outbox.on_demand());

    let delivered = outbox
        .store_and_attempt("first", b"1".to_vec(), outbox.wait("first"))
        .await;
    assert_eq!(delivered, Ok(202));
    assert_eq!(
        store.calls(),
        ["put_claimed", "settle"],
        "stored claimed, attempted, settled: no claim of its own"
    );

    let retrying = outbox
        .store_and_attempt("second", b"2".to_vec(), outbox.wait("second"))
        .await;
    assert!(
        matches!(retrying, Err(SendError::Pending { attempts: 1, .. })),
        "{retrying:?}"
    );
    assert_eq!(
        pending_attempts(&*store).await,
        [("second".to_owned(), 1)],
        "the first is gone, the second waits for its retry"
    );
    assert_eq!(
        courier.seen(),
        [
            ("first".to_owned(), b"1".to_vec()),
            ("second".to_owned(), b"2".to_vec())
        ]
    );
}

#[tokio::test]
async fn an_on_demand_send_of_an_event_already_pending_attempts_the_first_one() {
    let (courier, store, outbox) = on_demand(vec![Try::Delivered(200)]);
    store
        .inner
        .put(Entry::new("same", b"first".to_vec(), now_ms()))
        .await
        .unwrap();
    let outcome = outbox
        .store_and_attempt("same", b"first".to_vec(), outbox.wait("same"))
        .await;
    assert_eq!(outcome, Ok(200));
    assert_eq!(store.calls(), ["put_claimed", "claim_ids", "settle"]);
    assert_eq!(
        courier.seen(),
        [("same".to_owned(), b"first".to_vec())],
        "the first event's bytes, as stored"
    );
}

#[tokio::test]
async fn an_on_demand_send_of_an_event_delivered_already_answers_without_an_attempt() {
    let (courier, store, outbox) = on_demand(vec![Try::Delivered(202)]);
    let first = outbox
        .store_and_attempt("once", b"1".to_vec(), outbox.wait("once"))
        .await;
    assert_eq!(first, Ok(202));
    let someone_else = outbox.wait("once");
    let again = outbox
        .store_and_attempt("once", b"1".to_vec(), outbox.wait("once"))
        .await;
    assert_eq!(again, Ok(super::schedule::ALREADY_DELIVERED));
    assert!(
        futures_util::FutureExt::now_or_never(someone_else.outcome()).is_none(),
        "another sender's receipt hears of its own send, not of this one"
    );
    let other = outbox
        .store_and_attempt("once", b"2".to_vec(), outbox.wait("once"))
        .await;
    assert_eq!(other, Err(SendError::Conflict { id: "once".into() }));
    assert_eq!(
        store.calls(),
        ["put_claimed", "settle", "put_claimed", "put_claimed"],
        "nothing claimed or settled for the second and third"
    );
    assert_eq!(courier.seen(), [("once".to_owned(), b"1".to_vec())]);
}

#[tokio::test]
async fn an_on_demand_send_under_the_id_of_a_waiting_event_with_other_bytes_is_refused() {
    let (courier, store, outbox) = on_demand(vec![]);
    store
        .inner
        .put(Entry::new("same", b"first".to_vec(), now_ms()))
        .await
        .unwrap();
    let first = outbox.wait("same");
    let outcome = outbox
        .store_and_attempt("same", b"other".to_vec(), outbox.wait("same"))
        .await;
    assert_eq!(outcome, Err(SendError::Conflict { id: "same".into() }));
    assert!(
        futures_util::FutureExt::now_or_never(first.outcome()).is_none(),
        "the first sender's event is still on its way: the refusal is not its outcome"
    );
    assert!(courier.seen().is_empty(), "nothing was posted");
    let pending = store.list(Which::Pending, 10).await.unwrap();
    assert_eq!(
        pending
            .iter()
            .map(|e| (e.id.as_str(), e.attempts, e.body.as_slice()))
            .collect::<Vec<_>>(),
        [("same", 0, &b"first"[..])],
        "the waiting one is untouched"
    );
}

/// A delivered event's digest is forgotten when the window ends: then its id takes any event.
#[tokio::test]
async fn a_delivered_id_is_free_again_once_the_window_ends() {
    let store = MemoryOutbox::with_window(Duration::from_millis(50));
    assert!(
        store
            .put(Entry::new("w", b"1".to_vec(), 0))
            .await
            .unwrap()
            .is_stored()
    );
    let claimed = store.claim(0, 1, 10, "me").await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(
        store
            .settle("w", "me", Settlement::Delivered)
            .await
            .unwrap()
    );
    assert_eq!(
        store.put(Entry::new("w", b"2".to_vec(), 0)).await.unwrap(),
        Put::Conflict
    );
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert_eq!(
        store.put(Entry::new("w", b"2".to_vec(), 0)).await.unwrap(),
        Put::Stored(())
    );
}

#[tokio::test]
async fn an_invocation_run_answer_first_leaves_the_records_for_after_the_answer() {
    let (_, store, outbox) = on_demand(vec![Try::Delivered(200), fail()]);
    let work = async {
        let first = outbox.store_and_attempt("first", b"1".to_vec(), outbox.wait("first"));
        let second = outbox.store_and_attempt("second", b"2".to_vec(), outbox.wait("second"));
        (first.await, second.await)
    };
    let ((first, second), report, records) = super::Invocation::new().run_answer_first(work).await;
    assert_eq!(first, Ok(200));
    assert!(
        matches!(second, Err(SendError::Pending { attempts: 1, .. })),
        "{second:?}"
    );
    assert!(report.error.is_none(), "{report:?}");
    assert_eq!(
        store.calls(),
        ["put_claimed", "put_claimed"],
        "nothing recorded yet"
    );
    assert_eq!(records.len(), 2);
    let claimed = store.list(Which::Pending, 10).await.unwrap();
    assert_eq!(
        claimed.len(),
        2,
        "both still stored, under this outbox's claims"
    );

    records.await;
    assert_eq!(
        store.calls(),
        ["put_claimed", "put_claimed", "settle", "settle"]
    );
    assert_eq!(
        pending_attempts(&*store).await,
        [("second".to_owned(), 1)],
        "the delivered one is gone; the other waits for its retry"
    );

    // Without `run_answer_first`, each record is made before the send returns.
    let (outcome, _) = super::Invocation::new()
        .run(outbox.store_and_attempt("third", b"3".to_vec(), outbox.wait("third")))
        .await;
    assert_eq!(outcome, Ok(200));
    assert_eq!(store.calls()[4..], ["put_claimed", "settle"]);
}

/// A store whose every call fails, as a full disk or a Redis that is down.
pub(crate) struct Broken;

impl OutboxStore for Broken {
    fn put(&self, _: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
    fn claim<'a>(
        &'a self,
        _: i64,
        _: usize,
        _: i64,
        _: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
    fn claim_ids<'a>(
        &'a self,
        _: &'a [String],
        _: i64,
        _: i64,
        _: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
    fn settle<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
    fn list(&self, _: Which, _: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
    fn revive<'a>(&'a self, _: &'a str, _: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
    fn discard<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(std::future::ready(Err(StoreError::new(
            "test",
            StoreErrorKind::Full,
            "disk full",
        ))))
    }
}

#[tokio::test]
async fn a_store_that_cannot_take_the_event_is_an_error_for_the_caller_and_its_receipt() {
    for dispatch in [DrainMode::Background, DrainMode::OnDemand] {
        let courier = Scripted::new(vec![]);
        let outbox = outbox(Arc::new(Broken), Arc::clone(&courier), quick(3), dispatch);
        let someone_else = outbox.wait("k");
        let e = if dispatch == DrainMode::OnDemand {
            // A send stores and attempts at once (`store_and_attempt`), not through `accept`.
            let sending = outbox.store_and_attempt("k", b"1".to_vec(), outbox.wait("k"));
            sending.await.unwrap_err()
        } else {
            let receipt = outbox.wait("k");
            let e = outbox
                .accept("k", b"1".to_vec(), receipt.ticket)
                .await
                .unwrap_err();
            assert_eq!(
                receipt.outcome().await,
                Err(e.clone()),
                "its own receipt hears it"
            );
            e
        };
        assert!(
            matches!(&e, SendError::Store(inner) if inner.to_string().contains("disk full")),
            "{dispatch:?}: {e}"
        );
        assert!(e.to_string().contains("not accepted"), "{dispatch:?}: {e}");
        assert!(
            futures_util::FutureExt::now_or_never(someone_else.outcome()).is_none(),
            "{dispatch:?}: another sender's receipt of the id is not told of this send's failure"
        );
        assert!(
            courier.seen().is_empty(),
            "{dispatch:?}: nothing was posted"
        );
    }
}

#[test]
fn dropped_receipts_leave_nothing_behind() {
    let waiters = Waiters::default();
    let kept: Vec<_> = (0..10)
        .map(|n| waiters.wait(&format!("kept-{n}")))
        .collect();
    for n in 0..100_000 {
        drop(waiters.wait(&format!("dropped-{n}")));
    }
    let held = waiters.lock().len();
    assert!(held < 2_100, "{held} ids held for 10 live receipts");
    waiters.finish("kept-3", &Ok(200));
    drop(kept);
}

#[test]
fn the_lease_is_the_one_asked_for_but_outlasts_two_attempts() {
    let retry = RetryPolicy::default();
    assert_eq!(lease_for(None, &retry), Duration::from_secs(60));
    let slow = RetryPolicy {
        timeout: Duration::from_secs(30),
        ..retry
    };
    assert_eq!(lease_for(None, &slow), Duration::from_secs(90));
    let fast = RetryPolicy {
        timeout: Duration::from_secs(2),
        ..retry
    };
    assert_eq!(
        lease_for(Some(Duration::from_secs(5)), &fast),
        Duration::from_secs(5)
    );
    // Shorter than two attempts of 10 s: raised, not taken.
    assert_eq!(
        lease_for(Some(Duration::from_secs(5)), &retry),
        Duration::from_secs(20)
    );
    let sender = crate::EventSender::new(
        "http://127.0.0.1:9/v1/events",
        crate::testing::DEVELOPMENT_WEBHOOK_SECRET,
        MemoryOutbox::new(),
    )
    .unwrap()
    .with_retry(fast)
    .with_lease(Duration::from_secs(4));
    assert_eq!(sender.lease(), Duration::from_secs(4));
}
