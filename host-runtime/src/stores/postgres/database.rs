//! The connection pool, the migrations, what a PostgreSQL error means for a caller, and the
//! handler's transaction as a vendor's handler holds it.

use std::any::Any;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{PgConnection, Postgres};

use super::migrations::{COMPONENT, HISTORY, MIGRATIONS, Migration};
use super::tls;
use crate::stores::store::{StoreError, StoreErrorKind};
use crate::stores::transaction::{self as scope, Scope};

/// How long [`connect`] may take, and how long a call waits for a connection of the pool: a
/// database that does not answer makes a delivery `503` within it, which the host retries.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Connections [`connect`] opens at most.
const MAX_CONNECTIONS: u32 = 16;
/// The advisory lock [`migrate`] holds, so that instances starting together migrate one at a time.
const MIGRATION_LOCK: i64 = 0x686f_7374_5f73_646b; // "host_sdk"

/// Connects a pool to `url` (`postgres://user:password@host:port/database?sslmode=verify-full`)
/// for the stores and the handlers' transactions: up to 16 connections, each call waiting at most
/// 2 s for one. Fails within 2 s when the database cannot be reached.
///
/// TLS follows the URL's `sslmode` (`disable`, `prefer`, the default, `require`, `verify-ca`,
/// `verify-full`) and `sslrootcert` (a CA to trust beside the public ones); as in libpq, `require`
/// with a root certificate checks the certificate. A database across a network reached with less
/// than `verify-full`, or a `prefer` that fell back to plaintext, is logged at start (a warning
/// that says what to ask for); a failed handshake says why (an unknown CA, a name the certificate
/// does not carry, a server without TLS). A pool of your own works as well; the stores take any
/// [`PgPool`](sqlx::PgPool).
pub async fn connect(url: &str) -> Result<PgPool, StoreError> {
    let options: PgConnectOptions = url.parse().map_err(|e| {
        failed(
            "the database URL cannot be read (postgres://user:password@host:port/database)",
            e,
        )
    })?;
    let options = tls::effective(options, tls::root_cert_given(url));
    let name = name_of_options(&options);
    let mode = options.get_ssl_mode();
    let local = tls::local(&options);
    let pool = PgPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(CONNECT_TIMEOUT)
        .connect_with(options)
        .await
        .map_err(|e| match tls::explain(&e, mode) {
            Some(why) => failed(
                format!(
                    "cannot connect to {name} (sslmode={}): {why}",
                    tls::mode_name(mode)
                ),
                e,
            ),
            None => failed(format!("cannot connect to {name}"), e),
        })?;
    // What the connection got, which `prefer` does not say.
    let secured =
        sqlx::query_scalar::<_, bool>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_optional(&pool)
            .await
            .ok()
            .flatten();
    if let Some(advice) = tls::advice(mode, local, secured) {
        tracing::warn!(database = %name, tls = ?secured, "{advice}");
    }
    Ok(pool)
}

/// Brings the database's schema up to date: applies the [`MIGRATIONS`](super::MIGRATIONS) it
/// lacks, each once, in one transaction, while holding a lock so that instances starting together
/// take turns. Returns the versions it applied (none when the schema was up to date).
///
/// Refuses to start when a migration the database applied differs from this build's (its
/// checksum), naming it: an edited migration would otherwise go unnoticed.
pub async fn migrate(pool: &PgPool) -> Result<Vec<i32>, StoreError> {
    Ok(run(pool, COMPONENT, &[]).await?.0)
}

/// [`migrate`], then `migrations`, an application's own (its tables beside the stores'), recorded
/// under `component` (the application's name; not `host`): all under the same lock and in the same
/// transaction, so that instances starting at the same moment never create a table twice. Returns
/// the versions of `migrations` it applied.
///
/// ```no_run
/// # #[cfg(feature = "postgres")]
/// # async fn start(pool: host_runtime::postgres::sqlx::PgPool) -> Result<(), Box<dyn std::error::Error>> {
/// use host_runtime::postgres::{self, Migration};
/// const MINE: &[Migration] = &[Migration {
///     version: 1,
///     name: "alerts",
///     sql: "CREATE TABLE alerts (id bigserial PRIMARY KEY, install text NOT NULL)",
/// }];
/// postgres::migrate_with(&pool, "keyword-tracker", MINE).await?;
/// # Ok(())
/// # }
/// ```
pub async fn migrate_with(
    pool: &PgPool,
    component: &str,
    migrations: &[Migration],
) -> Result<Vec<i32>, StoreError> {
    Ok(run(pool, component, migrations).await?.1)
}

/// Applies the SDK's migrations, then `component`'s, under the lock; gives the versions applied
/// of each.
async fn run(
    pool: &PgPool,
    component: &str,
    migrations: &[Migration],
) -> Result<(Vec<i32>, Vec<i32>), StoreError> {
    if component == COMPONENT && !migrations.is_empty() {
        return Err(StoreError::new(
            "postgres",
            StoreErrorKind::Refused,
            format!(
                "`{COMPONENT}` names the SDK's own migrations: record yours under your application's name"
            ),
        ));
    }
    let step = |what: &'static str| move |e| failed(format!("cannot migrate: {what}"), e);
    let mut tx = pool.begin().await.map_err(step("no connection"))?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(MIGRATION_LOCK)
        .execute(&mut *tx)
        .await
        .map_err(step("the migration lock"))?;
    sqlx::raw_sql(HISTORY)
        .execute(&mut *tx)
        .await
        .map_err(step("the table host_migrations"))?;
    let host = apply(&mut tx, COMPONENT, MIGRATIONS).await?;
    let mine = apply(&mut tx, component, migrations).await?;
    tx.commit().await.map_err(step("the commit"))?;
    if !host.is_empty() {
        tracing::info!(versions = ?host, "PostgreSQL stores migrated");
    }
    if !mine.is_empty() {
        tracing::info!(component, versions = ?mine, "PostgreSQL migrations applied");
    }
    Ok((host, mine))
}

/// Applies `component`'s migrations the database lacks in `tx`, after checking the ones it has
/// against their checksums. Gives the versions applied.
async fn apply(
    tx: &mut sqlx::Transaction<'static, Postgres>,
    component: &str,
    migrations: &[Migration],
) -> Result<Vec<i32>, StoreError> {
    let have: Vec<(i32, String, Option<String>)> =
        sqlx::query_as("SELECT version, name, checksum FROM host_migrations WHERE component = $1")
            .bind(component)
            .fetch_all(&mut **tx)
            .await
            .map_err(|e| failed("cannot migrate: reading host_migrations", e))?;
    let mut applied = Vec::new();
    for m in migrations {
        let checksum = m.checksum();
        match have.iter().find(|(version, _, _)| *version == m.version) {
            Some((_, _, Some(recorded))) if *recorded != checksum => {
                return Err(StoreError::new(
                    "postgres",
                    StoreErrorKind::Refused,
                    format!(
                        "migration {} of `{component}` ({}) is not the one this database applied: \
                         its SQL changed since (checksum {recorded} recorded, {checksum} now). \
                         Put the migration back as it was and make the change a new migration",
                        m.version, m.name
                    ),
                ));
            }
            // Recorded by a release that kept no checksums: it is taken as applied.
            Some((_, _, None)) => {
                sqlx::query(
                    "UPDATE host_migrations SET checksum = $3 WHERE component = $1 AND version = $2",
                )
                .bind(component)
                .bind(m.version)
                .bind(&checksum)
                .execute(&mut **tx)
                .await
                .map_err(|e| failed("cannot migrate: recording a checksum", e))?;
            }
            Some(_) => {}
            None => {
                sqlx::raw_sql(m.sql).execute(&mut **tx).await.map_err(|e| {
                    failed(
                        format!(
                            "migration {} of `{component}` ({}) failed",
                            m.version, m.name
                        ),
                        e,
                    )
                })?;
                sqlx::query(
                    "INSERT INTO host_migrations (component, version, name, checksum) VALUES ($1, $2, $3, $4)",
                )
                .bind(component)
                .bind(m.version)
                .bind(m.name)
                .bind(&checksum)
                .execute(&mut **tx)
                .await
                .map_err(|e| failed("cannot migrate: recording a migration", e))?;
                applied.push(m.version);
            }
        }
    }
    Ok(applied)
}

/// The database `pool` connects to, as messages show it: `host:port/database`, and the
/// connection's options (a `search_path`, say) when it has any. No user name or password.
pub(crate) fn name_of(pool: &PgPool) -> String {
    let options = pool.connect_options();
    let name = name_of_options(&options);
    match options.get_options() {
        Some(extra) if !extra.is_empty() => format!("{name} (options {extra})"),
        _ => name,
    }
}

/// The identity of `pool`: equal for its clones, different for every other pool, even one built
/// from the same URL. The options a pool keeps are shared by its clones and made anew for each
/// pool, so their address tells pools apart.
pub(crate) fn pool_of(pool: &PgPool) -> usize {
    Arc::as_ptr(&pool.connect_options()) as usize
}

fn name_of_options(options: &PgConnectOptions) -> String {
    let database = options.get_database().unwrap_or_default();
    match options.get_socket() {
        Some(socket) => format!("{}:{}/{database}", socket.display(), options.get_port()),
        None => format!("{}:{}/{database}", options.get_host(), options.get_port()),
    }
}

/// What failed in PostgreSQL, with the driver's error as the source.
pub(crate) fn failed(what: impl Into<String>, e: sqlx::Error) -> StoreError {
    let code = match &e {
        sqlx::Error::Database(db) => db.code().map(|c| c.into_owned()),
        _ => None,
    };
    let mut message = what.into();
    // An undefined table: the schema was never applied.
    if code.as_deref() == Some("42P01") {
        message += "; the stores' tables are missing: call `postgres::migrate` at start-up, or \
                    apply `cargo host postgres-schema`";
    }
    StoreError::new("postgres", kind_of(&e, code.as_deref()), message).with_source(e)
}

/// How a caller should take a driver error: retry what may pass later, fix what will not.
fn kind_of(e: &sqlx::Error, code: Option<&str>) -> StoreErrorKind {
    match e {
        sqlx::Error::PoolTimedOut => StoreErrorKind::Timeout,
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Protocol(_) => StoreErrorKind::Unavailable,
        sqlx::Error::Configuration(_) | sqlx::Error::InvalidArgument(_) => StoreErrorKind::Refused,
        sqlx::Error::Database(_) => match code.unwrap_or_default() {
            // A query cancelled by `statement_timeout`.
            "57014" => StoreErrorKind::Timeout,
            "53100" => StoreErrorKind::Full,
            // Connection failures, a server shutting down or starting, too many connections, a
            // serialization failure or a deadlock: all pass on a later try.
            c if c.starts_with("08")
                || c.starts_with("57")
                || c.starts_with("53")
                || c == "40001"
                || c == "40P01" =>
            {
                StoreErrorKind::Unavailable
            }
            // Missing tables, columns or rights.
            c if c.starts_with("42") => StoreErrorKind::Refused,
            _ => StoreErrorKind::Other,
        },
        sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::Decode(_)
        | sqlx::Error::TypeNotFound { .. }
        | sqlx::Error::ColumnNotFound(_)
        | sqlx::Error::ColumnIndexOutOfBounds { .. } => StoreErrorKind::Corrupt,
        _ => StoreErrorKind::Other,
    }
}

/// The stores' database, as the pipeline begins handlers' transactions in it.
pub(crate) struct PgDatabase {
    pub(crate) pool: PgPool,
    pub(crate) name: String,
    /// How long a delivery's record is remembered.
    pub(crate) remember: Duration,
}

impl PgDatabase {
    pub(crate) fn new(pool: PgPool, remember: Duration) -> PgDatabase {
        PgDatabase {
            name: name_of(&pool),
            pool,
            remember,
        }
    }
}

/// An open transaction of a [`PgDatabase`], and the isolation level the handler set, if it was
/// lent to the handler already (`None` while nothing of the handler's ran in it).
pub(crate) struct PgTransaction {
    pub(crate) tx: sqlx::Transaction<'static, Postgres>,
    pub(crate) level: Option<Isolation>,
    /// How long a delivery's record made in it is remembered.
    pub(crate) remember: Duration,
}

impl PgTransaction {
    /// Sets the isolation level: the first statement of the transaction. A boxed future, as the
    /// other statements of the stores are: a handler's future that awaits a sqlx query in an
    /// `async fn` of ours would not be `Send` for every lifetime, and handlers must be.
    fn set_isolation(&mut self, level: Isolation) -> crate::BoxFuture<'_, Result<(), sqlx::Error>> {
        Box::pin(async move {
            sqlx::query(level.set_sql())
                .execute(&mut *self.tx)
                .await
                .map(|_| ())
        })
    }
}

/// The isolation level of a handler's transaction, PostgreSQL's own: what the handler's reads
/// see of other transactions' writes while it runs.
///
/// - [`ReadCommitted`](Isolation::ReadCommitted), the default: each statement sees what was
///   committed when it began. Two handlers that read a row, compute, and write it back can both
///   read the old value, and one write is lost: write `UPDATE t SET n = n + 1` (one statement),
///   lock the row first (`SELECT ... FOR UPDATE`), or ask for a stricter level.
/// - [`RepeatableRead`](Isolation::RepeatableRead): every statement sees the snapshot of the
///   first; a write to a row another transaction changed since fails with a serialization error.
/// - [`Serializable`](Isolation::Serializable): the transactions run as if one after another;
///   any that could not fails with a serialization error.
///
/// A serialization failure (SQLSTATE 40001) or a deadlock (40P01) rolls the handler's transaction
/// back and answers `503 STORE_UNAVAILABLE` with `Retry-After`: the host redelivers an event, which
/// runs the handler again from the start on the committed data. A tool call is not retried: its
/// caller sees the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Isolation {
    /// `READ COMMITTED`.
    ReadCommitted,
    /// `REPEATABLE READ`.
    RepeatableRead,
    /// `SERIALIZABLE`.
    Serializable,
}

impl Isolation {
    /// As SQL writes it.
    pub fn as_sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }

    /// The statement that sets it for the current transaction.
    fn set_sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
            Isolation::RepeatableRead => "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            Isolation::Serializable => "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
        }
    }
}

/// The current handler's transaction, lent to it until dropped: a [`PgConnection`] inside the
/// transaction the pipeline commits once the handler returned `Ok` (with the events the handler
/// sent through a [`PostgresOutbox`](crate::outbox::PostgresOutbox) of the same database, and an
/// event delivery's deduplication record), and rolls back otherwise.
///
/// Write with it as with any sqlx connection, then drop it (or let it go out of scope); the
/// handler may ask again later and gets the same transaction. Do not commit it yourself: the
/// pipeline does, after the handler.
///
/// ```no_run
/// # #[cfg(feature = "postgres")]
/// # async fn handler() -> Result<(), host_runtime::HostError> {
/// use host_runtime::postgres::{self, sqlx};
/// let mut tx = postgres::transaction().await?;
/// sqlx::query("INSERT INTO alerts (install, keyword) VALUES ($1, $2)")
///     .bind("ins_1")
///     .bind("habit tracker")
///     .execute(&mut *tx)
///     .await
///     .map_err(postgres::failed_write)?;
/// # Ok(())
/// # }
/// ```
pub struct Transaction {
    scope: Arc<Scope>,
    open: Option<Box<PgTransaction>>,
}

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transaction")
            .field("database", &self.scope.database())
            .finish_non_exhaustive()
    }
}

/// The transaction of the handler this code runs in: begun on the first call (and by an event
/// the handler sends through an outbox of the same database), then the same one until the
/// handler returns.
///
/// An error when there is none: the handler's deduplication store is not a
/// [`PostgresDedupe`](crate::dedupe::PostgresDedupe) (given with
/// [`Handler::with_dedupe_store`](crate::Handler::with_dedupe_store)), the code runs outside the
/// handler's own future (a task it spawned), the transaction is lent already (drop that one
/// first), or the database cannot begin one (a handler passing the error on with `?` answers
/// `503`, and the host retries).
pub async fn transaction() -> Result<Transaction, StoreError> {
    lend(None).await
}

/// [`transaction()`] at isolation level `level`: asked before anything else in the handler's
/// transaction (the first `transaction_with`, or the first [`transaction()`], decides the level;
/// events sent through the outbox do not, they are written at the commit). An error when the
/// transaction ran at another level already.
///
/// ```no_run
/// # #[cfg(feature = "postgres")]
/// # async fn handler() -> Result<(), host_runtime::HostError> {
/// use host_runtime::postgres::{self, Isolation, sqlx};
/// let mut tx = postgres::transaction_with(Isolation::Serializable).await?;
/// let n: i64 = sqlx::query_scalar("SELECT n FROM counters WHERE id = 1")
///     .fetch_one(&mut *tx)
///     .await
///     .map_err(postgres::failed_write)?;
/// sqlx::query("UPDATE counters SET n = $1 WHERE id = 1")
///     .bind(n + 1)
///     .execute(&mut *tx)
///     .await
///     .map_err(postgres::failed_write)?; // a concurrent writer: 503, and the host retries
/// # Ok(())
/// # }
/// ```
pub async fn transaction_with(level: Isolation) -> Result<Transaction, StoreError> {
    lend(Some(level)).await
}

async fn lend(level: Option<Isolation>) -> Result<Transaction, StoreError> {
    let Some(scope) = scope::current() else {
        return Err(StoreError::new(
            "postgres",
            StoreErrorKind::Refused,
            "no handler's transaction here: give the handler a PostgresDedupe \
             (`Handler::with_dedupe_store`), and ask from the handler's own future, not from a \
             task it spawned",
        ));
    };
    let lent = scope.lend().await?;
    if !(&*lent as &dyn Any).is::<PgTransaction>() {
        scope.give_back(lent);
        return Err(StoreError::new(
            "postgres",
            StoreErrorKind::Refused,
            "the handler's transaction is not PostgreSQL's",
        ));
    }
    let Ok(mut open) = (lent as Box<dyn Any + Send>).downcast::<PgTransaction>() else {
        return Err(StoreError::new(
            "postgres",
            StoreErrorKind::Refused,
            "the handler's transaction is not PostgreSQL's",
        ));
    };
    match (open.level, level) {
        // First lent: the level the handler asks for, before anything runs.
        (None, asked) => {
            let asked = asked.unwrap_or(Isolation::ReadCommitted);
            if asked != Isolation::ReadCommitted
                && let Err(e) = open.set_isolation(asked).await
            {
                scope.give_back(open);
                return Err(failed("cannot set the transaction's isolation level", e));
            }
            open.level = Some(asked);
        }
        (Some(_), None) => {}
        (Some(was), Some(asked)) if was == asked => {}
        (Some(was), Some(asked)) => {
            scope.give_back(open);
            return Err(StoreError::new(
                "postgres",
                StoreErrorKind::Refused,
                format!(
                    "the handler's transaction runs at {} already, so it cannot be {}: ask for the \
                     level with `postgres::transaction_with` before anything else in the handler",
                    was.as_sql(),
                    asked.as_sql()
                ),
            ));
        }
    }
    Ok(Transaction {
        scope,
        open: Some(open),
    })
}

impl Deref for Transaction {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        match &self.open {
            Some(open) => &open.tx,
            None => unreachable!("a lent transaction is only taken back when dropped"),
        }
    }
}

impl DerefMut for Transaction {
    fn deref_mut(&mut self) -> &mut PgConnection {
        match &mut self.open {
            Some(open) => &mut open.tx,
            None => unreachable!("a lent transaction is only taken back when dropped"),
        }
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if let Some(open) = self.open.take() {
            self.scope.give_back(open);
        }
    }
}

/// A handler's query that failed, as the answer to the host: `503 STORE_UNAVAILABLE` with
/// `Retry-After` when the database may take it later (unreachable, restarting, a deadlock), else
/// `500 INTERNAL`; the driver's error is kept as the cause, for the log. For
/// `.map_err(postgres::failed_write)?` after a query.
pub fn failed_write(e: sqlx::Error) -> crate::calls::error::HostError {
    failed("a query of the handler failed", e).into()
}
