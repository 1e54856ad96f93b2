//! [`Handler::serve`] on hyper: a server that outlives bad clients and stops cleanly.
//!
//! - An accept error (too many open files, a connection aborted before it was accepted) is logged
//!   and the loop goes on after a short pause; it never ends the server.
//! - At most `max_connections` connections are open; past that, new ones wait in the listen queue.
//! - A client gets `header_timeout` to send a request's headers, and a connection with no bytes in or
//!   out for `idle_timeout` is closed once any call on it has been answered: slow or idle clients
//!   cannot hold connections (and file descriptors) for ever.
//! - On SIGTERM or ctrl-c (or the vendor's own signal, [`Handler::serve_until`]) the server stops
//!   accepting, lets the calls in flight finish within `shutdown_grace`, and returns.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

use crate::serving::handler::Handler;
use crate::serving::pipeline::Serving;

/// The pause after an accept error that is about resources (file descriptors, memory), so that a
/// full process does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

impl Handler {
    /// Serves the handler on `addr` with hyper (HTTP/1.1; with the `http2` feature also cleartext
    /// HTTP/2) until SIGTERM or ctrl-c, then lets the calls in flight finish (see
    /// [`with_shutdown_grace`](Self::with_shutdown_grace)) and returns.
    ///
    /// It does not start when the handler lacks a store its manifest needs
    /// ([`check_start`](Self::check_start)): the error (kind `InvalidInput`) names what to add.
    pub async fn serve(self, addr: SocketAddr) -> std::io::Result<()> {
        self.check_start().map_err(refused)?;
        let listener = TcpListener::bind(addr).await?;
        self.serve_on(listener).await
    }

    /// [`serve`](Self::serve) on a bound listener (for an ephemeral port in tests).
    pub async fn serve_on(self, listener: TcpListener) -> std::io::Result<()> {
        let stop = shutdown_signal();
        self.serve_until(listener, stop).await
    }

    /// Serves on `listener` until `shutdown` completes, then stops accepting, lets the calls in
    /// flight finish within the grace period and returns. Only an error of the listener's own
    /// address is returned; accept errors are logged and retried.
    pub async fn serve_until(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        self.check_start().map_err(refused)?;
        let limits = self.inner.config.serving;
        let permits = Arc::new(Semaphore::new(limits.max_connections));
        let (stop, stopping) = watch::channel(false);
        tokio::pin!(shutdown);
        loop {
            let permit = tokio::select! {
                () = &mut shutdown => break,
                permit = Arc::clone(&permits).acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => break,
                },
            };
            let stream = tokio::select! {
                () = &mut shutdown => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!(error = %e, "accepting a connection failed; the server goes on");
                        if !is_per_connection(&e) {
                            tokio::time::sleep(ACCEPT_PAUSE).await;
                        }
                        continue;
                    }
                },
            };
            let (handler, stopping) = (self.clone(), stopping.clone());
            tokio::spawn(async move {
                connection(handler, stream, limits, stopping).await;
                drop(permit);
            });
        }
        drop(listener);
        let open = limits.max_connections - permits.available_permits();
        tracing::info!(
            open,
            grace_s = limits.shutdown_grace.as_secs_f64(),
            "shutting down: no new connections; calls in flight may finish"
        );
        let _ = stop.send(true);
        let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
        match tokio::time::timeout(limits.shutdown_grace, permits.acquire_many(all)).await {
            Ok(_) => tracing::info!("shut down: every call was answered"),
            Err(_) => tracing::warn!(
                open = limits.max_connections - permits.available_permits(),
                "shut down with connections still open after the grace period"
            ),
        }
        Ok(())
    }
}

/// A handler that may not start, as the error `serve` returns.
fn refused(why: crate::serving::handler::StartError) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, why)
}

/// SIGTERM (what container platforms send before they stop a process) or ctrl-c: what
/// [`Handler::serve`] and [`Handler::serve_on`] stop on, for [`Handler::serve_until`].
///
/// SIGTERM's handler is installed when this is called, not when the future is first polled: a
/// server that says it is listening and only then starts to serve would otherwise be killed by a
/// SIGTERM sent in between (the default action), rather than stop cleanly. Call it before that
/// line. Must be called inside a tokio runtime.
///
/// ```no_run
/// # async fn run(handler: host_runtime::Handler) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8787").await?;
/// let stop = host_runtime::shutdown_signal();
/// println!("listening on http://{}", listener.local_addr()?);
/// handler.serve_until(listener, stop).await
/// # }
/// ```
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        let ctrl_c = async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        #[cfg(unix)]
        let term = async move {
            match term {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let term = std::future::pending::<()>();
        tokio::select! {
            () = ctrl_c => {}
            () = term => {}
        }
    }
}

/// Errors of one connection that came and went before it was accepted: retry at once. Anything
/// else (out of file descriptors or memory) waits a little first.
fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::Interrupted
    )
}

/// Serves one connection until the client closes it, it stays idle past the limit, or the server
/// stops (then the call in flight, if any, is answered first).
async fn connection(
    handler: Handler,
    stream: TcpStream,
    limits: Serving,
    mut stopping: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let started = Instant::now();
    let activity = Arc::new(AtomicU64::new(0));
    let io = hyper_util::rt::TokioIo::new(Watched {
        inner: stream,
        started,
        activity: Arc::clone(&activity),
    });
    let service = hyper_util::service::TowerToHyperService::new(handler);
    #[cfg(feature = "http2")]
    let builder = {
        let mut builder =
            hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
        builder
            .http1()
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        builder
    };
    #[cfg(feature = "http2")]
    let conn = builder.serve_connection(io, service);
    #[cfg(not(feature = "http2"))]
    let conn = {
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        builder.serve_connection(io, service)
    };
    tokio::pin!(conn);
    let mut closing = *stopping.borrow();
    if closing {
        conn.as_mut().graceful_shutdown();
    }
    let check = (limits.idle_timeout / 4).max(Duration::from_millis(50));
    loop {
        tokio::select! {
            // A connection error concerns that peer only.
            _ = conn.as_mut() => return,
            changed = stopping.changed(), if !closing => {
                if changed.is_err() || *stopping.borrow() {
                    closing = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
            () = tokio::time::sleep(check), if !closing => {
                let last = Duration::from_millis(activity.load(Ordering::Relaxed));
                if started.elapsed().saturating_sub(last) >= limits.idle_timeout {
                    tracing::debug!("closing an idle connection");
                    closing = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// A stream that records when bytes last went in or out (milliseconds since the connection began).
struct Watched {
    inner: TcpStream,
    started: Instant,
    activity: Arc<AtomicU64>,
}

impl Watched {
    fn touch(&self) {
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.activity.store(ms, Ordering::Relaxed);
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.touch();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
