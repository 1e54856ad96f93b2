//! The interface's numeric limits, in one place: the runtime enforces them, the generator writes them
//! into the docs of the methods they bound, and the local host replays the host's own.
//!
//! ```
//! use host_interface::limits;
//! assert_eq!(limits::bytes_text(limits::TOOL_ANSWER_BYTES), "1 MB");
//! assert_eq!(limits::seconds_text(limits::EVENT_RETRY_WAITS_SECS[1]), "2 min");
//! ```

/// How long the host waits for a tool answer, in seconds; a slower tool is `TOOL_TIMEOUT`.
pub const TOOL_DEADLINE_SECS: u64 = 30;

/// The largest tool answer, in bytes of JSON; a larger one is `TOOL_RESPONSE_TOO_LARGE`.
pub const TOOL_ANSWER_BYTES: usize = 1_048_576;

/// The largest context block, in bytes of compact JSON; a larger one is `CONTEXT_TOO_LARGE`.
pub const CONTEXT_BYTES: usize = 2_048;

/// How many mention items the host keeps; the rest are dropped.
pub const MENTION_ITEMS_KEPT: usize = 20;

/// How much of a mention label the host keeps, in Unicode scalar values.
pub const MENTION_LABEL_CHARS: usize = 80;

/// The host's waits, in seconds, before the second, third and fourth delivery of a host event whose
/// first delivery failed with a 5xx or no answer.
pub const EVENT_RETRY_WAITS_SECS: [u64; 3] = [30, 120, 600];

/// How long the host waits for the health route's answer, in milliseconds.
pub const HEALTH_ANSWER_MS: u64 = 3_000;

/// How long a vendor's own health check may take, in milliseconds, before the health route answers
/// 503 `degraded` (so that the answer still arrives within [`HEALTH_ANSWER_MS`]).
pub const HEALTH_CHECK_MS: u64 = 2_500;

/// The largest tool or action `input` schema, in bytes of compact JSON.
pub const INPUT_SCHEMA_BYTES: usize = 16_384;

/// The most UI contributions (widgets, pages, panels, ...) a manifest may declare in total.
pub const UI_CONTRIBUTIONS: usize = 20;

/// The clock skew allowed on an install token's `iat`, `nbf` and `exp`, in seconds.
pub const TOKEN_LEEWAY_SECS: u64 = 60;

/// How far a signed event's `webhook-timestamp` may be from the receiver's clock, in seconds.
pub const WEBHOOK_TIMESTAMP_TOLERANCE_SECS: u64 = 300;

/// The shortest time a processed event delivery must be remembered, in seconds: longer than the
/// host's retries take (30 s + 2 min + 10 min).
pub const EVENT_DEDUPE_WINDOW_MIN_SECS: u64 = 15 * 60;

// Checked when the crate compiles: the dedupe window outlasts the host's retries, and a vendor's
// health check leaves the health route time to answer.
const _: () = {
    let mut retries = 0;
    let mut i = 0;
    while i < EVENT_RETRY_WAITS_SECS.len() {
        retries += EVENT_RETRY_WAITS_SECS[i];
        i += 1;
    }
    assert!(EVENT_DEDUPE_WINDOW_MIN_SECS > retries);
    assert!(HEALTH_CHECK_MS < HEALTH_ANSWER_MS);
};

/// A byte count as docs write it: `1 MB`, `2 KB`, or `300 bytes`.
pub fn bytes_text(bytes: usize) -> String {
    const KB: usize = 1024;
    const MB: usize = 1024 * KB;
    if bytes >= MB && bytes.is_multiple_of(MB) {
        format!("{} MB", bytes / MB)
    } else if bytes >= KB && bytes.is_multiple_of(KB) {
        format!("{} KB", bytes / KB)
    } else {
        format!("{bytes} bytes")
    }
}

/// A wait as docs write it: `30 s`, `2 min`, `1 h`, or `90 s` when it is no whole minute.
pub fn seconds_text(secs: u64) -> String {
    if secs >= 3600 && secs.is_multiple_of(3600) {
        format!("{} h", secs / 3600)
    } else if secs >= 60 && secs.is_multiple_of(60) {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_waits_read_as_people_write_them() {
        assert_eq!(bytes_text(CONTEXT_BYTES), "2 KB");
        assert_eq!(bytes_text(1500), "1500 bytes");
        assert_eq!(bytes_text(0), "0 bytes");
        assert_eq!(seconds_text(TOOL_DEADLINE_SECS), "30 s");
        assert_eq!(seconds_text(90), "90 s");
        assert_eq!(seconds_text(600), "10 min");
        assert_eq!(seconds_text(7200), "2 h");
    }
}
