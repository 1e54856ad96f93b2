//! Deduplication of host event deliveries (D8).
//!
//! The host retries a failed delivery with a new `X-Host-Event-Id` each attempt, so the id is no key.
//! The key is the event name, the install id and the payload's content key
//! ([`crate::HostEvent::dedupe_key`]). A key is recorded only after the handler
//! succeeded; while one delivery of a key is in flight, a concurrent duplicate waits for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::events::{self, HostEvent};

/// How long a processed key is remembered: at least 15 minutes (the host's retries span 12.5).
pub const WINDOW: Duration = Duration::from_secs(20 * 60);

/// Where processed keys live. The default is in memory; vendors running several instances need a
/// shared store.
pub trait DedupeStore: Send + Sync + 'static {
    /// Claims `key` for processing. `Claim::Done` means it was already processed; `Claim::Wait` that
    /// another delivery holds it (wait on the notifier, then claim again).
    fn claim(&self, key: &str) -> Claim;
    /// Records `key` as processed (the handler succeeded).
    fn complete(&self, key: &str);
    /// Releases `key` without recording it (the handler failed, so a retry must run it).
    fn release(&self, key: &str);
}

/// The answer to [`DedupeStore::claim`].
#[derive(Debug, Clone)]
pub enum Claim {
    /// Process it.
    Run,
    /// Already processed: answer 204 without calling the handler.
    Done,
    /// Being processed by a concurrent delivery: wait, then claim again.
    Wait(Arc<Notify>),
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
}

impl DedupeStore for MemoryStore {
    fn claim(&self, key: &str) -> Claim {
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

    fn complete(&self, key: &str) {
        if let Ok(mut slots) = self.slots.lock()
            && let Some(Slot::InFlight(n)) =
                slots.insert(key.to_owned(), Slot::Done(Instant::now()))
        {
            n.notify_waiters();
        }
    }

    fn release(&self, key: &str) {
        if let Ok(mut slots) = self.slots.lock()
            && let Some(Slot::InFlight(n)) = slots.remove(key)
        {
            n.notify_waiters();
        }
    }
}

/// The D8 key of a delivery, or `None` for a payload that does not parse as its event (the handler
/// then reports the payload as invalid).
pub fn key_of(event: &str, install_id: &str, payload: &serde_json::Value) -> Option<String> {
    fn key<P: HostEvent>(payload: &serde_json::Value) -> Option<String> {
        serde_json::from_value::<P>(payload.clone())
            .ok()
            .map(|p| p.dedupe_key())
    }
    let content = match event {
        "release.shipped" => key::<events::ReleaseShipped>(payload),
        "metadata.changed" => key::<events::MetadataChanged>(payload),
        "keyword.set_changed" => key::<events::KeywordSetChanged>(payload),
        "screenshots.updated" => key::<events::ScreenshotsUpdated>(payload),
        "price.changed" => key::<events::PriceChanged>(payload),
        "install.created" => key::<events::InstallCreated>(payload),
        "install.paused" => key::<events::InstallPaused>(payload),
        "install.resumed" => key::<events::InstallResumed>(payload),
        "install.revoked" => key::<events::InstallRevoked>(payload),
        "install.token_rotated" => key::<events::InstallTokenRotated>(payload),
        "scopes.changed" => key::<events::ScopesChanged>(payload),
        "settings.changed" => key::<events::SettingsChanged>(payload),
        // Reserved events have no payload contract: the whole payload is the content.
        _ => Some(payload.to_string()),
    }?;
    Some(format!("{event}|{install_id}|{content}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_recorded_only_after_success() {
        let store = MemoryStore::new();
        assert!(matches!(store.claim("k"), Claim::Run));
        assert!(matches!(store.claim("k"), Claim::Wait(_)));
        store.release("k");
        assert!(
            matches!(store.claim("k"), Claim::Run),
            "a failed attempt is retried"
        );
        store.complete("k");
        assert!(matches!(store.claim("k"), Claim::Done));
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
