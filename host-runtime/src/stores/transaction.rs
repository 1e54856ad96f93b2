//! A handler's transaction: the vendor's own writes in one handler call, the events it sends and,
//! for an event delivery, the delivery's deduplication record, committed together or not at all.
//!
//! A deduplication store that keeps its keys in a database able to hold the vendor's data too
//! (PostgreSQL, feature `postgres`) offers that database as a [`Database`]. The pipeline then runs
//! every handler call in a scope of its own:
//!
//! 1. nothing is begun until the handler asks for its transaction (`postgres::transaction()`) or
//!    hands an event to an outbox kept in the same database;
//! 2. once the handler returned `Ok`, the events it handed over are written in that transaction,
//!    an event delivery's key is recorded in it (only if this attempt still holds its claim), and
//!    it commits;
//! 3. an error, a panic, a timeout or a call the host gave up on rolls it back: none of the three
//!    happened, and the host's retry runs the handler again.
//!
//! The scope is found through a thread-local set for the span of each poll of the handler's future
//! (as an [`Invocation`](crate::outbox::Invocation) is), so it reaches every future the handler
//! awaits, however deep, and nothing it spawns as a task of its own.

use std::any::Any;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::platform::BoxFuture;
use crate::platform::scope::{self, Scoped};
use crate::stores::store::{StoreError, StoreErrorKind};

/// A database in which a handler's writes, its events and an event's deduplication record can
/// commit in one transaction: what [`DedupeStore::transactions`](crate::dedupe::DedupeStore::transactions)
/// answers for a store kept in such a database.
pub trait Database: Send + Sync + 'static {
    /// Names the database as messages show it (for PostgreSQL its host, port, name and connection
    /// options, such as a `search_path`).
    fn name(&self) -> &str;

    /// Tells the connection pool apart from every other: an outbox writes its events in the
    /// handler's transaction only when it was built on the same pool as the store that begins it
    /// (a pool of other settings, such as another `search_path`, reaches other tables).
    fn pool(&self) -> usize;

    /// Begins a transaction.
    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>>;
}

/// An open transaction of a [`Database`]. Dropping it without [`commit`](Self::commit) rolls it
/// back.
pub trait Transaction: Any + Send {
    /// Records the deduplication key `key` as processed inside the transaction, if the attempt
    /// `owner` still holds its claim: `Ok(false)` when it does not (its lease ran out and another
    /// attempt may be running), and then the transaction must not commit.
    fn record<'a>(
        &'a mut self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Commits. An error may come after the database committed (the answer was lost on the way):
    /// whoever retries finds the key recorded, or not, and does the right thing either way.
    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>>;

    /// Rolls back, and waits until the database did.
    fn rollback(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// A write made in the scope's transaction just before it commits: an event an outbox of the same
/// database accepted while the handler ran.
pub(crate) type Write = Box<
    dyn for<'t> FnOnce(&'t mut dyn Transaction) -> BoxFuture<'t, Result<(), StoreError>> + Send,
>;

/// Where the scope's transaction is.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
enum Slot {
    /// Not begun: the handler has not needed it (yet).
    Idle,
    /// Begun, in the scope.
    Open(Box<dyn Transaction>),
    /// Lent to the handler (or being begun for it).
    Lent,
    /// The call is over: committed or rolled back.
    Closed,
}

/// Why a scope could not commit.
#[derive(Debug)]
pub(crate) enum Failed {
    /// The database failed (to begin, to write, to commit).
    Store(StoreError),
    /// The delivery's claim was no longer this attempt's when its key was to be recorded.
    NotHeld,
    /// The handler still holds its transaction (it moved it into a task that outlived the call).
    StillLent,
}

/// One handler call's transaction, begun when first needed.
pub(crate) struct Scope {
    database: Arc<dyn Database>,
    slot: Mutex<Slot>,
    /// Events accepted by an outbox of the same database, by id, with their writes when these
    /// wait for the commit (`None`: written in the transaction already).
    writes: Mutex<Vec<(String, Option<Write>)>>,
    /// Hand-overs to run before the commit (events sent with `spawn`).
    deferred: Mutex<Vec<BoxFuture<'static, ()>>>,
    /// What to do once the transaction committed (wake the dispatcher of an outbox whose events
    /// it wrote).
    committed: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update is one assignment or push: a panic elsewhere leaves whole data.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn refused(message: &str) -> StoreError {
    StoreError::new("transaction", StoreErrorKind::Refused, message)
}

impl Scope {
    /// A scope of `database`, nothing begun.
    pub(crate) fn new(database: Arc<dyn Database>) -> Arc<Scope> {
        Arc::new(Scope {
            database,
            slot: Mutex::new(Slot::Idle),
            writes: Mutex::new(Vec::new()),
            deferred: Mutex::new(Vec::new()),
            committed: Mutex::new(Vec::new()),
        })
    }

    /// `future`, polled with this scope as the current one.
    pub(crate) fn enter<F: Future>(self: &Arc<Self>, future: F) -> Scoped<Scope, F> {
        Scoped::new(&CURRENT, Arc::clone(self), future)
    }

    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// The name of the scope's database.
    pub(crate) fn database(&self) -> &str {
        self.database.name()
    }

    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// The identity of the scope's connection pool ([`Database::pool`]).
    pub(crate) fn pool(&self) -> usize {
        self.database.pool()
    }

    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// Lends the transaction to the handler, beginning it if it was not. Refused while it is lent
    /// already, and once the call is over.
    pub(crate) async fn lend(&self) -> Result<Box<dyn Transaction>, StoreError> {
        let was = std::mem::replace(&mut *lock(&self.slot), Slot::Lent);
        match was {
            Slot::Open(transaction) => Ok(transaction),
            Slot::Idle => match self.database.begin().await {
                Ok(transaction) => Ok(transaction),
                Err(e) => {
                    *lock(&self.slot) = Slot::Idle;
                    Err(e)
                }
            },
            Slot::Lent => Err(refused(
                "the handler's transaction is in use: drop the first one before asking again",
            )),
            Slot::Closed => {
                *lock(&self.slot) = Slot::Closed;
                Err(refused(
                    "the call is over: its transaction was committed or rolled back",
                ))
            }
        }
    }

    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// Takes back what [`lend`](Self::lend) lent. After the call is over it is rolled back.
    pub(crate) fn give_back(&self, transaction: Box<dyn Transaction>) {
        let mut slot = lock(&self.slot);
        if matches!(*slot, Slot::Lent) {
            *slot = Slot::Open(transaction);
            return;
        }
        drop(slot);
        tracing::warn!("a transaction was given back after its call ended; it is rolled back");
        drop(transaction);
    }

    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// Notes event `id`'s write, made in the transaction before it commits.
    pub(crate) fn write(&self, id: &str, write: Write) {
        lock(&self.writes).push((id.to_owned(), Some(write)));
    }

    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// Notes that event `id` was written in the transaction already: it exists once that commits.
    pub(crate) fn hold(&self, id: &str) {
        lock(&self.writes).push((id.to_owned(), None));
    }

    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// Where the transaction is, for a store that would make a statement in it while the handler
    /// waits on that store: taken when it is open (and given back when the [`Borrowed`] is
    /// dropped), else whether the handler holds a connection through it.
    pub(crate) fn borrow(&self) -> Held<'_> {
        let mut slot = lock(&self.slot);
        match std::mem::replace(&mut *slot, Slot::Lent) {
            Slot::Open(transaction) => Held::Open(Borrowed {
                scope: self,
                transaction: Some(transaction),
            }),
            Slot::Idle => {
                *slot = Slot::Idle;
                Held::NotBegun
            }
            other => {
                *slot = other;
                Held::Elsewhere
            }
        }
    }

    /// Whether event `id` waits in this scope for the commit.
    fn holds(&self, id: &str) -> bool {
        lock(&self.writes).iter().any(|(held, _)| held == id)
    }

    /// Ends the call that succeeded: runs the deferred hand-overs, writes the accepted events,
    /// records `record` (a key and the attempt holding it) and commits, all in one transaction.
    /// `Ok(true)` when the key was recorded in it; `Ok(false)` when the handler wrote nothing in
    /// the database, so nothing was begun and a key is still to be recorded the usual way.
    pub(crate) async fn commit(
        self: &Arc<Self>,
        record: Option<(&str, &str)>,
    ) -> Result<bool, Failed> {
        let deferred = std::mem::take(&mut *lock(&self.deferred));
        if !deferred.is_empty() {
            self.enter(futures_util::future::join_all(deferred)).await;
        }
        let writes = std::mem::take(&mut *lock(&self.writes));
        let slot = std::mem::replace(&mut *lock(&self.slot), Slot::Closed);
        let mut transaction = match slot {
            Slot::Open(transaction) => transaction,
            Slot::Idle if writes.is_empty() => return Ok(false),
            Slot::Idle => self.database.begin().await.map_err(Failed::Store)?,
            Slot::Lent => return Err(Failed::StillLent),
            Slot::Closed => return Err(Failed::Store(refused("the transaction was closed"))),
        };
        for write in writes.into_iter().filter_map(|(_, write)| write) {
            if let Err(e) = write(&mut *transaction).await {
                transaction.rollback().await;
                return Err(Failed::Store(e));
            }
        }
        if let Some((key, owner)) = record {
            match transaction.record(key, owner).await {
                Ok(true) => {}
                Ok(false) => {
                    transaction.rollback().await;
                    return Err(Failed::NotHeld);
                }
                Err(e) => {
                    transaction.rollback().await;
                    return Err(Failed::Store(e));
                }
            }
        }
        transaction.commit().await.map_err(Failed::Store)?;
        for then in std::mem::take(&mut *lock(&self.committed)) {
            then();
        }
        Ok(record.is_some())
    }

    /// Ends the call that failed: rolls back whatever was begun and drops the accepted events.
    pub(crate) async fn roll_back(&self) {
        lock(&self.writes).clear();
        lock(&self.deferred).clear();
        lock(&self.committed).clear();
        let slot = std::mem::replace(&mut *lock(&self.slot), Slot::Closed);
        if let Slot::Open(transaction) = slot {
            transaction.rollback().await;
        }
    }
}

/// Where a scope's transaction is, as [`Scope::borrow`] finds it.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
pub(crate) enum Held<'s> {
    /// Open, and taken for the store's statement.
    Open(Borrowed<'s>),
    /// Not begun: the handler holds no connection through it.
    NotBegun,
    /// Lent to the handler (which holds its connection across the store's call), or the call is
    /// over.
    Elsewhere,
}

/// A scope's open transaction, taken for a store's statement; given back when dropped, also when
/// the store's future is dropped half-way.
pub(crate) struct Borrowed<'s> {
    scope: &'s Scope,
    transaction: Option<Box<dyn Transaction>>,
}

impl Borrowed<'_> {
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))] // Only PostgreSQL lends and writes yet.
    /// The transaction.
    pub(crate) fn transaction(&mut self) -> &mut dyn Transaction {
        match &mut self.transaction {
            Some(transaction) => &mut **transaction,
            None => unreachable!("a borrowed transaction is only given back when dropped"),
        }
    }
}

impl Drop for Borrowed<'_> {
    fn drop(&mut self) {
        if let Some(transaction) = self.transaction.take() {
            self.scope.give_back(transaction);
        }
    }
}

thread_local! {
    /// The scope whose handler this thread is polling, if any.
    static CURRENT: scope::Slot<Scope> = const { std::cell::RefCell::new(None) };
}

/// The scope of the handler this thread is polling, if any.
pub(crate) fn current() -> Option<Arc<Scope>> {
    crate::platform::scope::current(&CURRENT)
}

/// Whether event `id` was accepted into the current handler's transaction, so that it exists only
/// once that commits.
pub(crate) fn holds(id: &str) -> bool {
    current().is_some_and(|scope| scope.holds(id))
}

/// Runs `then` once the current handler's transaction committed, if event `id` waits for that
/// commit; gives it back when it does not (no scope, or the event is not in its transaction).
pub(crate) fn once_committed<F: FnOnce() + Send + 'static>(id: &str, then: F) -> Result<(), F> {
    match current() {
        Some(scope) if scope.holds(id) => {
            lock(&scope.committed).push(Box::new(then));
            Ok(())
        }
        _ => Err(then),
    }
}

/// Runs `hand_over` inside the current handler's scope just before its transaction commits; gives
/// it back when there is no scope.
pub(crate) fn defer(hand_over: BoxFuture<'static, ()>) -> Result<(), BoxFuture<'static, ()>> {
    match current() {
        Some(scope) => {
            lock(&scope.deferred).push(hand_over);
            Ok(())
        }
        None => Err(hand_over),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A database that counts what its transactions do.
    #[derive(Default)]
    struct Counting {
        begun: AtomicUsize,
        committed: Arc<AtomicUsize>,
        rolled_back: Arc<AtomicUsize>,
        written: Arc<AtomicUsize>,
    }

    struct Open {
        committed: Arc<AtomicUsize>,
        rolled_back: Arc<AtomicUsize>,
        written: Arc<AtomicUsize>,
        held: bool,
    }

    impl Database for Counting {
        fn name(&self) -> &str {
            "counting"
        }
        fn pool(&self) -> usize {
            0
        }
        fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>> {
            self.begun.fetch_add(1, Ordering::SeqCst);
            let open = Open {
                committed: Arc::clone(&self.committed),
                rolled_back: Arc::clone(&self.rolled_back),
                written: Arc::clone(&self.written),
                held: true,
            };
            Box::pin(async move { Ok(Box::new(open) as Box<dyn Transaction>) })
        }
    }

    impl Transaction for Open {
        fn record<'a>(
            &'a mut self,
            _: &'a str,
            _: &'a str,
        ) -> BoxFuture<'a, Result<bool, StoreError>> {
            let held = self.held;
            Box::pin(async move { Ok(held) })
        }
        fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
            self.committed.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { Ok(()) })
        }
        fn rollback(self: Box<Self>) -> BoxFuture<'static, ()> {
            self.rolled_back.fetch_add(1, Ordering::SeqCst);
            Box::pin(async {})
        }
    }

    fn write() -> Write {
        Box::new(|t: &mut dyn Transaction| {
            let open = (t as &mut dyn Any).downcast_mut::<Open>().unwrap();
            open.written.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { Ok(()) })
        })
    }

    #[tokio::test]
    async fn nothing_is_begun_for_a_handler_that_writes_nothing() {
        let db = Arc::new(Counting::default());
        let scope = Scope::new(db.clone());
        assert!(!scope.commit(Some(("k", "o"))).await.unwrap());
        assert_eq!(db.begun.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn events_and_the_record_commit_in_one_transaction_begun_for_them() {
        let db = Arc::new(Counting::default());
        let scope = Scope::new(db.clone());
        scope
            .enter(async {
                current().unwrap().write("evt", write());
                assert!(holds("evt"));
            })
            .await;
        assert!(
            !holds("evt"),
            "outside the handler's polls no scope is current"
        );
        assert!(scope.commit(Some(("k", "o"))).await.unwrap());
        assert_eq!(db.begun.load(Ordering::SeqCst), 1);
        assert_eq!(db.written.load(Ordering::SeqCst), 1);
        assert_eq!(db.committed.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_lent_transaction_is_the_one_committed_and_lent_once_at_a_time() {
        let db = Arc::new(Counting::default());
        let scope = Scope::new(db.clone());
        let lent = scope.lend().await.unwrap();
        assert!(scope.lend().await.is_err(), "lent twice at once");
        assert!(matches!(scope.commit(None).await, Err(Failed::StillLent)));
        let scope = Scope::new(db.clone());
        let lent_again = scope.lend().await.unwrap();
        scope.give_back(lent_again);
        drop(lent);
        scope.commit(None).await.unwrap();
        assert_eq!(db.begun.load(Ordering::SeqCst), 2);
        assert_eq!(db.committed.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_failed_call_rolls_back_and_forgets_its_events() {
        let db = Arc::new(Counting::default());
        let scope = Scope::new(db.clone());
        let lent = scope.lend().await.unwrap();
        scope.give_back(lent);
        scope.write("evt", write());
        scope.roll_back().await;
        assert_eq!(db.rolled_back.load(Ordering::SeqCst), 1);
        assert_eq!(db.written.load(Ordering::SeqCst), 0);
        assert!(scope.lend().await.is_err(), "the call is over");
    }
}
