//! Phase timings on stderr when `HOST_EXTENSION_TIMING` is set, for the benchmarks
//! (`scripts/bench_check_time.py`, BENCHMARKS.md). Internal: no part of the crate's API.

use std::time::Instant;

/// A running timer; a no-op unless `HOST_EXTENSION_TIMING` is set.
pub(crate) struct Phase(Option<Instant>);

impl Phase {
    /// Starts timing.
    pub(crate) fn start() -> Phase {
        Phase(std::env::var_os("HOST_EXTENSION_TIMING").map(|_| Instant::now()))
    }

    /// Reports the time since [`Phase::start`].
    pub(crate) fn done(&self, what: &str) {
        if let Some(start) = self.0 {
            eprintln!(
                "host_extension!: {what} done after {:.1} ms",
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}
