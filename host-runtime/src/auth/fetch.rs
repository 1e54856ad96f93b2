//! One HTTP fetch of the host's key set, and how long its answer may be cached.
//!
//! The client is the handler's [`Client`] (hyper's natively); the whole fetch (connect, headers,
//! body) is bounded by the configured timeout and the body by [`MAX_JWKS_BYTES`]. Caching policy and
//! single-flight live in `keys.rs`.

use std::time::Duration;

use http::HeaderMap;
use http::header::{ACCEPT, CACHE_CONTROL};
use serde_json::Value;

use crate::platform::client::Client;

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

/// Why the key set could not be fetched, for the log.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    /// The URL is refused (the handler logged why when it was built).
    #[error(transparent)]
    Url(#[from] super::KeySetUrlError),
    /// The whole fetch took longer than its budget.
    #[error("no complete answer within {0} ms")]
    Timeout(u128),
    /// The request could not be built.
    #[error("the request could not be built")]
    Request(#[source] http::Error),
    /// The HTTP client got no answer.
    #[error("no answer")]
    Client(#[source] crate::platform::client::ClientError),
    /// The host answered with an error status.
    #[error("status {0}")]
    Status(http::StatusCode),
    /// The answer is not JSON.
    #[error("the key set is not JSON")]
    NotJson(#[source] serde_json::Error),
    /// No HTTP client on this platform.
    #[error(
        "no HTTP client to fetch the key set with: give the handler one (`with_http_client`) or an inline key set (`with_jwks`)"
    )]
    NoClient,
    /// The answer is JSON but not a key set (the rule it breaks).
    #[error("{0}")]
    NotAKeySet(&'static str),
    /// The fetched key set has no key this runtime can use.
    #[error("the fetched key set holds no usable key; the last good keys stay")]
    NoUsableKey,
}

/// Fetches the key set at `url` within `timeout`.
pub(crate) async fn fetch(
    client: &Client,
    url: &str,
    timeout: Duration,
) -> Result<Fetched, FetchError> {
    // Never fetched from a URL the checks refuse (the handler logged why when it was built).
    super::check_key_set_url(url)?;
    match crate::platform::rt::timeout(timeout, fetch_unbounded(client, url)).await {
        Ok(result) => result,
        Err(_) => Err(FetchError::Timeout(timeout.as_millis())),
    }
}

async fn fetch_unbounded(client: &Client, url: &str) -> Result<Fetched, FetchError> {
    let request = http::Request::get(url)
        .header(ACCEPT, "application/json")
        .body(bytes::Bytes::new())
        .map_err(FetchError::Request)?;
    let response = client
        .send(request, MAX_JWKS_BYTES)
        .await
        .map_err(FetchError::Client)?;
    if !response.status().is_success() {
        return Err(FetchError::Status(response.status()));
    }
    let max_age = max_age(response.headers());
    let document = serde_json::from_slice(response.body()).map_err(FetchError::NotJson)?;
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
