//! Where the key set comes from and how fetched keys are cached.
//!
//! - Inline keys are used as given, forever.
//! - Fetched keys are fresh for their `Cache-Control: max-age` (clamped to 5 min..24 h). Stale keys are
//!   refreshed (in the background when they hold the token's key, see `Inner::key_for`); while a
//!   refresh fails the old keys keep serving, up to [`HARD_MAX_AGE`] after the last successful
//!   fetch, then nothing does (fail closed).
//! - Fetch attempts, whatever triggers them (cold start, stale keys, an unknown `kid`), are at least
//!   [`MIN_REFRESH_INTERVAL`] apart, and concurrent callers share one attempt: a flood of random `kid`s
//!   costs the host at most one fetch per 30 s.
//! - A copy of a URL's key set given to the process ([`preload`]) is where a new store for that URL
//!   starts: it verifies tokens without a fetch, fresh for [`PRELOADED_MAX_AGE`] from the store's
//!   creation. It is not a fetch attempt, so a token whose key it lacks is fetched for at once.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use serde_json::Value;

use super::Clock;
use super::fetch::{self, FetchError, Fetched};
use super::jwks::KeySet;

/// Fetched keys are never used longer than this after the last successful fetch (seconds).
pub(crate) const HARD_MAX_AGE: i64 = 24 * 60 * 60;
/// The least time between two fetch attempts (seconds).
pub(crate) const MIN_REFRESH_INTERVAL: i64 = 30;
/// How long a preloaded copy counts as fresh after a store starts from it (seconds): the shortest
/// time fetched keys are (the `max-age` floor).
pub(crate) const PRELOADED_MAX_AGE: i64 = fetch::MIN_MAX_AGE;

/// The key sets given to the process, by URL, parsed once.
static PRELOADED: OnceLock<RwLock<HashMap<String, Arc<KeySet>>>> = OnceLock::new();

/// Why a key set copy was not preloaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PreloadError {
    /// The URL is one no verifier fetches from.
    #[error(transparent)]
    Url(#[from] super::KeySetUrlError),
    /// The document is not a key set `{"keys": [...]}`.
    #[error("the key set copy is not a JSON object with a `keys` array")]
    NotAKeySet,
    /// No entry of the document is a key install tokens can be verified with.
    #[error(
        "the key set copy holds no usable key (RS256, PS256, ES256 or EdDSA, for signing); is it the host's key set?"
    )]
    NoUsableKey,
}

/// Keeps the usable keys of `document` as the copy of `url`'s key set that stores created from now on
/// start from (replacing an earlier copy). Returns how many keys are usable.
pub(crate) fn preload(url: &str, document: &Value) -> Result<usize, PreloadError> {
    super::check_key_set_url(url)?;
    let set = KeySet::from_document(document).map_err(|_| PreloadError::NotAKeySet)?;
    if set.len() == 0 {
        return Err(PreloadError::NoUsableKey);
    }
    let usable = set.len();
    PRELOADED
        .get_or_init(RwLock::default)
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(url.to_owned(), Arc::new(set));
    Ok(usable)
}

/// The copy of `url`'s key set given to the process, if any.
fn preloaded(url: &str) -> Option<Arc<KeySet>> {
    PRELOADED
        .get()?
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(url)
        .cloned()
}

/// The keys to verify with now, and until when they may be relied on (unix seconds).
pub(crate) struct Snapshot {
    pub(crate) set: Arc<KeySet>,
    pub(crate) usable_until: i64,
}

/// The key set of one verifier.
pub(crate) enum KeyStore {
    Inline(Arc<KeySet>),
    Remote(Remote),
}

/// A key set fetched from a URL.
pub(crate) struct Remote {
    url: String,
    timeout: Duration,
    /// `None` where the platform has no default client and none was given.
    client: Option<crate::platform::client::Client>,
    state: RwLock<State>,
    /// Held for the whole of a fetch: the single flight (on a server; on Workers, see
    /// [`KeyStore::refresh`]).
    turn: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    keys: Option<Arc<KeySet>>,
    fetched_at: i64,
    fresh_until: i64,
    last_attempt: Option<i64>,
    /// Completed attempts: a caller that saw this change while it waited for its turn does not fetch.
    attempts: u64,
    /// Whether the last attempt failed.
    last_failed: bool,
}

/// What a refresh did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refresh {
    /// The keys are as the host publishes them now (or are inline, never refreshed).
    Fresh,
    /// The last fetch failed: the keys may be missing one the host uses.
    Failed,
    /// A fetch was made less than [`MIN_REFRESH_INTERVAL`] ago; none was tried.
    HeldBack,
}

impl State {
    fn may_attempt(&self, now: i64) -> bool {
        // A clock that went backwards must not block refreshes until it catches up.
        self.last_attempt
            .is_none_or(|last| now < last || now - last >= MIN_REFRESH_INTERVAL)
    }
}

impl KeyStore {
    /// Keys given inline; a document of the wrong shape is an empty set (and every token fails closed).
    pub(crate) fn inline(document: &Value) -> KeyStore {
        let set = KeySet::from_document(document).unwrap_or_else(|why| {
            tracing::warn!(reason = why, "inline install token key set unusable");
            KeySet::default()
        });
        KeyStore::Inline(Arc::new(set))
    }

    /// Keys fetched from `url`, each fetch bounded by `timeout`; starting at `now` from the copy of
    /// `url`'s key set given to the process, if there is one.
    pub(crate) fn remote(
        url: String,
        timeout: Duration,
        client: Option<crate::platform::client::Client>,
        now: i64,
    ) -> KeyStore {
        // Held like keys fetched at `now`, but with no attempt recorded: nothing holds back the
        // fetch a token signed with a key the copy lacks asks for.
        let state = match preloaded(&url) {
            Some(set) => State {
                keys: Some(set),
                fetched_at: now,
                fresh_until: now.saturating_add(PRELOADED_MAX_AGE),
                ..State::default()
            },
            None => State::default(),
        };
        KeyStore::Remote(Remote {
            url,
            timeout,
            client,
            state: RwLock::new(state),
            turn: tokio::sync::Mutex::new(()),
        })
    }

    /// The keys usable at `now`: inline keys, or fetched keys younger than [`HARD_MAX_AGE`].
    pub(crate) fn snapshot(&self, now: i64) -> Option<Snapshot> {
        match self {
            KeyStore::Inline(set) => Some(Snapshot {
                set: Arc::clone(set),
                usable_until: i64::MAX,
            }),
            KeyStore::Remote(remote) => {
                let state = remote.read();
                let usable_until = state.fetched_at.saturating_add(HARD_MAX_AGE);
                let set = state.keys.as_ref().filter(|_| now < usable_until)?;
                Some(Snapshot {
                    set: Arc::clone(set),
                    usable_until,
                })
            }
        }
    }

    /// Whether a refresh is due before verifying: no fetched keys yet, or they are past `max-age`.
    pub(crate) fn is_stale(&self, now: i64) -> bool {
        match self {
            KeyStore::Inline(_) => false,
            KeyStore::Remote(remote) => {
                let state = remote.read();
                state.keys.is_none() || now >= state.fresh_until
            }
        }
    }

    /// Whether refreshing can change anything (false for inline keys).
    pub(crate) fn is_remote(&self) -> bool {
        matches!(self, KeyStore::Remote(_))
    }

    /// Refreshes fetched keys, unless an attempt was made less than [`MIN_REFRESH_INTERVAL`] ago or
    /// completed while this caller waited for its turn. `on_new` sees a newly fetched set. Says
    /// whether the keys are now fresh from the host (this caller's fetch or the one it waited for).
    pub(crate) async fn refresh(&self, clock: &Clock, on_new: impl FnOnce(&KeySet)) -> Refresh {
        let KeyStore::Remote(remote) = self else {
            return Refresh::Fresh;
        };
        let seen = {
            let state = remote.read();
            if !state.may_attempt(clock()) {
                return Refresh::HeldBack;
            }
            state.attempts
        };
        // On Workers a request may not wait on another request's I/O: workerd cancels a request
        // whose only pending work is in another's context ("the Worker's code had hung"). There
        // the first requests of a fresh isolate each fetch rather than share one fetch.
        #[cfg(not(target_arch = "wasm32"))]
        let _turn = remote.turn.lock().await;
        #[cfg(target_arch = "wasm32")]
        let _turn = remote.turn.try_lock().ok();
        {
            let state = remote.read();
            if state.attempts != seen {
                return if state.last_failed {
                    Refresh::Failed
                } else {
                    Refresh::Fresh
                };
            }
            if !state.may_attempt(clock()) {
                return Refresh::HeldBack;
            }
        }
        let outcome = remote.fetch().await;
        let parsed = outcome
            .and_then(|f| {
                let set = KeySet::from_document(&f.document).map_err(FetchError::NotAKeySet)?;
                Ok((set, f.max_age))
            })
            .and_then(|(set, max_age)| {
                // A set without one usable key is a broken publication, not a revocation of every
                // key: the last good keys keep serving (within their 24 h).
                if set.len() == 0 && remote.read().keys.as_ref().is_some_and(|k| k.len() > 0) {
                    Err(FetchError::NoUsableKey)
                } else {
                    Ok((set, max_age))
                }
            });
        let now = clock();
        let mut state = remote.state.write().unwrap_or_else(PoisonError::into_inner);
        state.attempts += 1;
        state.last_attempt = Some(now);
        match parsed {
            Ok((set, max_age)) => {
                tracing::debug!(keys = set.len(), max_age, "install token key set fetched");
                let set = Arc::new(set);
                state.keys = Some(Arc::clone(&set));
                state.fetched_at = now;
                state.fresh_until = now.saturating_add(max_age);
                state.last_failed = false;
                drop(state);
                on_new(&set);
                Refresh::Fresh
            }
            Err(reason) => {
                let cached = state.keys.as_ref().map_or(0, |k| k.len());
                state.last_failed = true;
                tracing::warn!(reason = %crate::calls::error::Chain(&reason), cached, "install token key set fetch failed");
                Refresh::Failed
            }
        }
    }
}

impl Remote {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    async fn fetch(&self) -> Result<Fetched, FetchError> {
        let Some(client) = &self.client else {
            return Err(FetchError::NoClient);
        };
        fetch::fetch(client, &self.url, self.timeout).await
    }
}
