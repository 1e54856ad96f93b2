//! One HTTP fetch of the host's key set, and how long its answer may be cached.
//!
//! The client is reqwest over rustls with the `ring` provider; the whole fetch (connect, headers,
//! body) is bounded by the configured timeout and the body by [`MAX_JWKS_BYTES`]. Caching policy and
//! single-flight live in `keys.rs`.

use std::time::Duration;

use http::HeaderMap;
use http::header::{ACCEPT, CACHE_CONTROL};
use serde_json::Value;

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

/// A client for key set fetches, or `None` (logged) when one cannot be built.
pub(crate) fn client(timeout: Duration) -> Option<reqwest::Client> {
    // reqwest is built without a default TLS provider; an already installed one is fine too.
    let _ = rustls::crypto::ring::default_provider().install_default();
    match reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .build()
    {
        Ok(client) => Some(client),
        Err(e) => {
            tracing::warn!(error = %e.without_url(), "no HTTP client for the install token key set");
            None
        }
    }
}

/// Fetches the key set at `url` within `timeout`. The error is a reason for the log.
pub(crate) async fn fetch(
    client: &reqwest::Client,
    url: &str,
    timeout: Duration,
) -> Result<Fetched, String> {
    // Never fetched from a URL the checks refuse (the handler logged why when it was built).
    super::check_key_set_url(url)?;
    match tokio::time::timeout(timeout, fetch_unbounded(client, url)).await {
        Ok(result) => result,
        Err(_) => Err(format!(
            "no complete answer within {} ms",
            timeout.as_millis()
        )),
    }
}

async fn fetch_unbounded(client: &reqwest::Client, url: &str) -> Result<Fetched, String> {
    let mut response = client
        .get(url)
        .header(ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
    if !response.status().is_success() {
        return Err(format!("status {}", response.status()));
    }
    let max_age = max_age(response.headers());
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| e.without_url().to_string())?
    {
        if body.len() + chunk.len() > MAX_JWKS_BYTES {
            return Err("the key set is larger than 1 MiB".to_owned());
        }
        body.extend_from_slice(&chunk);
    }
    let document =
        serde_json::from_slice(&body).map_err(|_| "the key set is not JSON".to_owned())?;
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
