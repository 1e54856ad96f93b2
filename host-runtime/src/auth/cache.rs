//! Verified tokens, kept so that a token the host sends again costs a hash lookup instead of a
//! signature check and JSON parsing.
//!
//! Entries are keyed by the token's exact text and live until `exp` plus the leeway (never past the
//! moment the key set that verified them may no longer be relied on). The map holds at most the
//! configured number of entries: when it is full, expired entries go first, then the entry that
//! expires soonest. An entry goes when its key leaves the key set on a refresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::jwks::{KeySet, VerifyKey};
use crate::calls::call::Claims;

struct Entry {
    claims: Claims,
    /// Unix seconds, inclusive on both ends.
    valid_from: i64,
    valid_until: i64,
    key: Arc<VerifyKey>,
}

/// A bounded map from token text to verified claims.
pub(crate) struct TokenCache {
    capacity: usize,
    entries: Mutex<HashMap<Box<str>, Entry>>,
    /// Hashes of tokens verified once (admission: a token is cached from its second sighting).
    seen: Mutex<std::collections::HashSet<u64>>,
}

impl TokenCache {
    pub(crate) fn new(capacity: usize) -> TokenCache {
        TokenCache {
            capacity,
            entries: Mutex::default(),
            seen: Mutex::default(),
        }
    }

    /// Whether `token` was verified before (and remembers that it now was). The set of hashes is
    /// bounded: past four times the cache's capacity it starts over.
    pub(crate) fn seen_before(&self, token: &str) -> bool {
        use std::hash::{BuildHasher, RandomState};
        static HASHER: std::sync::OnceLock<RandomState> = std::sync::OnceLock::new();
        if self.capacity == 0 {
            return false;
        }
        let hash = HASHER.get_or_init(RandomState::new).hash_one(token);
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.contains(&hash) {
            return true;
        }
        if seen.len() >= self.capacity.saturating_mul(4) {
            seen.clear();
        }
        seen.insert(hash);
        false
    }

    /// The claims of `token`, if it was verified and is still within its validity at `now`.
    pub(crate) fn get(&self, token: &str, now: i64) -> Option<Claims> {
        if self.capacity == 0 {
            return None;
        }
        let mut entries = self.lock();
        let entry = entries.get(token)?;
        if now > entry.valid_until {
            entries.remove(token);
            return None;
        }
        (now >= entry.valid_from).then(|| entry.claims.clone())
    }

    /// Remembers a verified token, valid from `valid_from` to `valid_until` (unix seconds, inclusive).
    pub(crate) fn insert(
        &self,
        token: &str,
        claims: Claims,
        valid: (i64, i64),
        key: Arc<VerifyKey>,
        now: i64,
    ) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(token) {
            entries.retain(|_, e| e.valid_until >= now);
            if entries.len() >= self.capacity {
                // Make room for a tenth of the capacity at once, soonest-expiring first, so that a
                // full cache costs an amortised constant per insert and not a scan per call. Only the
                // expiry times are copied (no token text), so making room allocates one small vector.
                let room = (self.capacity / 10).max(1).min(entries.len());
                let mut expiries: Vec<i64> = entries.values().map(|e| e.valid_until).collect();
                let (_, cutoff, _) = expiries.select_nth_unstable(room - 1);
                let cutoff = *cutoff;
                // Everything expiring before the cutoff goes, then entries at the cutoff until
                // `room` are gone (ties are common: tokens are minted with the same lifetime).
                let below = expiries.iter().filter(|until| **until < cutoff).count();
                let mut at_cutoff = room - below;
                entries.retain(|_, e| {
                    if e.valid_until < cutoff {
                        false
                    } else if e.valid_until == cutoff && at_cutoff > 0 {
                        at_cutoff -= 1;
                        false
                    } else {
                        true
                    }
                });
            }
        }
        let (valid_from, valid_until) = valid;
        entries.insert(
            token.into(),
            Entry {
                claims,
                valid_from,
                valid_until,
                key,
            },
        );
    }

    /// Drops the entries whose key is not in `set`.
    pub(crate) fn retain_keys(&self, set: &KeySet) {
        let mut entries = self.lock();
        let before = entries.len();
        entries.retain(|_, e| set.contains(&e.key.id));
        if entries.len() < before {
            tracing::debug!(
                dropped = before - entries.len(),
                "cached install tokens of removed keys dropped"
            );
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
