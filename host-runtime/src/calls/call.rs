//! What a handler receives: the shared call body of the interface (`install`, `context`, `input`,
//! `credentials`, `documents`), the verified token claims, and for event deliveries the event id.
//!
//! The generated code names these with the manifest's own types, for example
//! `ToolCall<tools::keyword_ranks::Input>` is `Call<tools::keyword_ranks::Input, Credentials, Documents>`.

use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::calls::events::Timestamp;

/// The install a call belongs to (`install` of the call body; built from the claims on a GET).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Install {
    /// The install id.
    pub id: String,
    /// The extension id.
    pub extension_id: String,
    /// The project, or `None` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
    /// The organization.
    pub organization_id: String,
}

/// `context` of the call body: where in the host the call comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallContext {
    /// The project shown.
    #[serde(default)]
    pub project_id: Option<String>,
    /// `ios`, `android` or `all`.
    #[serde(default)]
    pub platform: Option<String>,
    /// Start of the period shown.
    #[serde(default)]
    pub from: Option<Timestamp>,
    /// End of the period shown.
    #[serde(default)]
    pub to: Option<Timestamp>,
    /// The owner's filters, on calls from a filtered surface.
    #[serde(default)]
    pub filters: Option<Filters>,
}

/// The owner's filters; each member may be `all`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Filters {
    /// The date range.
    #[serde(default)]
    pub range: Option<DateRange>,
    /// `ios`, `android` or `all`.
    #[serde(default)]
    pub platform: Option<String>,
    /// A country code or `all`.
    #[serde(default)]
    pub country: Option<String>,
}

/// A `from`/`to` pair. The host's `"all"` (no bound either way) reads as neither bound:
/// [`is_all`](Self::is_all).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct DateRange {
    /// Start.
    #[serde(default)]
    pub from: Option<Timestamp>,
    /// End.
    #[serde(default)]
    pub to: Option<Timestamp>,
}

impl DateRange {
    /// Whether the range is bounded neither way: the host's `"all"`.
    pub fn is_all(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }
}

impl<'de> Deserialize<'de> for DateRange {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Word(String),
            Bounds {
                #[serde(default)]
                from: Option<Timestamp>,
                #[serde(default)]
                to: Option<Timestamp>,
            },
        }
        match Written::deserialize(deserializer) {
            Ok(Written::Word(word)) if word == "all" => Ok(DateRange::default()),
            Ok(Written::Word(word)) => Err(serde::de::Error::custom(format!(
                "a date range is \"all\" or {{\"from\", \"to\"}}, not {word:?}"
            ))),
            Ok(Written::Bounds { from, to }) => Ok(DateRange { from, to }),
            Err(_) => Err(serde::de::Error::custom(
                "a date range is \"all\" or {\"from\", \"to\"} with timestamps",
            )),
        }
    }
}

impl CallContext {
    /// `context` of a call body, member by member: a member that cannot be read (a filter value
    /// this SDK does not know yet, say) is left out and logged, and the rest is kept, rather than
    /// the whole context being lost.
    pub(crate) fn lenient(value: serde_json::Value) -> Self {
        if value.is_null() {
            return CallContext::default();
        }
        // Read from a reference: no copy of the context on the request path.
        if let Ok(context) = CallContext::deserialize(&value) {
            return context;
        }
        let mut context = CallContext::default();
        let serde_json::Value::Object(members) = value else {
            tracing::warn!("the call's `context` is not an object; it is left out");
            return context;
        };
        for (name, member) in members {
            let read = match name.as_str() {
                "projectId" => serde_json::from_value(member).map(|v| context.project_id = v),
                "platform" => serde_json::from_value(member).map(|v| context.platform = v),
                "from" => serde_json::from_value(member).map(|v| context.from = v),
                "to" => serde_json::from_value(member).map(|v| context.to = v),
                "filters" => {
                    context.filters = Filters::lenient(member);
                    Ok(())
                }
                _ => Ok(()),
            };
            if let Err(e) = read {
                tracing::warn!(member = %name, error = %e, "a member of the call's `context` could not be read; it is left out");
            }
        }
        context
    }
}

impl Filters {
    /// `filters`, member by member (see [`CallContext::lenient`]).
    fn lenient(value: serde_json::Value) -> Option<Self> {
        let serde_json::Value::Object(members) = value else {
            if !value.is_null() {
                tracing::warn!("`context.filters` is not an object; it is left out");
            }
            return None;
        };
        let mut filters = Filters::default();
        for (name, member) in members {
            let read = match name.as_str() {
                "range" => serde_json::from_value(member).map(|v| filters.range = v),
                "platform" => serde_json::from_value(member).map(|v| filters.platform = v),
                "country" => serde_json::from_value(member).map(|v| filters.country = v),
                _ => Ok(()),
            };
            if let Err(e) = read {
                tracing::warn!(member = %name, error = %e, "a member of `context.filters` could not be read; it is left out");
            }
        }
        Some(filters)
    }
}

/// The verified install token's claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claims {
    /// Issuer.
    pub iss: String,
    /// Audiences; one of them is the extension id.
    pub aud: Vec<String>,
    /// The install id.
    pub sub: String,
    /// Issued at (unix seconds).
    pub iat: i64,
    /// Expires at (unix seconds).
    pub exp: i64,
    /// Not before (unix seconds).
    #[serde(default)]
    pub nbf: Option<i64>,
    /// Token id.
    #[serde(default)]
    pub jti: Option<String>,
    /// The install's organization.
    pub organization_id: String,
    /// The install's project, `None` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
    /// Token generation; increments on `install.token_rotated`.
    pub generation: u64,
    /// Scopes granted to the install.
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl Claims {
    /// Whether the install was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// Credentials of an extension whose connector declares no auth fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NoCredentials {}

/// Documents of an extension that declares no storage and no settings panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NoDocuments {}

/// One document of a (non-singleton) storage collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document<T> {
    /// Document id.
    pub id: String,
    /// The document, typed by the collection's schema.
    pub data: T,
    /// Last change.
    pub updated_at: Timestamp,
}

/// The OAuth token the host keeps for an install of a `method: "oauth"` connector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthToken {
    /// Bearer token for the outside service.
    pub access_token: String,
    /// When it expires, if known.
    #[serde(default)]
    pub expires_at: Option<Timestamp>,
    /// Scopes the outside service granted.
    #[serde(default)]
    pub scopes: Vec<String>,
}

/// The raw HTTP request a call arrived in, read-only: its method, path, query string, headers and
/// body as the host sent them, for a trace id, a user agent or a signature of your own. The
/// `Authorization` header is left out: the verified token's claims are in the call.
#[derive(Debug, Clone, Default)]
pub struct RequestParts {
    method: http::Method,
    path: String,
    query: Option<String>,
    headers: http::HeaderMap,
    body: bytes::Bytes,
}

impl RequestParts {
    pub(crate) fn of(request: &http::Request<bytes::Bytes>) -> Self {
        let mut headers = request.headers().clone();
        headers.remove(http::header::AUTHORIZATION);
        RequestParts {
            method: request.method().clone(),
            path: request.uri().path().to_owned(),
            query: request.uri().query().map(str::to_owned),
            headers,
            // `Bytes` shares the buffer: no copy of the body.
            body: request.body().clone(),
        }
    }

    /// The HTTP method.
    pub fn method(&self) -> &http::Method {
        &self.method
    }

    /// The path, as the host sent it (with the base path, if any; without the query).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The query string, as the host sent it (still percent-encoded, without the `?`), if any: a
    /// mention's `q=...`, say.
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref()
    }

    /// The headers, without `Authorization`.
    pub fn headers(&self) -> &http::HeaderMap {
        &self.headers
    }

    /// One header's value, when present and readable as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body, byte for byte as it arrived (empty for a `GET`).
    pub fn body(&self) -> &[u8] {
        &self.body
    }
}

/// One verified host call, with its typed input, credentials and documents.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Call<I, C, D> {
    /// The typed `input` (for an event delivery: the event's payload).
    pub input: I,
    /// Connector credentials, keyed by the manifest's auth field names.
    pub credentials: C,
    /// Hosted storage documents.
    pub documents: D,
    /// The install.
    pub install: Install,
    /// Where in the host the call comes from.
    pub context: CallContext,
    /// The verified token claims.
    pub claims: Claims,
    /// `X-Host-Event-Id` of an event delivery: differs per attempt, so never a deduplication key.
    pub event_id: Option<String>,
    /// The HTTP request, read-only.
    pub request: RequestParts,
}

/// An action call the owner approved. Only the runtime builds one, from the host's call to the action
/// route, which the host sends only after approval; a vendor's code cannot make one up.
#[derive(Debug, Clone)]
pub struct Approved<I, C, D> {
    call: Call<I, C, D>,
}

impl<I, C, D> Approved<I, C, D> {
    pub(crate) fn new(call: Call<I, C, D>) -> Self {
        Approved { call }
    }

    /// The call, by value.
    pub fn into_call(self) -> Call<I, C, D> {
        self.call
    }
}

impl<I, C, D> Deref for Approved<I, C, D> {
    type Target = Call<I, C, D>;
    fn deref(&self) -> &Call<I, C, D> {
        &self.call
    }
}

/// A mention picker call (`GET /host/mentions/<id>?q=`): no body, so no credentials or documents.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MentionCall {
    /// What the owner has typed so far.
    pub q: String,
    /// The install, built from the claims.
    pub install: Install,
    /// The verified token claims.
    pub claims: Claims,
    /// The HTTP request, read-only.
    pub request: RequestParts,
}

/// A context provider call (`GET /host/context/<id>`): no body, so no input, credentials or documents.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ContextCall {
    /// The install, built from the claims.
    pub install: Install,
    /// The verified token claims.
    pub claims: Claims,
    /// The HTTP request, read-only.
    pub request: RequestParts,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_range_of_all_reads_as_no_bounds() {
        let filters: Filters = serde_json::from_value(json!({
            "range": "all", "platform": "all", "country": "all"
        }))
        .unwrap();
        let range = filters.range.unwrap();
        assert!(range.is_all());
        assert_eq!(filters.platform.as_deref(), Some("all"));
        let bounded: DateRange = serde_json::from_value(json!({
            "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z"
        }))
        .unwrap();
        assert!(!bounded.is_all());
        let other = serde_json::from_value::<DateRange>(json!("last-week")).unwrap_err();
        assert!(other.to_string().contains("\"last-week\""), "{other}");
    }

    #[test]
    fn a_context_with_every_filter_all_keeps_every_member() {
        let context = CallContext::lenient(json!({
            "projectId": "prj_1", "platform": "ios",
            "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z",
            "filters": { "range": "all", "platform": "all", "country": "all" }
        }));
        assert_eq!(context.project_id.as_deref(), Some("prj_1"));
        assert_eq!(context.platform.as_deref(), Some("ios"));
        assert!(context.from.is_some() && context.to.is_some());
        assert!(context.filters.unwrap().range.unwrap().is_all());
    }

    #[test]
    fn a_member_that_cannot_be_read_loses_only_itself() {
        let context = CallContext::lenient(json!({
            "projectId": "prj_1", "platform": "ios",
            "from": 20261101, "to": "2026-11-02T00:00:00Z",
            "filters": { "range": "last-week", "country": "DE" }
        }));
        assert_eq!(context.project_id.as_deref(), Some("prj_1"));
        assert_eq!(context.platform.as_deref(), Some("ios"));
        assert!(context.from.is_none(), "not a string");
        assert!(context.to.is_some());
        let filters = context.filters.unwrap();
        assert!(filters.range.is_none());
        assert_eq!(filters.country.as_deref(), Some("DE"));
        assert_eq!(CallContext::lenient(json!(null)), CallContext::default());
        assert_eq!(CallContext::lenient(json!([1])), CallContext::default());
    }
}
