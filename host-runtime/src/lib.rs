//! The runtime of a host extension's vendor server.
//!
//! A vendor adds this one crate and writes
//!
//! ```ignore
//! host_runtime::host_extension!("host.extension.json");
//! ```
//!
//! The macro reads the manifest at compile time, reports every manifest mistake as a compiler error,
//! and generates typed inputs and outputs, one handler trait per kind of contribution (`Tools`,
//! `Actions`, `Mentions`, `ContextProviders`, `Procedures`, `Connector`, `Work`, `Events`) and a
//! `handler(server)` entry point that requires exactly the traits the manifest needs. This crate holds
//! what those generated items are made of:
//!
//! - [`Call`], [`Approved`], [`MentionCall`], [`ContextCall`]: what handlers receive;
//! - [`answer`]: the five tool card shapes, mention items and the context block;
//! - [`check`]: the rules every answer must pass, as functions over JSON (the runtime and
//!   `cargo host check` run the same ones);
//! - [`events`]: typed payloads of the 12 published host events;
//! - [`metrics`], [`work`]: the connector sync and work destination shapes;
//! - [`webhook`]: signing the vendor's own events (Standard Webhooks `v1`);
//! - [`outbox`]: where those events wait until the host takes them (a file, Redis, PostgreSQL, a Durable Object, or memory for tests);
//! - [`dedupe`]: where processed event deliveries are remembered; [`store`]: the error every
//!   store fails with, its kind and its cause;
//! - [`transaction`], [`postgres`]: a handler's own writes, the events it sends and an event
//!   delivery's record, committed in one transaction of the vendor's PostgreSQL database;
//! - [`HostError`]: errors with the interface's codes and body;
//! - [`Nullable`]: an optional member whose schema allows `null` (absent, `null` or a value);
//! - [`limits`]: the interface's sizes, counts and deadlines;
//! - [`guide`]: how to build, serve, deploy and test an extension;
//! - [`interface`]: the interface as this SDK implements it (install tokens, errors, routes, answer
//!   shapes, events and deduplication, limits, health), one section per topic.
//!
//! Features: `server` (default) serves the handler on hyper and tokio and brings `client`, the
//! native HTTP client ([`client`]) that fetches the key set and posts events. Without default
//! features the crate is the portable core, `Handler::handle` over `http` types, which also builds
//! for `wasm32-unknown-unknown` (Cloudflare Workers, with the `host-runtime-workers` adapter).
//! `lambda` adds the AWS Lambda adapter; `axum`, `http2` and `redis` add to the server; `redb`
//! (default) is the embedded outbox store; `postgres` adds the PostgreSQL stores and the handler's
//! transaction.

// Every `pub` item is public API, re-exported, or in the hidden support module: nothing is `pub`
// by accident.

// The crate is grouped by concept; each group's public modules are re-exported here, at the paths
// vendors use. Groups depend on each other in one direction only (tests/module_graph.rs):
// platform and calls at the bottom, then auth, stores and generated, then outbound, then serving.
mod calls;
mod cause;
mod generated;
mod outbound;
mod platform;
mod serving;
mod stores;

pub mod auth;
mod telemetry;
pub mod testing;

// The parsers that no public function reaches alone, for the repository's fuzz targets. Not an API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

// The support path of generated code, named after this release (see the module's docs).
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private_0_1_0;

/// What an operator sees: metrics, traces and probes.
///
/// **Metrics** go through the [`metrics`](::metrics) facade, the Rust convention for a library:
/// the runtime records, and the application picks the exporter (`metrics-exporter-prometheus`, an
/// OpenTelemetry bridge, StatsD, ...) by installing a recorder. Without one, nothing is kept and
/// each recording costs an atomic load. Every name, its labels and meaning are in
/// [`names::ALL`](crate::observe::names::ALL); [`describe`](crate::observe::describe) gives the exporter their help texts. Labels take only values the
/// runtime chooses or the manifest declares: a caller cannot grow the number of series.
///
/// **Traces** are `tracing` spans: `host_call` for each call of the host (route, install, event
/// id, status, outcome, duration) and `outbox_attempt` for each post of an event (`webhook_id`,
/// the attempt's number, outcome, status). An attempt made while a call runs is a child of that
/// call's span; one made later by the dispatcher carries the same `webhook_id` as the
/// `outbox_accept` event the call's span holds. With `tracing-opentelemetry` they are an
/// OpenTelemetry trace.
///
/// **Probes** ([`Probes`](crate::observe::Probes)): liveness that asks nothing, readiness that asks every store (and
/// PostgreSQL's migrations), and the metrics text, on a port apart from the host's routes.
///
/// The guide's [operating page](crate::guide::operating) has the table, alerts and a Kubernetes
/// probe set.
pub mod observe {
    pub use crate::serving::probes::{Probes, READY_TIMEOUT, Readiness, StoreCheck};
    pub use crate::telemetry::names;
    pub use crate::telemetry::names::describe;
}

#[doc = include_str!("../docs/interface.md")]
pub mod interface {}
#[doc = include_str!("../docs/guide.md")]
pub mod guide {
    #[doc = include_str!("../docs/guide/manifest.md")]
    pub mod manifest {}
    #[doc = include_str!("../docs/guide/handlers.md")]
    pub mod handlers {}
    #[doc = include_str!("../docs/guide/serving.md")]
    pub mod serving {}
    #[doc = include_str!("../docs/guide/deploy.md")]
    pub mod deploy {}
    #[doc = include_str!("../docs/guide/events.md")]
    pub mod events {}
    #[doc = include_str!("../docs/guide/stores.md")]
    pub mod stores {}
    #[doc = include_str!("../docs/guide/operating.md")]
    pub mod operating {}
    #[doc = include_str!("../docs/guide/testing.md")]
    pub mod testing {}
    #[doc = include_str!("../docs/guide/cli.md")]
    pub mod cli {}
}
#[cfg(test)]
mod interface_doc;

pub use calls::{answer, check, events, metrics, route, work};
pub use outbound::{outbox, webhook};
pub use platform::client;
#[cfg(feature = "lambda")]
pub use serving::lambda;
pub use stores::{postgres, store, transaction};

// The stores' backends each have a room of their own under `stores` (one per database, holding
// both its roles), and the trait they implement a module that names none of them; this module
// gathers them at the path vendors use. The outbox's are gathered by `outbound::outbox`.
pub mod dedupe {
    //! Deduplication of host event deliveries.
    //!
    //! The host retries a failed delivery with a new `X-Host-Event-Id` each attempt, so the id is
    //! no key. The key is the event name, the install id and the payload's content key
    //! ([`crate::HostEvent::dedupe_key`]). A key is recorded only after the handler succeeded;
    //! while one delivery of a key is in flight, a concurrent duplicate waits for it.

    pub use crate::stores::dedupe::{
        Claim, DedupeStore, StoreError, StoreErrorKind, WINDOW, key_of,
    };
    #[cfg(feature = "dynamodb")]
    pub use crate::stores::dynamodb::{
        AwsCredentials, DynamoDbDedupe, DynamoDbError, KEY_ATTRIBUTE, TTL_ATTRIBUTE,
    };
    #[cfg(feature = "redb")]
    pub use crate::stores::file::FileDedupe;
    pub use crate::stores::memory::MemoryDedupe;
    #[cfg(feature = "postgres")]
    pub use crate::stores::postgres::dedupe::PostgresDedupe;
    #[cfg(feature = "redis")]
    pub use crate::stores::redis::RedisDedupe;
}

pub use calls::answer::{Comparison, ContextBlock, List, MentionItem, MentionItems, Series, Table};
pub use calls::call::{
    Approved, Call, CallContext, Claims, ContextCall, DateRange, Document, Filters, Install,
    MentionCall, NoCredentials, NoDocuments, OAuthToken, RequestParts,
};
pub use calls::error::{ConversionError, ErrorCode, HostError, UnknownErrorCode};
pub use calls::events::{HostEvent, Timestamp};
pub use calls::nullable::Nullable;
/// The interface's limits: sizes, counts and deadlines, one constant each.
pub use host_interface::limits;
pub use host_macros::host_extension;
pub use outbound::webhook::EventSender;
pub use serving::handler::{
    DEFAULT_BODY_LIMIT, HANDLER_DEADLINE, Handler, StartError, TOOL_DEADLINE,
};
#[cfg(feature = "server")]
pub use serving::server::shutdown_signal;

pub use platform::{BoxError, BoxFuture};

/// `serde_json`, re-exported so action answers and free-form payloads need no extra dependency.
pub use serde_json;
