//! The handler `host_extension!`'s entry point builds, its configuration, and the adapters that serve
//! it: a `tower::Service` (so it mounts in axum, hyper and anything tower-based), a ready
//! [`Handler::serve`] on hyper, and [`Handler::into_router`] for axum.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;

use crate::auth::{KeySource, Verifier, VerifyOptions};
use crate::calls::error::HostError;
use crate::generated::dispatch::Dispatch;
use crate::generated::spec::Spec;
pub use crate::serving::pipeline::StartError;
use crate::serving::pipeline::{Config, Dedupe, HealthCheck, Inner, Schemas, Serving};
use crate::stores::dedupe::DedupeStore;
use crate::stores::memory::MemoryDedupe;

/// The default request body limit: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
/// The tool time limit: 30 s; it may be configured lower, never higher.
pub const TOOL_DEADLINE: Duration = Duration::from_secs(host_interface::limits::TOOL_DEADLINE_SECS);
/// How long a handler other than a tool may take by default (procedures, actions, mentions, context
/// providers, the connector sync, the work destination, events); a slower one is
/// `504 HANDLER_TIMEOUT`. The interface sets no limit for them; this keeps stuck work from holding a
/// call, a connection and, for events, the delivery's claim for ever.
pub const HANDLER_DEADLINE: Duration = Duration::from_secs(60);
/// How long one call of the deduplication store may take by default; past it the delivery answers
/// `503 DEDUPE_UNAVAILABLE` with `Retry-After` (the host retries) instead of hanging.
pub(crate) const DEFAULT_DEDUPE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a duplicate event delivery waits for the one in flight by default: under the 30 s most
/// HTTP clients give a call, so the host gets an answer it can act on.
pub(crate) const DEFAULT_EVENT_WAIT: Duration = Duration::from_secs(20);
/// A vendor server's handler for host calls. Cheap to clone.
#[derive(Clone)]
pub struct Handler {
    pub(crate) inner: Arc<Inner>,
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handler")
            .field("extension", &self.extension_id())
            .field("base_path", &self.inner.config.base_path)
            .field("development", &self.inner.config.development)
            .finish_non_exhaustive()
    }
}

impl Handler {
    /// The handler of a generated extension: its [`Spec`] and its dispatcher.
    fn generated(spec: &'static Spec, dispatch: impl Dispatch) -> Self {
        let config = Config {
            base_path: String::new(),
            keys: KeySource::Url(crate::auth::DEFAULT_JWKS_URL.to_owned()),
            issuer: crate::auth::DEFAULT_ISSUER.to_owned(),
            body_limit: DEFAULT_BODY_LIMIT,
            tool_deadline: TOOL_DEADLINE,
            handler_deadline: HANDLER_DEADLINE,
            health: None,
            dedupe: None,
            development: false,
            event_wait: DEFAULT_EVENT_WAIT,
            dedupe_timeout: DEFAULT_DEDUPE_TIMEOUT,
            serving: Serving::default(),
            http_client: None,
        };
        let verifier = Verifier::new(verify_options(spec.extension_id, &config));
        Handler {
            inner: Arc::new(Inner {
                spec,
                dispatch: Arc::new(dispatch),
                config,
                verifier,
                schemas: Arc::new(Schemas::new(spec)),
                announced: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    fn configure(self, change: impl FnOnce(&mut Config)) -> Self {
        let mut config = self.inner.config.clone();
        change(&mut config);
        let verifier = Verifier::new(verify_options(self.extension_id(), &config));
        let inner = Inner {
            spec: self.inner.spec,
            dispatch: self.inner.dispatch.clone(),
            config,
            verifier,
            schemas: self.inner.schemas.clone(),
            announced: std::sync::atomic::AtomicBool::new(false),
        };
        Handler {
            inner: Arc::new(inner),
        }
    }

    /// Fetches the host's key set from `url` (the default is the host's published key set).
    ///
    /// The URL must be https (plain http only for a loopback host, see
    /// [`check_key_set_url`](crate::auth::check_key_set_url)); another is logged as an error and
    /// never fetched, so every call fails closed, and [`check_start`](Self::check_start) (which
    /// [`serve`](Self::serve) and `into_router` run) refuses to start with
    /// [`StartError::KeySetUrl`](crate::StartError::KeySetUrl).
    /// [`try_with_jwks_url`](Self::try_with_jwks_url) returns the error at once instead.
    pub fn with_jwks_url(self, url: impl Into<String>) -> Self {
        let url = url.into();
        if let Err(why) = crate::auth::check_key_set_url(&url) {
            tracing::error!(%why, "install tokens cannot be verified: every call will be refused");
        }
        self.configure(|c| c.keys = KeySource::Url(url))
    }

    /// [`with_jwks_url`](Self::with_jwks_url), refusing a URL that is not https (or plain http to a
    /// loopback host): the error names the URL and what is wrong with it.
    pub fn try_with_jwks_url(
        self,
        url: impl Into<String>,
    ) -> Result<Self, crate::auth::KeySetUrlError> {
        let url = url.into();
        crate::auth::check_key_set_url(&url)?;
        Ok(self.configure(|c| c.keys = KeySource::Url(url)))
    }

    /// Fetches the key set with `client` instead of the platform's default (hyper's client natively; a
    /// platform without one, such as Workers, must give one to use a key set URL).
    pub fn with_http_client(self, client: crate::platform::client::Client) -> Self {
        self.configure(|c| c.http_client = Some(client))
    }

    /// Uses an inline key set (a JWKS document) instead of fetching one.
    pub fn with_jwks(self, jwks: serde_json::Value) -> Self {
        self.configure(|c| c.keys = KeySource::Inline(jwks))
    }

    /// Sets the expected token issuer (default `https://auth.host.example`).
    pub fn with_issuer(self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        self.configure(|c| c.issuer = issuer)
    }

    /// Serves the routes under `base_path` (for example `/ext`), as `server.baseUrl` may include one.
    pub fn with_base_path(self, base_path: impl Into<String>) -> Self {
        let mut base = base_path.into().trim_end_matches('/').to_owned();
        if !base.is_empty() && !base.starts_with('/') {
            base.insert(0, '/');
        }
        self.configure(|c| c.base_path = base)
    }

    /// Sets the request body limit (default 1 MiB); larger bodies are refused before parsing.
    pub fn with_body_limit(self, bytes: usize) -> Self {
        self.configure(|c| c.body_limit = bytes)
    }

    /// Lowers the tool deadline (default and maximum 30 s).
    pub fn with_tool_deadline(self, deadline: Duration) -> Self {
        self.configure(|c| c.tool_deadline = deadline.min(TOOL_DEADLINE))
    }

    /// Runs `check` on every health call: an error or more than 2.5 s answers 503 `degraded`, and
    /// the error, with its causes, goes to the log. Any error converts with `?` or `.into()`:
    ///
    /// ```
    /// fn ping() -> Result<(), std::io::Error> {
    ///     Ok(())
    /// }
    ///
    /// fn with_check(handler: host_runtime::Handler) -> host_runtime::Handler {
    ///     handler.with_health_check(|| async {
    ///         ping()?;
    ///         Ok(())
    ///     })
    /// }
    /// ```
    pub fn with_health_check<F, Fut>(self, check: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), crate::platform::BoxError>> + Send + 'static,
    {
        let check: HealthCheck = Arc::new(move || Box::pin(check()));
        self.configure(|c| c.health = Some(check))
    }

    /// How long a handler other than a tool may take by default (procedures, actions, mentions, context
    /// providers, the connector sync, the work destination, events); a slower one is
    /// `504 HANDLER_TIMEOUT`. The interface sets no limit for them; this keeps stuck work from holding a
    /// call, a connection and, for events, the delivery's claim for ever.
    pub const HANDLER_DEADLINE: Duration = Duration::from_secs(60);
    /// How long one call of the deduplication store may take by default; past it the delivery answers
    /// `503 DEDUPE_UNAVAILABLE` with `Retry-After` (the host retries) instead of hanging.
    pub const DEFAULT_DEDUPE_TIMEOUT: Duration = Duration::from_secs(2);
    /// How long a duplicate event delivery waits for the delivery of the same content in flight
    /// (default 20 s) before answering a retryable `503 EVENT_IN_FLIGHT` with `Retry-After`.
    pub fn with_event_wait(self, wait: Duration) -> Self {
        self.configure(|c| c.event_wait = wait)
    }

    /// Sets the deadline of every handler that is not a tool (default 60 s): procedures, actions,
    /// mentions, context providers, the connector sync, the work destination and events. A slower
    /// handler is answered `504 HANDLER_TIMEOUT`; on the event route the host then retries.
    pub fn with_handler_deadline(self, deadline: Duration) -> Self {
        self.configure(|c| c.handler_deadline = deadline)
    }

    /// The longest a client may take to send a request's headers when served by
    /// [`serve`](Self::serve) (default 10 s); a slower one is disconnected.
    pub fn with_header_timeout(self, timeout: Duration) -> Self {
        self.configure(|c| c.serving.header_timeout = timeout)
    }

    /// Closes a served connection with no bytes in or out for this long (default 30 s), once any
    /// call in flight on it has been answered.
    pub fn with_idle_timeout(self, timeout: Duration) -> Self {
        self.configure(|c| c.serving.idle_timeout = timeout)
    }

    /// The most connections [`serve`](Self::serve) keeps open at once (default 1,000); past it, new
    /// connections wait in the listen queue until one closes. Keep it under the process's open-file
    /// limit (`ulimit -n`).
    pub fn with_max_connections(self, connections: usize) -> Self {
        self.configure(|c| c.serving.max_connections = connections.max(1))
    }

    /// The longest a request's body may take to arrive once its headers have (default 30 s), when
    /// the handler reads it (`serve`, axum, tower); a slower one is `408 REQUEST_TIMEOUT`, or on the
    /// event route `503 EVENT_BODY_TIMEOUT` with `Retry-After`, so that the host delivers it again.
    pub fn with_body_timeout(self, timeout: Duration) -> Self {
        self.configure(|c| c.serving.body_timeout = timeout)
    }

    /// How long calls in flight may finish once [`serve`](Self::serve) is told to stop (default 30 s).
    pub fn with_shutdown_grace(self, grace: Duration) -> Self {
        self.configure(|c| c.serving.shutdown_grace = grace)
    }

    /// How long one call of the deduplication store may take (default 2 s) before the delivery is
    /// answered `503 DEDUPE_UNAVAILABLE` with `Retry-After`.
    pub fn with_dedupe_timeout(self, timeout: Duration) -> Self {
        self.configure(|c| c.dedupe_timeout = timeout)
    }

    /// Keeps the deduplication keys of host event deliveries in `store`. A server whose manifest
    /// subscribes to events needs one, and does not start without it (see
    /// [`check_start`](Self::check_start)): a [`RedisDedupe`](crate::dedupe::RedisDedupe) (feature
    /// `redis`), `PostgresDedupe` (feature `postgres`) or `DynamoDbDedupe` (feature `dynamodb`)
    /// shared by every instance, or a [`MemoryDedupe`] for a single instance that may run an event
    /// again when a restart forgets its keys.
    pub fn with_dedupe_store(self, store: impl DedupeStore) -> Self {
        let store: Arc<dyn DedupeStore> = Arc::new(store);
        self.configure(|c| c.dedupe = Some(Dedupe::Chosen(store)))
    }

    /// Development mode: what the manifest needs and you did not choose is kept in this process's
    /// memory (today: the deduplication keys of host events), and the server says so when it
    /// starts. Never for production: a restart forgets the keys, and other instances do not share
    /// them. A store chosen before or after this call is kept.
    pub fn with_development_defaults(self) -> Self {
        self.configure(|c| {
            c.development = true;
            if c.dedupe.is_none() {
                c.dedupe = Some(Dedupe::Embedded(Arc::new(MemoryDedupe::new())));
            }
        })
    }

    /// The deduplication store the handler was given (or development mode chose), if any: for
    /// [`observe::Probes`](crate::observe::Probes) and your own checks.
    pub fn dedupe_store(&self) -> Option<Arc<dyn DedupeStore>> {
        self.inner
            .config
            .dedupe
            .as_ref()
            .map(|d| Arc::clone(d.store()))
    }

    /// Whether [`with_development_defaults`](Self::with_development_defaults) was called.
    pub fn is_development(&self) -> bool {
        self.inner.config.development
    }

    /// What every way of serving checks before it starts ([`serve`](Self::serve),
    /// [`into_router`](Self::into_router), the Lambda adapter's `run`): that the handler has the
    /// stores its manifest needs. Call it yourself at start-up where you serve the handler another
    /// way (as a `tower::Service`, per request on a serverless platform), and refuse to start on
    /// an error. In development mode it logs (once per handler) which stores are kept in memory.
    ///
    /// Without the check a delivery that needs a missing store is answered a retryable
    /// `503 DEDUPE_UNAVAILABLE`, so the host delivers it again and nothing is lost.
    pub fn check_start(&self) -> Result<(), StartError> {
        let spec = self.inner.spec;
        if let KeySource::Url(url) = &self.inner.config.keys {
            crate::auth::check_key_set_url(url).map_err(StartError::KeySetUrl)?;
            crate::outbound::webhook::development::handler_trusts(url)
                .map_err(|key_set| StartError::DevelopmentSecret { key_set })?;
        }
        match &self.inner.config.dedupe {
            None if !spec.events.is_empty() => Err(StartError::no_dedupe_store(spec)),
            Some(Dedupe::Embedded(_))
                if !spec.events.is_empty()
                    && !self
                        .inner
                        .announced
                        .swap(true, std::sync::atomic::Ordering::Relaxed) =>
            {
                tracing::warn!(
                    extension = spec.extension_id,
                    "development mode: the deduplication keys of host events are kept in this \
                     process's memory (a restart forgets them, other instances do not share them); \
                     choose a store with `Handler::with_dedupe_store` for production"
                );
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The host events the manifest subscribes to (`server.events`).
    pub fn events(&self) -> &'static [&'static str] {
        self.inner.spec.events
    }

    /// The extension id.
    pub fn extension_id(&self) -> &str {
        self.inner.spec.extension_id
    }

    /// Answers one HTTP request in process: routing, the install token, the body, the input schema,
    /// the vendor's handler and the answer's checks, in the interface's order.
    pub async fn handle(&self, request: http::Request<Bytes>) -> http::Response<Bytes> {
        crate::serving::pipeline::handle(&self.inner, request).await
    }

    /// Runs the request path once before the first call, on platforms that compile code when it
    /// is first called: on Cloudflare Workers, V8 compiles each WebAssembly function on its first
    /// call, and a first call pays for compiling everything it reaches. Call it where the handler
    /// is built as the module loads (the Workers adapter's `#[event(start)]`); elsewhere it
    /// gains nothing.
    ///
    /// Each request it makes is an event delivery whose install token names a key the handler
    /// already holds, with a signature no key makes but of a form that gets through to the
    /// signature's arithmetic, so the routing, the body's and the token's checks (the signature's
    /// verification whole) and the refusal run, and nothing after them: no handler of yours, no
    /// store, no metric, no log line (the process's recorder and subscriber are set aside while it
    /// runs), and no I/O of any kind, which the Workers runtime forbids while a module loads.
    /// Returns how many requests ran: none when the handler holds no keys yet or they are due a
    /// refresh (with `HOST_JWKS_URL` and no copy given to
    /// [`auth::preload_key_set`](crate::auth::preload_key_set)), since checking a token would then
    /// fetch the key set.
    ///
    /// What it costs as the module loads: one signature verification of each algorithm held, run
    /// by code not yet optimised (in V8's baseline compiler about 0.3 ms for Ed25519, 1.5 ms for
    /// ES256, 0.4 ms for RS256), besides the compiling it moves there from the first call.
    pub fn warm(&self) -> usize {
        let path = format!("{}/host/events", self.inner.config.base_path);
        let tokens = self.inner.verifier.unverifiable_tokens();
        let recorder = metrics::NoopRecorder;
        let quiet = tracing::subscriber::NoSubscriber::default();
        metrics::with_local_recorder(&recorder, || {
            tracing::subscriber::with_default(quiet, || {
                let mut ran = 0;
                for token in &tokens {
                    let request = http::Request::post(path.as_str())
                        .header(http::header::AUTHORIZATION, format!("Bearer {token}"))
                        .header(http::header::CONTENT_TYPE, "application/json")
                        .body(Bytes::from_static(b"{}"));
                    let Ok(request) = request else { continue };
                    // One poll: a refused token is answered without waiting on anything. Were it
                    // to wait all the same, the call is dropped unanswered, having done nothing.
                    let mut call = std::pin::pin!(self.handle(request));
                    let mut cx = Context::from_waker(std::task::Waker::noop());
                    if call.as_mut().poll(&mut cx).is_ready() {
                        ran += 1;
                    }
                }
                ran
            })
        })
    }

    /// An axum router serving every route of the handler (mount it with `Router::merge` or `nest`),
    /// once [`check_start`](Self::check_start) found the stores the manifest needs: refuse to start
    /// on the error, which names what to add.
    #[cfg(feature = "axum")]
    pub fn into_router(self) -> Result<axum::Router, StartError> {
        self.check_start()?;
        Ok(axum::Router::new().fallback_service(self))
    }
}

fn verify_options(extension_id: &str, config: &Config) -> VerifyOptions {
    let options = VerifyOptions::new(extension_id)
        .with_keys(config.keys.clone())
        .with_issuer(config.issuer.clone());
    match &config.http_client {
        Some(client) => options.with_http_client(client.clone()),
        None => options,
    }
}

/// The handler as a `tower::Service` over any request body: the body is read up to the limit, then
/// [`Handler::handle`] answers.
impl<B> tower::Service<http::Request<B>> for Handler
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = http::Response<http_body_util::Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let handler = self.clone();
        Box::pin(async move {
            let limit = handler.inner.config.body_limit;
            let patience = handler.inner.config.serving.body_timeout;
            let (parts, body) = request.into_parts();
            let reading = http_body_util::Limited::new(body, limit).collect();
            let Ok(read) = crate::platform::rt::timeout(patience, reading).await else {
                let response = crate::serving::pipeline::body_timed_out(
                    &handler.inner,
                    parts.uri.path(),
                    patience,
                );
                return Ok(response.map(http_body_util::Full::new));
            };
            let response = match read {
                Ok(collected) => {
                    handler
                        .handle(http::Request::from_parts(parts, collected.to_bytes()))
                        .await
                }
                Err(e)
                    if e.downcast_ref::<http_body_util::LengthLimitError>()
                        .is_some() =>
                {
                    crate::serving::pipeline::too_large(limit)
                }
                Err(_) => {
                    HostError::bad_request("the request body could not be read").to_response()
                }
            };
            Ok(response.map(http_body_util::Full::new))
        })
    }
}

/// The handler of a generated extension: its [`Spec`] and its dispatcher. The generated
/// `handler(server)` calls this, through the private support module.
pub fn generated(spec: &'static Spec, dispatch: impl Dispatch) -> Handler {
    Handler::generated(spec, dispatch)
}
