//! Errors a handler returns and the SDK's own error codes, with the JSON body the host reads:
//! `{"error": {"code": "<CODE>", "message": "<text for the owner>"}}`.

use std::borrow::Cow;
use std::fmt;

use http::StatusCode;

use crate::cause::Cause;

/// Declares [`ErrorCode`] from one table: variant, stable string, HTTP status, docs.
macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])+ $variant:ident = $code:literal, $status:literal; )+) => {
        /// Every error code the SDK itself answers, with its HTTP status.
        ///
        /// The SDK never answers a code outside this list; a handler's own [`HostError`]s carry the
        /// vendor's codes. The list and what the host does with each status are in
        /// [`crate::interface`], section "Errors" ([link](crate::interface#errors)). New codes may be
        /// added in a minor release, hence `#[non_exhaustive]`.
        ///
        /// ```
        /// use host_runtime::ErrorCode;
        /// assert_eq!(ErrorCode::EventInFlight.as_str(), "EVENT_IN_FLIGHT");
        /// assert_eq!(ErrorCode::EventInFlight.status(), 503);
        /// assert_eq!("SCOPE_MISSING".parse(), Ok(ErrorCode::ScopeMissing));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl ErrorCode {
            /// Every code, the interface's first (in its order), then those this SDK adds.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),+];

            /// The stable string in the error body (`"UNAUTHORIZED"`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)+
                }
            }

            /// The HTTP status the SDK answers with this code.
            pub const fn status(self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)+
                }
            }
        }

        impl std::str::FromStr for ErrorCode {
            type Err = UnknownErrorCode;

            fn from_str(code: &str) -> Result<Self, Self::Err> {
                match code {
                    $($code => Ok(ErrorCode::$variant),)+
                    _ => Err(UnknownErrorCode),
                }
            }
        }
    };
}

error_codes! {
    /// Missing, malformed, expired or unverifiable install token.
    Unauthorized = "UNAUTHORIZED", 401;
    /// The body's `install` differs from the token's.
    InstallMismatch = "INSTALL_MISMATCH", 403;
    /// The install lacks a scope the called contribution needs.
    ScopeMissing = "SCOPE_MISSING", 403;
    /// No such route, tool, action, mention, context provider or procedure.
    NotFound = "NOT_FOUND", 404;
    /// Wrong HTTP method for the route (with an `Allow` header).
    MethodNotAllowed = "METHOD_NOT_ALLOWED", 405;
    /// The request body is over the limit (refused before it is parsed).
    PayloadTooLarge = "PAYLOAD_TOO_LARGE", 413;
    /// The request body did not arrive within the body timeout (30 s by default): a client sending
    /// it a byte at a time holds no connection for ever. The interface names no code for it; this
    /// SDK adds one. The event route answers [`ErrorCode::EventBodyTimeout`] instead.
    RequestTimeout = "REQUEST_TIMEOUT", 408;
    /// The body is not JSON or misses a required member.
    BadRequest = "BAD_REQUEST", 400;
    /// `input` fails its declared JSON Schema, or a work item breaks the manifest; the message names
    /// the pointer.
    InputInvalid = "INPUT_INVALID", 422;
    /// An event the manifest's `server.events` does not list.
    EventNotSubscribed = "EVENT_NOT_SUBSCRIBED", 422;
    /// A tool answer does not match its `returns` kind.
    ToolResponseInvalid = "TOOL_RESPONSE_INVALID", 502;
    /// A mention answer is not the mention-items shape: an item whose `id` or `label` is empty
    /// (the Rust type holds the rest of the shape).
    MentionResponseInvalid = "MENTION_RESPONSE_INVALID", 502;
    /// A procedure answer fails its `output` schema.
    ProcedureResponseInvalid = "PROCEDURE_RESPONSE_INVALID", 502;
    /// A context block over 2 KB once rendered.
    ContextTooLarge = "CONTEXT_TOO_LARGE", 502;
    /// A tool answer over 1 MB.
    ToolResponseTooLarge = "TOOL_RESPONSE_TOO_LARGE", 502;
    /// A tool handler did not answer within the tool deadline.
    ToolTimeout = "TOOL_TIMEOUT", 504;
    /// A handler panicked, or an answer could not be encoded.
    Internal = "INTERNAL", 500;
    /// A `POST` whose `Content-Type` is not JSON. The interface names no code for it; this SDK adds
    /// one.
    UnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE", 415;
    /// A metrics sync answer names a dimension its metric does not declare, or a value that is not
    /// finite. The interface calls such answers invalid without naming a code; this SDK adds one.
    MetricsResponseInvalid = "METRICS_RESPONSE_INVALID", 502;
    /// A work destination answered an item or comment `url` that is not https. The interface names no
    /// code for it; this SDK adds one.
    WorkResponseInvalid = "WORK_RESPONSE_INVALID", 502;
    /// A handler other than a tool (procedure, action, mention, context provider, connector sync,
    /// work destination, event) did not answer within the handler deadline. The interface sets no
    /// limit for these; this SDK adds one, and a 5xx so that an event is retried.
    HandlerTimeout = "HANDLER_TIMEOUT", 504;
    /// An event delivery whose install token could not be checked: the host's key set is unreachable
    /// or empty, or names no key the token's `kid` and cannot be fetched again just now (with
    /// `Retry-After`). Retryable on purpose: a 401 would end the delivery. Every other route answers
    /// 401.
    KeysUnavailable = "KEYS_UNAVAILABLE", 503;
    /// A duplicate event delivery arrived while the first was still being processed, and that took
    /// longer than the handler waits (with `Retry-After`). Retryable on purpose: a 4xx would tell the
    /// host the event was recorded, and it would be lost if the first attempt then failed.
    EventInFlight = "EVENT_IN_FLIGHT", 503;
    /// The deduplication store (Redis, say) cannot be reached, so an event cannot be run safely once
    /// (with `Retry-After`).
    DedupeUnavailable = "DEDUPE_UNAVAILABLE", 503;
    /// An event delivery's body did not arrive within the body timeout (with `Retry-After`). Other
    /// routes answer `408 REQUEST_TIMEOUT`; on the event route a 4xx would tell the host the event was
    /// recorded, and it would never be delivered again.
    EventBodyTimeout = "EVENT_BODY_TIMEOUT", 503;
    /// A request's schema checks were stopped before they read it to the end: their `pattern`s
    /// ran past the request's pattern budget (100 ms, [`PATTERN_BUDGET`](crate::check::PATTERN_BUDGET))
    /// (with `Retry-After`). Retryable on purpose: how far a check gets in that time depends on
    /// how busy the machine is, and a final 4xx would make the verdict on one input depend on it.
    /// A string no pattern can finish matching within its own step bound is `INPUT_INVALID`.
    PatternBudgetSpent = "PATTERN_BUDGET_SPENT", 503;
    /// A handler's event was refused by the outbox because another event with other content holds
    /// its id ([`SendError::Conflict`](crate::outbox::SendError::Conflict), through `?`). Final:
    /// calling again sends the same id again. Derive event ids from everything the body says.
    EventIdConflict = "EVENT_ID_CONFLICT", 409;
}

impl ErrorCode {
    /// Whether the host retries a call answered with this code (every 5xx; a 4xx is final).
    pub const fn is_retryable(self) -> bool {
        self.status() >= 500
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not one of the SDK's [`ErrorCode`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownErrorCode;

impl fmt::Display for UnknownErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not one of the SDK's error codes")
    }
}

impl std::error::Error for UnknownErrorCode {}

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
    // Kept for the server's log; the host never sees it, and equality ignores it.
    source: Cause,
}

impl HostError {
    /// A handler's own error, with status 500 until [`with_status`](Self::with_status) says otherwise.
    pub fn new(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        HostError {
            code: code.into(),
            message: message.into(),
            status: StatusCode::INTERNAL_SERVER_ERROR,
            retry_after: None,
            source: Cause::default(),
        }
    }

    /// Keeps `cause` as this error's [`source`](std::error::Error::source): the server's log shows
    /// it, the host never sees it (only the code and message reach the owner).
    ///
    /// ```
    /// use host_runtime::HostError;
    /// let io = std::io::Error::other("disk on fire");
    /// let e = HostError::internal("the report could not be saved").with_source(io);
    /// assert_eq!(std::error::Error::source(&e).unwrap().to_string(), "disk on fire");
    /// assert!(!e.to_body().to_string().contains("fire"));
    /// ```
    pub fn with_source(mut self, cause: impl Into<crate::platform::BoxError>) -> Self {
        self.source = Cause::of(cause);
        self
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

    /// One of the SDK's own codes with its HTTP status.
    pub fn from_code(code: ErrorCode, message: impl Into<String>) -> Self {
        HostError::new(code.as_str(), message).with_status(code.status())
    }

    /// The SDK code this error carries, if its code is one of them.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.code.parse().ok()
    }

    /// `BAD_REQUEST` (400): the body is not JSON or misses a required member. A value the message
    /// quotes is cut after 200 characters, and the message after 2,000.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::from_code(ErrorCode::BadRequest, clip_message(message.into()))
    }

    /// `INPUT_INVALID` (422): `input` fails its declared schema; say where. A value the message
    /// quotes is cut after 200 characters, and the message after 2,000.
    pub fn input_invalid(message: impl Into<String>) -> Self {
        Self::from_code(ErrorCode::InputInvalid, clip_message(message.into()))
    }

    /// `NOT_FOUND` (404).
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::from_code(ErrorCode::NotFound, message)
    }

    /// `INTERNAL` (500): something failed that the owner should not see details of.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::from_code(ErrorCode::Internal, message)
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

impl std::error::Error for HostError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.get()
    }
}

/// The most characters of one value an SDK error message quotes (a string of the input, a member
/// name, a URL, a JSON value): a longer value is cut there. What a caller sends may be megabytes;
/// the answer and its log line stay small.
pub(crate) const QUOTED_CHARS: usize = 200;

/// The most characters of an SDK error message built from what the caller sent, after its quoted
/// values are clipped (a message may quote several, or quote in a way [`clip_message`] does not
/// recognise).
pub(crate) const MESSAGE_CHARS: usize = 2000;

/// `value` as an error message quotes it: whole up to [`QUOTED_CHARS`] characters, otherwise its
/// first [`QUOTED_CHARS`] characters, `…` and its length: `aaaa… (70000 characters)`.
pub(crate) fn clip(value: &str) -> Cow<'_, str> {
    clip_at(value, QUOTED_CHARS)
}

fn clip_at(value: &str, chars: usize) -> Cow<'_, str> {
    match value.char_indices().nth(chars) {
        None => Cow::Borrowed(value),
        Some((cut, _)) => Cow::Owned(format!(
            "{}… ({} characters)",
            &value[..cut],
            value.chars().count()
        )),
    }
}

/// `message` with each quoted value (between `"` or between backticks) longer than
/// [`QUOTED_CHARS`] clipped as [`clip`] does, then the whole cut at [`MESSAGE_CHARS`] (the bound
/// for a value quoted some other way). Serde's and
/// the schema validator's messages quote the value they refuse whole; this keeps their wording
/// and bounds their size.
pub(crate) fn clip_message(message: String) -> String {
    if message.len() <= QUOTED_CHARS {
        return message;
    }
    let mut out = String::with_capacity(message.len().min(MESSAGE_CHARS * 4));
    let mut rest = message.as_str();
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        match rest.find(quote) {
            Some(close) => {
                out.push_str(&clip(&rest[..close]));
                out.push(quote);
                rest = &rest[close + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    match clip_at(&out, MESSAGE_CHARS) {
        Cow::Borrowed(_) => out,
        Cow::Owned(cut) => cut,
    }
}

/// Shows an error with its causes, for logs: `outer: inner: innermost`.
pub(crate) struct Chain<'a>(pub(crate) &'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_value_is_clipped_with_its_length() {
        assert!(matches!(clip("short"), Cow::Borrowed("short")));
        let long = "é".repeat(70_000);
        let clipped = clip(&long);
        assert!(clipped.starts_with(&"é".repeat(QUOTED_CHARS)));
        assert!(clipped.ends_with("é… (70000 characters)"), "{clipped}");
        assert_eq!(clipped.chars().count(), QUOTED_CHARS + 20);
    }

    #[test]
    fn messages_keep_their_words_and_lose_the_bulk_of_what_they_quote() {
        // Serde quotes a refused string whole: the answer and its log line were 70 KB.
        let huge = "x".repeat(70_000);
        let e = serde_json::from_value::<u32>(serde_json::Value::String(huge.clone()))
            .expect_err("a string is no integer");
        let error = HostError::input_invalid(format!("`input`: {e}"));
        assert!(error.message().len() < 300, "{}", error.message());
        assert!(
            error
                .message()
                .starts_with("`input`: invalid type: string \"xxx")
        );
        assert!(
            error
                .message()
                .ends_with("x… (70000 characters)\", expected u32")
        );
        assert!(error.to_string().len() < 350);
        // Backticks quote too, and so does a message with a value in no quotes at all.
        let error = HostError::bad_request(format!("`{huge}` is not an https URL"));
        assert!(
            error
                .message()
                .ends_with("(70000 characters)` is not an https URL")
        );
        let error = HostError::bad_request(format!("the values {huge} are wrong"));
        assert!(error.message().chars().count() <= MESSAGE_CHARS + 30);
        // Many quoted values each within the limit: the message as a whole is cut.
        let many = vec![format!("\"{}\"", "y".repeat(150)); 100].join(", ");
        let error = HostError::input_invalid(many);
        assert!(error.message().chars().count() <= MESSAGE_CHARS + 30);
        assert!(error.message().ends_with("characters)"));
        // Short messages are left as they are.
        assert_eq!(
            HostError::input_invalid("`q`: \"ok\"").message(),
            "`q`: \"ok\""
        );
    }

    #[test]
    fn sdk_codes_carry_their_status_and_read_back() {
        for &code in ErrorCode::ALL {
            let e = HostError::from_code(code, "x");
            assert_eq!(e.status(), code.status(), "{code}");
            assert_eq!(e.code(), code.as_str());
            assert_eq!(e.error_code(), Some(code));
            assert_eq!(code.as_str().parse(), Ok(code));
            assert_eq!(code.is_retryable(), code.status() >= 500);
        }
        assert_eq!("RATE_LIMITED".parse::<ErrorCode>(), Err(UnknownErrorCode));
        assert_eq!(HostError::new("RATE_LIMITED", "m").error_code(), None);
        let mut strings: Vec<_> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        strings.sort_unstable();
        strings.dedup();
        assert_eq!(strings.len(), ErrorCode::ALL.len(), "codes are unique");
    }

    #[test]
    fn retry_after_is_a_header() {
        let r = HostError::from_code(ErrorCode::EventInFlight, "busy")
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
    fn the_body_is_the_interface_shape() {
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
