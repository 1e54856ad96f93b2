//! Deduplication of host event deliveries.
//!
//! The host retries a failed delivery with a new `X-Host-Event-Id` each attempt, so the id is no key.
//! The key is the event name, the install id and the payload's content key
//! ([`crate::HostEvent::dedupe_key`]). A key is recorded only after the handler
//! succeeded; while one delivery of a key is in flight, a concurrent duplicate waits for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::BoxFuture;
use crate::events;

/// How long a processed key is remembered: at least 15 minutes (the host's retries span 12.5).
pub const WINDOW: Duration = Duration::from_secs(20 * 60);

/// Where processed keys live. The default is in memory; vendors running several instances share a
/// `RedisStore` (feature `redis`).
pub trait DedupeStore: Send + Sync + 'static {
    /// Claims `key` for processing.
    fn claim<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Claim, String>>;
    /// Records `key` as processed (the handler succeeded).
    fn complete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, ()>;
    /// Releases `key` without recording it (the handler failed, so a retry must run it).
    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, ()>;
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
    InFlight(Arc<Notify>),
    Done(Instant),
}

/// The default store: a map in this process.
#[derive(Default)]
pub struct MemoryStore {
    slots: Mutex<HashMap<String, Slot>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn claim_now(&self, key: &str) -> Claim {
        let Ok(mut slots) = self.slots.lock() else {
            return Claim::Run;
        };
        let now = Instant::now();
        // Forget what is older than the window, a little at a time.
        if slots.len() > 1024 {
            slots.retain(|_, s| !matches!(s, Slot::Done(at) if now.duration_since(*at) > WINDOW));
        }
        match slots.get(key) {
            Some(Slot::Done(at)) if now.duration_since(*at) <= WINDOW => Claim::Done,
            Some(Slot::InFlight(n)) => Claim::Wait(n.clone()),
            _ => {
                slots.insert(key.to_owned(), Slot::InFlight(Arc::new(Notify::new())));
                Claim::Run
            }
        }
    }

    fn settle(&self, key: &str, done: bool) {
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        let previous = if done {
            slots.insert(key.to_owned(), Slot::Done(Instant::now()))
        } else {
            slots.remove(key)
        };
        if let Some(Slot::InFlight(n)) = previous {
            n.notify_waiters();
        }
    }
}

impl DedupeStore for MemoryStore {
    fn claim<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Claim, String>> {
        Box::pin(std::future::ready(Ok(self.claim_now(key))))
    }

    fn complete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, true);
        Box::pin(std::future::ready(()))
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, false);
        Box::pin(std::future::ready(()))
    }
}

/// A store in Redis, shared by every instance of a vendor server: `SET key inflight NX` claims, a
/// `done` value with the window as expiry records, `DEL` releases. An in-flight claim expires after a
/// minute, so a crashed instance cannot hold a key for ever.
#[cfg(feature = "redis")]
#[derive(Clone)]
pub struct RedisStore {
    connection: redis::aio::ConnectionManager,
    prefix: String,
}

#[cfg(feature = "redis")]
impl RedisStore {
    /// Connects to `url` (`redis://host:port/db`); keys are prefixed with `host-events:`.
    ///
    /// Fails within [`Self::CONNECT_TIMEOUT`] when Redis cannot be reached, instead of retrying for
    /// minutes. Once connected, each command times out after [`Self::COMMAND_TIMEOUT`] and the
    /// connection is re-established in the background when Redis returns (a delivery meanwhile is
    /// answered `503 DEDUPE_UNAVAILABLE`, which the host retries).
    pub async fn connect(url: &str) -> Result<Self, redis::RedisError> {
        let client = redis::Client::open(url)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Self::CONNECT_TIMEOUT)
            .set_response_timeout(Self::COMMAND_TIMEOUT)
            // Reconnection attempts 100 ms to 2 s apart: Redis is found again within seconds.
            .set_number_of_retries(2)
            .set_factor(100)
            .set_max_delay(2_000);
        let connecting = redis::aio::ConnectionManager::new_with_config(client, config);
        let connection = match tokio::time::timeout(Self::CONNECT_TIMEOUT, connecting).await {
            Ok(connected) => connected?,
            Err(_) => {
                return Err(redis::RedisError::from((
                    redis::ErrorKind::IoError,
                    "Redis did not answer within the connect timeout",
                    format!("{} s", Self::CONNECT_TIMEOUT.as_secs()),
                )));
            }
        };
        Ok(RedisStore {
            connection,
            prefix: "host-events:".to_owned(),
        })
    }

    /// How long [`connect`](Self::connect) may take.
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
    /// How long one Redis command may take.
    pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(2);

    /// Uses another key prefix (to share one Redis between extensions).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    const IN_FLIGHT_MS: u64 = 60_000;
}

#[cfg(feature = "redis")]
impl DedupeStore for RedisStore {
    fn claim<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Claim, String>> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let key = format!("{}{key}", self.prefix);
            let set: Option<String> = redis::cmd("SET")
                .arg(&key)
                .arg("inflight")
                .arg("NX")
                .arg("PX")
                .arg(Self::IN_FLIGHT_MS)
                .query_async(&mut c)
                .await
                .map_err(|e| e.to_string())?;
            if set.is_some() {
                return Ok(Claim::Run);
            }
            let value: Option<String> = redis::cmd("GET")
                .arg(&key)
                .query_async(&mut c)
                .await
                .map_err(|e| e.to_string())?;
            Ok(match value.as_deref() {
                Some("done") => Claim::Done,
                _ => Claim::Busy,
            })
        })
    }

    fn complete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let key = format!("{}{key}", self.prefix);
            let window = WINDOW.as_millis() as u64;
            let done: Result<(), _> = redis::cmd("SET")
                .arg(&key)
                .arg("done")
                .arg("PX")
                .arg(window)
                .query_async(&mut c)
                .await;
            if let Err(e) = done {
                tracing::warn!(error = %e, "could not record a processed event in Redis");
            }
        })
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let key = format!("{}{key}", self.prefix);
            let released: Result<(), _> = redis::cmd("DEL").arg(&key).query_async(&mut c).await;
            if let Err(e) = released {
                tracing::warn!(error = %e, "could not release an event key in Redis");
            }
        })
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
    use crate::events::HostEvent;

    #[tokio::test]
    async fn a_key_is_recorded_only_after_success() {
        let store = MemoryStore::new();
        assert!(matches!(store.claim("k").await, Ok(Claim::Run)));
        assert!(matches!(store.claim("k").await, Ok(Claim::Wait(_))));
        store.release("k").await;
        assert!(
            matches!(store.claim("k").await, Ok(Claim::Run)),
            "a failed attempt is retried"
        );
        store.complete("k").await;
        assert!(matches!(store.claim("k").await, Ok(Claim::Done)));
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
