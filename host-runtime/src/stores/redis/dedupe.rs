//! [`RedisDedupe`]: event deduplication in Redis, shared by every instance.

use std::time::Duration;

use super::{redis_connection, redis_failed};
use crate::platform::BoxFuture;
use crate::stores::dedupe::{Claim, DedupeStore, StoreError, WINDOW};

/// A store in Redis, shared by every instance of a vendor server. A claim is a lease:
/// `SET key inflight:<owner> NX PX <lease>`; the attempt holding it renews it every third of the
/// lease while its handler runs, and records (`done`, expiring after the window) or releases it with
/// a script that first checks the value is still its own, so an attempt whose lease ran out can
/// never erase another's record. A crashed instance's claim expires after the lease (a minute).
#[derive(Clone)]
pub struct RedisDedupe {
    connection: redis::aio::ConnectionManager,
    prefix: String,
    lease: Duration,
}

/// `SET key done PX window` (complete) or `DEL key` (release), only if the key holds the caller's
/// claim; `PEXPIRE` (renew) likewise.
const SETTLE_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == 'complete' then return redis.call('SET', KEYS[1], 'done', 'PX', ARGV[3]) and 1 end
if ARGV[2] == 'release' then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[3])
";

impl RedisDedupe {
    /// Connects to `url` (`redis://host:port/db`); keys are prefixed with `host-events:`.
    ///
    /// Fails within [`Self::CONNECT_TIMEOUT`] when Redis cannot be reached, instead of retrying for
    /// minutes. Once connected, each command times out after [`Self::COMMAND_TIMEOUT`] and the
    /// connection is re-established in the background when Redis returns (a delivery meanwhile is
    /// answered `503 DEDUPE_UNAVAILABLE`, which the host retries).
    pub async fn connect(url: &str) -> Result<Self, redis::RedisError> {
        Ok(RedisDedupe {
            connection: redis_connection(url).await?,
            prefix: "host-events:".to_owned(),
            lease: Self::DEFAULT_LEASE,
        })
    }

    /// How long a claim lasts without renewal (default 60 s): what a crashed instance holds a key
    /// for. Attempts renew it every third of it.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(300));
        self
    }

    async fn settle(
        &self,
        key: &str,
        owner: &str,
        action: &str,
        ms: u64,
    ) -> redis::RedisResult<()> {
        let mut c = self.connection.clone();
        redis::Script::new(SETTLE_SCRIPT)
            .key(format!("{}{key}", self.prefix))
            .arg(format!("inflight:{owner}"))
            .arg(action)
            .arg(ms)
            .invoke_async::<i64>(&mut c)
            .await
            .map(|_| ())
    }

    /// How long a claim lasts without renewal unless [`with_lease`](Self::with_lease) says otherwise.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

    /// How long [`connect`](Self::connect) may take.
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
    /// How long one Redis command may take.
    pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(2);

    /// Uses another key prefix (to share one Redis between extensions).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn lease_ms(&self) -> u64 {
        u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX)
    }
}

impl DedupeStore for RedisDedupe {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(super::ping(&self.connection, "deduplication store"))
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let key = format!("{}{key}", self.prefix);
            let set: Option<String> = redis::cmd("SET")
                .arg(&key)
                .arg(format!("inflight:{owner}"))
                .arg("NX")
                .arg("PX")
                .arg(self.lease_ms())
                .query_async(&mut c)
                .await
                .map_err(|e| redis_failed("cannot claim the event key", e))?;
            if set.is_some() {
                return Ok(Claim::Run);
            }
            let value: Option<String> = redis::cmd("GET")
                .arg(&key)
                .query_async(&mut c)
                .await
                .map_err(|e| redis_failed("cannot read the event key", e))?;
            Ok(match value.as_deref() {
                Some("done") => Claim::Done,
                _ => Claim::Busy,
            })
        })
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let window = u64::try_from(WINDOW.as_millis()).unwrap_or(u64::MAX);
            if let Err(e) = self.settle(key, owner, "complete", window).await {
                tracing::warn!(error = %crate::calls::error::Chain(&e), "could not record a processed event in Redis");
            }
        })
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = self.settle(key, owner, "release", 0).await {
                tracing::warn!(error = %crate::calls::error::Chain(&e), "could not release an event key in Redis");
            }
        })
    }

    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = self.settle(key, owner, "renew", self.lease_ms()).await {
                tracing::warn!(error = %crate::calls::error::Chain(&e), "could not renew an event claim in Redis");
            }
        })
    }

    fn renew_every(&self) -> Option<Duration> {
        Some(self.lease / 3)
    }
}
