//! What an operator sees: metrics, traces and probes.
//!
//! **Metrics** go through the [`metrics`](::metrics) facade, the Rust convention for a library: the runtime
//! records, and the application picks the exporter (`metrics-exporter-prometheus`, an
//! OpenTelemetry bridge, StatsD, ...) by installing a recorder. Without one, nothing is kept and
//! each recording costs an atomic load. Every name, its labels and meaning are in [`names::ALL`];
//! [`describe`] gives the exporter their help texts. Labels take only values the runtime chooses
//! or the manifest declares: a caller cannot grow the number of series.
//!
//! **Traces** are `tracing` spans: `host_call` for each call of the host (route, install, event id,
//! status, outcome, duration) and `outbox_attempt` for each post of an event (`webhook_id`, the
//! attempt's number, outcome, status). An attempt made while a call runs (an event a handler
//! sent, posted before the call answers) is a child of that call's span; one made later by the
//! dispatcher carries the same `webhook_id` as the `outbox_accept` event the call's span holds.
//! With `tracing-opentelemetry` they are an OpenTelemetry trace.
//!
//! **Probes** ([`Probes`]): liveness that asks nothing, readiness that asks every store (and
//! PostgreSQL's migrations), and the metrics text, on a port apart from the host's routes.

pub mod names;
mod probes;
mod record;

pub use self::names::describe;
pub use self::probes::{Probes, READY_TIMEOUT, Readiness, StoreCheck};
pub(crate) use self::record::*;
