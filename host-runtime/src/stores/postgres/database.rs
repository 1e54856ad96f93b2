//! The connection pool, what a PostgreSQL error means for a caller, and the handler's transaction
//! as a vendor's handler holds it.

use std::any::Any;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{PgConnection, Postgres};

use super::tls;
use crate::stores::store::{StoreError, StoreErrorKind};
use crate::stores::transaction::{self as scope, Scope};

/// How a pool of [`connect_with`] is sized and timed, and how long its start waits for the
/// database. [`Settings::default()`] is what [`connect`] uses.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// Connections the pool opens at most (default 16). Each handler call holds one while its
    /// transaction is open, the dispatcher one per claim or settlement, and the outbox's listener
    /// one of its own beside them. Behind a pooler, the pooler's pool size is what reaches the
    /// database.
    pub max_connections: u32,
    /// How long a call waits for a connection of the pool, a new one included (default 2 s): a
    /// database that does not answer makes a delivery `503` within it, which the host retries.
    pub acquire_timeout: std::time::Duration,
    /// How long the start waits for a database that does not answer yet (default 60 s), trying
    /// again with a pause growing to 5 s and saying so in the log each time: a database started
    /// beside the server, or a serverless one waking from cold. Zero fails at the first refusal. A
    /// refusal that waiting does not cure (a wrong password, an unknown database, a certificate
    /// that does not verify) fails at once.
    pub start_timeout: std::time::Duration,
    /// How long a connection is kept at most before it is closed and made anew (default 30
    /// minutes): with credentials that rotate, how long a connection made with the old ones lives.
    pub max_lifetime: std::time::Duration,
    /// Whether the URL is a pooler's in transaction mode (PgBouncer, Supavisor, RDS Proxy), where
    /// the stores send each statement with its values rather than prepared (see
    /// [`behind_pooler`]). `None` (the default): found out at start, by whether the server
    /// listens on the port the URL names (a pooler listens on its own), then by whether two
    /// connections of the pool, one after the other, land on the same server process, which a
    /// pooler does and a database never does; and, failing both, at the first statement a pooler
    /// refuses, which is then sent again unprepared.
    pub transaction_pooler: Option<bool>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_connections: 16,
            acquire_timeout: std::time::Duration::from_secs(2),
            start_timeout: std::time::Duration::from_secs(60),
            max_lifetime: std::time::Duration::from_secs(30 * 60),
            transaction_pooler: None,
        }
    }
}

impl Settings {
    /// [`max_connections`](Self::max_connections), at least 1.
    pub fn with_max_connections(mut self, n: u32) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// [`acquire_timeout`](Self::acquire_timeout).
    pub fn with_acquire_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.acquire_timeout = timeout;
        self
    }

    /// [`start_timeout`](Self::start_timeout).
    pub fn with_start_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.start_timeout = timeout;
        self
    }

    /// [`max_lifetime`](Self::max_lifetime).
    pub fn with_max_lifetime(mut self, lifetime: std::time::Duration) -> Self {
        self.max_lifetime = lifetime;
        self
    }

    /// [`transaction_pooler`](Self::transaction_pooler): `true` or `false` rather than found out.
    pub fn with_transaction_pooler(mut self, pooled: bool) -> Self {
        self.transaction_pooler = Some(pooled);
        self
    }
}

/// Keeps `pool`'s password current: calls `password` now and every `every` after, and gives each
/// answer to the pool for the connections it makes from then on
/// ([`PgPool::set_connect_options`], which you may also call yourself). For credentials that
/// expire or rotate: an RDS IAM token (valid 15 minutes: refresh every 10), a password that
/// Secrets Manager or Vault rotates. Connections made before keep working (the database checks a
/// password when a connection is made) until [`Settings::max_lifetime`] replaces them. The stores
/// and the handlers' transactions follow the pool through the change: the outbox still joins the
/// transaction (a pool is known by itself, not by its settings) and its listener reconnects with
/// the new password.
///
/// A failed call is logged and tried again after `every` (or in a minute, if sooner); the pool
/// keeps the password it had. The task ends when the pool is closed; abort the handle to end it
/// sooner.
///
/// ```no_run
/// # #[cfg(feature = "postgres")]
/// # async fn start(pool: host_runtime::postgres::sqlx::PgPool) {
/// use std::time::Duration;
/// // A token or secret from your provider's client.
/// async fn current_password() -> Result<String, std::io::Error> {
///     Ok(std::fs::read_to_string("/run/secrets/db-password")?.trim().to_owned())
/// }
/// host_runtime::postgres::refresh_password(&pool, Duration::from_secs(600), current_password);
/// # }
/// ```
pub fn refresh_password<F, Fut, E>(
    pool: &PgPool,
    every: Duration,
    mut password: F,
) -> tokio::task::AbortHandle
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<String, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    let pool = pool.clone();
    let every = every.max(Duration::from_secs(1));
    tokio::spawn(async move {
        loop {
            if pool.is_closed() {
                return;
            }
            let wait = match password().await {
                Ok(new) => {
                    let options = (*pool.connect_options()).clone().password(&new);
                    pool.set_connect_options(options);
                    tracing::debug!(database = %name_of(&pool), "the database password was refreshed");
                    every
                }
                Err(e) => {
                    tracing::warn!(
                        database = %name_of(&pool),
                        error = %e,
                        "the database password could not be refreshed; connections are made with the last one"
                    );
                    every.min(Duration::from_secs(60))
                }
            };
            tokio::time::sleep(wait).await;
        }
    })
    .abort_handle()
}

/// Marks `pool` as reaching the database through a pooler in transaction mode, for a pool made
/// other than by [`connect_with`] (which finds it out): the stores then send each statement as
/// one message with its values written in, unprepared, since consecutive statements of one
/// connection may run on different server connections. Mark it before the stores use it. Your own
/// queries on such a pool, and in the handler's transaction, need `.persistent(false)` (or
/// `sqlx::raw_sql`) for the same reason.
pub fn behind_pooler(pool: &PgPool) {
    super::statement::Send::mark_pooled(pool);
}

/// Why `pool` is taken for a pooler's in transaction mode, or `None` when nothing shows one. Two
/// signs, the first settled by the server alone, the second by the pooler's hand:
///
/// - the server listens on another port than the one `url_port` names: something stands between
///   (a pooler, or a port forwarded, which costs speed, never correctness);
/// - two connections of the pool, the first still held, land on the same server process: a pooler
///   in transaction mode hands the server connection the first just used to the next client
///   (PgBouncer's default), a database never shares one. Three rounds; another client of the
///   pooler may take that connection in between, so this sign can be missed (a pooler on the
///   database's own port, found by neither, is still found at its first refused statement).
async fn pooler_sign(pool: &PgPool, url_port: u16) -> Result<Option<String>, sqlx::Error> {
    use sqlx::Row as _;
    let mut conn = pool.acquire().await?;
    let listens = super::Statement::new("SELECT current_setting('port')")
        .fetch_optional(&mut conn, super::statement::Send::Inline)
        .await?
        .and_then(|row| row.try_get::<String, _>(0).ok())
        .and_then(|port| port.trim().parse::<u16>().ok());
    drop(conn);
    if let Some(port) = listens.filter(|&port| port != url_port) {
        return Ok(Some(format!(
            "the server listens on port {port} where the URL names {url_port}"
        )));
    }
    if pool.options().get_max_connections() < 2 {
        return Ok(None);
    }
    for _ in 0..3 {
        let mut first = pool.acquire().await?;
        let mine = backend_pid(&mut first).await?;
        let mut second = pool.acquire().await?;
        if backend_pid(&mut second).await? == mine {
            return Ok(Some(
                "two connections of the pool ran on one server process".to_owned(),
            ));
        }
    }
    Ok(None)
}

/// The server process `conn`'s statement runs on.
fn backend_pid(
    conn: &mut PgConnection,
) -> crate::platform::BoxFuture<'_, Result<i32, sqlx::Error>> {
    use sqlx::Row as _;
    Box::pin(async move {
        super::Statement::new("SELECT pg_backend_pid()")
            .fetch_optional(conn, super::statement::Send::Inline)
            .await?
            .map_or(Ok(0), |row| row.try_get::<i32, _>(0))
    })
}

/// Connects a pool to `url` (`postgres://user:password@host:port/database?sslmode=verify-full`)
/// for the stores and the handlers' transactions, with the default [`Settings`]: up to 16
/// connections, each call waiting at most 2 s for one, the start waiting up to 60 s for a
/// database that does not answer yet.
///
/// TLS follows the URL's `sslmode` (`disable`, `prefer`, the default, `require`, `verify-ca`,
/// `verify-full`) and `sslrootcert` (a CA to trust beside the public ones); as in libpq,
/// `require` with a root certificate checks the certificate. A database across a network reached
/// with less than `verify-full`, or a `prefer` that fell back to plaintext, is logged at start (a
/// warning that says what to ask for); a failed handshake says why (an unknown CA, a name the
/// certificate does not carry, a server without TLS).
///
/// The URL may be a pooler's (PgBouncer, Supavisor, RDS Proxy, in transaction mode): the stores
/// send no prepared statement and keep no session state, and the connections send no startup
/// parameter a pooler refuses (`extra_float_digits`). A pool of your own works as well (the
/// stores take any [`PgPool`](sqlx::PgPool)), without the waiting, the TLS rules and warnings
/// above.
pub async fn connect(url: &str) -> Result<PgPool, StoreError> {
    connect_with(url, &Settings::default()).await
}

/// [`connect`] with `settings`.
pub async fn connect_with(url: &str, settings: &Settings) -> Result<PgPool, StoreError> {
    let options = options_of(url)?;
    let name = name_of_options(&options);
    let mode = options.get_ssl_mode();
    let local = tls::local(&options);
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(500);
    let pool = loop {
        let made = PgPoolOptions::new()
            .max_connections(settings.max_connections.max(1))
            .acquire_timeout(settings.acquire_timeout)
            .max_lifetime(settings.max_lifetime)
            .connect_with(options.clone())
            .await;
        let e = match made {
            Ok(pool) => break pool,
            Err(e) => e,
        };
        let why = match tls::explain(&e, mode) {
            Some(why) => format!(
                "cannot connect to {name} (sslmode={}): {why}",
                tls::mode_name(mode)
            ),
            None => format!("cannot connect to {name}"),
        };
        let waited = started.elapsed();
        let explained = tls::explain(&e, mode).is_some();
        if explained || !worth_waiting(&e) || waited + pause > settings.start_timeout {
            let why = if waited.as_secs() > 0 {
                format!("{why} (tried for {} s)", waited.as_secs())
            } else {
                why
            };
            return Err(failed(why, e));
        }
        tracing::warn!(
            database = %name,
            error = %e,
            waited_s = waited.as_secs(),
            "the database does not answer yet; trying again in {} ms (the start waits up to {} s)",
            pause.as_millis(),
            settings.start_timeout.as_secs()
        );
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(std::time::Duration::from_secs(5));
    };
    if started.elapsed().as_secs() > 0 {
        tracing::info!(database = %name, waited_s = started.elapsed().as_secs(), "the database answers");
    }
    let sign = match settings.transaction_pooler {
        Some(true) => Some("the settings say so".to_owned()),
        Some(false) => None,
        None => pooler_sign(&pool, options.get_port())
            .await
            .map_err(|e| failed(format!("cannot connect to {name}"), e))?,
    };
    if sign.is_none() {
        super::statement::Send::clear_mark(&pool);
    }
    if let Some(sign) = sign {
        behind_pooler(&pool);
        tracing::info!(
            database = %name,
            sign = %sign,
            "reached through a pooler in transaction mode: the stores send each statement with its \
             values, unprepared (Settings::with_transaction_pooler(false) says otherwise, for a \
             port forwarded straight to the database)"
        );
    }
    // What the connection got, which `prefer` does not say.
    let secured = match pool.acquire().await {
        Ok(mut conn) => {
            super::Statement::new("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                .fetch_optional(&mut conn, super::statement::Send::Inline)
                .await
                .ok()
                .flatten()
                .and_then(|row| sqlx::Row::try_get::<bool, _>(&row, 0).ok())
        }
        Err(_) => None,
    };
    if let Some(advice) = tls::advice(mode, local, secured) {
        tracing::warn!(database = %name, tls = ?secured, "{advice}");
    }
    Ok(pool)
}

/// The connection options of `url`: TLS as libpq reads the URL (`require` with a root certificate
/// verifies it), and no startup parameter a pooler refuses.
pub(crate) fn options_of(url: &str) -> Result<PgConnectOptions, StoreError> {
    let options: PgConnectOptions = url.parse().map_err(|e| {
        failed(
            "the database URL cannot be read (postgres://user:password@host:port/database)",
            e,
        )
    })?;
    Ok(tls::effective(options, tls::root_cert_given(url)).extra_float_digits(None))
}

/// Whether a failed connection may pass if the start waits: the database is not there yet, is
/// starting, or has no room yet; not a refusal of who connects or of the certificate.
fn worth_waiting(e: &sqlx::Error) -> bool {
    use std::io::ErrorKind;
    match e {
        // Nobody listens there yet, or the connection was cut while the server starts; not a
        // handshake that ended badly (a TLS refusal reads as an early end of the stream).
        sqlx::Error::Io(io) => matches!(
            io.kind(),
            ErrorKind::ConnectionRefused
                | ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::NotConnected
                | ErrorKind::TimedOut
                | ErrorKind::AddrNotAvailable
                | ErrorKind::HostUnreachable
                | ErrorKind::NetworkUnreachable
        ),
        sqlx::Error::PoolTimedOut | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // Starting up or shutting down, too many connections, connection failures.
            code == "57P03" || code == "53300" || code.starts_with("08")
        }),
        _ => false,
    }
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
/// from the same URL. The pool's settings live in the pool itself, shared by its clones and made
/// anew for each pool, so their address tells pools apart for as long as the pool lives. (Not its
/// connect options: `PgPool::set_connect_options`, how credentials rotate, replaces those.)
pub(crate) fn pool_of(pool: &PgPool) -> usize {
    std::ptr::from_ref(pool.options()) as usize
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
    /// How the stores' statements reach its server.
    pub(crate) send: super::statement::Send,
    pub(crate) level: Option<Isolation>,
    /// How long a delivery's record made in it is remembered.
    pub(crate) remember: Duration,
}

impl PgTransaction {
    /// Sets the isolation level: the first statement of the transaction. A boxed future, as the
    /// other statements of the stores are: a handler's future that awaits a sqlx query in an
    /// `async fn` of ours would not be `Send` for every lifetime, and handlers must be.
    fn set_isolation(
        &mut self,
        level: Isolation,
    ) -> crate::platform::BoxFuture<'_, Result<(), sqlx::Error>> {
        Box::pin(async move {
            sqlx::Executor::execute(&mut *self.tx, sqlx::raw_sql(level.set_sql()))
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

impl Transaction {
    /// Whether the database is reached through a pooler in transaction mode (found at
    /// [`connect_with`], or said by [`behind_pooler`]): then give your queries
    /// `.persistent(!tx.behind_pooler())`, since a statement prepared in this transaction may be
    /// missing from the server connection the next one runs on. Prepared statements are kept
    /// otherwise: the server plans them once per connection.
    ///
    /// ```no_run
    /// # #[cfg(feature = "postgres")]
    /// # async fn handler() -> Result<(), host_runtime::HostError> {
    /// use host_runtime::postgres::{self, sqlx};
    /// let mut tx = postgres::transaction().await?;
    /// let pooled = tx.behind_pooler();
    /// sqlx::query("INSERT INTO alerts (install) VALUES ($1)")
    ///     .bind("ins_1")
    ///     .persistent(!pooled)
    ///     .execute(&mut *tx)
    ///     .await
    ///     .map_err(postgres::failed_write)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn behind_pooler(&self) -> bool {
        self.open
            .as_ref()
            .is_some_and(|open| open.send == super::statement::Send::Inline)
    }
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

#[cfg(test)]
mod tests {
    use super::super::statement::Send;
    use super::*;

    /// A pooler is found by the port it listens on alone, in a pool of one, where no two
    /// connections can meet on a server process; the database itself is not taken for one; and
    /// the settings' word wins.
    #[tokio::test]
    async fn a_pooler_is_found_by_the_port_it_listens_on() {
        let Some(server) = host_test_support::PostgresServer::start_or_skip() else {
            return;
        };
        let Some(bouncer) = host_test_support::PgBouncer::start_or_skip(&server, 4) else {
            return;
        };
        let one = Settings::default().with_max_connections(1);
        let pooled = connect_with(&bouncer.url(), &one).await.unwrap();
        assert_eq!(Send::of(&pooled), Send::Inline);
        let direct = connect_with(&server.url(), &Settings::default())
            .await
            .unwrap();
        assert!(matches!(Send::of(&direct), Send::Prepared(_)));
        let told = Settings::default().with_transaction_pooler(true);
        let told = connect_with(&server.url(), &told).await.unwrap();
        assert_eq!(Send::of(&told), Send::Inline);
        let denied = one.with_transaction_pooler(false);
        let denied = connect_with(&bouncer.url(), &denied).await.unwrap();
        assert!(matches!(Send::of(&denied), Send::Prepared(_)));
    }
}
