//! [`PostgresDedupe`]: event deduplication in the vendor's PostgreSQL database (feature
//! `postgres`), where a delivery's record commits in the handler's own transaction.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};
use sqlx::{PgPool, Row as _};

use crate::platform::BoxFuture;
use crate::stores::dedupe::{Claim, DedupeStore, StoreError, WINDOW};
use crate::stores::postgres::{PgDatabase, PgTransaction, Statement, failed, pool_of};
use crate::stores::transaction::{Database, Transaction};

/// Takes the key for an attempt: a new row, or a row whose lease or window ran out. Returns a row
/// only when the attempt got the key.
const CLAIM: &str = "INSERT INTO host_dedupe AS d (id, key, owner, done, expires)
VALUES ($1, $2, $3, false, clock_timestamp() + $4 * interval '1 millisecond')
ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, done = false, expires = excluded.expires
WHERE d.expires <= clock_timestamp()
RETURNING 1";

/// Whether a key another attempt holds is recorded.
const DONE: &str = "SELECT done FROM host_dedupe WHERE id = $1 AND expires > clock_timestamp()";

/// Records the key for its holder, remembered for the window ($3 milliseconds).
const RECORD: &str = "UPDATE host_dedupe
SET owner = NULL, done = true, expires = clock_timestamp() + $3 * interval '1 millisecond'
WHERE id = $1 AND owner = $2 AND NOT done";

/// Frees the key, if its holder asks.
const RELEASE: &str = "DELETE FROM host_dedupe WHERE id = $1 AND owner = $2 AND NOT done";

/// Extends the holder's lease by $3 milliseconds from now.
const RENEW: &str = "UPDATE host_dedupe
SET expires = clock_timestamp() + $3 * interval '1 millisecond'
WHERE id = $1 AND owner = $2 AND NOT done";

/// Forgets up to 1,000 keys whose lease or window ran out.
const SWEEP: &str = "DELETE FROM host_dedupe WHERE id IN (
    SELECT id FROM host_dedupe WHERE expires <= clock_timestamp() LIMIT 1000
)";

/// Claims made between two sweeps of expired keys.
const SWEEP_EVERY: u32 = 500;

/// A store in the vendor's PostgreSQL database (table `host_dedupe`, see
/// [`postgres::migrate`](crate::postgres::migrate)), shared by every instance.
///
/// A claim is a lease, as in Redis: a row naming the attempt and lasting a minute by default
/// ([`with_lease`](Self::with_lease)), renewed every third of it while the handler runs, and
/// recorded or released only by its holder. A recorded key is remembered for the deduplication
/// window (20 minutes); a row whose lease or window ran out counts as absent, and such rows are
/// deleted a thousand at a time as claims go by. Times are the database server's clock.
///
/// What no other store does: the record commits in the handler's own transaction. Given to a
/// handler ([`Handler::with_dedupe_store`](crate::Handler::with_dedupe_store)), the store makes
/// every handler call run in a transaction of this database, lent to the handler by
/// [`postgres::transaction`](crate::postgres::transaction()): the vendor's writes, the events sent
/// through a [`PostgresOutbox`](crate::outbox::PostgresOutbox) of the same database and the
/// delivery's record commit together, or not at all (see [`crate::transaction`]).
pub struct PostgresDedupe {
    pool: PgPool,
    database: Arc<PgDatabase>,
    lease: Duration,
    /// How long a recorded key is kept: the window, or longer.
    remember: Duration,
    claims: AtomicU32,
}

impl std::fmt::Debug for PostgresDedupe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresDedupe")
            .field("database", &self.database.name)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

/// The row id of a key: its SHA-256, since a reserved event's key (its whole payload) can be longer
/// than an index entry may be.
fn id_of(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl PostgresDedupe {
    /// How long a claim lasts without renewal unless [`with_lease`](Self::with_lease) says
    /// otherwise.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

    /// A store over `pool`'s database, whose schema is up to date
    /// ([`postgres::migrate`](crate::postgres::migrate)).
    pub fn new(pool: PgPool) -> Self {
        let database = Arc::new(PgDatabase::new(pool.clone(), WINDOW));
        PostgresDedupe {
            pool,
            database,
            lease: Self::DEFAULT_LEASE,
            remember: WINDOW,
            claims: AtomicU32::new(0),
        }
    }

    /// How long a claim lasts without renewal (default 60 s): what a crashed instance holds a key
    /// for. Attempts renew it every third of it.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(300));
        self
    }

    /// How long a processed key's row is kept (default and least: the deduplication window, 20
    /// minutes, which outlasts the host's retries): longer to keep a record of what ran, for an
    /// audit say. Rows past it are deleted as claims go by, a thousand at a time.
    pub fn with_retention(mut self, retention: Duration) -> Self {
        if retention < WINDOW {
            tracing::warn!(
                asked = ?retention,
                kept = ?WINDOW,
                "a deduplication key must outlast the host's retries: kept for the window"
            );
        }
        self.remember = retention.max(WINDOW);
        self.database = Arc::new(PgDatabase::new(self.pool.clone(), self.remember));
        self
    }

    /// Deletes expired rows now and then, in a task of its own.
    fn sweep_now_and_then(&self) {
        if !self
            .claims
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(SWEEP_EVERY)
        {
            return;
        }
        let pool = self.pool.clone();
        crate::platform::rt::spawn(async move {
            if let Err(e) = Statement::new(SWEEP).execute_in(&pool).await {
                tracing::debug!(error = %e, "expired deduplication keys were not swept this time");
            }
        });
    }

    async fn settle(&self, sql: &'static str, key: &str, owner: &str, ms: i64, what: &str) {
        let id = id_of(key);
        let done = Statement::new(sql)
            .bytes(&id)
            .text(owner)
            .int(ms)
            .execute_in(&self.pool)
            .await;
        if let Err(e) = done {
            let e = failed(what, e);
            tracing::warn!(error = %crate::calls::error::Chain(&e), "the deduplication store failed");
        }
    }
}

impl DedupeStore for PostgresDedupe {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(crate::stores::postgres::migrate::check(&self.pool))
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            self.sweep_now_and_then();
            let id = id_of(key);
            let claimed = Statement::new(CLAIM)
                .bytes(&id)
                .text(key)
                .text(owner)
                .int(millis(self.lease))
                .fetch_optional_in(&self.pool)
                .await
                .map_err(|e| failed("cannot claim the event key", e))?;
            if claimed.is_some() {
                return Ok(Claim::Run);
            }
            let done: Option<bool> = Statement::new(DONE)
                .bytes(&id)
                .fetch_optional_in(&self.pool)
                .await
                .and_then(|row| row.map(|row| row.try_get(0)).transpose())
                .map_err(|e| failed("cannot read the event key", e))?;
            Ok(match done {
                Some(true) => Claim::Done,
                // Held by another attempt, or freed since the claim was tried: claim again.
                _ => Claim::Busy,
            })
        })
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(self.settle(
            RECORD,
            key,
            owner,
            millis(self.remember),
            "cannot record a processed event",
        ))
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(self.settle(RELEASE, key, owner, 0, "cannot release an event key"))
    }

    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(self.settle(
            RENEW,
            key,
            owner,
            millis(self.lease),
            "cannot renew an event claim",
        ))
    }

    fn renew_every(&self) -> Option<Duration> {
        Some(self.lease / 3)
    }

    fn transactions(&self) -> Option<Arc<dyn Database>> {
        Some(Arc::clone(&self.database) as Arc<dyn Database>)
    }
}

impl Database for PgDatabase {
    fn name(&self) -> &str {
        &self.name
    }

    fn pool(&self) -> usize {
        pool_of(&self.pool)
    }

    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>> {
        Box::pin(async move {
            let transaction = self
                .pool
                .begin()
                .await
                .map_err(|e| failed("cannot begin a transaction", e))?;
            Ok(Box::new(PgTransaction {
                tx: transaction,
                send: crate::stores::postgres::statement::Send::of(&self.pool),
                level: None,
                remember: self.remember,
            }) as Box<dyn Transaction>)
        })
    }
}

impl Transaction for PgTransaction {
    fn record<'a>(
        &'a mut self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let id = id_of(key);
            let done = Statement::new(RECORD)
                .bytes(&id)
                .text(owner)
                .int(millis(self.remember))
                .execute(&mut self.tx, self.send)
                .await
                .map_err(|e| failed("cannot record the event in the transaction", e))?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async move {
            self.tx
                .commit()
                .await
                .map_err(|e| failed("the transaction did not commit", e))
        })
    }

    fn rollback(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            if let Err(e) = self.tx.rollback().await {
                tracing::debug!(error = %e, "a rollback failed; the database rolls back when the connection closes");
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use host_test_support::PostgresServer;

    /// A fresh server with the stores' schema, and a pool on it.
    async fn database() -> Option<(PostgresServer, PgPool)> {
        let server = PostgresServer::start_or_skip()?;
        let pool = crate::postgres::connect(&server.url()).await.unwrap();
        assert_eq!(
            crate::postgres::migrate(&pool).await.unwrap(),
            crate::postgres::MIGRATIONS
                .iter()
                .map(|m| m.version)
                .collect::<Vec<_>>()
        );
        assert_eq!(
            crate::postgres::migrate(&pool).await.unwrap(),
            Vec::<i32>::new(),
            "migrated once"
        );
        Some((server, pool))
    }

    #[tokio::test]
    async fn a_claim_whose_lease_ran_out_passes_to_the_next_attempt() {
        let Some((_server, pool)) = database().await else {
            return;
        };
        let store = PostgresDedupe::new(pool).with_lease(Duration::from_millis(300));
        assert!(matches!(store.claim("k", "crashed").await, Ok(Claim::Run)));
        assert!(matches!(store.claim("k", "retry").await, Ok(Claim::Busy)));
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(matches!(store.claim("k", "retry").await, Ok(Claim::Run)));
        // The attempt that lost its lease can no longer record or release the key.
        store.complete("k", "crashed").await;
        store.release("k", "crashed").await;
        assert!(matches!(store.claim("k", "third").await, Ok(Claim::Busy)));
        store.complete("k", "retry").await;
        assert!(matches!(store.claim("k", "third").await, Ok(Claim::Done)));
    }

    #[tokio::test]
    async fn a_record_in_a_transaction_exists_once_it_commits_and_only_for_the_holder() {
        let Some((_server, pool)) = database().await else {
            return;
        };
        let store = PostgresDedupe::new(pool);
        let database = store.transactions().unwrap();
        assert!(matches!(store.claim("k", "holder").await, Ok(Claim::Run)));

        let mut rolled_back = database.begin().await.unwrap();
        assert!(rolled_back.record("k", "holder").await.unwrap());
        rolled_back.rollback().await;
        assert!(matches!(store.claim("k", "other").await, Ok(Claim::Busy)));

        let mut stranger = database.begin().await.unwrap();
        assert!(!stranger.record("k", "stranger").await.unwrap());
        stranger.rollback().await;

        let mut committed = database.begin().await.unwrap();
        assert!(committed.record("k", "holder").await.unwrap());
        // (A claim would wait for the transaction's row lock here: read instead.)
        let done: bool = sqlx::query_scalar(DONE)
            .bind(id_of("k"))
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert!(!done, "not recorded before the commit");
        committed.commit().await.unwrap();
        assert!(matches!(store.claim("k", "other").await, Ok(Claim::Done)));
        // A release by the former holder after the commit erases nothing.
        store.release("k", "holder").await;
        assert!(matches!(store.claim("k", "other").await, Ok(Claim::Done)));
    }

    #[tokio::test]
    async fn a_database_that_is_down_is_an_unavailable_store() {
        let Some((mut server, pool)) = database().await else {
            return;
        };
        let store = PostgresDedupe::new(pool);
        server.stop();
        let e = store.claim("k", "a").await.unwrap_err();
        assert!(
            matches!(
                e.kind(),
                crate::store::StoreErrorKind::Unavailable | crate::store::StoreErrorKind::Timeout
            ),
            "{e:?}"
        );
        server.restart().unwrap();
        let until = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            match store.claim("k", "a").await {
                Ok(Claim::Run) => break,
                other => assert!(
                    std::time::Instant::now() < until,
                    "the store did not come back: {other:?}"
                ),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The level is set by the first ask, before anything runs; a later ask for another is
    /// refused, naming both.
    #[tokio::test]
    async fn a_handler_asks_for_its_isolation_level_first() {
        use crate::postgres::{Isolation, transaction, transaction_with};
        let Some((_server, pool)) = database().await else {
            return;
        };
        let store = PostgresDedupe::new(pool);
        let scope = crate::stores::transaction::Scope::new(store.transactions().unwrap());
        scope
            .enter(async {
                let mut tx = transaction_with(Isolation::Serializable).await.unwrap();
                let level: String = sqlx::query_scalar("SHOW transaction_isolation")
                    .fetch_one(&mut *tx)
                    .await
                    .unwrap();
                assert_eq!(level, "serializable");
                drop(tx);
                assert!(
                    transaction().await.is_ok(),
                    "the same transaction, as it is"
                );
                assert!(transaction_with(Isolation::Serializable).await.is_ok());
            })
            .await;
        scope.roll_back().await;
        let scope = crate::stores::transaction::Scope::new(store.transactions().unwrap());
        scope
            .enter(async {
                drop(transaction().await.unwrap());
                let refused = transaction_with(Isolation::RepeatableRead)
                    .await
                    .unwrap_err();
                assert!(
                    refused
                        .to_string()
                        .contains("runs at READ COMMITTED already"),
                    "{refused}"
                );
            })
            .await;
        scope.roll_back().await;
    }
}
