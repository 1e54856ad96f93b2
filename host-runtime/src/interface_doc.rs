//! Keeps `docs/interface.md` (the [`crate::interface`] page) in step with the code: every figure
//! of its "Limits" table and the figures its prose states are compared with the constants the
//! runtime enforces, and the behaviours it describes that a constant cannot hold (which key set
//! URLs are fetched) are tried. A changed limit fails here until the page says the same.

use std::time::Duration;

use crate::auth::{self, fetch, jwks, keys, token};
use crate::serving::handler;
use crate::serving::pipeline::{HEALTH_DEADLINE, QUERY_CHARS, RETRY_AFTER_SECS, Serving};
use crate::{DEFAULT_BODY_LIMIT, HANDLER_DEADLINE, TOOL_DEADLINE};
use host_interface::limits;

const PAGE: &str = include_str!("../docs/interface.md");

/// The "where, and what happens" cells aside, the limit cell of the Limits table's row `subject`.
fn limit(subject: &str) -> &'static str {
    let table = PAGE
        .split("## Limits")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_else(|| panic!("the interface page has no Limits section"));
    let mut rows = table.lines().filter_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        (cells.len() > 3 && cells[1] == subject).then(|| cells[2])
    });
    let row = rows
        .next()
        .unwrap_or_else(|| panic!("the Limits table has no row `{subject}`"));
    assert!(
        rows.next().is_none(),
        "the Limits table has two rows `{subject}`"
    );
    row
}

fn has(text: &str, expected: &str, what: &str) {
    assert!(
        text.contains(expected),
        "{what}: the interface page says `{text}`, the code says `{expected}`"
    );
}

/// A duration as the page writes it: seconds under two minutes (`60 s`, `2.5 s`), then whole hours
/// or minutes (`24 h`, `5 min`).
fn human(d: Duration) -> String {
    let ms = d.as_millis();
    match () {
        _ if ms < 120_000 => format!("{} s", d.as_secs_f64()),
        _ if ms.is_multiple_of(3_600_000) => format!("{} h", ms / 3_600_000),
        _ if ms.is_multiple_of(60_000) => format!("{} min", ms / 60_000),
        _ => format!("{} s", d.as_secs_f64()),
    }
}

fn secs(s: i64) -> Duration {
    Duration::from_secs(u64::try_from(s).unwrap_or_default())
}

/// `1048576` as the page writes it: `1,048,576`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn request_limits_match_the_handler() {
    has(
        limit("Request body"),
        &format!("{} bytes", grouped(DEFAULT_BODY_LIMIT)),
        "body limit",
    );
    has(
        limit("Tool deadline"),
        &human(TOOL_DEADLINE),
        "tool deadline",
    );
    has(
        limit("Every other handler's deadline"),
        &human(HANDLER_DEADLINE),
        "handler deadline",
    );
    let serving = Serving::default();
    has(
        limit("Request headers"),
        &human(serving.header_timeout),
        "header timeout",
    );
    has(
        limit("Request body arrival"),
        &human(serving.body_timeout),
        "body timeout",
    );
    has(
        limit("Idle connection"),
        &human(serving.idle_timeout),
        "idle timeout",
    );
    has(
        limit("Open connections"),
        &grouped(serving.max_connections),
        "connection limit",
    );
    has(
        limit("Shutdown grace"),
        &human(serving.shutdown_grace),
        "shutdown grace",
    );
    has(
        limit("Mention or container `q`"),
        &format!("first {} characters", grouped(QUERY_CHARS)),
        "query length",
    );
}

#[test]
fn answer_limits_match_the_interface_figures() {
    has(
        limit("Tool answer"),
        &format!("{} bytes", grouped(limits::TOOL_ANSWER_BYTES)),
        "tool answer",
    );
    has(
        limit("Context block"),
        &format!("{} bytes", grouped(limits::CONTEXT_BYTES)),
        "context block",
    );
    has(
        limit("Mention items"),
        &format!("first {} kept", limits::MENTION_ITEMS_KEPT),
        "mention items",
    );
    has(
        limit("Mention label"),
        &format!("{} Unicode scalar values", limits::MENTION_LABEL_CHARS),
        "mention label",
    );
    has(
        limit("Health check"),
        &format!("vendor check {}", human(HEALTH_DEADLINE)),
        "health check",
    );
}

#[test]
fn token_and_key_set_limits_match_the_verifier() {
    let row = limit("Install token");
    has(
        row,
        &format!("{} KiB", token::MAX_TOKEN_BYTES / 1024),
        "token size",
    );
    has(
        row,
        &format!("`kid` {} characters", token::MAX_KID_CHARS),
        "kid length",
    );
    has(row, &format!("leeway {}", human(auth::LEEWAY)), "leeway");
    let row = limit("Key set");
    assert_eq!(fetch::MAX_JWKS_BYTES, 1024 * 1024);
    has(row, "1 MiB document", "key set size");
    has(
        row,
        &format!("{} per fetch", human(auth::DEFAULT_FETCH_TIMEOUT)),
        "fetch timeout",
    );
    has(
        row,
        &format!(
            "fresh {} to {}",
            human(secs(fetch::MIN_MAX_AGE)),
            human(secs(fetch::MAX_MAX_AGE))
        ),
        "freshness",
    );
    has(
        row,
        &format!(
            "usable at most {} after the last good fetch",
            human(secs(keys::HARD_MAX_AGE))
        ),
        "hard expiry",
    );
    has(
        row,
        &format!("at least {} apart", human(secs(keys::MIN_REFRESH_INTERVAL))),
        "refresh spacing",
    );
    has(
        limit("Verified-token cache"),
        &format!("{} tokens", grouped(auth::DEFAULT_TOKEN_CACHE)),
        "token cache",
    );
    has(
        PAGE,
        &format!(
            "RSA keys under {} or over {} bits",
            grouped(jwks::RSA_MIN_BITS),
            grouped(jwks::RSA_MAX_BITS)
        ),
        "RSA key sizes",
    );
    has(
        PAGE,
        &format!("fetched from `{}`", auth::DEFAULT_JWKS_URL),
        "default key set URL",
    );
    has(
        PAGE,
        &format!("(default `{}`, `with_issuer`)", auth::DEFAULT_ISSUER),
        "default issuer",
    );
}

#[test]
fn deduplication_figures_match_the_store_and_the_hosts_retries() {
    let retries: Vec<String> = limits::EVENT_RETRY_WAITS_SECS
        .iter()
        .map(|&s| human(Duration::from_secs(s)))
        .collect();
    let total = Duration::from_secs(limits::EVENT_RETRY_WAITS_SECS.iter().sum());
    has(
        limit("Host event retries"),
        &format!(
            "after {} ({} min in all)",
            retries.join(", "),
            total.as_secs_f64() / 60.0
        ),
        "host retries",
    );
    // The window outlasts every retry of the host, and is at least the interface's 15 minutes.
    assert!(crate::stores::dedupe::WINDOW > total);
    assert!(crate::stores::dedupe::WINDOW >= Duration::from_secs(15 * 60));
    let row = limit("Deduplication");
    has(
        row,
        &format!("{} window", human(crate::stores::dedupe::WINDOW)),
        "dedupe window",
    );
    has(
        row,
        &format!("duplicates wait {}", human(handler::DEFAULT_EVENT_WAIT)),
        "event wait",
    );
    has(
        row,
        &format!("`Retry-After: {RETRY_AFTER_SECS}`"),
        "Retry-After",
    );
    has(
        PAGE,
        &format!(
            "A key is remembered for {} minutes, which is longer than the host's {} minutes of retries",
            crate::stores::dedupe::WINDOW.as_secs() / 60,
            total.as_secs_f64() / 60.0
        ),
        "dedupe prose",
    );
    #[cfg(feature = "redis")]
    has(
        row,
        &format!(
            "Redis claims are {} leases",
            human(crate::stores::redis::RedisDedupe::DEFAULT_LEASE)
        ),
        "Redis lease",
    );
}

/// The page says which key set URLs are fetched: https, and plain http for the loopback hosts it
/// names; nothing else.
#[test]
fn the_key_set_urls_the_page_allows_are_the_ones_checked() {
    has(
        PAGE,
        "plain\n  `http` is accepted only for a loopback host (`localhost`, `127.0.0.0/8`, `::1`)",
        "loopback hosts",
    );
    for allowed in [
        "https://keys.example.com/jwks.json",
        "http://localhost:8788/jwks.json",
        "http://127.0.0.1/jwks.json",
        "http://127.255.255.254/jwks.json",
        "http://[::1]:8788/jwks.json",
    ] {
        assert!(
            auth::check_key_set_url(allowed).is_ok(),
            "{allowed} is refused"
        );
    }
    for refused in [
        "http://keys.example.com/jwks.json",
        "http://128.0.0.1/jwks.json",
        "http://[::2]/jwks.json",
        "ftp://keys.example.com/jwks.json",
        "keys.example.com/jwks.json",
    ] {
        assert!(
            auth::check_key_set_url(refused).is_err(),
            "{refused} is accepted"
        );
    }
}
