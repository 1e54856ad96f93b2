//! One HTTP fetch of the host's key set, and how long its answer may be cached.
//!
//! The client is the handler's [`Client`] (reqwest natively); the whole fetch (connect, headers,
//! body) is bounded by the configured timeout and the body by [`MAX_JWKS_BYTES`]. Caching policy and
//! single-flight live in `keys.rs`.

use std::time::Duration;

use http::HeaderMap;
use http::header::{ACCEPT, CACHE_CONTROL};
use serde_json::Value;

use crate::client::Client;

/// The shortest time fetched keys are considered fresh, whatever `Cache-Control` says (seconds).
pub(crate) const MIN_MAX_AGE: i64 = 5 * 60;
/// The longest time fetched keys are considered fresh, whatever `Cache-Control` says (seconds).
pub(crate) const MAX_MAX_AGE: i64 = 24 * 60 * 60;
/// The largest key set document read.
pub(crate) const MAX_JWKS_BYTES: usize = 1024 * 1024;

/// A fetched key set document and its freshness lifetime in seconds.
pub(crate) struct Fetched {
    pub(crate) document: Value,
    pub(crate) max_age: i64,
}

/// Fetches the key set at `url` within `timeout`. The error is a reason for the log.
pub(crate) async fn fetch(
    client: &Client,
    url: &str,
    timeout: Duration,
) -> Result<Fetched, String> {
    // Never fetched from a URL the checks refuse (the handler logged why when it was built).
    super::check_key_set_url(url)?;
    match crate::rt::timeout(timeout, fetch_unbounded(client, url)).await {
        Ok(result) => result,
        Err(_) => Err(format!(
            "no complete answer within {} ms",
            timeout.as_millis()
        )),
    }
}

async fn fetch_unbounded(client: &Client, url: &str) -> Result<Fetched, String> {
    let request = http::Request::get(url)
        .header(ACCEPT, "application/json")
        .body(bytes::Bytes::new())
        .map_err(|e| e.to_string())?;
    let response = client
        .send(request, MAX_JWKS_BYTES)
        .await
        .map_err(|e| e.0)?;
    if !response.status().is_success() {
        return Err(format!("status {}", response.status()));
    }
    let max_age = max_age(response.headers());
    let document = serde_json::from_slice(response.body())
        .map_err(|_| "the key set is not JSON".to_owned())?;
    Ok(Fetched { document, max_age })
}

/// `Cache-Control: max-age`, clamped to 5 min..24 h; 5 min without one (or with `no-cache`).
pub(crate) fn max_age(headers: &HeaderMap) -> i64 {
    let seconds = headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|directive| {
            let (name, value) = directive.trim().split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case("max-age")
                .then(|| seconds(value))?
        });
    seconds.map_or(MIN_MAX_AGE, |s| {
        i64::try_from(s)
            .unwrap_or(i64::MAX)
            .clamp(MIN_MAX_AGE, MAX_MAX_AGE)
    })
}

/// Delta-seconds; a number too large for `u64` is "very long" (RFC 9111 1.2.2), not invalid.
fn seconds(value: &str) -> Option<u64> {
    let value = value.trim().trim_matches('"');
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(value.parse().unwrap_or(u64::MAX))
}
