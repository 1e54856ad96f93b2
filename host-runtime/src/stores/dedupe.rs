//! The deduplication store's side: the [`DedupeStore`] trait every backend implements, what a
//! claim answers ([`Claim`]), how long a key is remembered ([`WINDOW`]) and what the key is
//! ([`key_of`]). The backends are in their own rooms (`stores::memory`, `stores::redis`,
//! `stores::postgres`, `stores::dynamodb`); vendors reach all of it at `host_runtime::dedupe`.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use crate::calls::events;
use crate::platform::BoxFuture;
pub use crate::stores::store::{StoreError, StoreErrorKind};

/// How long a processed key is remembered: 20 minutes, above the interface's least
/// ([`EVENT_DEDUPE_WINDOW_MIN_SECS`](host_interface::limits::EVENT_DEDUPE_WINDOW_MIN_SECS), 15).
pub const WINDOW: Duration = Duration::from_secs(20 * 60);
const _: () = assert!(WINDOW.as_secs() >= host_interface::limits::EVENT_DEDUPE_WINDOW_MIN_SECS);

/// Where processed keys live. There is no default outside development mode
/// ([`crate::Handler::with_development_defaults`], which keeps them in memory): a single instance
/// may choose a [`MemoryDedupe`](crate::dedupe::MemoryDedupe); vendors running several instances share a
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
    /// The store's name in metrics and readiness reports (`memory`, `file`, `redis`, `postgres`,
    /// `dynamodb`, ...). The default: `custom`.
    fn name(&self) -> &'static str {
        "custom"
    }
    /// Whether the store answers and is ready for use, for a readiness probe (see
    /// `host_runtime::observe::Probes`). The default says it is: a store that cannot be asked
    /// without a side effect is taken at its word.
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(std::future::ready(Ok(())))
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
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).ready()
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

/// The deduplication key of a delivery, or `None` for a payload that does not parse as its event
/// (the handler then reports the payload as invalid).
pub fn key_of(event: &str, install_id: &str, payload: &serde_json::Value) -> Option<String> {
    let content = match events::published_event(event) {
        Some(published) => (published.dedupe_key)(payload),
        // Reserved events have no payload contract: the whole payload is the content.
        None => Some(events::content_key(event, payload)),
    }?;
    Some(format!("{event}|{install_id}|{content}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::events::HostEvent;

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
