//! Install token verification: every host-to-vendor call except health carries
//! `Authorization: Bearer <JWT>`, signed by a key of the host's key set (JWKS). A [`Verifier`] checks
//! it and yields the [`Claims`] handlers receive; a refusal is an [`AuthError`], answered to the host as
//! `UNAUTHORIZED` (401).
//!
//! A token goes through these steps, each in its own file:
//!
//! 1. `token.rs`: size (8 KiB), three base64url segments, a JSON header with an accepted `alg`
//!    (`RS256`, `PS256`, `ES256`, `EdDSA`; `none` and `HS*` never reach a key) and a bounded `kid`;
//! 2. `keys.rs`, `fetch.rs`, `jwks.rs`: the key for the token, from inline keys or the fetched and
//!    cached key set; the algorithm is fixed by the key and must equal the header's;
//! 3. `jwks.rs`: the signature, with the key decoded when the key set was read (`ring` for RS256,
//!    PS256 and ES256, `ed25519-dalek` for EdDSA); RSA keys under 2,048 bits are never used;
//! 4. `claims.rs`: the claim checks, strictly typed, with the leeway;
//! 5. `cache.rs`: the verified token is remembered until it expires, so the host sending it again costs
//!    a lookup.
//!
//! Tokens and keys are never logged; refusals and refreshes are logged at debug level with a reason
//! (a failed key set fetch at warn level: it makes every call fail once the cached keys run out).
//! Binding the token to the body's `install` (`INSTALL_MISMATCH`) is the handler's job, not this
//! module's.
//!
//! # Choices the interface leaves open
//!
//! - Time windows are inclusive: a token is valid while `nbf - leeway <= now <= exp + leeway`
//!   (with the default 60 s, `exp = now - 60` passes and `now - 61` fails). `iat` must be an integer
//!   but is not compared with the clock.
//! - `projectId` must be present (a string, or `null` on an organization install); `scopes` may be
//!   absent (no scopes); `jti` and `nbf`, when present, must have their type (`null` is refused).
//! - `alg` is compared case-sensitively (`rs256` is refused). A header with `crit` is refused (no
//!   extension is implemented). A `kid` holding control characters is refused like an over-long one,
//!   without a key set refresh.
//! - Key set entries with `use` other than `sig`, an `alg` that contradicts their type, or key material
//!   of the wrong size are ignored. A token without `kid` is tried only when the set holds exactly one
//!   key of its algorithm.
//! - Every fetch attempt (cold start, stale keys, unknown `kid`, an empty set) is at least 30 s after
//!   the previous one, failed or not: after a failed cold start, tokens fail closed for up to 30 s. A
//!   fetched set with no usable key counts as a failed fetch when keys are held (a broken
//!   publication, not a revocation): the last good keys keep serving within their 24 h. Only a
//!   first fetch with no usable key leaves the verifier without keys.
//! - The key set URL must be https (plain http for a loopback host only); another is never fetched.
//! - A copy of the key set given with [`preload_key_set`] is used like keys fetched when the verifier
//!   was created, fresh for 5 min, except that it is no fetch attempt: a `kid` it lacks is fetched for
//!   at once.
//! - `Cache-Control: no-cache`/`no-store` count as no `max-age` (5 min). The key set document is read
//!   up to 1 MiB.
//! - A cached verified token is never served past the moment the keys that verified it expire (24 h
//!   after their fetch), nor once a refresh drops its key (same `kid` with new material included).

mod cache;
mod claims;
mod error;
pub(crate) mod fetch;
pub(crate) mod jwks;
pub(crate) mod keys;
pub(crate) mod token;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use self::cache::TokenCache;
pub use self::error::AuthError;
use self::jwks::VerifyKey;
pub use self::keys::PreloadError;
use self::keys::{KeyStore, Refresh, Snapshot};
use self::token::TokenHeader;
use crate::calls::call::Claims;

/// The issuer install tokens carry unless configured otherwise.
pub const DEFAULT_ISSUER: &str = "https://auth.host.example";
/// Where the host publishes its key set unless configured otherwise.
pub const DEFAULT_JWKS_URL: &str = "https://auth.host.example/.well-known/jwks.json";
/// Checks a key set URL before anything is fetched from it: it must parse, name a host, and use
/// `https`, or plain `http` only for a loopback host (`localhost`, `127.0.0.0/8`, `::1`), as the
/// local host and tests serve. A key set fetched over plain HTTP could be replaced on the way, and
/// with it every install token. The error names the URL and what is wrong.
///
/// ```
/// use host_runtime::auth::check_key_set_url;
/// assert!(check_key_set_url("https://auth.host.example/.well-known/jwks.json").is_ok());
/// assert!(check_key_set_url("http://127.0.0.1:8788/.well-known/jwks.json").is_ok());
/// assert!(check_key_set_url("http://auth.host.example/jwks.json").is_err());
/// assert!(check_key_set_url("ftp://auth.host.example/jwks.json").is_err());
/// assert!(check_key_set_url("auth.host.example/jwks.json").is_err());
/// ```
pub fn check_key_set_url(key_set_url: &str) -> Result<(), KeySetUrlError> {
    let refused = |problem| KeySetUrlError {
        url: key_set_url.to_owned(),
        problem,
    };
    // `http::Uri` rather than a WHATWG URL parser: it is already linked, and it is stricter (no
    // IPv4 shorthand such as `127.1`, no backslashes or whitespace), so what it reads as a loopback
    // host, any fetcher does too; what it cannot read is refused.
    let parsed: http::Uri = key_set_url
        .parse()
        .map_err(|e: http::uri::InvalidUri| refused(UrlProblem::NotAUrl(e.to_string())))?;
    let Some(host) = parsed.host().filter(|h| !h.is_empty()) else {
        return Err(refused(UrlProblem::NoHost));
    };
    let after_host = parsed
        .authority()
        .and_then(|a| a.as_str().rsplit_once(host))
        .map_or("", |(_, port)| port);
    if !after_host.is_empty() && parsed.port_u16().is_none() {
        return Err(refused(UrlProblem::BadPort));
    }
    let loopback = loopback_host(host);
    match parsed.scheme_str().map(str::to_ascii_lowercase).as_deref() {
        Some("https") => Ok(()),
        Some("http") if loopback => Ok(()),
        Some("http") => Err(refused(UrlProblem::PlainHttp)),
        Some(other) => Err(refused(UrlProblem::Scheme(other.to_owned()))),
        None => Err(refused(UrlProblem::NoScheme)),
    }
}

/// Whether `host` (as a URL writes it) is this machine: `localhost`, `127.0.0.0/8` or `[::1]`.
fn loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            Some(v6) => v6
                .parse::<std::net::Ipv6Addr>()
                .is_ok_and(|ip| ip.is_loopback()),
            None => host
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback()),
        }
}

/// Whether `url` names a host on this machine (`localhost`, `127.0.0.0/8`, `[::1]`: the local host
/// `cargo host dev` runs, a test's) rather than a deployed one. A URL that cannot be read is not.
///
/// ```
/// use host_runtime::auth::on_this_machine;
/// assert!(on_this_machine("http://127.0.0.1:8788/.well-known/jwks.json"));
/// assert!(!on_this_machine("https://auth.host.example/.well-known/jwks.json"));
/// ```
pub fn on_this_machine(url: &str) -> bool {
    url.parse::<http::Uri>()
        .ok()
        .and_then(|u| u.host().map(loopback_host))
        .unwrap_or(false)
}

/// Gives the process a copy of the key set at `key_set_url` (a JWKS document, `{"keys": [...]}`), so
/// that verifiers fetching from that URL start with its keys instead of fetching them on their first
/// call. Every verifier created afterwards for exactly this URL (a [`Handler`](crate::Handler) makes
/// one in each builder call, so call this before building it) starts from the copy; an earlier copy
/// is replaced. Returns how many of its keys are usable.
///
/// For platforms where each new process pays the fetch on its first call: a Cloudflare Workers isolate
/// keeps nothing from the isolates before it, so its first call would wait for the key set (a
/// round trip to the host) before verifying anything. There, keep the document in a setting
/// (`HOST_JWKS` in the Workers example) and preload it when the handler is built.
///
/// What stays as with a fetched key set:
///
/// - A token whose `kid` is not in the copy makes the verifier fetch the key set at once. The copy is
///   not a fetch attempt, so the 30 s between attempts does not hold this one back: a key the host
///   rotated in after the copy was taken is picked up on the first call signed with it.
/// - The copy counts as fresh for 5 minutes (the shortest `max-age` a fetched set gets) from the
///   verifier's creation; then it is refreshed from the URL like fetched keys, and the fetched set
///   replaces it.
/// - Signatures and claims are checked exactly as with fetched keys.
///
/// What a copy cannot know is that the host withdrew a key: until its first refresh, a verifier
/// accepts tokens signed by any key of the copy. Take the copy from the host's key set URL and
/// replace it when the host's keys change, or preload nothing where a withdrawn key must stop
/// verifying in a new process at once.
///
/// Refused, with nothing kept: a URL [`check_key_set_url`] refuses, a document that is not a key set,
/// and one without a usable key.
///
/// ```
/// use host_runtime::auth::preload_key_set;
/// let copy = serde_json::json!({ "keys": [{
///     "kty": "OKP", "crv": "Ed25519", "kid": "host-1",
///     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
/// }] });
/// let url = "https://auth.host.example/.well-known/jwks.json";
/// assert_eq!(preload_key_set(url, &copy), Ok(1));
/// assert!(preload_key_set(url, &serde_json::json!({ "keys": [] })).is_err());
/// ```
pub fn preload_key_set(key_set_url: &str, document: &Value) -> Result<usize, PreloadError> {
    keys::preload(key_set_url, document)
}

/// Why [`check_key_set_url`] refused a key set URL: the URL and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the key set URL `{url}` {problem}")]
pub struct KeySetUrlError {
    url: String,
    problem: UrlProblem,
}

impl KeySetUrlError {
    /// The refused URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What is wrong with it.
    pub fn problem(&self) -> &UrlProblem {
        &self.problem
    }
}

/// What is wrong with a refused key set URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlProblem {
    /// It does not parse as a URL (the parser's reason).
    #[error("is not a URL ({0})")]
    NotAUrl(String),
    /// It has no host.
    #[error("names no host")]
    NoHost,
    /// Its port is not a number from 0 to 65535.
    #[error("is not a URL (its port is not a number from 0 to 65535)")]
    BadPort,
    /// It is plain http to a host that is not loopback.
    #[error(
        "is plain http; install tokens are only trusted from a key set fetched over https (http is allowed for loopback hosts only)"
    )]
    PlainHttp,
    /// Its scheme is neither https nor http.
    #[error("uses `{0}:`; it must be https")]
    Scheme(String),
    /// It has no scheme.
    #[error("is not a URL (it has no scheme)")]
    NoScheme,
}

/// Clock skew allowed on `exp` and `nbf`.
pub const LEEWAY: Duration = Duration::from_secs(host_interface::limits::TOKEN_LEEWAY_SECS);
/// How many verified tokens are remembered by default.
pub const DEFAULT_TOKEN_CACHE: usize = 10_000;
/// How long one key set fetch may take by default.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the host's signing keys come from.
#[derive(Clone, Debug, PartialEq)]
pub enum KeySource {
    /// A JWKS URL, fetched and cached.
    Url(String),
    /// A JWKS document (`{"keys": [...]}`), used as given.
    Inline(Value),
}

/// What a [`Verifier`] checks tokens against.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// The extension id; `aud` must be, or contain, it.
    pub extension_id: String,
    /// The expected `iss` (default [`DEFAULT_ISSUER`]).
    pub issuer: String,
    /// The key set (default [`DEFAULT_JWKS_URL`]).
    pub keys: KeySource,
    /// Clock skew allowed on `exp` and `nbf` (default [`LEEWAY`]); whole seconds count.
    pub leeway: Duration,
    /// How many verified tokens to remember (default [`DEFAULT_TOKEN_CACHE`]; 0 remembers none).
    pub token_cache: usize,
    /// How long one key set fetch may take (default [`DEFAULT_FETCH_TIMEOUT`]).
    pub fetch_timeout: Duration,
    /// What fetches the key set (default: the platform's, hyper's client natively).
    pub http_client: Option<crate::platform::client::Client>,
}

impl VerifyOptions {
    /// The defaults for the extension `extension_id`.
    pub fn new(extension_id: impl Into<String>) -> Self {
        VerifyOptions {
            extension_id: extension_id.into(),
            issuer: DEFAULT_ISSUER.to_owned(),
            keys: KeySource::Url(DEFAULT_JWKS_URL.to_owned()),
            leeway: LEEWAY,
            token_cache: DEFAULT_TOKEN_CACHE,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            http_client: crate::platform::client::Client::platform_default(),
        }
    }

    /// Sets what fetches the key set.
    pub fn with_http_client(mut self, client: crate::platform::client::Client) -> Self {
        self.http_client = Some(client);
        self
    }

    /// Sets where the keys come from.
    pub fn with_keys(mut self, keys: KeySource) -> Self {
        self.keys = keys;
        self
    }

    /// Sets the expected issuer.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = issuer.into();
        self
    }

    /// Sets the clock skew allowed on `exp` and `nbf`.
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets how many verified tokens to remember (0 turns the cache off).
    pub fn with_token_cache(mut self, entries: usize) -> Self {
        self.token_cache = entries;
        self
    }

    /// Sets how long one key set fetch may take.
    pub fn with_fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }
}

/// Unix seconds now; injectable so tests can stand on a leeway boundary.
pub(crate) type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

/// Verifies install tokens. Cheap to clone: clones share the key set and the verified-token cache, so
/// build one per extension and keep it.
///
/// ```no_run
/// # async fn f(header: Option<&http::HeaderValue>) -> Result<(), host_runtime::HostError> {
/// use host_runtime::auth::{Verifier, VerifyOptions};
/// let verifier = Verifier::new(VerifyOptions::new("keyword-tracker"));
/// let claims = verifier.verify_authorization(header).await.map_err(|e| e.to_host_error())?;
/// println!("call for install {}", claims.sub);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Verifier {
    inner: Arc<Inner>,
}

struct Inner {
    options: VerifyOptions,
    /// A background refresh of stale keys is under way.
    refreshing: std::sync::atomic::AtomicBool,
    /// `options.leeway` in whole seconds.
    leeway: i64,
    keys: KeyStore,
    tokens: TokenCache,
    clock: Clock,
}

impl Verifier {
    /// A verifier for `options`. Nothing is fetched until the first token arrives.
    pub fn new(options: VerifyOptions) -> Verifier {
        Verifier::with_clock(options, Arc::new(system_now))
    }

    /// A verifier reading the time from `clock` (unix seconds).
    pub(crate) fn with_clock(options: VerifyOptions, clock: Clock) -> Verifier {
        let keys = match &options.keys {
            KeySource::Url(url) => KeyStore::remote(
                url.clone(),
                options.fetch_timeout,
                options.http_client.clone(),
                clock(),
            ),
            KeySource::Inline(document) => KeyStore::inline(document),
        };
        let inner = Inner {
            refreshing: std::sync::atomic::AtomicBool::new(false),
            leeway: i64::try_from(options.leeway.as_secs()).unwrap_or(i64::MAX),
            tokens: TokenCache::new(options.token_cache),
            keys,
            clock,
            options,
        };
        Verifier {
            inner: Arc::new(inner),
        }
    }

    /// Verifies a raw JWT and returns its claims.
    pub async fn verify(&self, token: &str) -> Result<Claims, AuthError> {
        let result = self.inner.verify(token).await;
        if let Err(e) = &result {
            tracing::debug!(reason = %e, "host call unauthorized");
        }
        result
    }

    /// Verifies the value of an `Authorization: Bearer <JWT>` header (`None`: the header is missing).
    pub async fn verify_authorization(
        &self,
        header: Option<&http::HeaderValue>,
    ) -> Result<Claims, AuthError> {
        match bearer_token(header) {
            Ok(token) => self.verify(token).await,
            Err(e) => {
                tracing::debug!(reason = %e, "host call unauthorized");
                Err(e)
            }
        }
    }

    /// For each algorithm of the keys held now, a token naming one of them whose signature
    /// cannot verify; none when no keys are held or they are due a refresh, since checking a
    /// token then fetches the key set. Checking one does no I/O and remembers nothing: see
    /// [`Handler::warm`](crate::Handler::warm).
    pub(crate) fn unverifiable_tokens(&self) -> Vec<String> {
        let now = self.inner.now();
        if self.inner.keys.is_stale(now) {
            return Vec::new();
        }
        self.inner
            .keys
            .snapshot(now)
            .map_or_else(Vec::new, |snapshot| {
                let keys = snapshot.set.one_per_algorithm();
                keys.iter().map(|key| key.unverifiable_token()).collect()
            })
    }

    #[cfg(test)]
    pub(crate) fn cached_tokens(&self) -> usize {
        self.inner.tokens.len()
    }

    /// Waits until no background refresh is running (at most 5 s).
    #[cfg(test)]
    pub(crate) async fn settled(&self) {
        for _ in 0..500 {
            if !self
                .inner
                .refreshing
                .load(std::sync::atomic::Ordering::Acquire)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = &self.inner.options;
        f.debug_struct("Verifier")
            .field("extension_id", &o.extension_id)
            .field("issuer", &o.issuer)
            .field("remote_keys", &self.inner.keys.is_remote())
            .finish_non_exhaustive()
    }
}

/// Verifies `token` with a one-off [`Verifier`], for use outside the handler. Each call starts with an
/// empty cache, so with [`KeySource::Url`] each call fetches the key set: keep a [`Verifier`] instead
/// when verifying more than once.
pub async fn verify_host_token(token: &str, options: VerifyOptions) -> Result<Claims, AuthError> {
    Verifier::new(options).verify(token).await
}

impl Inner {
    async fn verify(self: &Arc<Self>, token: &str) -> Result<Claims, AuthError> {
        token::check_size(token)?;
        if let Some(claims) = self.tokens.get(token, self.now()) {
            return Ok(claims);
        }
        let (header, segments) = token::parse_header(token)?;
        let (snapshot, key) = self.key_for(&header).await?;
        let payload = check_signature(&segments, &key)?;
        let now = self.now();
        let claims = claims::check(&payload, &self.expected(now))?;
        self.remember(token, &claims, &snapshot, key, now);
        Ok(claims)
    }

    /// The key for `header`. Stale keys that hold it keep serving while they are refreshed in the
    /// background, so a slow or hanging key set holds no call up; without it (no keys yet, or a key
    /// they lack) the refresh is awaited, and made once more (rate-limited, shared) when no key
    /// matches.
    async fn key_for(
        self: &Arc<Self>,
        header: &TokenHeader,
    ) -> Result<(Snapshot, Arc<VerifyKey>), AuthError> {
        let mut fresh = false;
        if self.keys.is_stale(self.now()) {
            let cached = self.lookup(header);
            if cached.is_ok() && self.refresh_in_background() {
                return cached;
            }
            fresh = self.refresh().await == Refresh::Fresh;
        }
        match self.lookup(header) {
            Err(AuthError::UnknownKey | AuthError::NoKeys) if self.keys.is_remote() && !fresh => {
                let refreshed = self.refresh().await;
                match self.lookup(header) {
                    // Definitive only against keys fetched just now. Otherwise the host may use a
                    // key this server could not learn yet: the key set is unreachable, or it was
                    // fetched moments ago and the host has rotated its keys since.
                    Err(AuthError::UnknownKey | AuthError::NoKeys)
                        if refreshed != Refresh::Fresh =>
                    {
                        Err(AuthError::KeysUnavailable)
                    }
                    found => found,
                }
            }
            found => found,
        }
    }

    fn lookup(&self, header: &TokenHeader) -> Result<(Snapshot, Arc<VerifyKey>), AuthError> {
        let snapshot = self.keys.snapshot(self.now()).ok_or(AuthError::NoKeys)?;
        let key = snapshot.set.find(header.alg, header.kid.as_deref())?;
        Ok((snapshot, key))
    }

    /// Starts a refresh in a task of its own, unless one is running; `false` when there is no
    /// runtime to run it on (the caller refreshes itself).
    fn refresh_in_background(self: &Arc<Self>) -> bool {
        use std::sync::atomic::Ordering;
        if self.refreshing.swap(true, Ordering::AcqRel) {
            return true;
        }
        let inner = Arc::clone(self);
        let started = crate::platform::rt::spawn(async move {
            let _ = inner.refresh().await;
            inner.refreshing.store(false, Ordering::Release);
        });
        if !started {
            self.refreshing.store(false, Ordering::Release);
        }
        started
    }

    async fn refresh(&self) -> Refresh {
        self.keys
            .refresh(&self.clock, |set| self.tokens.retain_keys(set))
            .await
    }

    fn remember(
        &self,
        token: &str,
        claims: &Claims,
        keys: &Snapshot,
        key: Arc<VerifyKey>,
        now: i64,
    ) {
        let valid_from = claims
            .nbf
            .map_or(i64::MIN, |nbf| nbf.saturating_sub(self.leeway));
        let valid_until = claims
            .exp
            .saturating_add(self.leeway)
            .min(keys.usable_until.saturating_sub(1));
        // A token is remembered from its second sighting on: the host reuses an install's token for
        // many calls, while one seen once would only cost memory and an insert.
        if self.tokens.seen_before(token) {
            self.tokens
                .insert(token, claims.clone(), (valid_from, valid_until), key, now);
        }
    }

    fn expected(&self, now: i64) -> claims::Expected<'_> {
        claims::Expected {
            issuer: &self.options.issuer,
            extension_id: &self.options.extension_id,
            leeway: self.leeway,
            now,
        }
    }

    fn now(&self) -> i64 {
        (self.clock)()
    }
}

/// Checks the signature with the key's own algorithm, then decodes the payload (never before: an
/// unverified payload is not parsed).
///
/// The key was decoded once, when the key set was read (`jwks.rs`); the header was parsed once, by
/// `token::parse_header`; the payload is parsed once, here.
fn check_signature(segments: &token::Segments<'_>, key: &VerifyKey) -> Result<Value, AuthError> {
    let signature = URL_SAFE_NO_PAD
        .decode(segments.signature)
        .map_err(|_| AuthError::Malformed("the token signature is not base64url"))?;
    if !key.verify(segments.signing_input.as_bytes(), &signature) {
        return Err(AuthError::BadSignature);
    }
    let payload = URL_SAFE_NO_PAD
        .decode(segments.payload)
        .map_err(|_| AuthError::Malformed("the token payload is not base64url"))?;
    match serde_json::from_slice::<Value>(&payload) {
        Ok(payload @ Value::Object(_)) => Ok(payload),
        _ => Err(AuthError::Malformed(
            "the token header or payload does not decode to a JSON object",
        )),
    }
}

/// The token of an `Authorization: Bearer <token>` value (the scheme is case-insensitive).
fn bearer_token(header: Option<&http::HeaderValue>) -> Result<&str, AuthError> {
    let value = header
        .ok_or(AuthError::Missing)?
        .to_str()
        .map_err(|_| AuthError::Malformed("the Authorization header is not visible ASCII"))?;
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthError::Malformed(
            "the Authorization header is not `Bearer <token>`",
        ));
    }
    let token = token.trim_start_matches(' ');
    if token.is_empty() {
        return Err(AuthError::Malformed(
            "the Authorization header has no token after `Bearer`",
        ));
    }
    Ok(token)
}

fn system_now() -> i64 {
    crate::platform::rt::unix_seconds()
}
