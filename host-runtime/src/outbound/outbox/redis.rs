//! [`RedisOutbox`]: one outbox drained by several instances.
//!
//! Four keys under a prefix: `pending` (a hash of records by id), `due` (a sorted set of ids by
//! the time of their next attempt), `owners` (a hash of the claim holder by id) and `dead` (a hash
//! of dead letters). A claim moves an event's `due` score to the end of the lease and names its
//! holder in one script, so a second instance sees it due again only once the lease has run out;
//! each settlement first checks the holder.

use std::sync::LazyLock;

use redis::Script;

use super::{Entry, OutboxStore, Settlement, StoreError, StoreErrorKind, Which, codec};
use crate::BoxFuture;

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

/// Stores a new record unless its id is pending.
const PUT: &str = r"
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
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

/// Settles ARGV[1] if ARGV[2] holds it: ARGV[3] is `delivered`, `retry` (record ARGV[4], due ARGV[5])
/// or `dead` (record ARGV[4]).
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

/// Removes ARGV[1] from every key.
const DISCARD: &str = r"
local n = redis.call('HDEL', KEYS[2], ARGV[1]) + redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return n
";

/// An outbox in Redis, drained by every instance that sends through it: each event is in flight at
/// one instance at a time, and an instance that dies holding one gives it up when its lease (a
/// minute by default, three attempt timeouts at least) runs out.
///
/// An event is accepted once Redis has it in memory; it survives a Redis restart as far as Redis's
/// own persistence goes (`appendonly yes` with `appendfsync everysec` or `always` for an outbox).
#[derive(Clone)]
pub struct RedisOutbox {
    connection: redis::aio::ConnectionManager,
    prefix: String,
}

impl std::fmt::Debug for RedisOutbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisOutbox")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// A command that failed, with Redis's error as the source.
fn failed(e: redis::RedisError) -> StoreError {
    failed_at("a Redis command failed", e)
}

/// What failed, with Redis's error as the source.
fn failed_at(what: impl Into<String>, e: redis::RedisError) -> StoreError {
    StoreError::new("redis", crate::stores::store::redis_kind(&e), what).with_source(e)
}

impl RedisOutbox {
    /// Connects to `url` (`redis://host:port/db`); keys are prefixed with `host-outbox:`.
    ///
    /// Fails within 5 s when Redis cannot be reached; once connected, each command times out
    /// after 2 s (the send then fails: the event was not accepted) and the connection is
    /// re-established in the background when Redis returns.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Ok(RedisOutbox {
            connection: crate::stores::dedupe::redis_connection(url)
                .await
                .map_err(|e| failed_at(format!("cannot connect to {url}"), e))?,
            prefix: "host-outbox:".to_owned(),
        })
    }

    /// Uses another key prefix (one outbox per sender: to share one Redis between extensions, or
    /// between senders with different secrets).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn script(&self, which: usize) -> redis::ScriptInvocation<'static> {
        let mut invocation = SCRIPTS[which].prepare_invoke();
        for key in ["due", "pending", "owners", "dead"] {
            invocation.key(format!("{}{key}", self.prefix));
        }
        invocation
    }

    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// The claimed records (ids and records, in turn) that decode. One that does not becomes a
    /// dead letter as it is, its bytes as the body, so that `list` and `cargo host outbox` show it
    /// rather than it being claimed and skipped forever.
    async fn decoded(&self, claimed: Vec<Vec<u8>>, now: i64) -> Result<Vec<Entry>, StoreError> {
        let mut entries = Vec::with_capacity(claimed.len() / 2);
        let mut pairs = claimed.chunks_exact(2);
        for pair in &mut pairs {
            let (id, raw) = (String::from_utf8_lossy(&pair[0]), &pair[1]);
            match codec::decode(raw) {
                Ok((entry, _)) => entries.push(entry),
                Err(why) => {
                    let entry = codec::unreadable(&id, raw.clone(), &why, now);
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
    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let stored: i64 = self
                .script(S_PUT)
                .arg(&entry.id)
                .arg(codec::encode(&entry, ""))
                .arg(entry.due)
                .invoke_async(&mut c)
                .await
                .map_err(failed)?;
            Ok(stored == 1)
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
            let mut c = self.connection.clone();
            let records: Vec<Vec<u8>> = self
                .script(S_CLAIM)
                .arg(now)
                .arg(limit)
                .arg(lease_until)
                .arg(owner)
                .invoke_async(&mut c)
                .await
                .map_err(failed)?;
            self.decoded(records, now).await
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
            let mut c = self.connection.clone();
            let mut script = self.script(S_CLAIM_IDS);
            script.arg(now).arg(lease_until).arg(owner);
            for id in ids {
                script.arg(id);
            }
            let records: Vec<Vec<u8>> = script.invoke_async(&mut c).await.map_err(failed)?;
            self.decoded(records, now).await
        })
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let (action, record, due) = match settlement {
                Settlement::Delivered => ("delivered", Vec::new(), 0),
                Settlement::Retry {
                    attempts,
                    due,
                    error,
                } => {
                    let Some(mut entry) = self.record("pending", id).await? else {
                        return Ok(false);
                    };
                    entry.attempts = attempts;
                    entry.due = due;
                    entry.last_error = Some(error);
                    ("retry", codec::encode(&entry, ""), due)
                }
                Settlement::Dead {
                    attempts,
                    at,
                    reason,
                } => {
                    let Some(mut entry) = self.record("pending", id).await? else {
                        return Ok(false);
                    };
                    entry.attempts = attempts;
                    entry.due = at;
                    entry.last_error = Some(reason);
                    ("dead", codec::encode(&entry, ""), at)
                }
            };
            let settled: i64 = self
                .script(S_SETTLE)
                .arg(id)
                .arg(owner)
                .arg(action)
                .arg(record)
                .arg(due)
                .invoke_async(&mut c)
                .await
                .map_err(failed)?;
            Ok(settled == 1)
        })
    }

    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let first: Vec<(String, f64)> = redis::cmd("ZRANGE")
                .arg(self.key("due"))
                .arg(0)
                .arg(0)
                .arg("WITHSCORES")
                .query_async(&mut c)
                .await
                .map_err(failed)?;
            // Scores are Unix milliseconds, exact in a double until the year 287,396.
            #[allow(clippy::cast_possible_truncation)]
            Ok(first.first().map(|(_, at)| *at as i64))
        })
    }

    fn list(&self, which: Which, limit: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        Box::pin(async move {
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
                            #[allow(clippy::cast_possible_truncation)]
                            {
                                entry.due = at as i64;
                            }
                            out.push(entry);
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
                            Ok((entry, _)) => out.push(entry),
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
