//! [`RedisOutbox`]: one outbox drained by several instances.
//!
//! Five keys under a prefix: `pending` (a hash of records by id), `due` (a sorted set of ids by
//! the time of their next attempt), `owners` (a hash of the claim holder by id), `dead` (a hash
//! of dead letters) and `digests` (a hash of the [digest](crate::stores::outbox::Entry::digest) of each pending or
//! dead event by id); and one `sent:<id>` key per event delivered within
//! [`SENT_WINDOW`](crate::stores::outbox::SENT_WINDOW), holding its digest and expiring with the window. A claim moves an event's `due` score to the end of the lease and names its
//! holder in one script, so a second instance sees it due again only once the lease has run out;
//! each settlement first checks the holder.
//!
//! Every time in these keys and records (scores, and `due` and `accepted` inside records) is on the
//! Redis server's clock: `Clock` holds how far this process's clock is from it, and the store adds
//! that to every time it is given and takes it off every time it gives back.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, LazyLock};

use redis::Script;

use crate::platform::BoxFuture;
use crate::platform::rt::{Instant, SystemTime, UNIX_EPOCH};
use crate::stores::outbox::{
    Destination, Entry, OutboxStore, Put, Settlement, StoreError, StoreErrorKind, Which, codec,
};

/// The scripts, hashed once per process.
static SCRIPTS: LazyLock<[Script; 7]> = LazyLock::new(|| {
    [
        Script::new(PUT),
        Script::new(CLAIM),
        Script::new(SETTLE),
        Script::new(REVIVE),
        Script::new(DISCARD),
        Script::new(CLAIM_IDS),
        Script::new(BURY),
    ]
});
const S_PUT: usize = 0;
const S_CLAIM: usize = 1;
const S_SETTLE: usize = 2;
const S_REVIVE: usize = 3;
const S_DISCARD: usize = 4;
const S_CLAIM_IDS: usize = 5;
const S_BURY: usize = 6;

/// Stores record ARGV[2] of id ARGV[1], due ARGV[3], digest ARGV[4], claimed by ARGV[5] (empty:
/// unclaimed), unless its id is pending or was delivered within the window (KEYS[6] is its
/// `sent:` key). Answers `stored`, `pending` or `delivered` (the same digest), `conflict` (another
/// digest), or `unknown` (a pending record without a digest, from an earlier release).
const PUT: &str = r"
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  local found = redis.call('HGET', KEYS[5], ARGV[1])
  if not found then return 'unknown' end
  if found == ARGV[4] then return 'pending' end
  return 'conflict'
end
local sent = redis.call('GET', KEYS[6])
if sent then
  if sent == ARGV[4] then return 'delivered' end
  return 'conflict'
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[5]) end
redis.call('HDEL', KEYS[4], ARGV[1])
return 'stored'
";

/// Claims up to ARGV[2] ids due by ARGV[1] for owner ARGV[4] until ARGV[3]; returns each id and its
/// record.
const CLAIM: &str = r"
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local out = {}
for _, id in ipairs(ids) do
  local record = redis.call('HGET', KEYS[2], id)
  if record then
    redis.call('ZADD', KEYS[1], ARGV[3], id)
    redis.call('HSET', KEYS[3], id, ARGV[4])
    table.insert(out, id)
    table.insert(out, record)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out
";

/// Claims those of ids ARGV[4..] that are due by ARGV[1] for owner ARGV[3] until ARGV[2]; returns
/// each id and its record.
const CLAIM_IDS: &str = r"
local out = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local due = redis.call('ZSCORE', KEYS[1], id)
  if due and tonumber(due) <= tonumber(ARGV[1]) then
    local record = redis.call('HGET', KEYS[2], id)
    if record then
      redis.call('ZADD', KEYS[1], ARGV[2], id)
      redis.call('HSET', KEYS[3], id, ARGV[3])
      table.insert(out, id)
      table.insert(out, record)
    end
  end
end
return out
";

/// Settles ARGV[1] if ARGV[2] holds it: ARGV[3] is `delivered` (its digest moves to its `sent:`
/// key KEYS[6], for ARGV[6] milliseconds), `retry` (record ARGV[4], due ARGV[5]) or `dead` (record
/// ARGV[4]; the digest stays, for a revival).
const SETTLE: &str = r"
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
if ARGV[3] == 'retry' then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
  return 1
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[3] == 'dead' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[4]) end
if ARGV[3] == 'delivered' then
  local digest = redis.call('HGET', KEYS[5], ARGV[1])
  if digest then redis.call('SET', KEYS[6], digest, 'PX', ARGV[6]) end
  redis.call('HDEL', KEYS[5], ARGV[1])
end
return 1
";

/// Moves dead letter ARGV[1] back to pending as record ARGV[2], due ARGV[3].
const REVIVE: &str = r"
if redis.call('HDEL', KEYS[4], ARGV[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
";

/// Moves pending ARGV[1] to the dead letters as record ARGV[2].
const BURY: &str = r"
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
return 1
";

/// Removes ARGV[1] from every key but its `sent:` key (a dropped event was never delivered).
const DISCARD: &str = r"
local n = redis.call('HDEL', KEYS[2], ARGV[1]) + redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
return n
";

/// An outbox in Redis, drained by every instance that sends through it: each event is in flight at
/// one instance at a time, and an instance that dies holding one gives it up when its lease (a
/// minute by default, three attempt timeouts at least) runs out.
///
/// Leases and due times follow the Redis server's clock, so instances need not agree on the time:
/// the store measures how far this process's clock is from the server's (`TIME`) when it connects
/// and again every minute, and shifts every time it stores or compares by that much (and every time
/// it reads back, the other way), so an instance whose clock is wrong by more than a lease neither
/// takes an event another instance is still posting nor waits for one that is due.
///
/// An event is accepted once Redis has it in memory; it survives a Redis restart as far as Redis's
/// own persistence goes (`appendonly yes` with `appendfsync everysec` or `always` for an outbox).
#[derive(Clone)]
pub struct RedisOutbox {
    connection: redis::aio::ConnectionManager,
    prefix: String,
    clock: Arc<Clock>,
}

impl std::fmt::Debug for RedisOutbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisOutbox")
            .field("prefix", &self.prefix)
            .field(
                "server_clock_offset_ms",
                &self.clock.offset_ms.load(Ordering::Relaxed),
            )
            .finish_non_exhaustive()
    }
}

/// How often the offset to the server's clock is measured again (milliseconds).
const REMEASURE_EVERY_MS: i64 = 60_000;
/// A measurement whose round trip took longer is thrown away, since its midpoint can be off by
/// half of it (microseconds).
const LONGEST_ROUND_TRIP_US: i64 = 1_000_000;

/// The Redis server's clock as seen from this process, shared by the clones of one store.
#[derive(Debug)]
struct Clock {
    /// The server's clock minus this process's, in milliseconds: added to every time stored or
    /// compared in Redis, taken off every time read back.
    offset_ms: AtomicI64,
    /// When the offset was last measured, in milliseconds since `started` (a monotonic clock, so
    /// that a step of the wall clock does not put the next measurement off).
    measured_at: AtomicI64,
    started: Instant,
    /// A measurement is under way: at most one at a time.
    measuring: AtomicBool,
    /// How far this process's clock is taken to be wrong, in milliseconds. Zero, except in tests
    /// that play an instance whose clock is off.
    error_ms: i64,
}

impl Clock {
    /// This process's clock, as callers read it for the times they pass (`now_ms`), in
    /// microseconds.
    fn local_us(&self) -> i64 {
        let us = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
        us.saturating_add(self.error_ms.saturating_mul(1_000))
    }

    fn since_started_ms(&self) -> i64 {
        i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX)
    }

    /// Reads the server's clock once: the offset in milliseconds, from the midpoint of the round
    /// trip, and the round trip in microseconds.
    async fn read(
        &self,
        connection: &redis::aio::ConnectionManager,
    ) -> Result<(i64, i64), redis::RedisError> {
        let mut c = connection.clone();
        let sent = self.local_us();
        let (seconds, micros): (i64, i64) = redis::cmd("TIME").query_async(&mut c).await?;
        let received = self.local_us();
        let server = seconds.saturating_mul(1_000_000).saturating_add(micros);
        let midpoint = sent + (received - sent) / 2;
        let offset_us = server.saturating_sub(midpoint);
        Ok((
            offset_us.saturating_add(500).div_euclid(1_000),
            received - sent,
        ))
    }

    /// Measures the offset again. A reading that fails or took too long keeps the last offset; one
    /// that agrees with it to within its own uncertainty (half its round trip) keeps it too, so
    /// times read back stay exactly the times stored while the two clocks keep in step.
    async fn remeasure(&self, connection: &redis::aio::ConnectionManager) {
        match self.read(connection).await {
            Ok((offset, round_trip)) if round_trip <= LONGEST_ROUND_TRIP_US => {
                let last = self.offset_ms.load(Ordering::Relaxed);
                if (offset - last).abs() > round_trip / 2_000 {
                    tracing::debug!(
                        last_ms = last,
                        measured_ms = offset,
                        "the offset to the Redis server's clock changed"
                    );
                    self.offset_ms.store(offset, Ordering::Relaxed);
                }
            }
            Ok((_, round_trip)) => tracing::debug!(
                round_trip_us = round_trip,
                "the Redis server's clock answered too slowly to measure; the last offset is kept"
            ),
            Err(e) => tracing::warn!(
                error = %e,
                "the Redis server's clock could not be read; the last offset is kept"
            ),
        }
        self.measured_at
            .store(self.since_started_ms(), Ordering::Relaxed);
        self.measuring.store(false, Ordering::Release);
    }
}

/// `entry` with its times moved by `by` milliseconds: onto the server's clock or back off it.
/// How many of the events due soonest [`OutboxStore::backlog`] reads for the oldest one.
const BACKLOG_OLDEST_AMONG: i64 = 100;

fn shifted(mut entry: Entry, by: i64) -> Entry {
    entry.due = entry.due.saturating_add(by);
    entry.accepted = entry.accepted.saturating_add(by);
    entry
}

/// A sorted-set score as the Unix milliseconds it was written as (exact in a double until the year
/// 287,396).
fn score_ms(score: f64) -> i64 {
    score as i64
}

/// `digest` in lowercase hex, as the store keeps it.
fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A command that failed, with Redis's error as the source.
fn failed(e: redis::RedisError) -> StoreError {
    super::redis_failed("a Redis command failed", e)
}

impl RedisOutbox {
    /// Connects to `url` (`redis://host:port/db`); keys are prefixed with `host-outbox:`.
    ///
    /// Fails within 5 s when Redis cannot be reached; once connected, each command times out
    /// after 2 s (the send then fails: the event was not accepted) and the connection is
    /// re-established in the background when Redis returns.
    /// Fails too when the server does not answer `TIME`, which the store needs to keep its leases
    /// on the server's clock.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::open(url, 0).await
    }

    /// Connects as a process whose clock is `clock_error_ms` off (zero but in tests).
    async fn open(url: &str, clock_error_ms: i64) -> Result<Self, StoreError> {
        let connection = super::redis_connection(url).await.map_err(|e| {
            super::redis_failed(
                format!(
                    "cannot connect to {}",
                    crate::stores::store::without_password(url)
                ),
                e,
            )
        })?;
        let clock = Clock {
            offset_ms: AtomicI64::new(0),
            measured_at: AtomicI64::new(0),
            started: Instant::now(),
            measuring: AtomicBool::new(false),
            error_ms: clock_error_ms,
        };
        let (offset, _) = clock.read(&connection).await.map_err(|e| {
            super::redis_failed(
                format!(
                    "cannot read the clock of the Redis server at {} (`TIME`)",
                    crate::stores::store::without_password(url)
                ),
                e,
            )
        })?;
        clock.offset_ms.store(offset, Ordering::Relaxed);
        Ok(RedisOutbox {
            connection,
            prefix: "host-outbox:".to_owned(),
            clock: Arc::new(clock),
        })
    }

    /// Uses another key prefix (one outbox per sender: to share one Redis between extensions, or
    /// between senders with different secrets).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The server's clock minus this process's, in milliseconds. When the last measurement is a
    /// minute old, a new one starts in a task of its own; the call goes on with the last offset.
    fn offset(&self) -> i64 {
        let clock = &self.clock;
        let age = clock
            .since_started_ms()
            .saturating_sub(clock.measured_at.load(Ordering::Relaxed));
        if age >= REMEASURE_EVERY_MS
            && clock
                .measuring
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            let (clock, connection) = (Arc::clone(&self.clock), self.connection.clone());
            let spawned =
                crate::platform::rt::spawn(async move { clock.remeasure(&connection).await });
            if !spawned {
                self.clock.measuring.store(false, Ordering::Release);
            }
        }
        self.clock.offset_ms.load(Ordering::Relaxed)
    }

    fn script(&self, which: usize) -> redis::ScriptInvocation<'static> {
        let mut invocation = SCRIPTS[which].prepare_invoke();
        for key in ["due", "pending", "owners", "dead", "digests"] {
            invocation.key(format!("{}{key}", self.prefix));
        }
        invocation
    }

    /// The key that remembers delivered event `id` for the window.
    fn sent_key(&self, id: &str) -> String {
        format!("{}sent:{id}", self.prefix)
    }

    /// Stores `entry` (on this process's clock) claimed by `owner` (empty: unclaimed), due at
    /// `due`, unless its id is taken; see [`PUT`].
    async fn put_as(&self, entry: &Entry, due: i64, owner: &str) -> Result<Put, StoreError> {
        let offset = self.offset();
        let stored = shifted(
            Entry {
                due,
                ..entry.clone()
            },
            offset,
        );
        let digest = entry.digest();
        let mut c = self.connection.clone();
        let answer: String = self
            .script(S_PUT)
            .key(self.sent_key(&entry.id))
            .arg(&entry.id)
            .arg(codec::encode(&stored, owner))
            .arg(stored.due)
            .arg(hex(&digest))
            .arg(owner)
            .invoke_async(&mut c)
            .await
            .map_err(failed)?;
        Ok(match answer.as_str() {
            "stored" => Put::Stored(()),
            "pending" => Put::AlreadyPending,
            "delivered" => Put::AlreadyDelivered,
            "conflict" => Put::Conflict,
            // Stored by an earlier release, with no digest beside it: digested from its body.
            _ => match self.record("pending", &entry.id).await? {
                Some(found) => Put::found(&found.digest(), &digest, true),
                None => Put::Conflict,
            },
        })
    }

    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// The claimed records (ids and records, in turn) that decode, on the caller's clock. One that
    /// does not becomes a dead letter as it is, its bytes as the body, so that `list` and
    /// `cargo host outbox` show it rather than it being claimed and skipped forever.
    async fn decoded(
        &self,
        claimed: Vec<Vec<u8>>,
        server_now: i64,
        offset: i64,
    ) -> Result<Vec<Entry>, StoreError> {
        let mut entries = Vec::with_capacity(claimed.len() / 2);
        let mut pairs = claimed.chunks_exact(2);
        for pair in &mut pairs {
            let (id, raw) = (String::from_utf8_lossy(&pair[0]), &pair[1]);
            match codec::decode(raw) {
                Ok((entry, _)) => entries.push(shifted(entry, -offset)),
                Err(why) => {
                    let entry = codec::unreadable(&id, raw.clone(), &why, server_now);
                    let mut c = self.connection.clone();
                    let _: i64 = self
                        .script(S_BURY)
                        .arg(id.as_ref())
                        .arg(codec::encode(&entry, ""))
                        .invoke_async(&mut c)
                        .await
                        .map_err(failed)?;
                }
            }
        }
        Ok(entries)
    }

    /// Record `id` of `hash` as stored, on the server's clock.
    async fn record(&self, hash: &str, id: &str) -> Result<Option<Entry>, StoreError> {
        let mut c = self.connection.clone();
        let raw: Option<Vec<u8>> = redis::cmd("HGET")
            .arg(self.key(hash))
            .arg(id)
            .query_async(&mut c)
            .await
            .map_err(failed)?;
        raw.map(|raw| {
            codec::decode(&raw).map(|(entry, _)| entry).map_err(|e| {
                StoreError::new(
                    "redis",
                    StoreErrorKind::Corrupt,
                    format!("record `{id}` cannot be read"),
                )
                .with_source(e)
            })
        })
        .transpose()
    }
}

impl OutboxStore for RedisOutbox {
    fn name(&self) -> &'static str {
        "redis"
    }

    /// Counts both lists exactly; the oldest waiting event is looked for among the
    /// 100 due soonest (the store orders events by due time only), so under a
    /// long backoff the age it gives may be younger than the oldest event's.
    fn backlog(&self) -> BoxFuture<'_, Result<crate::stores::outbox::Backlog, StoreError>> {
        Box::pin(async move {
            let offset = self.offset();
            let mut c = self.connection.clone();
            let (pending, dead, soonest): (u64, u64, Vec<String>) = redis::pipe()
                .cmd("ZCARD")
                .arg(self.key("due"))
                .cmd("HLEN")
                .arg(self.key("dead"))
                .cmd("ZRANGE")
                .arg(self.key("due"))
                .arg(0)
                .arg(BACKLOG_OLDEST_AMONG - 1)
                .query_async(&mut c)
                .await
                .map_err(failed)?;
            let mut oldest_accepted = None::<i64>;
            for id in soonest {
                if let Some(entry) = self.record("pending", &id).await? {
                    let accepted = shifted(entry, -offset).accepted;
                    oldest_accepted = Some(oldest_accepted.map_or(accepted, |o| o.min(accepted)));
                }
            }
            Ok(crate::stores::outbox::Backlog {
                pending,
                oldest_accepted,
                dead,
            })
        })
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(super::ping(&self.connection, "outbox"))
    }

    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
        Box::pin(async move { self.put_as(&entry, entry.due, "").await })
    }

    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
        Box::pin(async move {
            let put = self.put_as(&entry, lease_until, owner).await?;
            Ok(put.map(|()| entry))
        })
    }

    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        Box::pin(async move {
            let offset = self.offset();
            let now = now.saturating_add(offset);
            let mut c = self.connection.clone();
            let records: Vec<Vec<u8>> = self
                .script(S_CLAIM)
                .arg(now)
                .arg(limit)
                .arg(lease_until.saturating_add(offset))
                .arg(owner)
                .invoke_async(&mut c)
                .await
                .map_err(failed)?;
            self.decoded(records, now, offset).await
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
            let offset = self.offset();
            let now = now.saturating_add(offset);
            let mut c = self.connection.clone();
            let mut script = self.script(S_CLAIM_IDS);
            script
                .arg(now)
                .arg(lease_until.saturating_add(offset))
                .arg(owner);
            for id in ids {
                script.arg(id);
            }
            let records: Vec<Vec<u8>> = script.invoke_async(&mut c).await.map_err(failed)?;
            self.decoded(records, now, offset).await
        })
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let offset = self.offset();
            let mut c = self.connection.clone();
            // A delivered event leaves only its digest, which the script takes from the record
            // itself; the others are read, settled and written back whole.
            let (action, record, due) = if matches!(settlement, Settlement::Delivered) {
                ("delivered", Vec::new(), 0)
            } else {
                let Some(mut entry) = self.record("pending", id).await? else {
                    return Ok(false);
                };
                let action = match entry.settle(settlement) {
                    Destination::Delivered => "delivered",
                    Destination::Pending => "retry",
                    Destination::Dead => "dead",
                };
                // Due times are kept on Redis's clock.
                entry.due = entry.due.saturating_add(offset);
                (action, codec::encode(&entry, ""), entry.due)
            };
            let settled: i64 = self
                .script(S_SETTLE)
                .key(self.sent_key(id))
                .arg(id)
                .arg(owner)
                .arg(action)
                .arg(record)
                .arg(due)
                .arg(crate::stores::outbox::millis(
                    crate::stores::outbox::SENT_WINDOW,
                ))
                .invoke_async(&mut c)
                .await
                .map_err(failed)?;
            Ok(settled == 1)
        })
    }

    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        Box::pin(async move {
            let offset = self.offset();
            let mut c = self.connection.clone();
            let first: Vec<(String, f64)> = redis::cmd("ZRANGE")
                .arg(self.key("due"))
                .arg(0)
                .arg(0)
                .arg("WITHSCORES")
                .query_async(&mut c)
                .await
                .map_err(failed)?;
            Ok(first
                .first()
                .map(|(_, at)| score_ms(*at).saturating_sub(offset)))
        })
    }

    fn list(&self, which: Which, limit: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        Box::pin(async move {
            let offset = self.offset();
            let mut c = self.connection.clone();
            let mut out = Vec::new();
            match which {
                Which::Pending => {
                    let last = i64::try_from(limit).unwrap_or(i64::MAX).saturating_sub(1);
                    let ids: Vec<(String, f64)> = redis::cmd("ZRANGE")
                        .arg(self.key("due"))
                        .arg(0)
                        .arg(last)
                        .arg("WITHSCORES")
                        .query_async(&mut c)
                        .await
                        .map_err(failed)?;
                    for (id, at) in ids {
                        if let Some(mut entry) = self.record("pending", &id).await? {
                            entry.due = score_ms(at);
                            out.push(shifted(entry, -offset));
                        }
                    }
                }
                Which::Dead => {
                    let all: Vec<(String, Vec<u8>)> = redis::cmd("HGETALL")
                        .arg(self.key("dead"))
                        .query_async(&mut c)
                        .await
                        .map_err(failed)?;
                    for (id, raw) in all {
                        match codec::decode(&raw) {
                            Ok((entry, _)) => out.push(shifted(entry, -offset)),
                            Err(e) => {
                                tracing::error!(event_id = %id, error = %e, "a damaged dead letter in Redis is skipped")
                            }
                        }
                    }
                    out.sort_by(|a, b| (a.due, &a.id).cmp(&(b.due, &b.id)));
                    out.truncate(limit);
                }
            }
            Ok(out)
        })
    }

    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let now = now.saturating_add(self.offset());
            let Some(mut entry) = self.record("dead", id).await? else {
                return Ok(false);
            };
            entry.attempts = 0;
            entry.due = now;
            let mut c = self.connection.clone();
            let revived: i64 = self
                .script(S_REVIVE)
                .arg(id)
                .arg(codec::encode(&entry, ""))
                .arg(now)
                .invoke_async(&mut c)
                .await
                .map_err(failed)?;
            Ok(revived == 1)
        })
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let removed: i64 = self
                .script(S_DISCARD)
                .arg(id)
                .invoke_async(&mut c)
                .await
                .map_err(failed)?;
            Ok(removed > 0)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use host_test_support::RedisServer;
    use std::time::Duration;

    use super::*;
    use crate::stores::outbox::now_ms;

    /// How far apart two measurements of the same clocks may be: each offset is measured to within
    /// about a millisecond over loopback.
    const TOLERANCE_MS: i64 = 20;

    fn ids(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.id.as_str()).collect()
    }

    /// Instance A with a right clock and instance B whose clock is `skew_ms` off share one outbox,
    /// each passing the times of its own clock, as the dispatcher does.
    async fn instances_with_skewed_clocks_agree(skew_ms: i64) {
        let Some(redis) = RedisServer::start_or_skip() else {
            return;
        };
        let a = RedisOutbox::open(&redis.url(), 0).await.unwrap();
        let b = RedisOutbox::open(&redis.url(), skew_ms).await.unwrap();
        let b_now = || now_ms() + skew_ms;
        let lease = 60_000;

        let a_now = now_ms();
        assert!(
            a.put(Entry::new("from-a", b"{}".to_vec(), a_now))
                .await
                .unwrap()
                .is_stored()
        );
        let claimed = a.claim(a_now, 10, a_now + lease, "a").await.unwrap();
        assert_eq!(ids(&claimed), ["from-a"]);

        let now = b_now();
        let taken = b.claim(now, 10, now + lease, "b").await.unwrap();
        assert_eq!(
            ids(&taken),
            Vec::<&str>::new(),
            "B, its clock {skew_ms:+} ms off, claimed an event under A's 60 s lease"
        );

        assert!(
            b.put(Entry::new("from-b", b"{}".to_vec(), b_now()))
                .await
                .unwrap()
                .is_stored()
        );
        // The two offsets are each measured to within a millisecond or so: "at once" is within
        // that, not after B's clock error.
        tokio::time::sleep(Duration::from_millis(TOLERANCE_MS as u64)).await;
        let a_then = now_ms();
        let claimed = a.claim(a_then, 10, a_then + lease, "a").await.unwrap();
        assert_eq!(
            ids(&claimed),
            ["from-b"],
            "an event B put (its clock {skew_ms:+} ms off) is not due for A at once"
        );
        let accepted = claimed[0].accepted;
        assert!(
            (accepted - a_then).abs() <= 2 * TOLERANCE_MS,
            "A reads the event B accepted as accepted {} ms from A's now",
            accepted - a_then
        );

        let next = b.next_due().await.unwrap().unwrap();
        let expected = a_now + lease + skew_ms;
        assert!(
            (next - expected).abs() <= TOLERANCE_MS,
            "next_due seen from B is {} ms from the end of A's lease on B's clock",
            next - expected
        );
    }

    #[tokio::test]
    async fn an_instance_whose_clock_is_90_s_ahead_keeps_to_the_leases() {
        instances_with_skewed_clocks_agree(90_000).await;
    }

    #[tokio::test]
    async fn an_instance_whose_clock_is_90_s_behind_keeps_to_the_leases() {
        instances_with_skewed_clocks_agree(-90_000).await;
    }

    /// Waits for the measurement under way, if any, to end.
    async fn measured(store: &RedisOutbox) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while store.clock.measuring.load(Ordering::Acquire) {
            assert!(
                std::time::Instant::now() < deadline,
                "the measurement did not end"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    #[tokio::test]
    async fn the_offset_is_measured_again_after_a_minute_and_kept_when_that_fails() {
        let Some(redis) = RedisServer::start_or_skip() else {
            return;
        };
        let store = RedisOutbox::open(&redis.url(), 0).await.unwrap();
        let right = store.clock.offset_ms.load(Ordering::Relaxed);
        let a_minute_ago = || store.clock.since_started_ms() - REMEASURE_EVERY_MS;

        // Measured less than a minute ago: calls use the offset as it is.
        store
            .clock
            .offset_ms
            .store(right + 5_000, Ordering::Relaxed);
        store.next_due().await.unwrap();
        measured(&store).await;
        assert_eq!(store.clock.offset_ms.load(Ordering::Relaxed), right + 5_000);

        // A minute ago: the next call starts a measurement, which puts the offset right.
        store
            .clock
            .measured_at
            .store(a_minute_ago(), Ordering::Relaxed);
        store.next_due().await.unwrap();
        measured(&store).await;
        let now = store.clock.offset_ms.load(Ordering::Relaxed);
        assert!(
            (now - right).abs() <= TOLERANCE_MS,
            "measured again: {now} ms, at connect: {right} ms"
        );

        // Redis gone: the measurement fails and the last offset stays.
        drop(redis);
        store
            .clock
            .measured_at
            .store(a_minute_ago(), Ordering::Relaxed);
        assert!(store.next_due().await.is_err());
        measured(&store).await;
        assert_eq!(store.clock.offset_ms.load(Ordering::Relaxed), now);
    }
}
