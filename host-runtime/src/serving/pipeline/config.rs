//! What one handler holds: the extension, its dispatcher, its settings and the schemas of its
//! routes, compiled on a route's first call when no generated validator came with them.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::auth::{KeySource, Verifier};
use crate::calls::route::Route;
use crate::generated::dispatch::Dispatch;
use crate::generated::schema::{Check, Lazy};
use crate::generated::spec::Spec;
use crate::platform::BoxFuture;
use crate::stores::dedupe::DedupeStore;

/// A vendor's health check: `Ok(())` when healthy, `Err(reason)` otherwise.
pub(crate) type HealthCheck =
    Arc<dyn Fn() -> BoxFuture<'static, Result<(), crate::platform::BoxError>> + Send + Sync>;

/// Everything one handler answers with: the extension, its dispatcher, settings, token verifier and
/// compiled schemas.
pub(crate) struct Inner {
    pub spec: &'static Spec,
    pub dispatch: Arc<dyn Dispatch>,
    pub config: Config,
    pub verifier: Verifier,
    pub schemas: Arc<Schemas>,
    /// Whether development mode's start-up notice was logged.
    pub announced: std::sync::atomic::AtomicBool,
}

/// Why a handler cannot start: a store its manifest needs was not chosen.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The manifest subscribes to host events, and no deduplication store was chosen.
    #[error(
        "`{extension}` subscribes to host events ({events}) but has no deduplication store, so an \
         event the host delivers again could run twice (on another instance, or after a restart). \
         Choose one with `Handler::with_dedupe_store`: a RedisDedupe, PostgresDedupe or \
         DynamoDbDedupe that every instance shares, or for a single instance a FileDedupe (beside \
         its file outbox; a MemoryDedupe forgets on restart and may run an event again). While \
         developing, \
         `Handler::with_development_defaults()` keeps the keys in memory"
    )]
    NoDedupeStore {
        /// The extension's id.
        extension: String,
        /// The events its manifest subscribes to, comma-separated.
        events: String,
    },
    /// The handler trusts a deployed host's key set, and an `EventSender` of this process signs
    /// with the development secret published with the SDK.
    #[error(
        "this server trusts a deployed host's key set ({key_set}), and an EventSender of this \
         process signs its events with the development secret published with the SDK, so anyone \
         could sign them: give the sender the install's own signing secret (`whsec_...`, the \
         example reads HOST_SIGNING_SECRET)"
    )]
    DevelopmentSecret {
        /// The key set URL the handler trusts.
        key_set: String,
    },
    /// The key set URL given to [`Handler::with_jwks_url`](crate::Handler::with_jwks_url) can
    /// never be fetched (not https, nor plain http to a loopback host), so every call would be
    /// refused.
    #[error(
        "install tokens cannot be verified: {0}; give `Handler::with_jwks_url` the host's https key set URL"
    )]
    KeySetUrl(#[source] crate::auth::KeySetUrlError),
}

impl StartError {
    /// What `spec`'s handler lacks when it subscribes to events and has no deduplication store.
    pub(crate) fn no_dedupe_store(spec: &Spec) -> Self {
        StartError::NoDedupeStore {
            extension: spec.extension_id.to_owned(),
            events: spec.events.join(", "),
        }
    }
}

/// The deduplication store of a handler, and who chose it.
#[derive(Clone)]
pub(crate) enum Dedupe {
    /// Chosen with [`Handler::with_dedupe_store`].
    Chosen(Arc<dyn DedupeStore>),
    /// Filled in by [`Handler::with_development_defaults`].
    Embedded(Arc<dyn DedupeStore>),
}

impl Dedupe {
    /// The store.
    pub(crate) fn store(&self) -> &Arc<dyn DedupeStore> {
        match self {
            Dedupe::Chosen(store) | Dedupe::Embedded(store) => store,
        }
    }
}

/// The handler's settings.
#[derive(Clone)]
pub(crate) struct Config {
    pub base_path: String,
    pub keys: KeySource,
    pub issuer: String,
    pub body_limit: usize,
    pub tool_deadline: Duration,
    /// How long every other handler (procedures, actions, mentions, context, sync, work, events) may
    /// take.
    pub handler_deadline: Duration,
    pub health: Option<HealthCheck>,
    /// Where event deliveries are deduplicated; `None` until one is chosen (or filled in by
    /// development mode).
    pub dedupe: Option<Dedupe>,
    /// Development mode: stores not chosen are kept in memory.
    pub development: bool,
    /// How long a duplicate delivery waits for the one in flight before answering 503.
    pub event_wait: Duration,
    /// How long one call of the deduplication store may take before the delivery answers 503.
    pub dedupe_timeout: Duration,
    /// How `serve` treats connections.
    pub serving: Serving,
    /// What fetches the key set; `None` keeps the platform's default.
    pub http_client: Option<crate::platform::client::Client>,
}

/// Connection limits of [`crate::Handler::serve`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Serving {
    /// The longest a client may take to send a request's headers.
    pub header_timeout: Duration,
    /// A connection with no bytes in or out for this long is closed (after any call in flight).
    pub idle_timeout: Duration,
    /// Open connections at most; past it, new connections wait in the listen queue.
    pub max_connections: usize,
    /// How long calls in flight may finish after a shutdown signal.
    pub shutdown_grace: Duration,
    /// The longest a request's body may take to arrive once its headers have.
    pub body_timeout: Duration,
}

impl Default for Serving {
    fn default() -> Self {
        Serving {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_connections: 1000,
            shutdown_grace: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
        }
    }
}

/// The extension's JSON Schemas, each kept where its route looks for it.
///
/// Each comes with the validator the macro generated from it when the crate compiled. One without
/// (the macro could not generate it) is compiled on its route's first call and kept, so start-up is
/// what the first request needs: a serverless instance (a Worker's isolate, a Lambda) compiles
/// nothing to answer a health check or an event.
#[derive(Default)]
pub(crate) struct Schemas {
    tool_inputs: HashMap<&'static str, Lazy>,
    action_inputs: HashMap<&'static str, Lazy>,
    procedure_inputs: HashMap<&'static str, Lazy>,
    procedure_outputs: HashMap<&'static str, Lazy>,
}

impl Schemas {
    pub(crate) fn new(spec: &'static Spec) -> Schemas {
        fn each(
            items: impl Iterator<Item = (&'static str, &'static str, Option<Check>)>,
        ) -> HashMap<&'static str, Lazy> {
            items
                .map(|(id, text, check)| (id, Lazy::new(text, check)))
                .collect()
        }
        Schemas {
            tool_inputs: each(spec.tools.iter().map(|t| (t.id, t.input, t.input_check))),
            action_inputs: each(spec.actions.iter().map(|a| (a.id, a.input, a.input_check))),
            procedure_inputs: each(
                spec.procedures
                    .iter()
                    .map(|p| (p.name, p.input, p.input_check)),
            ),
            procedure_outputs: each(
                spec.procedures
                    .iter()
                    .map(|p| (p.name, p.output, p.output_check)),
            ),
        }
    }

    /// The `input` schema of the route's contribution, if it has one.
    pub(super) fn input(&self, route: &Route<'_>) -> Option<&Lazy> {
        match route {
            Route::Tool(id) => self.tool_inputs.get(*id),
            Route::Action(id) => self.action_inputs.get(*id),
            Route::Procedure(name) => self.procedure_inputs.get(*name),
            _ => None,
        }
    }

    /// A procedure's `output` schema.
    pub(super) fn output(&self, procedure: &str) -> Option<&Lazy> {
        self.procedure_outputs.get(procedure)
    }

    /// How many schemas have been compiled at run time so far (for tests).
    #[cfg(all(test, feature = "schema-compiler"))]
    pub(crate) fn compiled(&self) -> usize {
        [
            &self.tool_inputs,
            &self.action_inputs,
            &self.procedure_inputs,
            &self.procedure_outputs,
        ]
        .iter()
        .flat_map(|map| map.values())
        .filter(|lazy| lazy.is_compiled())
        .count()
    }
}
