//! Every metric the runtime records, by name, with its labels and what it means: the table the
//! guide's "Operating the server" page shows, kept here so the two cannot drift (a test compares
//! them). Names follow Prometheus' conventions: `_total` for counters, `_seconds` for durations.

/// One metric: its name, kind, labels and meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// The name recorded.
    pub name: &'static str,
    /// `counter`, `gauge` or `histogram`.
    pub kind: &'static str,
    /// Its labels, in order.
    pub labels: &'static [&'static str],
    /// What it counts or measures.
    pub help: &'static str,
}

/// Host calls answered.
pub const CALLS: &str = "host_calls_total";
/// How long host calls took to answer.
pub const CALL_DURATION: &str = "host_call_duration_seconds";
/// Install tokens refused.
pub const TOKEN_REFUSALS: &str = "host_token_refusals_total";
/// Event deliveries, by what became of them.
pub const DELIVERIES: &str = "host_event_deliveries_total";
/// How long event handlers ran.
pub const HANDLER_DURATION: &str = "host_event_handler_duration_seconds";
/// Events accepted into the outbox.
pub const OUTBOX_ACCEPTED: &str = "host_outbox_accepted_total";
/// Events the host took.
pub const OUTBOX_POSTED: &str = "host_outbox_posted_total";
/// Attempts that failed and will be made again.
pub const OUTBOX_RETRIED: &str = "host_outbox_retried_total";
/// Events given up on (moved to the dead letters).
pub const OUTBOX_DEAD: &str = "host_outbox_dead_lettered_total";
/// How long each post to the host took.
pub const POST_DURATION: &str = "host_outbox_post_duration_seconds";
/// Events waiting in the outbox.
pub const OUTBOX_PENDING: &str = "host_outbox_pending";
/// Age of the oldest waiting event.
pub const OUTBOX_OLDEST_AGE: &str = "host_outbox_oldest_pending_age_seconds";
/// Events in the dead letters.
pub const OUTBOX_DEAD_LETTERS: &str = "host_outbox_dead_letters";
/// Store calls that failed.
pub const STORE_ERRORS: &str = "host_store_errors_total";
/// Connections the PostgreSQL pool holds.
pub const POOL_SIZE: &str = "host_postgres_pool_connections";
/// Of those, the idle ones.
pub const POOL_IDLE: &str = "host_postgres_pool_idle_connections";

/// Every metric, in the guide's order.
pub const ALL: &[Metric] = &[
    Metric {
        name: CALLS,
        kind: "counter",
        labels: &["route", "name", "status"],
        help: "host calls answered, by route kind, declared contribution and HTTP status",
    },
    Metric {
        name: CALL_DURATION,
        kind: "histogram",
        labels: &["route", "name"],
        help: "seconds from a host call's arrival to its answer",
    },
    Metric {
        name: TOKEN_REFUSALS,
        kind: "counter",
        labels: &["reason"],
        help: "install tokens refused, by reason",
    },
    Metric {
        name: DELIVERIES,
        kind: "counter",
        labels: &["event", "outcome"],
        help: "event deliveries: new (the handler ran and succeeded), failed, duplicate, in_flight, unavailable",
    },
    Metric {
        name: HANDLER_DURATION,
        kind: "histogram",
        labels: &["event"],
        help: "seconds an event's handler ran",
    },
    Metric {
        name: OUTBOX_ACCEPTED,
        kind: "counter",
        labels: &["store"],
        help: "the vendor's events accepted into the outbox",
    },
    Metric {
        name: OUTBOX_POSTED,
        kind: "counter",
        labels: &["store"],
        help: "events the host took (a 2xx)",
    },
    Metric {
        name: OUTBOX_RETRIED,
        kind: "counter",
        labels: &["store"],
        help: "attempts that failed and will be made again",
    },
    Metric {
        name: OUTBOX_DEAD,
        kind: "counter",
        labels: &["store"],
        help: "events given up on: refused by the host, or retries run out",
    },
    Metric {
        name: POST_DURATION,
        kind: "histogram",
        labels: &["outcome"],
        help: "seconds each post to the host took, by outcome (posted, retried, dead)",
    },
    Metric {
        name: OUTBOX_PENDING,
        kind: "gauge",
        labels: &["store"],
        help: "events waiting in the outbox, sampled every 15 s",
    },
    Metric {
        name: OUTBOX_OLDEST_AGE,
        kind: "gauge",
        labels: &["store"],
        help: "seconds since the oldest waiting event was accepted (0 when none waits), sampled every 15 s",
    },
    Metric {
        name: OUTBOX_DEAD_LETTERS,
        kind: "gauge",
        labels: &["store"],
        help: "events in the outbox's dead letters, sampled every 15 s",
    },
    Metric {
        name: STORE_ERRORS,
        kind: "counter",
        labels: &["store", "operation"],
        help: "store calls that failed or did not answer in time, by store and operation",
    },
    Metric {
        name: POOL_SIZE,
        kind: "gauge",
        labels: &[],
        help: "connections the PostgreSQL pool holds, sampled every 15 s",
    },
    Metric {
        name: POOL_IDLE,
        kind: "gauge",
        labels: &[],
        help: "idle connections of the PostgreSQL pool, sampled every 15 s",
    },
];

/// Describes every metric to the installed recorder (its help text and unit), for exporters that
/// show them (Prometheus' `# HELP`). Call it once, after installing the recorder.
pub fn describe() {
    for m in ALL {
        let unit = m
            .name
            .ends_with("_seconds")
            .then_some(::metrics::Unit::Seconds);
        match (m.kind, unit) {
            ("counter", _) => ::metrics::describe_counter!(m.name, m.help),
            ("gauge", Some(unit)) => ::metrics::describe_gauge!(m.name, unit, m.help),
            ("gauge", None) => ::metrics::describe_gauge!(m.name, m.help),
            (_, Some(unit)) => ::metrics::describe_histogram!(m.name, unit, m.help),
            (_, None) => ::metrics::describe_histogram!(m.name, m.help),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ALL;

    /// The guide's table lists every metric, with its kind and labels, and nothing else.
    #[test]
    fn the_operating_guide_lists_every_metric_and_only_those() {
        let guide = include_str!("../../docs/guide/operating.md");
        let table = guide
            .split("<!-- metrics-table -->")
            .nth(1)
            .expect("the guide's metrics table");
        let rows: Vec<&str> = table
            .lines()
            .skip_while(|l| l.trim().is_empty())
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .collect();
        assert_eq!(rows.len(), ALL.len(), "{rows:#?}");
        for (row, metric) in rows.iter().zip(ALL) {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert_eq!(cells[1], format!("`{}`", metric.name), "{row}");
            assert_eq!(cells[2], metric.kind, "{row}");
            let labels: Vec<String> = metric.labels.iter().map(|l| format!("`{l}`")).collect();
            let labels = match labels.is_empty() {
                true => "—".to_owned(),
                false => labels.join(", "),
            };
            assert_eq!(cells[3], labels, "{row}");
        }
    }
}
