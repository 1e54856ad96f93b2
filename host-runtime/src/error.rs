//! Errors a handler returns and the SDK's own error codes, with the JSON body the host reads:
//! `{"error": {"code": "<CODE>", "message": "<text for the owner>"}}`.

use std::borrow::Cow;
use std::fmt;

use http::StatusCode;

/// The SDK's own error codes and their HTTP statuses.
pub mod codes {
    /// Missing, malformed, expired or unverifiable token (401).
    pub const UNAUTHORIZED: &str = "UNAUTHORIZED";
    /// The body's install differs from the token's (403).
    pub const INSTALL_MISMATCH: &str = "INSTALL_MISMATCH";
    /// The install lacks a scope the called contribution needs (403).
    pub const SCOPE_MISSING: &str = "SCOPE_MISSING";
    /// No such route, tool, action, mention, context provider or procedure (404).
    pub const NOT_FOUND: &str = "NOT_FOUND";
    /// Wrong HTTP method for the route (405).
    pub const METHOD_NOT_ALLOWED: &str = "METHOD_NOT_ALLOWED";
    /// Request body over the limit (413).
    pub const PAYLOAD_TOO_LARGE: &str = "PAYLOAD_TOO_LARGE";
    /// Body is not JSON or misses a required member (400).
    pub const BAD_REQUEST: &str = "BAD_REQUEST";
    /// `input` fails the declared JSON Schema (422).
    pub const INPUT_INVALID: &str = "INPUT_INVALID";
    /// An event name not in `server.events` (422).
    pub const EVENT_NOT_SUBSCRIBED: &str = "EVENT_NOT_SUBSCRIBED";
    /// Tool answer does not match its `returns` kind (502).
    pub const TOOL_RESPONSE_INVALID: &str = "TOOL_RESPONSE_INVALID";
    /// Mention answer is not the mention-items shape (502).
    pub const MENTION_RESPONSE_INVALID: &str = "MENTION_RESPONSE_INVALID";
    /// Procedure answer fails its `output` schema (502).
    pub const PROCEDURE_RESPONSE_INVALID: &str = "PROCEDURE_RESPONSE_INVALID";
    /// Context block over 2 KB once rendered (502).
    pub const CONTEXT_TOO_LARGE: &str = "CONTEXT_TOO_LARGE";
    /// Tool answer over 1 MB (502).
    pub const TOOL_RESPONSE_TOO_LARGE: &str = "TOOL_RESPONSE_TOO_LARGE";
    /// Tool handler did not answer within the tool time limit (504).
    pub const TOOL_TIMEOUT: &str = "TOOL_TIMEOUT";
    /// A handler panicked (500).
    pub const INTERNAL: &str = "INTERNAL";
    /// A metrics sync answer names a dimension its metric does not declare, or a non-finite value
    /// (502). The interface calls such answers invalid but names no code for them; this SDK adds one.
    pub const METRICS_RESPONSE_INVALID: &str = "METRICS_RESPONSE_INVALID";

    /// A work destination's answer breaks the interface: an item or comment `url` that is not https
    /// (502). The interface names no code for it; this SDK adds one.
    pub const WORK_RESPONSE_INVALID: &str = "WORK_RESPONSE_INVALID";
    /// A duplicate event delivery arrived while the first was still being processed, and that took
    /// longer than the handler waits (503, with `Retry-After`). Retryable on purpose: a 4xx would tell
    /// the host the event was recorded, and it would be lost if the first attempt then failed.
    pub const EVENT_IN_FLIGHT: &str = "EVENT_IN_FLIGHT";
    /// The deduplication store (Redis, say) cannot be reached, so an event cannot be run safely once
    /// (503, with `Retry-After`).
    pub const DEDUPE_UNAVAILABLE: &str = "DEDUPE_UNAVAILABLE";

    /// Every SDK code with its status: the interface's, in its order, then this SDK's own.
    pub const ALL: [(&str, u16); 20] = [
        (UNAUTHORIZED, 401),
        (INSTALL_MISMATCH, 403),
        (SCOPE_MISSING, 403),
        (NOT_FOUND, 404),
        (METHOD_NOT_ALLOWED, 405),
        (PAYLOAD_TOO_LARGE, 413),
        (BAD_REQUEST, 400),
        (INPUT_INVALID, 422),
        (EVENT_NOT_SUBSCRIBED, 422),
        (TOOL_RESPONSE_INVALID, 502),
        (MENTION_RESPONSE_INVALID, 502),
        (PROCEDURE_RESPONSE_INVALID, 502),
        (CONTEXT_TOO_LARGE, 502),
        (TOOL_RESPONSE_TOO_LARGE, 502),
        (TOOL_TIMEOUT, 504),
        (INTERNAL, 500),
        (METRICS_RESPONSE_INVALID, 502),
        (WORK_RESPONSE_INVALID, 502),
        (EVENT_IN_FLIGHT, 503),
        (DEDUPE_UNAVAILABLE, 503),
    ];
}

/// A failure answered to the host: a stable `code`, a `message` that reaches the owner's screen, and an
/// HTTP status (default 500 for a handler's own errors).
///
/// On the event route a 4xx status means "recorded, do not retry" and a 5xx means "retry".
///
/// ```
/// use host_runtime::HostError;
/// let e = HostError::new("RATE_LIMITED", "The rank provider is busy; try again in a minute.").with_status(429);
/// assert_eq!(e.status(), 429);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    code: Cow<'static, str>,
    message: String,
    status: StatusCode,
    retry_after: Option<u32>,
}

impl HostError {
    /// A handler's own error, with status 500 until [`with_status`](Self::with_status) says otherwise.
    pub fn new(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        HostError {
            code: code.into(),
            message: message.into(),
            status: StatusCode::INTERNAL_SERVER_ERROR,
            retry_after: None,
        }
    }

    /// Sets the HTTP status (an invalid status, outside 400..=599, keeps 500).
    pub fn with_status(mut self, status: u16) -> Self {
        if let Ok(s) = StatusCode::from_u16(status)
            && (s.is_client_error() || s.is_server_error())
        {
            self.status = s;
        }
        self
    }

    /// Asks the caller to retry after `seconds` (the `Retry-After` header).
    pub fn with_retry_after(mut self, seconds: u32) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// The `Retry-After` seconds, if set.
    pub fn retry_after(&self) -> Option<u32> {
        self.retry_after
    }

    /// One of the SDK's own codes ([`codes`]) with its HTTP status.
    pub(crate) fn sdk(code: &'static str, message: impl Into<String>) -> Self {
        let status = codes::ALL
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(500, |(_, s)| *s);
        HostError::new(code, message).with_status(status)
    }

    /// `BAD_REQUEST` (400): the body is not JSON or misses a required member.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::sdk(codes::BAD_REQUEST, message)
    }

    /// `INPUT_INVALID` (422): `input` fails its declared schema; say where.
    pub fn input_invalid(message: impl Into<String>) -> Self {
        Self::sdk(codes::INPUT_INVALID, message)
    }

    /// `NOT_FOUND` (404).
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::sdk(codes::NOT_FOUND, message)
    }

    /// `INTERNAL` (500): something failed that the owner should not see details of.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::sdk(codes::INTERNAL, message)
    }

    /// The stable code.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The text for the owner.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status.as_u16()
    }

    /// The error body, `{"error": {"code": ..., "message": ...}}`.
    pub fn to_body(&self) -> serde_json::Value {
        serde_json::json!({ "error": { "code": self.code, "message": self.message } })
    }

    /// The full HTTP answer.
    pub fn to_response(&self) -> http::Response<bytes::Bytes> {
        let body = bytes::Bytes::from(self.to_body().to_string());
        let mut res = http::Response::new(body);
        *res.status_mut() = self.status;
        res.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        if let Some(seconds) = self.retry_after {
            res.headers_mut()
                .insert(http::header::RETRY_AFTER, http::HeaderValue::from(seconds));
        }
        res
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.code,
            self.status.as_u16(),
            self.message
        )
    }
}

impl std::error::Error for HostError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_codes_carry_their_d3_status() {
        for (code, status) in codes::ALL {
            assert_eq!(HostError::sdk(code, "x").status(), status, "{code}");
        }
    }

    #[test]
    fn retry_after_is_a_header() {
        let r = HostError::sdk(codes::EVENT_IN_FLIGHT, "busy")
            .with_retry_after(30)
            .to_response();
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()[http::header::RETRY_AFTER], "30");
        assert!(
            HostError::new("X", "m")
                .to_response()
                .headers()
                .get(http::header::RETRY_AFTER)
                .is_none()
        );
    }

    #[test]
    fn own_errors_default_to_500_and_keep_valid_statuses_only() {
        assert_eq!(HostError::new("X", "m").status(), 500);
        assert_eq!(HostError::new("X", "m").with_status(409).status(), 409);
        assert_eq!(HostError::new("X", "m").with_status(200).status(), 500);
        assert_eq!(HostError::new("X", "m").with_status(1000).status(), 500);
    }

    #[test]
    fn the_body_is_the_d3_shape() {
        let res = HostError::not_found("no tool `x`").to_response();
        assert_eq!(res.status(), 404);
        assert_eq!(res.headers()["content-type"], "application/json");
        let body: serde_json::Value = serde_json::from_slice(res.body()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({ "error": { "code": "NOT_FOUND", "message": "no tool `x`" } })
        );
    }
}

/// Why a value could not become a generated schema type: the error of the `TryFrom` and `FromStr`
/// implementations of types with constraints (a string of limited length, an enum of strings).
///
/// Shared by every `host_extension!` expansion, so generated modules do not each carry their own.
#[derive(Clone, PartialEq, Eq)]
pub struct ConversionError(std::borrow::Cow<'static, str>);

impl std::error::Error for ConversionError {}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl From<&'static str> for ConversionError {
    fn from(message: &'static str) -> Self {
        ConversionError(message.into())
    }
}

impl From<String> for ConversionError {
    fn from(message: String) -> Self {
        ConversionError(message.into())
    }
}
