//! The native HTTP client: hyper's pooled client over rustls (`ring`), HTTP/1.1.
//!
//! What it does beyond sending a request, as the client it replaced (reqwest, configured as this
//! crate had it) did, so a server behaves the same:
//!
//! - certificates are checked by the platform's verifier (the operating system's trust store);
//! - a proxy named by `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` (or their lowercase forms) is used
//!   unless `NO_PROXY` excludes the host, as curl reads them: an https destination through an HTTP
//!   `CONNECT` tunnel, a plain http one by asking the proxy with the absolute URL, with the proxy's
//!   credentials from its URL (`http://user:password@proxy:3128`);
//! - redirects are followed, ten at most (see [`redirect`](super::redirect)): 301, 302 and 303
//!   turn a request other than `HEAD` into a `GET` without a body, 307 and 308 repeat it; the
//!   credentials a request carries are not sent to another origin.
//!
//! One difference is deliberate: a redirect from https to plain http is refused (an error), where
//! the old client followed it. The key set a server trusts tokens by is fetched over https, and a
//! redirect must not hand it to anyone on the path.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{ACCEPT, HeaderValue, PROXY_AUTHORIZATION};
use http::{Request, Response, Uri};
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as Pooled;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tower::Service;

use super::redirect::{self, Hop};
use super::{ClientError, ClientErrorKind, HttpClient};
use crate::platform::{BoxError, BoxFuture};

/// One client for the process: its connections are reused across fetches and events. `None`
/// when TLS cannot be set up (logged).
pub(super) fn shared() -> Option<super::Client> {
    static CLIENT: OnceLock<Option<super::Client>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            // rustls 0.23.48 deprecates `ring`'s provider for lacking post-quantum key exchange,
            // which only its `aws-lc-rs` provider has: that one needs a C toolchain and CMake at
            // build time and doubles a cold build, for connections that carry short-lived signed
            // requests. A vendor who wants it installs it before serving, and this line then
            // leaves it in place.
            #[allow(deprecated)]
            let _ = rustls::crypto::ring::default_provider().install_default();
            match Native::new() {
                Ok(client) => Some(super::Client::new(client)),
                Err(e) => {
                    tracing::error!(error = %e, "no HTTP client could be built (TLS set-up failed)");
                    None
                }
            }
        })
        .clone()
}

/// The client: a pool of connections per origin, through the environment's proxies.
pub(super) struct Native {
    pool: Pooled<Connector, Full<Bytes>>,
    proxies: Arc<Matcher>,
}

impl Native {
    /// A client checking certificates with the platform's verifier and the process's default
    /// rustls provider, through the proxies the environment names.
    pub(super) fn new() -> Result<Native, rustls::Error> {
        use rustls_platform_verifier::ConfigVerifierExt;
        Ok(Native::with(
            rustls::ClientConfig::with_platform_verifier()?,
            Matcher::from_env(),
        ))
    }

    /// A client with this TLS configuration and these proxies.
    pub(super) fn with(tls: rustls::ClientConfig, proxies: Matcher) -> Native {
        let proxies = Arc::new(proxies);
        let connector = Connector::new(tls, Arc::clone(&proxies));
        let pool = Pooled::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .build(connector);
        Native { pool, proxies }
    }

    /// Sends one request, no redirect followed.
    async fn once(&self, request: &Hop) -> Result<Response<hyper::body::Incoming>, ClientError> {
        let mut sent = Request::builder()
            .method(request.method.clone())
            .uri(request.uri.clone())
            .body(Full::new(request.body.clone()))
            .map_err(|e| {
                ClientError::new(ClientErrorKind::Request, "the request could not be built")
                    .with_source(e)
            })?;
        *sent.headers_mut() = request.headers.clone();
        if !sent.headers().contains_key(ACCEPT) {
            sent.headers_mut()
                .insert(ACCEPT, HeaderValue::from_static("*/*"));
        }
        // A plain http request through a proxy is asked of the proxy itself, with its credentials;
        // an https one goes through a tunnel, which carries them in its `CONNECT`.
        if request.uri.scheme() == Some(&http::uri::Scheme::HTTP)
            && let Some(proxy) = self.proxies.intercept(&request.uri)
            && let Some(auth) = proxy.basic_auth()
        {
            sent.headers_mut().insert(PROXY_AUTHORIZATION, auth.clone());
        }
        self.pool.request(sent).await.map_err(from_sending)
    }
}

impl HttpClient for Native {
    fn send(
        &self,
        request: Request<Bytes>,
        max_body: usize,
    ) -> BoxFuture<'_, Result<Response<Bytes>, ClientError>> {
        Box::pin(async move {
            let mut hop = Hop::of(request)?;
            let mut followed = 0;
            let response = loop {
                let response = self.once(&hop).await?;
                match redirect::next(&hop, &response, followed)? {
                    Some(next) => {
                        followed += 1;
                        hop = next;
                    }
                    None => break response,
                }
            };
            let (parts, mut body) = response.into_parts();
            let mut bytes = Vec::new();
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| {
                    ClientError::new(ClientErrorKind::Body, "the answer broke off").with_source(e)
                })?;
                if let Ok(chunk) = frame.into_data() {
                    if bytes.len() + chunk.len() > max_body {
                        return Err(ClientError::new(
                            ClientErrorKind::TooLarge,
                            format!("the answer is larger than {max_body} bytes"),
                        ));
                    }
                    bytes.extend_from_slice(&chunk);
                }
            }
            Ok(Response::from_parts(parts, Bytes::from(bytes)))
        })
    }
}

/// The pooled client's error, classified. Its messages name no URL (a query may hold secrets).
fn from_sending(e: hyper_util::client::legacy::Error) -> ClientError {
    if e.is_connect() {
        ClientError::new(ClientErrorKind::Connect, "no connection").with_source(e)
    } else {
        ClientError::new(ClientErrorKind::Other, "the request failed").with_source(e)
    }
}

/// Opens a connection to a destination: directly, through a `CONNECT` tunnel for an https one a
/// proxy intercepts, or to the proxy itself for a plain http one.
#[derive(Clone)]
struct Connector {
    /// TCP, then TLS for an https destination.
    direct: HttpsConnector<HttpConnector>,
    tls: rustls::ClientConfig,
    proxies: Arc<Matcher>,
}

impl Connector {
    fn new(tls: rustls::ClientConfig, proxies: Arc<Matcher>) -> Connector {
        Connector {
            direct: https(tls.clone(), tcp()),
            tls,
            proxies,
        }
    }
}

/// TCP connections for any scheme (TLS is the layer above), without Nagle's delay: a request is
/// written whole and waits for its answer.
fn tcp() -> HttpConnector {
    let mut tcp = HttpConnector::new();
    tcp.enforce_http(false);
    tcp.set_nodelay(true);
    tcp
}

/// TLS over `inner` for an https destination, `inner` alone for a plain http one.
fn https<C>(tls: rustls::ClientConfig, inner: C) -> HttpsConnector<C> {
    hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(inner)
}

impl Service<Uri> for Connector {
    type Response = Stream;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Stream, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, destination: Uri) -> Self::Future {
        let secure = destination.scheme() == Some(&http::uri::Scheme::HTTPS);
        match self.proxies.intercept(&destination) {
            None => {
                let mut direct = self.direct.clone();
                Box::pin(async move { Ok(Stream::new(direct.call(destination).await?, false)) })
            }
            Some(proxy) if secure => {
                // CONNECT through the proxy (itself reached over TLS when its URL is https), then
                // TLS with the destination inside the tunnel.
                let mut tunnel = Tunnel::new(proxy.uri().clone(), https(self.tls.clone(), tcp()));
                if let Some(auth) = proxy.basic_auth() {
                    tunnel = tunnel.with_auth(auth.clone());
                }
                let mut through = https(self.tls.clone(), tunnel);
                Box::pin(async move { Ok(Stream::new(through.call(destination).await?, false)) })
            }
            Some(proxy) => {
                let mut direct = self.direct.clone();
                let proxy = proxy.uri().clone();
                Box::pin(async move { Ok(Stream::new(direct.call(proxy).await?, true)) })
            }
        }
    }
}

/// What a connection is read and written through.
trait Io: hyper::rt::Read + hyper::rt::Write + Connection + Send + Unpin {}
impl<T: hyper::rt::Read + hyper::rt::Write + Connection + Send + Unpin> Io for T {}

/// One connection, direct or through a proxy: `proxied` when requests on it are asked of the proxy
/// (with the absolute URL as their target).
struct Stream {
    io: Box<dyn Io>,
    proxied: bool,
}

impl Stream {
    fn new(io: impl Io + 'static, proxied: bool) -> Stream {
        Stream {
            io: Box::new(io),
            proxied,
        }
    }
}

impl Connection for Stream {
    fn connected(&self) -> Connected {
        self.io.connected().proxy(self.proxied)
    }
}

impl hyper::rt::Read for Stream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.io).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Stream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.io).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.io).poll_write_vectored(cx, bufs)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A client that trusts no certificate (these tests speak plain http), through `proxies`.
    fn client(proxies: Matcher) -> Native {
        // `ring`, the provider the runtime installs (see `shared`).
        #[allow(deprecated)]
        let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth();
        Native::with(tls, proxies)
    }

    fn direct() -> Native {
        client(Matcher::builder().build())
    }

    /// One request read off a connection: its head (request line and headers, lowercase) and body;
    /// `None` when the client closed the connection between requests.
    async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        let head_end = loop {
            let n = socket.read(&mut buf).await.unwrap();
            if n == 0 {
                assert!(seen.is_empty(), "the connection closed in a request head");
                return None;
            }
            seen.extend_from_slice(&buf[..n]);
            if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
        };
        let head = String::from_utf8_lossy(&seen[..head_end]).to_ascii_lowercase();
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |n| n.trim().parse::<usize>().unwrap());
        let mut body = seen[head_end..].to_vec();
        while body.len() < length {
            let n = socket.read(&mut buf).await.unwrap();
            body.extend_from_slice(&buf[..n]);
        }
        Some((head, body))
    }

    /// A test server: where it listens, the request heads it was sent, and how many connections
    /// it accepted.
    struct Server {
        at: std::net::SocketAddr,
        heads: Arc<Mutex<Vec<String>>>,
        connections: Arc<std::sync::atomic::AtomicUsize>,
    }

    /// A server answering each request with what `answer` makes of its head and body.
    async fn serve(answer: impl Fn(&str, &[u8]) -> String + Send + Sync + 'static) -> Server {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = Server {
            at: listener.local_addr().unwrap(),
            heads: Arc::default(),
            connections: Arc::new(AtomicUsize::new(0)),
        };
        let (kept, accepted) = (Arc::clone(&server.heads), Arc::clone(&server.connections));
        let answer = Arc::new(answer);
        tokio::spawn(async move {
            loop {
                let (mut socket, _) = listener.accept().await.unwrap();
                accepted.fetch_add(1, Ordering::SeqCst);
                let (kept, answer) = (Arc::clone(&kept), Arc::clone(&answer));
                tokio::spawn(async move {
                    while let Some((head, body)) = read_request(&mut socket).await {
                        let reply = answer(&head, &body);
                        kept.lock().unwrap().push(head);
                        if socket.write_all(reply.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        server
    }

    fn ok(body: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    fn post(url: &str, body: &'static str) -> Request<Bytes> {
        Request::post(url)
            .header("content-type", "application/json")
            .body(Bytes::from_static(body.as_bytes()))
            .unwrap()
    }

    #[tokio::test]
    async fn a_request_gets_its_answer_and_a_connection_is_reused() {
        let Server {
            at,
            heads,
            connections,
        } = serve(|head, body| {
            ok(&format!(
                "{} {}",
                head.lines().next().unwrap(),
                String::from_utf8_lossy(body)
            ))
        })
        .await;
        let client = direct();
        for _ in 0..3 {
            let answer = client
                .send(post(&format!("http://{at}/events"), "{\"a\":1}"), 1024)
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);
            assert_eq!(&answer.body()[..], b"post /events http/1.1 {\"a\":1}");
        }
        // Three requests, one connection: each answer was read whole, so it went back to the pool.
        assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 1);
        let heads = heads.lock().unwrap();
        assert_eq!(heads.len(), 3);
        assert!(heads[0].contains("\r\naccept: */*\r\n"), "{}", heads[0]);
        assert!(
            heads[0].contains(&format!("\r\nhost: {at}\r\n")),
            "{}",
            heads[0]
        );
    }

    #[tokio::test]
    async fn an_answer_over_the_limit_is_refused_not_cut() {
        let Server { at, .. } = serve(|_, _| ok(&"x".repeat(2000))).await;
        let e = direct()
            .send(post(&format!("http://{at}/"), "{}"), 1999)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ClientErrorKind::TooLarge);
        assert_eq!(e.to_string(), "the answer is larger than 1999 bytes");
        let whole = direct()
            .send(post(&format!("http://{at}/"), "{}"), 2000)
            .await
            .unwrap();
        assert_eq!(whole.body().len(), 2000);
    }

    #[tokio::test]
    async fn no_listener_is_a_connect_error_and_an_answer_cut_short_a_body_error() {
        let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let at = closed.local_addr().unwrap();
        drop(closed);
        let e = direct()
            .send(post(&format!("http://{at}/"), "{}"), 1024)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ClientErrorKind::Connect, "{e}");
        assert!(std::error::Error::source(&e).is_some());

        // The head promises 100 bytes; 10 come, then the connection closes.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let at = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            read_request(&mut socket).await.unwrap();
            let _ = socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n0123456789")
                .await;
        });
        let e = direct()
            .send(post(&format!("http://{at}/"), "{}"), 1024)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ClientErrorKind::Body, "{e}");
    }

    #[tokio::test]
    async fn a_307_is_followed_with_the_body_and_a_303_as_a_get_without() {
        let Server { at, heads, .. } = serve(|head, body| {
            let line = head.lines().next().unwrap().to_owned();
            if line.contains(" /old ") {
                "HTTP/1.1 307 Temporary Redirect\r\nlocation: /new\r\ncontent-length: 0\r\n\r\n"
                    .to_owned()
            } else if line.contains(" /other ") {
                "HTTP/1.1 303 See Other\r\nlocation: new\r\ncontent-length: 0\r\n\r\n".to_owned()
            } else {
                ok(&format!("{line} {}", String::from_utf8_lossy(body)))
            }
        })
        .await;
        let client = direct();
        let answer = client
            .send(post(&format!("http://{at}/old"), "{\"a\":1}"), 1024)
            .await
            .unwrap();
        assert_eq!(&answer.body()[..], b"post /new http/1.1 {\"a\":1}");
        let answer = client
            .send(post(&format!("http://{at}/other"), "{\"a\":1}"), 1024)
            .await
            .unwrap();
        assert_eq!(&answer.body()[..], b"get /new http/1.1 ");
        let heads = heads.lock().unwrap();
        assert!(
            heads[1].contains(&format!("\r\nreferer: http://{at}/old\r\n")),
            "{}",
            heads[1]
        );
        assert!(!heads[3].contains("content-type"), "{}", heads[3]);
    }

    #[tokio::test]
    async fn a_redirect_loop_ends_in_an_error_after_ten() {
        let Server { at, heads, .. } = serve(|_, _| {
            "HTTP/1.1 302 Found\r\nlocation: /again\r\ncontent-length: 0\r\n\r\n".to_owned()
        })
        .await;
        let e = direct()
            .send(
                Request::get(format!("http://{at}/"))
                    .body(Bytes::new())
                    .unwrap(),
                1024,
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("more than 10"), "{e}");
        assert_eq!(heads.lock().unwrap().len(), 11);
    }

    #[tokio::test]
    async fn a_plain_request_through_a_proxy_names_the_whole_url_and_the_proxy_credentials() {
        let Server {
            at: proxy, heads, ..
        } = serve(|_, _| ok("from the proxy")).await;
        let client = client(
            Matcher::builder()
                .http(format!("http://user:secret@{proxy}"))
                .build(),
        );
        let answer = client
            .send(post("http://upstream.invalid:8080/events", "{}"), 1024)
            .await
            .unwrap();
        assert_eq!(&answer.body()[..], b"from the proxy");
        let heads = heads.lock().unwrap();
        assert!(
            heads[0].starts_with("post http://upstream.invalid:8080/events http/1.1\r\n"),
            "{}",
            heads[0]
        );
        // base64("user:secret")
        assert!(
            heads[0].contains("\r\nproxy-authorization: basic dxnlcjpzzwnyzxq=\r\n"),
            "{}",
            heads[0]
        );
    }

    #[tokio::test]
    async fn an_https_request_through_a_proxy_asks_for_a_tunnel_first() {
        // The proxy refuses the tunnel: the request fails to connect, and the proxy saw only the
        // CONNECT, with the credentials, never the request itself.
        let Server {
            at: proxy, heads, ..
        } = serve(|_, _| "HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n".to_owned()).await;
        let client = client(
            Matcher::builder()
                .https(format!("http://user:secret@{proxy}"))
                .build(),
        );
        let e = client
            .send(
                post("https://upstream.invalid/events", "{\"secret\":1}"),
                1024,
            )
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ClientErrorKind::Connect, "{e}");
        let heads = heads.lock().unwrap();
        assert_eq!(heads.len(), 1);
        assert!(
            heads[0].starts_with("connect upstream.invalid:443 http/1.1\r\n"),
            "{}",
            heads[0]
        );
        assert!(
            heads[0].contains("proxy-authorization: basic "),
            "{}",
            heads[0]
        );
    }

    #[tokio::test]
    async fn no_proxy_hosts_are_reached_directly() {
        let Server {
            at: proxy,
            heads: through,
            ..
        } = serve(|_, _| ok("from the proxy")).await;
        let Server { at, heads, .. } = serve(|_, _| ok("direct")).await;
        let client = client(
            Matcher::builder()
                .all(format!("http://{proxy}"))
                .no("127.0.0.1")
                .build(),
        );
        let answer = client
            .send(post(&format!("http://{at}/"), "{}"), 1024)
            .await
            .unwrap();
        assert_eq!(&answer.body()[..], b"direct");
        assert_eq!(heads.lock().unwrap().len(), 1);
        assert!(through.lock().unwrap().is_empty());
    }
}
