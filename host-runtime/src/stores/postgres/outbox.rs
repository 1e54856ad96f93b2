//! [`PostgresOutbox`]: the outbox in the vendor's PostgreSQL database, drained by every instance,
//! its events committed with the handler's own writes.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgListener, PgRow};
use sqlx::{PgPool, Row};
use tokio::sync::Notify;

use crate::platform::BoxFuture;
use crate::stores::outbox::{Entry, OutboxStore, Put, Settlement, StoreError, Which};
use crate::stores::postgres::statement::Send;
use crate::stores::postgres::{PgTransaction, Statement, failed, name_of, pool_of};
use crate::stores::transaction::{self, Transaction};

/// The channel a revived dead letter is announced on.
const CHANNEL: &str = "host_outbox";

/// Stores a new event, claimed by $8 when it is not NULL; over a dead letter of the same id, or an
/// event delivered before $9 (now) less the window, it starts again. Returns a row when it stored.
const PUT: &str = "INSERT INTO host_outbox AS o
    (id, body, attempts, due, accepted, last_error, digest, owner)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (id) DO UPDATE SET body = excluded.body, attempts = excluded.attempts,
    due = excluded.due, accepted = excluded.accepted, last_error = excluded.last_error,
    digest = excluded.digest, owner = excluded.owner, dead = false, sent_until = NULL
WHERE o.dead OR o.sent_until <= $9
RETURNING id";

/// What holds id $1: its digest (NULL: written by an earlier release, see the body), its body,
/// whether it is dead and until when a delivered event is remembered.
const HOLDER: &str = "SELECT digest, body, dead, sent_until FROM host_outbox WHERE id = $1";

/// A claim of up to $2 events due at $1 for owner $4 until $3, skipping those another claim is
/// taking at this moment, with `$bound` added to the events' condition. Returns each with the due
/// time it had.
macro_rules! claim {
    ($bound:literal) => {
        concat!(
            "UPDATE host_outbox o SET due = $3, owner = $4
FROM (
    SELECT id, due FROM host_outbox WHERE NOT dead AND sent_until IS NULL AND due <= $1",
            $bound,
            "
    ORDER BY due, id LIMIT $2 FOR UPDATE SKIP LOCKED
) c
WHERE o.id = c.id
RETURNING o.id, o.body, o.attempts, c.due, o.accepted, o.last_error"
        )
    };
}

/// Claims the first due events of the queue.
const CLAIM: &str = claim!("");

/// [`CLAIM`] of the events after ($5, $6) in the claims' order: where the claim before it ended.
/// The index's entries before that are those of events claimed or delivered since the table was
/// last vacuumed, dead to every scan; a claim from the front walks all of them, so over a long
/// backlog each claim would cost more than the one before.
const CLAIM_AFTER: &str = claim!(" AND (due, id) > ($5, $6)");

/// Claims those of ids $1 that are due at $2, for owner $4 until $3.
const CLAIM_IDS: &str = "UPDATE host_outbox o SET due = $3, owner = $4
FROM (
    SELECT id, due FROM host_outbox
    WHERE id = ANY($1) AND NOT dead AND sent_until IS NULL AND due <= $2
    FOR UPDATE SKIP LOCKED
) c
WHERE o.id = c.id
RETURNING o.id, o.body, o.attempts, c.due, o.accepted, o.last_error";

/// Remembers a delivered event until $3: its digest is kept (its body too when it has no digest,
/// to digest it from), the rest goes.
const DELIVERED: &str = "UPDATE host_outbox SET sent_until = $3, owner = NULL, last_error = NULL,
    body = CASE WHEN digest IS NULL THEN body ELSE ''::bytea END
WHERE id = $1 AND owner = $2 AND NOT dead AND sent_until IS NULL";

/// [`DELIVERED`] for every id of $1 that owner $2 holds; returns those settled.
const DELIVERED_ALL: &str =
    "UPDATE host_outbox SET sent_until = $3, owner = NULL, last_error = NULL,
    body = CASE WHEN digest IS NULL THEN body ELSE ''::bytea END
WHERE id = ANY($1) AND owner = $2 AND NOT dead AND sent_until IS NULL
RETURNING id";

const RETRY: &str = "UPDATE host_outbox SET attempts = $3, due = $4, last_error = $5, owner = NULL
WHERE id = $1 AND owner = $2 AND NOT dead";

const BURY: &str =
    "UPDATE host_outbox SET attempts = $3, due = $4, last_error = $5, owner = NULL, dead = true
WHERE id = $1 AND owner = $2 AND NOT dead";

const NEXT_DUE: &str = "SELECT min(due) FROM host_outbox WHERE NOT dead AND sent_until IS NULL";

/// What the outbox holds: pending events, when the oldest was accepted, dead letters. A count
/// over the table (both partial indexes), for a sample every 15 s, not for a request.
const BACKLOG: &str =
    "SELECT count(*) FILTER (WHERE NOT dead), min(accepted) FILTER (WHERE NOT dead),
count(*) FILTER (WHERE dead) FROM host_outbox WHERE sent_until IS NULL";

const LIST: &str = "SELECT id, body, attempts, due, accepted, last_error FROM host_outbox
WHERE dead = $1 AND sent_until IS NULL ORDER BY due, id LIMIT $2";

/// Brings dead letter $1 back, due at $2, and wakes the dispatchers listening (when it did).
const REVIVE: &str = "WITH revived AS (
    UPDATE host_outbox SET dead = false, attempts = 0, due = $2, owner = NULL
    WHERE id = $1 AND dead
    RETURNING id
)
SELECT count(*), pg_notify('host_outbox', '') FROM revived HAVING count(*) > 0";

const DISCARD: &str = "DELETE FROM host_outbox WHERE id = $1 AND sent_until IS NULL";

/// Forgets up to 1,000 delivered events whose window ended by $1 (Unix milliseconds).
const FORGET_SENT: &str = "DELETE FROM host_outbox WHERE id IN (
    SELECT id FROM host_outbox WHERE sent_until <= $1 LIMIT 1000
)";

/// Deletes up to 1,000 dead letters given up on before $1 (Unix milliseconds).
const FORGET_DEAD: &str = "DELETE FROM host_outbox WHERE id IN (
    SELECT id FROM host_outbox WHERE dead AND due < $1 LIMIT 1000
)";

/// Claims made between two sweeps of dead letters past their retention.
const SWEEP_EVERY: u32 = 500;

/// Claims that start where the one before ended ([`CLAIM_AFTER`]) between two that start from the
/// front of the queue.
const FROM_THE_FRONT_EVERY: u32 = 512;

/// Where this outbox's next claim starts.
///
/// A claim takes due events in the order (due, id) and moves each to the end of its lease, so the
/// ones it leaves behind are those another instance held locked at that moment, and those that
/// came due behind it since (a transaction that committed late, a sender's clock behind).
/// Claiming after the last event taken is what keeps a long backlog draining at one rate; a claim
/// from the front picks up what was left behind: the first claim, every claim after one that
/// found the queue's end (fewer events than it asked for), and every
/// [`FROM_THE_FRONT_EVERY`]th claim. The choice depends on counts, never on time.
#[derive(Debug, Default)]
struct Head {
    /// The last (due, id) the claim before took, when it took all it asked for.
    after: Option<(i64, String)>,
    /// Claims made from `after` since the last from the front.
    since_front: u32,
}

impl Head {
    /// Where the next claim starts: after this (due, id), or at the front (`None`).
    fn start(&mut self) -> Option<(i64, String)> {
        if self.since_front >= FROM_THE_FRONT_EVERY {
            self.after = None;
        }
        if self.after.is_some() {
            self.since_front += 1;
        } else {
            self.since_front = 0;
        }
        self.after.clone()
    }

    /// After a scan that took `taken` (sorted by due and id): `full`, it took all it asked for.
    fn ended(&mut self, taken: &[Entry], full: bool) {
        self.after = match taken.last() {
            Some(last) if full => Some((last.due, last.id.clone())),
            _ => None,
        };
    }
}

/// An outbox in the vendor's PostgreSQL database (table `host_outbox`, see
/// [`postgres::migrate`](crate::postgres::migrate)), drained by every instance that sends through
/// it.
///
/// - **Several instances.** A claim takes due events with `FOR UPDATE SKIP LOCKED` and moves their
///   due time to the end of a lease, so instances claiming at once take different events and an
///   event is in flight at one instance at a time; a crashed instance's events come due again when
///   the lease ends.
/// - **A long backlog drains at one rate.** Each claim starts where the instance's claim before it
///   ended, not at the front of the queue, where the events claimed and delivered since the last
///   vacuum leave index entries every scan from the front would walk. Claims from the front pick
///   up what was left behind (events another instance held at that moment, or that came due behind
///   the head): the first, each after one that reached the queue's end, and one in 512.
/// - **Woken, and polling.** The instance that adds an event posts it: its dispatcher is woken in
///   process once the event is stored (for an event of a handler's transaction, once that
///   commits). Every instance also looks at the table at least once a second, and a dead letter
///   revived through [`revive`](OutboxStore::revive) (`cargo host outbox retry`) notifies the
///   channel `host_outbox`, on which every instance listens (`LISTEN`, on a connection of its own
///   that reconnects). Commits carry no notification: PostgreSQL commits the transactions that
///   notify one at a time.
/// - **In the handler's transaction.** While a handler runs with a
///   [`PostgresDedupe`](crate::dedupe::PostgresDedupe) of the same database, an event it sends is
///   written in the handler's transaction: it exists once that commits, with the vendor's writes
///   and the delivery's record, and not at all if the handler fails. Elsewhere each event is
///   committed on its own before the send returns.
///
/// Due times are the senders' clocks (Unix milliseconds): keep the instances' clocks in step
/// (NTP), well within the lease of a minute.
pub struct PostgresOutbox {
    pool: PgPool,
    database: String,
    /// [`pool_of`] its pool: the handler's transaction it joins is the one of the same pool.
    pool_id: usize,
    /// Whether it said once that its events commit apart from the handler's transaction.
    said_apart: std::sync::atomic::AtomicBool,
    /// How long a dead letter is kept; `None`: until it is retried or dropped.
    dead_retention: Option<Duration>,
    claims: std::sync::atomic::AtomicU32,
    /// Where the next claim starts.
    head: std::sync::Mutex<Head>,
    woken: Arc<Notify>,
    /// The listener's task; `None` where notifications do not reach one.
    listener: Option<tokio::task::AbortHandle>,
}

impl std::fmt::Debug for PostgresOutbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresOutbox")
            .field("database", &self.database)
            .finish_non_exhaustive()
    }
}

impl Drop for PostgresOutbox {
    fn drop(&mut self) {
        if let Some(listener) = &self.listener {
            listener.abort();
        }
    }
}

/// An entry from a row of `id, body, attempts, due, accepted, last_error`.
fn entry(row: &PgRow) -> Result<Entry, StoreError> {
    let read = |e| failed("an outbox row cannot be read", e);
    let attempts: i32 = row.try_get(2).map_err(read)?;
    Ok(Entry {
        id: row.try_get(0).map_err(read)?,
        body: row.try_get(1).map_err(read)?,
        attempts: u32::try_from(attempts).unwrap_or(0),
        due: row.try_get(3).map_err(read)?,
        accepted: row.try_get(4).map_err(read)?,
        last_error: row.try_get(5).map_err(read)?,
    })
}

/// Sorts `entries` as claims take them: by due time, then id.
fn in_claim_order(entries: &mut [Entry]) {
    entries.sort_by(|a, b| (a.due, &a.id).cmp(&(b.due, &b.id)));
}

fn entries(rows: &[PgRow]) -> Result<Vec<Entry>, StoreError> {
    let mut out = rows.iter().map(entry).collect::<Result<Vec<_>, _>>()?;
    in_claim_order(&mut out);
    Ok(out)
}

fn attempts(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Stores `entry` claimed by `owner` (none: unclaimed) through `conn`, unless its id is taken;
/// answers what holds it then. Tried again when what held the id went in between (a dead letter
/// revived and delivered, a window that ended).
async fn put_on(
    conn: &mut sqlx::PgConnection,
    send: Send,
    entry: &Entry,
    owner: Option<&str>,
) -> Result<Put, StoreError> {
    let digest = entry.digest();
    for _ in 0..3 {
        let now = crate::stores::outbox::now_ms();
        let stored = Statement::new(PUT)
            .text(&entry.id)
            .bytes(&entry.body)
            .int(attempts(entry.attempts).into())
            .int(entry.due)
            .int(entry.accepted)
            .text_or_null(entry.last_error.as_deref())
            .bytes(digest.as_slice())
            .text_or_null(owner)
            .int(now)
            .fetch_optional(&mut *conn, send)
            .await
            .map_err(|e| failed("cannot store the event", e))?;
        if stored.is_some() {
            return Ok(Put::Stored(()));
        }
        if let Some(found) = holder(conn, send, &entry.id, &digest, now).await? {
            return Ok(found);
        }
    }
    Err(StoreError::new(
        "postgres",
        crate::stores::store::StoreErrorKind::Unavailable,
        format!(
            "event {} could not be stored: what holds its id kept changing",
            entry.id
        ),
    ))
}

/// What holds `id` as of `now`, for an event of `digest`; `None` when nothing does any more.
async fn holder(
    conn: &mut sqlx::PgConnection,
    send: Send,
    id: &str,
    digest: &[u8; 32],
    now: i64,
) -> Result<Option<Put>, StoreError> {
    let Some(row) = Statement::new(HOLDER)
        .text(id)
        .fetch_optional(conn, send)
        .await
        .map_err(|e| failed("cannot read what holds an event's id", e))?
    else {
        return Ok(None);
    };
    let read = |e| failed("an outbox row cannot be read", e);
    let found: Option<Vec<u8>> = row.try_get(0).map_err(read)?;
    let body: Vec<u8> = row.try_get(1).map_err(read)?;
    let dead: bool = row.try_get(2).map_err(read)?;
    let sent_until: Option<i64> = row.try_get(3).map_err(read)?;
    if dead || sent_until.is_some_and(|until| until <= now) {
        return Ok(None);
    }
    let found = match found.as_deref().map(<[u8; 32]>::try_from) {
        Some(Ok(found)) => found,
        _ => crate::stores::outbox::content_digest(&body),
    };
    Ok(Some(Put::found(&found, digest, sent_until.is_none())))
}

/// `open` as the PostgreSQL transaction it is.
fn pg_transaction(open: &mut dyn Transaction) -> Result<&mut PgTransaction, StoreError> {
    (open as &mut dyn Any)
        .downcast_mut::<PgTransaction>()
        .ok_or_else(|| {
            StoreError::new(
                "postgres",
                crate::stores::store::StoreErrorKind::Refused,
                "the handler's transaction is not PostgreSQL's",
            )
        })
}

/// The write that stores `entry` in a handler's transaction before it commits. An id another
/// event took meanwhile fails the commit, naming the id.
fn in_transaction(entry: Entry) -> transaction::Write {
    /// Pins the closure's signature: the future borrows the transaction it is given.
    fn write<F>(f: F) -> F
    where
        F: for<'t> FnOnce(&'t mut dyn Transaction) -> BoxFuture<'t, Result<(), StoreError>>,
    {
        f
    }
    Box::new(write(move |open: &mut dyn Transaction| {
        Box::pin(async move {
            let open = pg_transaction(open)?;
            match put_on(&mut open.tx, open.send, &entry, None).await? {
                Put::Conflict => Err(StoreError::new(
                    "postgres",
                    crate::stores::store::StoreErrorKind::Refused,
                    crate::stores::outbox::conflict_message(&entry.id),
                )),
                Put::Stored(()) | Put::AlreadyPending | Put::AlreadyDelivered => Ok(()),
            }
        })
    }))
}

impl PostgresOutbox {
    /// An outbox over `pool`'s database, whose schema is up to date
    /// ([`postgres::migrate`](crate::postgres::migrate)).
    ///
    /// It listens for dead letters revived elsewhere on a connection of its own (made with the
    /// pool's settings as they are then, so a rotated password reaches it), once a probe shows that
    /// notifications reach that connection: through a pooler in transaction mode they do not, and
    /// it then says so once and relies on the dispatcher's look at the table, once a second
    /// ([`new_listening_at`](Self::new_listening_at) listens on a direct URL instead). Fails when
    /// the database cannot be reached.
    pub async fn new(pool: PgPool) -> Result<Self, StoreError> {
        Self::make(pool, ListenAt::Pool).await
    }

    /// [`new`](Self::new), listening on a connection to `direct_url`: the database itself, where
    /// `pool` reaches it through a pooler in transaction mode, on which a listener hears nothing.
    pub async fn new_listening_at(pool: PgPool, direct_url: &str) -> Result<Self, StoreError> {
        let direct = crate::stores::postgres::options_of(direct_url)?;
        Self::make(pool, ListenAt::Direct(Box::new(direct))).await
    }

    async fn make(pool: PgPool, at: ListenAt) -> Result<Self, StoreError> {
        let woken = Arc::new(Notify::new());
        let listener = match listener(&at, &pool).await {
            Ok(Some(listener)) => Some(
                tokio::spawn(listen(listener, at, pool.clone(), Arc::clone(&woken))).abort_handle(),
            ),
            Ok(None) => {
                unheard(&pool);
                None
            }
            Err(e) => return Err(failed("cannot connect the outbox's listener", e)),
        };
        Ok(PostgresOutbox {
            database: name_of(&pool),
            pool_id: pool_of(&pool),
            said_apart: std::sync::atomic::AtomicBool::new(false),
            dead_retention: Some(Self::DEAD_LETTER_RETENTION),
            claims: std::sync::atomic::AtomicU32::new(0),
            head: std::sync::Mutex::default(),
            pool,
            woken,
            listener,
        })
    }

    /// Whether notifications reach this outbox's listener (a revived dead letter wakes it at
    /// once); `false` through a pooler in transaction mode, where the dispatcher's look, once a
    /// second, finds it.
    pub fn listening(&self) -> bool {
        self.listener.as_ref().is_some_and(|l| !l.is_finished())
    }
}

/// Where an outbox's listener connects.
enum ListenAt {
    /// With the pool's settings as they are when it connects.
    Pool,
    /// To a direct URL's.
    Direct(Box<sqlx::postgres::PgConnectOptions>),
}

/// How long the probe waits for its own notification.
const PROBE_WAIT: Duration = Duration::from_secs(2);

/// A listener on [`CHANNEL`], once a probe showed that a notification sent through `pool`
/// reaches it; `None` when it did not (a pooler in transaction mode runs each statement on
/// whichever server connection is free, and a notification goes to the one that listened).
async fn listener(at: &ListenAt, pool: &PgPool) -> Result<Option<PgListener>, sqlx::Error> {
    let options = match at {
        ListenAt::Pool => (*pool.connect_options()).clone(),
        ListenAt::Direct(options) => (**options).clone(),
    };
    // A connection of its own, outside the pool: held for as long as the outbox lives, it would
    // take one of the connections the handlers and the dispatcher share.
    let own = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(pool.options().get_acquire_timeout())
        .connect_lazy_with(options);
    let mut listener = PgListener::connect_with(&own).await?;
    if !own_session(&mut listener, pool).await? {
        return Ok(None);
    }
    // A channel of its own, so that nothing else is woken by the probe.
    let probe = format!("host_outbox_probe_{}", crate::platform::rt::random_token());
    listener.listen(&probe).await?;
    Statement::new("SELECT pg_notify($1, '')")
        .text(&probe)
        .execute_in(pool)
        .await?;
    let heard = tokio::time::timeout(PROBE_WAIT, async {
        loop {
            match listener.try_recv().await {
                Ok(Some(n)) if n.channel() == probe => return true,
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false);
    if !heard {
        return Ok(None);
    }
    listener.unlisten(&probe).await?;
    listener.listen(CHANNEL).await?;
    Ok(Some(listener))
}

/// Whether `listener`'s connection is a server session of its own, rather than a pooler's client
/// connection whose statements run on whichever server connection is free (transaction mode).
/// There a `LISTEN` would stay on a server connection that other clients then use, and a
/// notification would reach one of them in the middle of its statement. So the listener asks which
/// server process it is on, and connections of `pool` ask right after: a pooler hands the server
/// connection just used to the next client (PgBouncer's default), a server session is never
/// shared. Three rounds, two connections of the pool each (one, for a pool of one).
async fn own_session(listener: &mut PgListener, pool: &PgPool) -> Result<bool, sqlx::Error> {
    use sqlx::Executor as _;
    const PID: &str = "SELECT pg_backend_pid()";
    let others = pool.options().get_max_connections().min(2);
    for _ in 0..3 {
        let mine: i32 = listener.fetch_one(sqlx::raw_sql(PID)).await?.try_get(0)?;
        let mut held = Vec::new();
        for _ in 0..others {
            let mut tx = pool.begin().await?;
            let theirs: i32 = tx.fetch_one(sqlx::raw_sql(PID)).await?.try_get(0)?;
            held.push(tx);
            if theirs == mine {
                return Ok(false);
            }
        }
        drop(held);
    }
    Ok(true)
}

/// Says once that notifications do not reach `pool`'s listener, and what finds revived events.
fn unheard(pool: &PgPool) {
    tracing::info!(
        database = %name_of(pool),
        "notifications do not reach the outbox's listener (a pooler in transaction mode?): a dead \
         letter revived elsewhere is found by the dispatcher's look at the table, within a second; \
         events this instance adds are posted at once as always"
    );
}

impl PostgresOutbox {
    /// Stores `entry` in the handler's transaction `scope` of this outbox's pool, answering what
    /// holds its id. No connection is waited for while the handler holds one:
    ///
    /// - **Begun** (the handler wrote through it, and gave it back): the event is written now on
    ///   the transaction's own connection, and the same statement answers for its id. An event of
    ///   that id waiting in another handler's transaction makes this one wait until that commits
    ///   or rolls back, as any unique key does, then answers as of then.
    /// - **Not begun**: the handler holds no connection, so what holds the id is read on one of the
    ///   pool's; the event is written just before the commit (beginning nothing earlier keeps the
    ///   handler free to choose its isolation level), where an id another event took meanwhile
    ///   fails the commit, naming it.
    /// - **Held by the handler** across the send (a [`postgres::Transaction`] not dropped yet):
    ///   its connection is busy and a second one is not waited for (with every connection of the
    ///   pool held so, none would come), so the id is checked by the write at the commit alone.
    ///
    /// [`postgres::Transaction`]: crate::postgres::Transaction
    async fn put_in(&self, scope: &transaction::Scope, entry: Entry) -> Result<Put, StoreError> {
        match scope.borrow() {
            transaction::Held::Open(mut borrowed) => {
                let open = pg_transaction(borrowed.transaction())?;
                let put = put_on(&mut open.tx, open.send, &entry, None).await?;
                drop(borrowed);
                if put.is_stored() {
                    scope.hold(&entry.id);
                }
                return Ok(put);
            }
            transaction::Held::NotBegun => {
                let found = holder(
                    &mut *self.connection().await?,
                    Send::of(&self.pool),
                    &entry.id,
                    &entry.digest(),
                    crate::stores::outbox::now_ms(),
                )
                .await?;
                if let Some(found) = found {
                    return Ok(found);
                }
            }
            transaction::Held::Elsewhere => {}
        }
        let id = entry.id.clone();
        scope.write(&id, in_transaction(entry));
        Ok(Put::Stored(()))
    }
}

impl PostgresOutbox {
    /// How long a dead letter is kept unless [`with_dead_letter_retention`](Self::with_dead_letter_retention)
    /// says otherwise: 30 days to look at it, retry it or drop it (`cargo host outbox`).
    pub const DEAD_LETTER_RETENTION: Duration = Duration::from_secs(30 * 24 * 60 * 60);

    /// How long a dead letter is kept after it was given up on (default 30 days); `None` keeps
    /// dead letters until they are retried or dropped. Older ones are deleted as the dispatcher
    /// claims events, a thousand at a time, or by [`forget_dead_letters`](Self::forget_dead_letters).
    pub fn with_dead_letter_retention(mut self, retention: Option<Duration>) -> Self {
        self.dead_retention = retention;
        self
    }

    /// A connection of the pool, for a store request of several statements.
    async fn connection(&self) -> Result<sqlx::pool::PoolConnection<sqlx::Postgres>, StoreError> {
        self.pool
            .acquire()
            .await
            .map_err(|e| failed("cannot store the event", e))
    }

    /// Deletes up to 1,000 dead letters past their retention, as of `now` (Unix milliseconds);
    /// gives how many. Nothing without a retention.
    pub async fn forget_dead_letters(&self, now: i64) -> Result<u64, StoreError> {
        let Some(retention) = self.dead_retention else {
            return Ok(0);
        };
        let before = now.saturating_sub(i64::try_from(retention.as_millis()).unwrap_or(i64::MAX));
        let done = Statement::new(FORGET_DEAD)
            .int(before)
            .execute_in(&self.pool)
            .await
            .map_err(|e| failed("cannot delete old dead letters", e))?;
        Ok(done.rows_affected())
    }

    /// Where this outbox's next claim starts.
    fn head(&self) -> std::sync::MutexGuard<'_, Head> {
        // The head is a hint: one a panicking thread left is as good as any.
        self.head
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Forgets old dead letters now and then, in a task of its own.
    ///
    /// Delivered events whose window ended are forgotten at the same times, a thousand at a time
    /// until none is left (their window follows this process's clock, not `now`).
    fn sweep_now_and_then(&self, now: i64) {
        let claims = self
            .claims
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if !claims.is_multiple_of(SWEEP_EVERY) {
            return;
        }
        let pool = self.pool.clone();
        let dead_before = self.dead_retention.map(|retention| {
            now.saturating_sub(i64::try_from(retention.as_millis()).unwrap_or(i64::MAX))
        });
        crate::platform::rt::spawn(async move {
            if let Some(before) = dead_before
                && let Err(e) = Statement::new(FORGET_DEAD)
                    .int(before)
                    .execute_in(&pool)
                    .await
            {
                tracing::debug!(error = %e, "old dead letters were not deleted this time");
            }
            if let Err(e) = forget_sent(&pool, crate::stores::outbox::now_ms()).await {
                tracing::debug!(error = %e, "delivered events were not forgotten this time");
            }
        });
    }

    /// Forgets the delivered events whose window ended by `now` (Unix milliseconds); gives how
    /// many. The dispatcher does it now and then on its own.
    pub async fn forget_delivered(&self, now: i64) -> Result<u64, StoreError> {
        forget_sent(&self.pool, now).await
    }
}

/// Deletes the rows of delivered events whose window ended by `now`, a thousand at a time.
async fn forget_sent(pool: &PgPool, now: i64) -> Result<u64, StoreError> {
    let mut forgotten = 0;
    loop {
        let done = Statement::new(FORGET_SENT)
            .int(now)
            .execute_in(pool)
            .await
            .map_err(|e| failed("cannot forget delivered events", e))?;
        forgotten += done.rows_affected();
        if done.rows_affected() < 1_000 {
            return Ok(forgotten);
        }
    }
}

/// Wakes the dispatcher on every notification. A lost connection is made anew (with the pool's
/// settings as they are then) and probed again; the dispatcher is woken meanwhile, since what was
/// notified in between is gone. Ends when the pool is closed, or when notifications no longer
/// reach a new connection.
async fn listen(mut listener: PgListener, at: ListenAt, pool: PgPool, woken: Arc<Notify>) {
    loop {
        match listener.try_recv().await {
            Ok(Some(_)) => {
                woken.notify_one();
                continue;
            }
            Err(sqlx::Error::PoolClosed) => return,
            Ok(None) => tracing::debug!("the outbox's listener lost its connection; reconnecting"),
            Err(e) => tracing::debug!(error = %e, "the outbox's listener failed; reconnecting"),
        }
        woken.notify_one();
        loop {
            if pool.is_closed() {
                return;
            }
            match self::listener(&at, &pool).await {
                Ok(Some(new)) => {
                    listener = new;
                    break;
                }
                Ok(None) => {
                    unheard(&pool);
                    return;
                }
                Err(e) => {
                    tracing::debug!(error = %e, "the outbox's listener cannot reconnect yet");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    woken.notify_one();
                }
            }
        }
    }
}

impl OutboxStore for PostgresOutbox {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
        Box::pin(async move {
            if let Some(scope) = transaction::current() {
                // Inside a handler's transaction of this pool: the event exists only if the
                // handler's effects do.
                if scope.pool() == self.pool_id {
                    return self.put_in(&scope, entry).await;
                }
                // The same database and settings through another pool: the vendor meant one
                // transaction and built two pools. Refused rather than committed apart.
                if scope.database() == self.database {
                    return Err(StoreError::new(
                        "postgres",
                        crate::stores::store::StoreErrorKind::Refused,
                        format!(
                            "this outbox and the handler's transaction use two pools of one database \
                             ({}), so the event cannot commit with the handler's writes: build the \
                             PostgresDedupe and the PostgresOutbox from one pool (`pool.clone()`)",
                            self.database
                        ),
                    ));
                }
                // Another database or schema: committed on its own, below.
                if !self
                    .said_apart
                    .swap(true, std::sync::atomic::Ordering::Relaxed)
                {
                    tracing::info!(
                        outbox = %self.database,
                        transaction = %scope.database(),
                        "the outbox is not in the handler's database or schema: its events commit on their own, not with the handler's transaction"
                    );
                }
            }
            put_on(
                &mut *self.connection().await?,
                Send::of(&self.pool),
                &entry,
                None,
            )
            .await
        })
    }

    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
        Box::pin(async move {
            if transaction::current().is_some() {
                // In a handler's transaction: stored with it, then claimed by id once committed.
                return crate::stores::outbox::put_then_claim(self, entry, lease_until, owner)
                    .await;
            }
            let leased = Entry {
                due: lease_until,
                ..entry.clone()
            };
            Ok(put_on(
                &mut *self.connection().await?,
                Send::of(&self.pool),
                &leased,
                Some(owner),
            )
            .await?
            .map(|()| entry))
        })
    }

    fn claim<'a>(
        &'a self,
        now: i64,
        limit_to: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        Box::pin(async move {
            self.sweep_now_and_then(now);
            let start = self.head().start();
            let claim = |text, asked| {
                Statement::new(text)
                    .int(now)
                    .int(limit(asked))
                    .int(lease_until)
                    .text(owner)
            };
            let cannot = |e| failed("cannot claim due events", e);
            let mut taken = Vec::new();
            if let Some((due, id)) = start {
                let rows = claim(CLAIM_AFTER, limit_to)
                    .int(due)
                    .text(&id)
                    .fetch_all_in(&self.pool)
                    .await
                    .map_err(cannot)?;
                taken = entries(&rows)?;
                self.head().ended(&taken, taken.len() >= limit_to);
            }
            if taken.len() < limit_to {
                let asked = limit_to - taken.len();
                let rows = claim(CLAIM, asked)
                    .fetch_all_in(&self.pool)
                    .await
                    .map_err(cannot)?;
                let front = entries(&rows)?;
                self.head().ended(&front, front.len() >= asked);
                taken.extend(front);
                in_claim_order(&mut taken);
            }
            Ok(taken)
        })
    }

    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        Box::pin(async move {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let rows = Statement::new(CLAIM_IDS)
                .texts(ids.iter().map(String::as_str))
                .int(now)
                .int(lease_until)
                .text(owner)
                .fetch_all_in(&self.pool)
                .await
                .map_err(|e| failed("cannot claim events by id", e))?;
            entries(&rows)
        })
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let statement = match &settlement {
                Settlement::Delivered => Statement::new(DELIVERED).text(id).text(owner).int(
                    crate::stores::outbox::now_ms().saturating_add(crate::stores::outbox::millis(
                        crate::stores::outbox::SENT_WINDOW,
                    )),
                ),
                Settlement::Retry {
                    attempts: n,
                    due,
                    error,
                } => Statement::new(RETRY)
                    .text(id)
                    .text(owner)
                    .int(attempts(*n).into())
                    .int(*due)
                    .text(error),
                Settlement::Dead {
                    attempts: n,
                    at,
                    reason,
                } => Statement::new(BURY)
                    .text(id)
                    .text(owner)
                    .int(attempts(*n).into())
                    .int(*at)
                    .text(reason),
            };
            let done = statement
                .execute_in(&self.pool)
                .await
                .map_err(|e| failed("cannot settle an attempt", e))?;
            Ok(done.rows_affected() == 1)
        })
    }

    /// The delivered ones in one statement (the dispatcher's common case, many at a time under
    /// load), the others one by one.
    fn settle_all<'a>(
        &'a self,
        owner: &'a str,
        settlements: &'a [(String, Settlement)],
    ) -> BoxFuture<'a, Vec<Result<bool, StoreError>>> {
        Box::pin(async move {
            let delivered: Vec<&str> = settlements
                .iter()
                .filter(|(_, s)| matches!(s, Settlement::Delivered))
                .map(|(id, _)| id.as_str())
                .collect();
            let settled: Result<std::collections::HashSet<String>, StoreError> = if delivered
                .is_empty()
            {
                Ok(Default::default())
            } else {
                let until = crate::stores::outbox::now_ms().saturating_add(
                    crate::stores::outbox::millis(crate::stores::outbox::SENT_WINDOW),
                );
                Statement::new(DELIVERED_ALL)
                    .texts(delivered.iter().copied())
                    .text(owner)
                    .int(until)
                    .fetch_all_in(&self.pool)
                    .await
                    .and_then(|rows| rows.iter().map(|row| row.try_get::<String, _>(0)).collect())
                    .map_err(|e| failed("cannot settle attempts", e))
            };
            let mut held = Vec::with_capacity(settlements.len());
            for (id, settlement) in settlements {
                held.push(match (settlement, &settled) {
                    (Settlement::Delivered, Ok(settled)) => Ok(settled.contains(id)),
                    (Settlement::Delivered, Err(e)) => Err(e.clone()),
                    (other, _) => self.settle(id, owner, other.clone()).await,
                });
            }
            held
        })
    }

    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        Box::pin(async move {
            Statement::new(NEXT_DUE)
                .fetch_optional_in(&self.pool)
                .await
                .and_then(|row| {
                    Ok(row
                        .map(|row| row.try_get::<Option<i64>, _>(0))
                        .transpose()?
                        .flatten())
                })
                .map_err(|e| failed("cannot read when the next event is due", e))
        })
    }

    fn backlog(&self) -> BoxFuture<'_, Result<crate::stores::outbox::Backlog, StoreError>> {
        Box::pin(async move {
            crate::telemetry::pool(self.pool.size(), self.pool.num_idle());
            let row = Statement::new(BACKLOG)
                .fetch_optional_in(&self.pool)
                .await
                .map_err(|e| failed("cannot count the outbox's events", e))?;
            let Some(row) = row else {
                return Ok(crate::stores::outbox::Backlog::default());
            };
            let read = |e| failed("cannot count the outbox's events", e);
            let count = |n: i64| u64::try_from(n).unwrap_or(0);
            Ok(crate::stores::outbox::Backlog {
                pending: count(row.try_get::<i64, _>(0).map_err(read)?),
                oldest_accepted: row.try_get::<Option<i64>, _>(1).map_err(read)?,
                dead: count(row.try_get::<i64, _>(2).map_err(read)?),
            })
        })
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(crate::stores::postgres::migrate::check(&self.pool))
    }

    fn list(&self, which: Which, limit_to: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        Box::pin(async move {
            let rows = Statement::new(LIST)
                .bool(which == Which::Dead)
                .int(limit(limit_to))
                .fetch_all_in(&self.pool)
                .await
                .map_err(|e| failed("cannot list the outbox", e))?;
            entries(&rows)
        })
    }

    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let revived = Statement::new(REVIVE)
                .text(id)
                .int(now)
                .fetch_optional_in(&self.pool)
                .await
                .map_err(|e| failed("cannot revive a dead letter", e))?;
            Ok(revived.is_some())
        })
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let done = Statement::new(DISCARD)
                .text(id)
                .execute_in(&self.pool)
                .await
                .map_err(|e| failed("cannot discard an event", e))?;
            Ok(done.rows_affected() > 0)
        })
    }

    fn changed(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.woken.notified())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::collections::HashSet;

    use super::*;
    use crate::dedupe::DedupeStore;
    use host_test_support::PostgresServer;

    /// A fresh server with the stores' schema, and a pool on it.
    async fn database() -> Option<(PostgresServer, PgPool)> {
        let server = PostgresServer::start_or_skip()?;
        let pool = crate::postgres::connect(&server.url()).await.unwrap();
        crate::postgres::migrate(&pool).await.unwrap();
        Some((server, pool))
    }

    #[tokio::test]
    async fn instances_claiming_at_once_take_different_events() {
        let Some((_server, pool)) = database().await else {
            return;
        };
        let stores = [
            PostgresOutbox::new(pool.clone()).await.unwrap(),
            PostgresOutbox::new(pool.clone()).await.unwrap(),
            PostgresOutbox::new(pool).await.unwrap(),
        ];
        for n in 0..300 {
            let entry = Entry::new(format!("evt_{n:03}"), b"{}".to_vec(), 1_000);
            assert!(stores[n % 3].put(entry).await.unwrap().is_stored());
        }
        let mut seen = HashSet::new();
        loop {
            let batches =
                futures_util::future::join_all(stores.iter().enumerate().map(
                    |(i, s)| async move { s.claim(2_000, 7, 60_000, &format!("i{i}")).await },
                ))
                .await;
            let mut any = false;
            for batch in batches {
                for entry in batch.unwrap() {
                    any = true;
                    assert!(seen.insert(entry.id.clone()), "{} claimed twice", entry.id);
                }
            }
            if !any {
                break;
            }
        }
        assert_eq!(seen.len(), 300);
    }

    /// A claim starts where the one before ended; what came due behind it (a late commit, a clock
    /// behind) is taken by the first claim that finds the queue's end, or within
    /// [`FROM_THE_FRONT_EVERY`] claims while the queue is longer than that.
    #[tokio::test]
    async fn events_behind_the_head_of_the_queue_are_claimed() {
        let Some((_server, pool)) = database().await else {
            return;
        };
        let store = PostgresOutbox::new(pool).await.unwrap();
        let put = |id: String, due: i64| {
            let store = &store;
            async move {
                let entry = Entry::new(id, b"{}".to_vec(), due);
                assert!(store.put(entry).await.unwrap().is_stored());
            }
        };
        for n in 0..40 {
            put(format!("evt_{n:03}"), 1_000 + n).await;
        }
        let ids = |taken: Vec<Entry>| taken.into_iter().map(|e| e.id).collect::<Vec<_>>();
        let first = ids(store.claim(2_000, 16, 60_000, "a").await.unwrap());
        assert_eq!(first.first().map(String::as_str), Some("evt_000"));
        assert_eq!(first.len(), 16);
        put("late".to_owned(), 500).await;
        let second = ids(store.claim(2_000, 16, 60_000, "a").await.unwrap());
        assert_eq!(
            second.first().map(String::as_str),
            Some("evt_016"),
            "{second:?}"
        );
        assert!(!second.contains(&"late".to_owned()));
        // 8 left after the head: the claim goes on from the front and finds the late one.
        let third = ids(store.claim(2_000, 16, 60_000, "a").await.unwrap());
        assert_eq!(third.len(), 9, "{third:?}");
        assert_eq!(third[0], "late");
        assert!(
            store
                .claim(2_000, 16, 60_000, "a")
                .await
                .unwrap()
                .is_empty()
        );

        // A queue longer than FROM_THE_FRONT_EVERY claims: the one behind waits that many at most.
        let count = i64::from(FROM_THE_FRONT_EVERY) + 20;
        for n in 0..count {
            put(format!("queue_{n:04}"), 3_000 + n).await;
        }
        assert_eq!(
            ids(store.claim(5_000, 1, 60_000, "a").await.unwrap()),
            ["queue_0000"]
        );
        put("behind".to_owned(), 2_500).await;
        let mut claims = 0;
        loop {
            claims += 1;
            let taken = ids(store.claim(5_000, 1, 60_000, "a").await.unwrap());
            assert_eq!(taken.len(), 1);
            if taken[0] == "behind" {
                break;
            }
            assert_eq!(taken[0], format!("queue_{claims:04}"), "out of order");
        }
        assert_eq!(
            claims,
            FROM_THE_FRONT_EVERY + 1,
            "claims before the one behind was taken"
        );
    }

    /// Adding an event notifies nobody (its own instance posts it); reviving a dead letter, from
    /// any instance, wakes every listener.
    #[tokio::test]
    async fn a_dead_letter_revived_elsewhere_wakes_the_listener_and_an_added_event_does_not() {
        let Some((_server, pool)) = database().await else {
            return;
        };
        let listening = PostgresOutbox::new(pool.clone()).await.unwrap();
        let other = PostgresOutbox::new(pool).await.unwrap();
        let quiet = listening.changed();
        assert!(
            other
                .put(Entry::new("evt", b"{}".to_vec(), 0))
                .await
                .unwrap()
                .is_stored()
        );
        assert!(
            tokio::time::timeout(Duration::from_millis(300), quiet)
                .await
                .is_err(),
            "an added event notified the listeners"
        );
        let claimed = other.claim(1, 1, 60_000, "me").await.unwrap();
        assert_eq!(claimed.len(), 1);
        let dead = Settlement::Dead {
            attempts: 1,
            at: 1,
            reason: "refused".to_owned(),
        };
        assert!(other.settle("evt", "me", dead).await.unwrap());
        let woken = listening.changed();
        let revive = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            other.revive("evt", 2).await.unwrap()
        };
        let (_, revived) = tokio::join!(
            async {
                tokio::time::timeout(Duration::from_secs(5), woken)
                    .await
                    .expect("woken by the notification")
            },
            revive
        );
        assert!(revived);
        assert!(!other.revive("evt", 3).await.unwrap(), "revived twice");
    }

    #[tokio::test]
    async fn an_event_sent_inside_a_handlers_transaction_exists_once_it_commits() {
        let Some((_server, pool)) = database().await else {
            return;
        };
        let outbox = PostgresOutbox::new(pool.clone()).await.unwrap();
        let dedupe = crate::dedupe::PostgresDedupe::new(pool);
        let pending = || async { outbox.list(Which::Pending, 10).await.unwrap().len() };
        for commits in [false, true] {
            let scope = transaction::Scope::new(dedupe.transactions().unwrap());
            scope
                .enter(async {
                    let mut tx = crate::postgres::transaction().await.unwrap();
                    assert!(!tx.behind_pooler(), "a database reached directly prepares");
                    sqlx::query("SELECT 1").execute(&mut *tx).await.unwrap();
                    drop(tx);
                    assert!(
                        outbox
                            .put(Entry::new("evt", b"{}".to_vec(), 0))
                            .await
                            .unwrap()
                            .is_stored()
                    );
                    assert!(transaction::holds("evt"));
                })
                .await;
            assert_eq!(pending().await, 0, "nothing before the commit");
            if commits {
                scope.commit(None).await.unwrap();
                assert_eq!(pending().await, 1, "the event once it committed");
            } else {
                scope.roll_back().await;
                assert_eq!(pending().await, 0, "nothing once rolled back");
            }
        }
    }

    /// One id, one event, inside a handler's transaction too, whatever the transaction's state
    /// at the send:
    ///
    /// - begun: an id another event holds is refused at the send; the event is written at once,
    ///   so another instance sending other content under its id waits for the commit and is
    ///   refused then;
    /// - not begun: the id is looked up on a connection of the pool and refused at the send; one
    ///   another event takes between the send and the commit fails the commit, naming the id, so
    ///   the handler's writes do not commit without their event.
    #[tokio::test]
    async fn an_id_taken_by_another_event_is_refused_inside_a_handlers_transaction() {
        let Some((_server, pool)) = database().await else {
            return;
        };
        let outbox = PostgresOutbox::new(pool.clone()).await.unwrap();
        let other = PostgresOutbox::new(pool.clone()).await.unwrap();
        let dedupe = crate::dedupe::PostgresDedupe::new(pool.clone());
        let envelope = |why: &str| {
            format!(r#"{{"dedupeKey":"evt","payload":{{"why":"{why}"}}}}"#).into_bytes()
        };
        assert!(
            outbox
                .put(Entry::new("held", envelope("first"), 0))
                .await
                .unwrap()
                .is_stored()
        );
        for begun in [true, false] {
            let later = if begun { "later-begun" } else { "later-idle" };
            let scope = transaction::Scope::new(dedupe.transactions().unwrap());
            scope
                .enter(async {
                    if begun {
                        let mut tx = crate::postgres::transaction().await.unwrap();
                        sqlx::query("CREATE TABLE effect (n int)")
                            .execute(&mut *tx)
                            .await
                            .unwrap();
                    }
                    let held = outbox.put(Entry::new("held", envelope("other"), 0)).await;
                    assert_eq!(held.unwrap(), Put::Conflict, "refused at the send");
                    let same = outbox.put(Entry::new("held", envelope("first"), 0)).await;
                    assert_eq!(same.unwrap(), Put::AlreadyPending);
                    let free = outbox.put(Entry::new(later, envelope("mine"), 0)).await;
                    assert!(free.unwrap().is_stored());
                    assert!(transaction::holds(later));
                    let again = outbox.put(Entry::new(later, envelope("mine"), 0)).await;
                    let again = again.unwrap();
                    if begun {
                        assert_eq!(again, Put::AlreadyPending, "its own write, seen in it");
                    }
                })
                .await;
            if begun {
                // Written at the send: another instance's event of that id waits for the commit,
                // then is refused.
                let theirs = tokio::spawn({
                    let other = PostgresOutbox::new(pool.clone()).await.unwrap();
                    async move {
                        other
                            .put(Entry::new("later-begun", envelope("theirs"), 0))
                            .await
                    }
                });
                tokio::time::sleep(Duration::from_millis(200)).await;
                assert!(
                    !theirs.is_finished(),
                    "the other send did not wait for the commit"
                );
                scope.commit(None).await.unwrap();
                assert_eq!(theirs.await.unwrap().unwrap(), Put::Conflict);
                let effect: Option<String> =
                    sqlx::query_scalar("SELECT to_regclass('effect')::text")
                        .fetch_one(&pool)
                        .await
                        .unwrap();
                assert_eq!(
                    effect.as_deref(),
                    Some("effect"),
                    "the handler's writes committed"
                );
            } else {
                // Written at the commit: another instance takes the id first.
                assert!(
                    other
                        .put(Entry::new(later, envelope("theirs"), 0))
                        .await
                        .unwrap()
                        .is_stored()
                );
                let Err(transaction::Failed::Store(e)) = scope.commit(None).await else {
                    panic!("the commit went through with its event refused");
                };
                let said = crate::calls::error::Chain(&e).to_string();
                assert!(said.contains("`later-idle`"), "{said}");
            }
        }
    }

    /// A send inside a handler's transaction never waits for a connection of the pool while the
    /// transaction holds one: on a pool of one connection, begun and given back, or held by the
    /// handler across the send, the send answers at once (a send that waited would wait out the
    /// pool's 30 s, as every handler holding a connection would under load), and the events commit
    /// with the handler's write.
    #[tokio::test]
    async fn a_send_in_a_transaction_never_waits_for_a_second_connection() {
        let Some((server, _)) = database().await else {
            return;
        };
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .connect(&server.url())
            .await
            .unwrap();
        let outbox = PostgresOutbox::new(pool.clone()).await.unwrap();
        let dedupe = crate::dedupe::PostgresDedupe::new(pool.clone());
        let scope = transaction::Scope::new(dedupe.transactions().unwrap());
        let bound = Duration::from_secs(10);
        scope
            .enter(async {
                let mut tx = crate::postgres::transaction().await.unwrap();
                sqlx::query("CREATE TABLE effect (n int)")
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                // Held by the handler across the send: checked at the commit.
                let held = tokio::time::timeout(
                    bound,
                    outbox.put(Entry::new("while-held", b"{}".to_vec(), 0)),
                )
                .await
                .expect("a send while the handler holds the only connection waited for another");
                assert!(held.unwrap().is_stored());
                drop(tx);
                // Begun and given back: written on the transaction's own connection.
                let begun =
                    tokio::time::timeout(bound, outbox.put(Entry::new("after", b"{}".to_vec(), 0)))
                        .await
                        .expect("a send in a begun transaction waited for another connection");
                assert!(begun.unwrap().is_stored());
                assert!(transaction::holds("while-held") && transaction::holds("after"));
            })
            .await;
        scope.commit(None).await.unwrap();
        let ids: Vec<String> = sqlx::query_scalar("SELECT id FROM host_outbox ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(ids, ["after", "while-held"]);
    }

    /// Two senders in one database, each outbox in a schema of its own: an event sent inside a
    /// handler's transaction (of the first schema's pool) lands in its own outbox's table, and
    /// each outbox drains only its own. Before the join was by pool, the second outbox's event
    /// was written through the handler's connection into the first schema's table.
    #[tokio::test]
    async fn two_outboxes_in_two_schemas_keep_their_own_events() {
        let Some((server, pool)) = database().await else {
            return;
        };
        sqlx::query("CREATE SCHEMA sender_b")
            .execute(&pool)
            .await
            .unwrap();
        let pool_b = crate::postgres::connect(&format!(
            "{}?options=-csearch_path%3Dsender_b",
            server.url()
        ))
        .await
        .unwrap();
        crate::postgres::migrate(&pool_b).await.unwrap();
        let outbox_a = PostgresOutbox::new(pool.clone()).await.unwrap();
        let outbox_b = PostgresOutbox::new(pool_b.clone()).await.unwrap();
        let dedupe = crate::dedupe::PostgresDedupe::new(pool.clone());
        let scope = transaction::Scope::new(dedupe.transactions().unwrap());
        scope
            .enter(async {
                assert!(
                    outbox_a
                        .put(Entry::new("evt-a", b"{}".to_vec(), 0))
                        .await
                        .unwrap()
                        .is_stored()
                );
                assert!(
                    outbox_b
                        .put(Entry::new("evt-b", b"{}".to_vec(), 0))
                        .await
                        .unwrap()
                        .is_stored()
                );
                assert!(transaction::holds("evt-a") && !transaction::holds("evt-b"));
            })
            .await;
        scope.commit(None).await.unwrap();
        let ids = |schema: &'static str| {
            let pool = pool.clone();
            async move {
                sqlx::query_scalar::<_, String>(&format!(
                    "SELECT id FROM {schema}.host_outbox ORDER BY id"
                ))
                .fetch_all(&pool)
                .await
                .unwrap()
            }
        };
        assert_eq!(ids("public").await, ["evt-a"]);
        assert_eq!(ids("sender_b").await, ["evt-b"]);
        for (outbox, id) in [(&outbox_a, "evt-a"), (&outbox_b, "evt-b")] {
            let claimed = outbox.claim(10_000, 10, 70_000, "me").await.unwrap();
            let ids: Vec<&str> = claimed.iter().map(|e| e.id.as_str()).collect();
            assert_eq!(ids, [id]);
        }
    }

    /// Two pools of one database with the same settings: the vendor meant one transaction. The
    /// send is refused, naming the fix, rather than committed apart from the handler's writes.
    #[tokio::test]
    async fn an_outbox_on_another_pool_of_the_same_database_is_refused_in_a_handler() {
        let Some((server, pool)) = database().await else {
            return;
        };
        let other = crate::postgres::connect(&server.url()).await.unwrap();
        assert_ne!(pool_of(&pool), pool_of(&other));
        assert_eq!(pool_of(&pool), pool_of(&pool.clone()));
        let outbox = PostgresOutbox::new(other).await.unwrap();
        let dedupe = crate::dedupe::PostgresDedupe::new(pool);
        let scope = transaction::Scope::new(dedupe.transactions().unwrap());
        let refused = scope
            .enter(outbox.put(Entry::new("evt", b"{}".to_vec(), 0)))
            .await
            .unwrap_err();
        assert!(refused.to_string().contains("from one pool"), "{refused}");
        scope.roll_back().await;
        // Outside a handler it is an outbox like any other.
        assert!(
            outbox
                .put(Entry::new("evt", b"{}".to_vec(), 0))
                .await
                .unwrap()
                .is_stored()
        );
    }
}
