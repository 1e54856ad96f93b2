//! Time as the Durable Objects keep it: Unix milliseconds in an `i64`, the unit of every `until`,
//! `due` and `lease` in [`wire`](crate::wire). [`now_ms`] reads the Workers clock, [`at`] turns a
//! time into an alarm's, and [`millis`] a duration into a count. Both the deduplication and the
//! outbox side read time here, so the two objects agree on what "ended" means.
//!
//! What is not here: when a record ends (the rules of each side decide that).

use std::time::Duration;

/// Now, in Unix milliseconds, from the Workers clock.
pub(crate) fn now_ms() -> i64 {
    // `Date.now()`, not a `Date` made to be read once.
    js_sys::Date::now() as i64
}

/// The instant `ms` (Unix milliseconds) for an alarm (an `i64` alone would be an offset from now).
pub(crate) fn at(ms: i64) -> worker::ScheduledTime {
    // Exact for every millisecond timestamp until the year 285,000.
    #[allow(clippy::cast_precision_loss)]
    let ms = ms as f64;
    worker::ScheduledTime::new(js_sys::Date::new(&ms.into()))
}

/// `d` in milliseconds, saturating: a lease or a window as the records count it.
pub(crate) fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_too_long_for_milliseconds_saturates() {
        assert_eq!(millis(Duration::from_millis(1_500)), 1_500);
        assert_eq!(millis(Duration::MAX), i64::MAX);
    }
}
