#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use super::*;
use crate::BoxFuture;

#[cfg(feature = "redb")]
#[tokio::test]
async fn the_file_store_keeps_events_across_reopening_and_refuses_a_second_opener() {
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        for n in 0..100 {
            assert!(
                store
                    .put(Entry::new(format!("e{n:03}"), vec![n], n.into()))
                    .await
                    .unwrap()
                    .is_stored()
            );
        }
        let second = FileOutbox::open(&dir).unwrap_err().to_string();
        assert!(
            second.contains("another process has this outbox open"),
            "{second}"
        );
        assert!(second.contains("outbox.redb"), "{second}");
    }
    // The last handle closed the file when it was dropped.
    let store = FileOutbox::open(&dir).unwrap();
    let pending = store.list(Which::Pending, 1_000).await.unwrap();
    assert_eq!(pending.len(), 100);
    assert_eq!(pending[42].id, "e042");
    assert_eq!(pending[42].body, vec![42]);
}

#[cfg(feature = "redb")]
#[tokio::test]
async fn reopening_the_file_takes_back_the_claims_of_the_process_that_had_it() {
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        store
            .put(Entry::new("in-flight", b"1".to_vec(), 100))
            .await
            .unwrap();
        let now = now_ms();
        // Claimed for an hour by a process that then died.
        let claimed = store.claim(now, 10, now + 3_600_000, "gone").await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert!(
            store
                .claim(now, 10, now + 1, "other")
                .await
                .unwrap()
                .is_empty()
        );
    }
    let store = FileOutbox::open(&dir).unwrap();
    let now = now_ms();
    let claimed = store.claim(now, 10, now + 1_000, "next").await.unwrap();
    assert_eq!(claimed.len(), 1, "due at once, not in an hour");
    assert!(claimed[0].due <= now);
}

#[cfg(feature = "redb")]
#[test]
fn a_half_made_file_left_by_a_dead_process_is_swept_and_a_young_one_kept() {
    let dir = tempdir();
    // What redb leaves when killed before its magic number: a sized file of zeros.
    let old = dir.path().join("outbox.redb.4242-0.new");
    let young = dir.path().join("outbox.redb.4243-0.new");
    for path in [&old, &young] {
        std::fs::write(path, vec![0u8; 4096]).unwrap();
    }
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let store = FileOutbox::open(&dir).unwrap();
    assert!(store.path().ends_with("outbox.redb"));
    assert!(!old.exists(), "the dead process's half-made file is gone");
    assert!(
        young.exists(),
        "a file another process may still be making is kept"
    );
    let files = std::fs::read_dir(dir.path()).unwrap().flatten().count();
    assert_eq!(
        files, 2,
        "the outbox and the young file; none of this process's left over"
    );
}

#[cfg(feature = "redb")]
#[tokio::test]
async fn a_file_cut_short_is_named_as_damaged_not_a_panic() {
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        for n in 0..200u32 {
            let entry = Entry::new(format!("e{n:03}"), vec![7; 2_000], n.into());
            store.put(entry).await.unwrap();
        }
    }
    let file = std::fs::File::options()
        .write(true)
        .open(dir.path().join("outbox.redb"))
        .unwrap();
    let len = file.metadata().unwrap().len();
    file.set_len(len / 3).unwrap();
    let error = FileOutbox::open(&dir).unwrap_err().to_string();
    assert!(error.contains("outbox.redb"), "{error}");
    assert!(error.contains("damaged"), "{error}");
}

#[cfg(feature = "redb")]
#[test]
fn a_folder_that_cannot_hold_the_outbox_is_named() {
    let dir = tempdir();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let e = FileOutbox::open(&file).unwrap_err().to_string();
    assert!(
        e.contains("not-a-folder") && e.contains("cannot create the folder"),
        "{e}"
    );
}

/// A pending record that cannot be read (another format, or damaged) becomes a dead letter that
/// `list` shows and `discard` drops, not an entry that stays pending out of every view.
#[cfg(feature = "redb")]
#[tokio::test]
async fn an_unreadable_record_in_the_file_store_becomes_a_visible_dead_letter() {
    use redb::TableDefinition;
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        store
            .put(Entry::new("damaged", b"{}".to_vec(), 1))
            .await
            .unwrap();
        store
            .put(Entry::new("fine", b"{}".to_vec(), 1))
            .await
            .unwrap();
    }
    {
        // Another program (or a failing disk) leaves bytes no build of this format reads.
        let db = redb::Database::open(dir.path().join("outbox.redb")).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let pending: TableDefinition<&str, &[u8]> = TableDefinition::new("pending");
            let mut table = txn.open_table(pending).unwrap();
            table.insert("damaged", &[9u8, 0, 1][..]).unwrap();
        }
        txn.commit().unwrap();
    }
    let store = FileOutbox::open(&dir).unwrap();
    let now = now_ms();
    let claimed = store.claim(now, 10, now + 1_000, "me").await.unwrap();
    assert_eq!(
        claimed.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["fine"]
    );
    let dead = store.list(Which::Dead, 10).await.unwrap();
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0].id, "damaged");
    assert_eq!(dead[0].body, vec![9, 0, 1]);
    let why = dead[0].last_error.as_deref().unwrap_or_default();
    assert!(why.contains("cannot be read"), "{why}");
    assert!(why.contains("format 9"), "{why}");
    assert!(store.discard("damaged").await.unwrap());
    assert!(store.list(Which::Dead, 10).await.unwrap().is_empty());
}

/// A folder of the test's own, removed when dropped.
#[cfg(feature = "redb")]
fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("host-outbox-test-")
        .tempdir()
        .unwrap()
}

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
    outbox.accept("k", b"{\"x\":1}".to_vec()).await.unwrap();
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
    outbox.accept("refused", b"1".to_vec()).await.unwrap();
    assert!(matches!(
        receipt.outcome().await,
        Err(SendError::Rejected { status: 422, .. })
    ));
    let receipt = outbox.wait("flaky");
    outbox.accept("flaky", b"2".to_vec()).await.unwrap();
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
    outbox.accept("k", b"1".to_vec()).await.unwrap();
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
    outbox.accept("first", b"1".to_vec()).await.unwrap();
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

    outbox.accept("second", b"2".to_vec()).await.unwrap();
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
    let receipt = outbox.wait("once");
    let again = outbox
        .store_and_attempt("once", b"1".to_vec(), outbox.wait("once"))
        .await;
    assert_eq!(again, Ok(super::schedule::ALREADY_DELIVERED));
    assert_eq!(
        receipt.outcome().await,
        Ok(super::schedule::ALREADY_DELIVERED),
        "those waiting hear it"
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
    let receipt = outbox.wait("same");
    let outcome = outbox
        .store_and_attempt("same", b"other".to_vec(), outbox.wait("same"))
        .await;
    assert_eq!(outcome, Err(SendError::Conflict { id: "same".into() }));
    assert_eq!(
        receipt.outcome().await,
        Err(SendError::Conflict { id: "same".into() }),
        "those waiting on this process hear it"
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
async fn a_store_that_cannot_take_the_event_is_an_error_for_the_caller_and_its_waiters() {
    for dispatch in [DrainMode::Background, DrainMode::OnDemand] {
        let courier = Scripted::new(vec![]);
        let outbox = outbox(Arc::new(Broken), Arc::clone(&courier), quick(3), dispatch);
        let receipt = outbox.wait("k");
        let e = if dispatch == DrainMode::OnDemand {
            // A send stores and attempts at once (`store_and_attempt`), not through `accept`.
            let sending = outbox.store_and_attempt("k", b"1".to_vec(), outbox.wait("k"));
            sending.await.unwrap_err()
        } else {
            outbox.accept("k", b"1".to_vec()).await.unwrap_err()
        };
        assert!(
            matches!(&e, SendError::Store(inner) if inner.to_string().contains("disk full")),
            "{dispatch:?}: {e}"
        );
        assert!(e.to_string().contains("not accepted"), "{dispatch:?}: {e}");
        assert_eq!(receipt.outcome().await, Err(e));
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

/// `Entry::settle`, what every store applies: a retry and a death carry their count, time and
/// reason; a delivery changes nothing, since the entry leaves.
#[test]
fn settling_an_entry_records_the_attempt_and_names_where_it_goes() {
    let mut entry = Entry::new("e", b"{}".to_vec(), 1_000);
    let before = entry.clone();
    assert_eq!(entry.settle(Settlement::Delivered), Destination::Delivered);
    assert_eq!(entry, before);
    let retry = Settlement::Retry {
        attempts: 2,
        due: 5_000,
        error: "503".into(),
    };
    assert_eq!(entry.settle(retry), Destination::Pending);
    assert_eq!(
        (entry.attempts, entry.due, entry.last_error.as_deref()),
        (2, 5_000, Some("503"))
    );
    let dead = Settlement::Dead {
        attempts: 12,
        at: 9_000,
        reason: "gone".into(),
    };
    assert_eq!(entry.settle(dead), Destination::Dead);
    assert_eq!(
        (entry.attempts, entry.due, entry.last_error.as_deref()),
        (12, 9_000, Some("gone"))
    );
    assert_eq!(entry.accepted, 1_000, "acceptance is never rewritten");
}
