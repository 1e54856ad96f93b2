//! Deduplication of host event deliveries.
//!
//! The host retries a failed delivery with a new `X-Host-Event-Id` each attempt, so the id is no key.
//! The key is the event name, the install id and the payload's content key
//! ([`crate::HostEvent::dedupe_key`]). A key is recorded only after the handler
//! succeeded; while one delivery of a key is in flight, a concurrent duplicate waits for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::platform::rt::Instant;

use tokio::sync::Notify;

use crate::BoxFuture;
use crate::calls::events;
pub use crate::stores::store::{StoreError, StoreErrorKind};

#[cfg(feature = "dynamodb")]
mod dynamodb;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "dynamodb")]
pub use dynamodb::{AwsCredentials, DynamoDbDedupe, DynamoDbError, KEY_ATTRIBUTE, TTL_ATTRIBUTE};
#[cfg(feature = "postgres")]
pub use postgres::PostgresDedupe;

/// How long a processed key is remembered: 20 minutes, above the interface's least
/// ([`EVENT_DEDUPE_WINDOW_MIN_SECS`](host_interface::limits::EVENT_DEDUPE_WINDOW_MIN_SECS), 15).
pub const WINDOW: Duration = Duration::from_secs(20 * 60);
const _: () = assert!(WINDOW.as_secs() >= host_interface::limits::EVENT_DEDUPE_WINDOW_MIN_SECS);

/// Where processed keys live. There is no default outside development mode
/// ([`crate::Handler::with_development_defaults`], which keeps them in memory): a single instance
/// may choose a [`MemoryDedupe`]; vendors running several instances share a
/// `RedisDedupe` (feature `redis`), a `PostgresDedupe` in their own database (feature `postgres`)
/// or, on AWS Lambda, a `DynamoDbDedupe` (feature `dynamodb`).
///
/// A claim is a lease held by one delivery attempt, named by `owner` (a random token per attempt):
/// only its holder renews, completes or releases it, so an attempt that outlived its lease can never
/// erase what another attempt recorded.
pub trait DedupeStore: Send + Sync + 'static {
    /// Claims `key` for the attempt `owner`. An error (the store is unreachable, ...) answers the
    /// host a retryable 503, so the delivery is neither lost nor run twice.
    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>>;
    /// Records `key` as processed (the handler succeeded), if `owner` still holds it.
    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()>;
    /// Releases `key` without recording it (the handler failed, so a retry must run it), if `owner`
    /// still holds it.
    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()>;
    /// Extends `owner`'s claim on `key` while its handler runs. The default does nothing (a store
    /// whose claims do not expire).
    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        let _ = (key, owner);
        Box::pin(std::future::ready(()))
    }
    /// How often a running attempt calls [`renew`](Self::renew); `None` (the default): never.
    fn renew_every(&self) -> Option<Duration> {
        None
    }
    /// The database this store keeps its keys in, when a handler's own writes and the events it
    /// sends can commit there with the delivery's record, in one transaction
    /// ([`crate::transaction`]): every handler call then runs in a transaction of it. `None` (the
    /// default): the key is recorded on its own once the handler succeeded.
    fn transactions(&self) -> Option<Arc<dyn crate::stores::transaction::Database>> {
        None
    }
}

/// A shared store is a store: a handler and your own code (or two handlers) can hold one
/// `Arc<dyn DedupeStore>`, chosen at start-up from the configuration.
impl<S: DedupeStore + ?Sized> DedupeStore for Arc<S> {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        (**self).claim(key, owner)
    }
    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        (**self).complete(key, owner)
    }
    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        (**self).release(key, owner)
    }
    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        (**self).renew(key, owner)
    }
    fn renew_every(&self) -> Option<Duration> {
        (**self).renew_every()
    }
    fn transactions(&self) -> Option<Arc<dyn crate::stores::transaction::Database>> {
        (**self).transactions()
    }
}

/// The answer to [`DedupeStore::claim`].
#[derive(Debug, Clone)]
pub enum Claim {
    /// Process it.
    Run,
    /// Already processed: answer 204 without calling the handler.
    Done,
    /// Being processed by a concurrent delivery in this process: wait for the notification, then
    /// claim again.
    Wait(Arc<Notify>),
    /// Being processed elsewhere (another instance): claim again shortly.
    Busy,
}

enum Slot {
    InFlight { owner: String, done: Arc<Notify> },
    Done(Instant),
}

/// A map in this process: the store of development mode, or of a single instance that accepts
/// running an event again when a restart forgets its keys. Processed keys are forgotten after [`WINDOW`], oldest
/// first from a queue in the order they were recorded, so each claim costs a constant amortised
/// time however many keys the window holds. An in-flight claim lives until its attempt settles it;
/// the pipeline settles it however the attempt ends (also when the host gives up on the call).
#[derive(Default)]
pub struct MemoryDedupe {
    state: Mutex<Memory>,
}

#[derive(Default)]
struct Memory {
    slots: HashMap<Arc<str>, Slot>,
    /// Recorded keys, oldest first, with when they were recorded: the same allocations as the
    /// map's keys, so the window holds each key once.
    recorded: std::collections::VecDeque<(Instant, Arc<str>)>,
}

impl MemoryDedupe {
    /// An empty store.
    pub fn new() -> Self {
        MemoryDedupe::default()
    }

    fn claim_now(&self, key: &str, owner: &str) -> Claim {
        let Ok(mut memory) = self.state.lock() else {
            return Claim::Run;
        };
        let now = Instant::now();
        // Forget what left the window: the queue is in recording order, so this stops at the
        // first key still inside it.
        while let Some((at, _)) = memory.recorded.front() {
            if now.duration_since(*at) <= WINDOW {
                break;
            }
            if let Some((at, old)) = memory.recorded.pop_front()
                && matches!(memory.slots.get(&*old), Some(Slot::Done(t)) if *t == at)
            {
                memory.slots.remove(&*old);
            }
        }
        match memory.slots.get(key) {
            Some(Slot::Done(_)) => Claim::Done,
            Some(Slot::InFlight { done, .. }) => Claim::Wait(done.clone()),
            None => {
                memory.slots.insert(
                    Arc::from(key),
                    Slot::InFlight {
                        owner: owner.to_owned(),
                        done: Arc::new(Notify::new()),
                    },
                );
                Claim::Run
            }
        }
    }

    fn settle(&self, key: &str, owner: &str, processed: bool) {
        let Ok(mut memory) = self.state.lock() else {
            return;
        };
        let held =
            matches!(memory.slots.get(key), Some(Slot::InFlight { owner: o, .. }) if o == owner);
        if !held {
            return;
        }
        let previous = if processed {
            let at = Instant::now();
            // Taken out and put back rather than overwritten: `insert` would keep the map's old key
            // and the queue's copy would be a second allocation of it.
            let previous = memory.slots.remove_entry(key);
            let key = previous
                .as_ref()
                .map_or_else(|| Arc::from(key), |(k, _)| Arc::clone(k));
            memory.recorded.push_back((at, Arc::clone(&key)));
            memory.slots.insert(key, Slot::Done(at));
            previous.map(|(_, slot)| slot)
        } else {
            memory.slots.remove(key)
        };
        if let Some(Slot::InFlight { done, .. }) = previous {
            done.notify_waiters();
        }
    }

    /// How many keys the store holds (in flight and recorded).
    pub fn len(&self) -> usize {
        self.state.lock().map_or(0, |m| m.slots.len())
    }

    /// Whether the store holds no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl DedupeStore for MemoryDedupe {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(std::future::ready(Ok(self.claim_now(key, owner))))
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, true);
        Box::pin(std::future::ready(()))
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, false);
        Box::pin(std::future::ready(()))
    }
}

/// A store in Redis, shared by every instance of a vendor server. A claim is a lease:
/// `SET key inflight:<owner> NX PX <lease>`; the attempt holding it renews it every third of the
/// lease while its handler runs, and records (`done`, expiring after the window) or releases it with
/// a script that first checks the value is still its own, so an attempt whose lease ran out can
/// never erase another's record. A crashed instance's claim expires after the lease (a minute).
#[cfg(feature = "redis")]
#[derive(Clone)]
pub struct RedisDedupe {
    connection: redis::aio::ConnectionManager,
    prefix: String,
    lease: Duration,
}

/// `SET key done PX window` (complete) or `DEL key` (release), only if the key holds the caller's
/// claim; `PEXPIRE` (renew) likewise.
#[cfg(feature = "redis")]
const SETTLE_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == 'complete' then return redis.call('SET', KEYS[1], 'done', 'PX', ARGV[3]) and 1 end
if ARGV[2] == 'release' then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[3])
";

#[cfg(feature = "redis")]
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

/// A connection to Redis at `url` that fails within [`RedisDedupe::CONNECT_TIMEOUT`] when Redis
/// cannot be reached, times each command out after [`RedisDedupe::COMMAND_TIMEOUT`], and is
/// re-established in the background when Redis returns. The outbox's Redis store uses it too.
#[cfg(feature = "redis")]
pub(crate) async fn redis_connection(
    url: &str,
) -> Result<redis::aio::ConnectionManager, redis::RedisError> {
    let client = redis::Client::open(url)?;
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(RedisDedupe::CONNECT_TIMEOUT)
        .set_response_timeout(RedisDedupe::COMMAND_TIMEOUT)
        // Reconnection attempts 100 ms to 2 s apart: Redis is found again within seconds.
        .set_number_of_retries(2)
        .set_factor(100)
        .set_max_delay(2_000);
    let connecting = redis::aio::ConnectionManager::new_with_config(client, config);
    match tokio::time::timeout(RedisDedupe::CONNECT_TIMEOUT, connecting).await {
        Ok(connected) => connected,
        Err(_) => Err(redis::RedisError::from((
            redis::ErrorKind::IoError,
            "Redis did not answer within the connect timeout",
            format!("{} s", RedisDedupe::CONNECT_TIMEOUT.as_secs()),
        ))),
    }
}

#[cfg(feature = "redis")]
use crate::stores::store::redis_failed;

#[cfg(feature = "redis")]
impl DedupeStore for RedisDedupe {
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

/// The deduplication key of a delivery, or `None` for a payload that does not parse as its event
/// (the handler then reports the payload as invalid).
pub fn key_of(event: &str, install_id: &str, payload: &serde_json::Value) -> Option<String> {
    let content = match events::published_event(event) {
        Some(published) => (published.dedupe_key)(payload),
        // Reserved events have no payload contract: the whole payload is the content.
        None => Some(payload.to_string()),
    }?;
    Some(format!("{event}|{install_id}|{content}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::events::HostEvent;

    #[tokio::test]
    async fn a_recorded_key_is_held_once_by_the_map_and_the_queue() {
        let store = MemoryDedupe::new();
        assert!(matches!(store.claim("k", "a").await, Ok(Claim::Run)));
        store.complete("k", "a").await;
        let memory = store.state.lock().unwrap();
        let (in_map, _) = memory.slots.get_key_value("k").unwrap();
        let (_, in_queue) = memory.recorded.front().unwrap();
        assert!(Arc::ptr_eq(in_map, in_queue));
        assert_eq!(Arc::strong_count(in_map), 2);
    }

    #[tokio::test]
    async fn the_memory_store_keeps_the_store_contract() {
        let store = MemoryDedupe::new();
        assert_eq!(crate::testing::contract::dedupe_store(&store).await, Ok(()));
        // Every claim was settled: what is left is recorded, nothing is in flight.
        let memory = store.state.lock().unwrap();
        assert!(
            memory
                .slots
                .values()
                .all(|slot| matches!(slot, Slot::Done(_)))
        );
        assert_eq!(memory.recorded.len(), memory.slots.len());
    }

    #[tokio::test]
    async fn recorded_keys_are_forgotten_oldest_first_in_constant_time() {
        let store = MemoryDedupe::new();
        for i in 0..100_000 {
            let key = format!("k{i}");
            assert!(matches!(store.claim(&key, "a").await, Ok(Claim::Run)));
            store.complete(&key, "a").await;
        }
        assert_eq!(store.len(), 100_000);
        // Age every record past the window, then one claim clears them from the queue's front.
        {
            let mut memory = store.state.lock().unwrap();
            let old = Instant::now()
                .checked_sub(WINDOW + Duration::from_secs(1))
                .unwrap();
            let aged: Vec<(Instant, Arc<str>)> =
                memory.recorded.drain(..).map(|(_, k)| (old, k)).collect();
            for (at, key) in &aged {
                memory.slots.insert(key.clone(), Slot::Done(*at));
            }
            memory.recorded.extend(aged);
        }
        assert!(matches!(store.claim("k1", "b").await, Ok(Claim::Run)));
        assert_eq!(store.len(), 1, "only the new claim is left");
    }

    #[test]
    fn keys_follow_content_not_event_ids() {
        let payload = serde_json::to_value(events::ReleaseShipped::example()).unwrap();
        let a = key_of("release.shipped", "ins_1", &payload).unwrap();
        let mut later = payload.clone();
        later["shippedAt"] = "2026-11-02T15:00:00Z".into();
        assert_eq!(
            key_of("release.shipped", "ins_1", &later).unwrap(),
            a,
            "same releaseId, same key"
        );
        assert_ne!(
            key_of("release.shipped", "ins_2", &payload).unwrap(),
            a,
            "another install"
        );
        assert!(key_of("release.shipped", "ins_1", &serde_json::json!({})).is_none());
    }
}
