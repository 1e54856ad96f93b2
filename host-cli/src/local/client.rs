//! HTTP to the vendor server under test: one client per command, routes appended to `--server`, a
//! time limit per request, and failures sorted into "nothing listens there" and the rest, because
//! the commands answer them differently (exit 2 with a hint to start the server, or a failed check).

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::Value;

use super::Fail;
use crate::output::d3_error;

/// The vendor server under test.
#[derive(Clone)]
pub(crate) struct Client {
    http: reqwest::Client,
    base: String,
}

/// One answer of the server.
#[derive(Debug)]
pub(crate) struct Answer {
    /// HTTP status.
    pub status: u16,
    /// The body as JSON, when it is JSON.
    pub json: Option<Value>,
    /// The raw body.
    pub body: Bytes,
    /// Time from sending to the whole body.
    pub elapsed: Duration,
}

impl Answer {
    /// The status's reason phrase: `OK`, `Unprocessable Entity` (empty for an unknown status).
    pub(crate) fn reason(&self) -> &'static str {
        http::StatusCode::from_u16(self.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("")
    }

    /// Whether the status is 2xx.
    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The error the body carries: `(code, message)`.
    pub(crate) fn error(&self) -> Option<(String, String)> {
        d3_error(self.json.as_ref())
    }
}

/// Why no answer came.
#[derive(Debug)]
pub(crate) enum SendError {
    /// Nothing accepts connections at the address (refused, unknown host).
    Unreachable(String),
    /// Connected, but no whole answer within the time limit.
    Timeout(Duration),
    /// Anything else (a broken connection, a bad redirect).
    Failed(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Unreachable(why) => write!(f, "cannot connect ({why})"),
            SendError::Timeout(limit) => {
                write!(f, "no answer within {}", crate::output::wait(*limit))
            }
            SendError::Failed(why) => f.write_str(why),
        }
    }
}

/// What to send.
pub(crate) struct Request<'a> {
    /// GET or POST.
    pub method: http::Method,
    /// The route, e.g. `/host/tools/keyword-ranks`.
    pub route: String,
    /// Query parameters.
    pub query: Vec<(&'a str, String)>,
    /// Extra headers (the token, `X-Host-Event-Id`).
    pub headers: Vec<(&'a str, String)>,
    /// A JSON body.
    pub body: Option<&'a Value>,
    /// Time limit for the whole answer.
    pub timeout: Duration,
}

impl Client {
    /// A client for the server at `server` (`http://` or `https://`, no query).
    pub(crate) fn new(server: &str) -> Result<Client, Fail> {
        let url = reqwest::Url::parse(server).map_err(|e| {
            Fail::usage(format!(
                "`--server {server}` is not a URL ({e}); pass one such as {}",
                super::DEFAULT_SERVER
            ))
        })?;
        if !matches!(url.scheme(), "http" | "https") || url.query().is_some() {
            return Err(Fail::usage(format!(
                "`--server {server}` must be an http:// or https:// address without a query, such as {}",
                super::DEFAULT_SERVER
            )));
        }
        // reqwest is built without a default TLS provider (the SDK uses ring); another call may have
        // installed it already, which is fine.
        #[allow(deprecated)] // ring, as everywhere in the SDK (see host-runtime's client)
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            // A proxy from the environment must not sit between the local host and a local server.
            .no_proxy()
            .build()
            .map_err(|e| Fail::usage(format!("cannot set up HTTP: {e}")))?;
        Ok(Client {
            http,
            base: server.trim_end_matches('/').to_owned(),
        })
    }

    /// The server address as given, without a trailing slash.
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// The full URL of a route.
    pub(crate) fn url(&self, route: &str) -> String {
        format!("{}{route}", self.base)
    }

    /// The full URL of a route with query parameters, encoded as [`Client::send`] sends them.
    pub(crate) fn url_with(&self, route: &str, query: &[(&str, String)]) -> String {
        self.parse_url(route, query)
            .map_or_else(|_| self.url(route), |u| u.to_string())
    }

    fn parse_url(&self, route: &str, query: &[(&str, String)]) -> Result<reqwest::Url, SendError> {
        let mut url = reqwest::Url::parse(&self.url(route))
            .map_err(|e| SendError::Failed(format!("bad URL: {e}")))?;
        if !query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for (k, v) in query {
                pairs.append_pair(k, v);
            }
        }
        Ok(url)
    }

    /// Sends one request and reads the whole answer.
    pub(crate) async fn send(&self, request: Request<'_>) -> Result<Answer, SendError> {
        let url = self.parse_url(&request.route, &request.query)?;
        let mut builder = self
            .http
            .request(request.method, url)
            .timeout(request.timeout);
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        if let Some(body) = request.body {
            builder = builder
                .header(http::header::CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        let started = Instant::now();
        let classify = |e: reqwest::Error| {
            if e.is_timeout() {
                SendError::Timeout(request.timeout)
            } else if e.is_connect() {
                SendError::Unreachable(root_cause(&e))
            } else {
                SendError::Failed(root_cause(&e))
            }
        };
        let response = builder.send().await.map_err(classify)?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(classify)?;
        let elapsed = started.elapsed();
        let json = serde_json::from_slice(&body).ok();
        Ok(Answer {
            status,
            json,
            body,
            elapsed,
        })
    }
}

/// The innermost error text ("Connection refused (os error 111)"), which says more than reqwest's
/// own "error sending request".
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// The message for a server that does not answer at all.
pub(crate) fn no_server(base: &str) -> String {
    format!("no server answers at {base}; start your vendor server first (or pass --server URL)")
}
