//! The HTTP client the runtime calls out with: to fetch the host's key set, and to post the
//! vendor's own signed events.
//!
//! Natively (feature `client`, part of the default `server`) it is reqwest over rustls with the
//! `ring` provider, one client per process. Elsewhere, a platform brings its own: the Workers
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

    /// The platform's default: reqwest natively (feature `client`), none otherwise.
    pub fn platform_default() -> Option<Client> {
        #[cfg(feature = "client")]
        {
            reqwest_client::shared()
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
mod reqwest_client {
    use std::sync::OnceLock;

    use bytes::Bytes;

    use super::{Client, ClientError, ClientErrorKind, HttpClient};
    use crate::platform::BoxFuture;

    /// reqwest over rustls (`ring`).
    struct Reqwest(reqwest::Client);

    /// One client for the process: its connections are reused across fetches and events.
    pub(super) fn shared() -> Option<Client> {
        static CLIENT: OnceLock<Option<Client>> = OnceLock::new();
        CLIENT
            .get_or_init(|| {
                // reqwest is built without a default TLS provider; an installed one is fine too.
                // rustls 0.23.48 deprecates `ring`'s provider for lacking post-quantum key
                // exchange, which only its `aws-lc-rs` provider has: that one needs a C toolchain
                // and CMake at build time and doubles a cold build, for connections that carry
                // short-lived signed requests. A vendor who wants it installs it before serving,
                // and this line then leaves it in place.
                #[allow(deprecated)]
                let _ = rustls::crypto::ring::default_provider().install_default();
                match reqwest::Client::builder().build() {
                    Ok(client) => Some(Client::new(Reqwest(client))),
                    Err(e) => {
                        tracing::error!(error = %e, "no HTTP client could be built (TLS set-up failed)");
                        None
                    }
                }
            })
            .clone()
    }

    impl HttpClient for Reqwest {
        fn send(
            &self,
            request: http::Request<Bytes>,
            max_body: usize,
        ) -> BoxFuture<'_, Result<http::Response<Bytes>, ClientError>> {
            Box::pin(async move {
                let (parts, body) = request.into_parts();
                let mut response = self
                    .0
                    .request(parts.method, parts.uri.to_string())
                    .headers(parts.headers)
                    .body(body)
                    .send()
                    .await
                    .map_err(from_reqwest)?;
                let mut answer = http::Response::builder().status(response.status());
                if let Some(headers) = answer.headers_mut() {
                    *headers = std::mem::take(response.headers_mut());
                }
                let mut bytes = Vec::new();
                while let Some(chunk) = response.chunk().await.map_err(from_reqwest)? {
                    if bytes.len() + chunk.len() > max_body {
                        return Err(ClientError::new(
                            ClientErrorKind::TooLarge,
                            format!("the answer is larger than {max_body} bytes"),
                        ));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                answer.body(Bytes::from(bytes)).map_err(|e| {
                    ClientError::new(ClientErrorKind::Other, "the answer could not be read")
                        .with_source(e)
                })
            })
        }
    }

    /// reqwest's error, classified; the URL is left out (it may hold secrets in its query).
    fn from_reqwest(e: reqwest::Error) -> ClientError {
        let kind = if e.is_timeout() {
            ClientErrorKind::Timeout
        } else if e.is_connect() {
            ClientErrorKind::Connect
        } else if e.is_body() || e.is_decode() {
            ClientErrorKind::Body
        } else if e.is_builder() || e.is_request() {
            ClientErrorKind::Request
        } else {
            ClientErrorKind::Other
        };
        // What happened, in a sentence; reqwest's own words are the source.
        let what = match kind {
            ClientErrorKind::Timeout => "no answer in time",
            ClientErrorKind::Connect => "no connection",
            ClientErrorKind::Body => "the answer broke off",
            ClientErrorKind::Request => "the request could not be sent",
            _ => "the request failed",
        };
        ClientError::new(kind, what).with_source(e.without_url())
    }
}
