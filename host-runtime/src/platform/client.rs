//! The HTTP client the runtime calls out with: to fetch the host's key set, and to post the
//! vendor's own signed events.
//!
//! Natively (feature `client`, part of the default `server`) it is hyper's pooled client over rustls
//! with the `ring` provider, one client per process: HTTP/1.1, the platform's trust store, the
//! proxies the environment names (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`), and
//! redirects followed up to ten (never from https to plain http). Elsewhere, a platform brings its own: the Workers
//! adapter implements [`HttpClient`] with the Worker's `fetch`. Set one with
//! `Handler::with_http_client` and `EventSender::with_http_client`.
//!
//! Time limits are the runtime's: it stops waiting on the future when its deadline passes, so an
//! implementation need not time out on its own (it may).

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;

use crate::cause::Cause;
use crate::platform::BoxFuture;

/// What kind of failure kept a request from its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClientErrorKind {
    /// No connection could be made (DNS, refused, TLS handshake).
    Connect,
    /// No answer in time.
    Timeout,
    /// The answer's body is larger than the caller accepts.
    TooLarge,
    /// The connection broke while the answer was read.
    Body,
    /// The request could not be built or sent (a refused URL, no client on this platform).
    Request,
    /// Anything else.
    Other,
}

/// Why a request got no answer: no connection, a broken or oversized body, a refused URL. The
/// client's own error, when there is one, is the [`source`](std::error::Error::source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    kind: ClientErrorKind,
    message: String,
    source: Cause,
}

impl ClientError {
    /// An error of this kind, saying what happened.
    pub fn new(kind: ClientErrorKind, message: impl Into<String>) -> Self {
        ClientError {
            kind,
            message: message.into(),
            source: Cause::default(),
        }
    }

    /// The same error, caused by `source` (the HTTP client's own error).
    pub fn with_source(mut self, source: impl Into<crate::platform::BoxError>) -> Self {
        self.source = Cause::of(source);
        self
    }

    /// What kind of failure it was.
    pub fn kind(&self) -> ClientErrorKind {
        self.kind
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.get()
    }
}

/// One request out, its whole answer back.
pub trait HttpClient: Send + Sync + 'static {
    /// Sends `request` and reads the answer's body, refusing one longer than `max_body` bytes
    /// (an error, not a truncated body). Any status is an answer; only a failure to get one is an
    /// error.
    fn send(
        &self,
        request: http::Request<Bytes>,
        max_body: usize,
    ) -> BoxFuture<'_, Result<http::Response<Bytes>, ClientError>>;
}

/// A shared [`HttpClient`], cheap to clone.
#[derive(Clone)]
pub struct Client(Arc<dyn HttpClient>);

impl Client {
    /// Wraps a client.
    pub fn new(client: impl HttpClient) -> Self {
        Client(Arc::new(client))
    }

    /// The platform's default: hyper's client over rustls natively (feature `client`), none
    /// otherwise.
    pub fn platform_default() -> Option<Client> {
        #[cfg(feature = "client")]
        {
            native::shared()
        }
        #[cfg(not(feature = "client"))]
        {
            None
        }
    }

    /// Sends one request (see [`HttpClient::send`]).
    pub async fn send(
        &self,
        request: http::Request<Bytes>,
        max_body: usize,
    ) -> Result<http::Response<Bytes>, ClientError> {
        self.0.send(request, max_body).await
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Client(..)")
    }
}

#[cfg(feature = "client")]
mod native;
#[cfg(feature = "client")]
mod redirect;
