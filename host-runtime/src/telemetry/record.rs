//! The runtime's metrics, recorded through the [`metrics`](::metrics) facade: one function per thing that
//! happened, each naming its metric from [`names`](super::names). With no recorder installed, each
//! is an atomic load and a comparison.

use std::time::Duration;

use ::metrics::{counter, gauge, histogram};

use super::names;

/// A host call answered: `route` is the kind (`tool`, `events`, ...), `name` the declared
/// contribution it reached (`""` for none: an undeclared id never becomes a label, so a caller
/// cannot grow the series), `status` the HTTP status.
pub(crate) fn call(route: &'static str, name: &'static str, status: u16, took: Duration) {
    let outcome = status_label(status);
    counter!(names::CALLS, "route" => route, "name" => name, "status" => outcome).increment(1);
    histogram!(names::CALL_DURATION, "route" => route, "name" => name).record(took.as_secs_f64());
}

/// An install token refused, for `reason` (an `AuthError::reason`).
pub(crate) fn token_refused(reason: &'static str) {
    counter!(names::TOKEN_REFUSALS, "reason" => reason).increment(1);
}

/// An event delivery settled: `outcome` is `new` (the handler ran and succeeded), `failed` (it
/// ran and failed), `duplicate` (recorded already: 204 without a run), `in_flight` (an earlier
/// delivery still runs: 503) or `unavailable` (the store could not say: 503).
pub(crate) fn delivery(event: &'static str, outcome: &'static str) {
    counter!(names::DELIVERIES, "event" => event, "outcome" => outcome).increment(1);
}

/// How long an event's handler ran.
pub(crate) fn handler_duration(event: &'static str, took: Duration) {
    histogram!(names::HANDLER_DURATION, "event" => event).record(took.as_secs_f64());
}

/// An event of the vendor's accepted into the outbox of `store`.
pub(crate) fn outbox_accepted(store: &'static str) {
    counter!(names::OUTBOX_ACCEPTED, "store" => store).increment(1);
}

/// How one attempt at posting an event ended, for the metrics.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Attempt {
    /// The host took it.
    Posted,
    /// It failed and will be made again.
    Retried,
    /// The event was given up on.
    Dead,
}

impl Attempt {
    /// The `outcome` label of the post duration, and of the `outbox_attempt` span.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Attempt::Posted => "posted",
            Attempt::Retried => "retried",
            Attempt::Dead => "dead",
        }
    }
}

/// One attempt at posting an event ended as `outcome`, after `took`.
pub(crate) fn outbox_attempt(store: &'static str, outcome: Attempt, took: Duration) {
    let name = match outcome {
        Attempt::Posted => names::OUTBOX_POSTED,
        Attempt::Retried => names::OUTBOX_RETRIED,
        Attempt::Dead => names::OUTBOX_DEAD,
    };
    counter!(name, "store" => store).increment(1);
    histogram!(names::POST_DURATION, "outcome" => outcome.label()).record(took.as_secs_f64());
}

/// What an outbox store holds, sampled: pending events, the age of the oldest (seconds), dead
/// letters.
pub(crate) fn outbox_backlog(store: &'static str, pending: u64, oldest_age_secs: f64, dead: u64) {
    gauge!(names::OUTBOX_PENDING, "store" => store).set(pending as f64);
    gauge!(names::OUTBOX_DEAD_LETTERS, "store" => store).set(dead as f64);
    gauge!(names::OUTBOX_OLDEST_AGE, "store" => store).set(oldest_age_secs);
}

/// A store call that failed: `operation` is what was asked (`claim`, `put`, `settle`, ...).
pub(crate) fn store_error(store: &'static str, operation: &'static str) {
    counter!(names::STORE_ERRORS, "store" => store, "operation" => operation).increment(1);
}

/// The PostgreSQL pool's connections, sampled.
#[cfg(feature = "postgres")]
pub(crate) fn pool(size: u32, idle: usize) {
    gauge!(names::POOL_SIZE).set(f64::from(size));
    gauge!(names::POOL_IDLE).set(idle as f64);
}

/// The status as a label: the few a host call answers as themselves, the rest by class, so that
/// the label's values stay few.
fn status_label(status: u16) -> &'static str {
    match status {
        200 => "200",
        204 => "204",
        400 => "400",
        401 => "401",
        403 => "403",
        404 => "404",
        405 => "405",
        409 => "409",
        413 => "413",
        415 => "415",
        422 => "422",
        429 => "429",
        500 => "500",
        503 => "503",
        504 => "504",
        s if s < 300 => "2xx",
        s if s < 500 => "4xx",
        _ => "5xx",
    }
}
