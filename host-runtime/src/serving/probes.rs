//! The operator's routes (`host_runtime::observe::Probes`), apart from the host's: liveness, readiness and the metrics text, served
//! on a port of their own ([`Probes::serve_until`]) or answered by the vendor's own router
//! ([`Probes::respond`]).
//!
//! `/host/health` is the host's contract (200 within 3 s) and stays as it is. An orchestrator wants
//! two other answers: **liveness**, which never asks a dependency (a database that blips must not
//! get every replica restarted), and **readiness**, which does (a replica whose stores do not answer
//! should get no traffic until they do).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Response, StatusCode, header};

use crate::platform::BoxFuture;
use crate::stores::dedupe::DedupeStore;

/// How long a readiness check waits for each store by default.
pub const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// Renders the metrics text (the exporter's, such as Prometheus' `PrometheusHandle::render`).
type Render = Arc<dyn Fn() -> String + Send + Sync>;

/// The stores a readiness check asks, and what `/metrics` answers.
///
/// ```no_run
/// # async fn run(handler: host_runtime::Handler, sender: host_runtime::EventSender) -> std::io::Result<()> {
/// use host_runtime::observe::Probes;
/// let probes = Probes::new().with_handler(&handler).with_sender(&sender);
/// let listener = tokio::net::TcpListener::bind("0.0.0.0:9464").await?;
/// tokio::spawn(probes.serve_until(listener, host_runtime::shutdown_signal()));
/// # Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct Probes {
    dedupe: Vec<Arc<dyn DedupeStore>>,
    senders: Vec<crate::EventSender>,
    timeout: Option<Duration>,
    render: Option<Render>,
}

impl std::fmt::Debug for Probes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probes")
            .field(
                "dedupe",
                &self.dedupe.iter().map(|s| s.name()).collect::<Vec<_>>(),
            )
            .field(
                "outboxes",
                &self
                    .senders
                    .iter()
                    .map(|s| s.outbox_store().name())
                    .collect::<Vec<_>>(),
            )
            .field("timeout", &self.timeout)
            .field("metrics", &self.render.is_some())
            .finish()
    }
}

/// One store's answer to a readiness check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreCheck {
    /// `dedupe` or `outbox`.
    pub role: &'static str,
    /// The store's name (`postgres`, `redis`, `file`, `memory`, ...).
    pub store: &'static str,
    /// `None` when it answered and is ready; otherwise why not.
    pub problem: Option<String>,
}

/// What a readiness check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// Every store asked, in the order they were given.
    pub checks: Vec<StoreCheck>,
}

impl Readiness {
    /// Whether every store answered.
    pub fn is_ready(&self) -> bool {
        self.checks.iter().all(|c| c.problem.is_none())
    }

    /// As JSON: `{"ready": bool, "stores": [{"role", "store", "ready", "problem"?}]}`.
    pub fn to_json(&self) -> serde_json::Value {
        let stores: Vec<serde_json::Value> = self
            .checks
            .iter()
            .map(|c| {
                let mut o = serde_json::json!({
                    "role": c.role, "store": c.store, "ready": c.problem.is_none()
                });
                if let Some(problem) = &c.problem {
                    o["problem"] = problem.clone().into();
                }
                o
            })
            .collect();
        serde_json::json!({ "ready": self.is_ready(), "stores": stores })
    }
}

impl Probes {
    /// Probes that ask no store yet.
    pub fn new() -> Self {
        Probes::default()
    }

    /// Also asks the handler's deduplication store, if it has one.
    pub fn with_handler(mut self, handler: &crate::Handler) -> Self {
        if let Some(store) = handler.dedupe_store() {
            self.dedupe.push(store);
        }
        self
    }

    /// Also asks the sender's outbox store; `/metrics` samples its backlog first, so the outbox
    /// gauges are as fresh as the scrape.
    pub fn with_sender(mut self, sender: &crate::EventSender) -> Self {
        self.senders.push(sender.clone());
        self
    }

    /// How long each store may take to answer (default [`READY_TIMEOUT`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// What `GET /metrics` answers: the text `render` gives (with Prometheus' exporter,
    /// `move || handle.render()`). Without it `/metrics` is a 404.
    pub fn with_metrics(mut self, render: impl Fn() -> String + Send + Sync + 'static) -> Self {
        self.render = Some(Arc::new(render));
        self
    }

    /// Asks every store, all at once, each within the timeout: a store answers when it can be
    /// reached and, for PostgreSQL, its migrations are the ones this build expects.
    pub async fn readiness(&self) -> Readiness {
        let timeout = self.timeout.unwrap_or(READY_TIMEOUT);
        let dedupe = self
            .dedupe
            .iter()
            .map(|s| ask("dedupe", s.name(), s.ready(), timeout));
        let outbox = self.senders.iter().map(|s| {
            let store = s.outbox_store();
            ask("outbox", store.name(), store.ready(), timeout)
        });
        let mut checks = futures_util::future::join_all(dedupe).await;
        checks.extend(futures_util::future::join_all(outbox).await);
        Readiness { checks }
    }

    /// Answers one request to the operator's routes:
    ///
    /// - `GET /livez`: `200 ok`, always, asking nothing;
    /// - `GET /readyz`: `200` when every store answers, `503` when one does not, with the
    ///   [`Readiness`] as JSON either way;
    /// - `GET /metrics`: the metrics text, when [`with_metrics`](Self::with_metrics) was given;
    /// - anything else: `404` (`405` for another method on these paths).
    pub fn respond<B>(&self, request: &http::Request<B>) -> BoxFuture<'static, Response<Bytes>> {
        let path = request.uri().path().to_owned();
        let get = matches!(*request.method(), Method::GET | Method::HEAD);
        let this = self.clone();
        Box::pin(async move {
            let known = matches!(path.as_str(), "/livez" | "/readyz")
                || (path == "/metrics" && this.render.is_some());
            if !known {
                return plain(StatusCode::NOT_FOUND, "no such route\n");
            }
            if !get {
                let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET\n");
                r.headers_mut()
                    .insert(header::ALLOW, http::HeaderValue::from_static("GET, HEAD"));
                return r;
            }
            match path.as_str() {
                "/livez" => plain(StatusCode::OK, "ok\n"),
                "/readyz" => {
                    let readiness = this.readiness().await;
                    let status = match readiness.is_ready() {
                        true => StatusCode::OK,
                        false => StatusCode::SERVICE_UNAVAILABLE,
                    };
                    let mut r = Response::new(Bytes::from(readiness.to_json().to_string()));
                    *r.status_mut() = status;
                    r.headers_mut().insert(
                        header::CONTENT_TYPE,
                        http::HeaderValue::from_static("application/json"),
                    );
                    r
                }
                _ => {
                    // Gauges sampled now: a failure is counted in `host_store_errors_total`.
                    let timeout = this.timeout.unwrap_or(READY_TIMEOUT);
                    let sampled = this
                        .senders
                        .iter()
                        .map(|s| crate::platform::rt::timeout(timeout, s.backlog()));
                    let _ = futures_util::future::join_all(sampled).await;
                    let text = this
                        .render
                        .as_ref()
                        .map(|render| render())
                        .unwrap_or_default();
                    let mut r = Response::new(Bytes::from(text));
                    r.headers_mut().insert(
                        header::CONTENT_TYPE,
                        http::HeaderValue::from_static("text/plain; version=0.0.4"),
                    );
                    r
                }
            }
        })
    }

    /// Serves the operator's routes ([`respond`](Self::respond)) on `listener` until `shutdown`
    /// completes: HTTP/1.1, at most 64 connections, 5 s to send a request's headers. Put it on a
    /// port of its own, not exposed to the host.
    #[cfg(feature = "server")]
    pub async fn serve_until(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> std::io::Result<()> {
        let permits = Arc::new(tokio::sync::Semaphore::new(64));
        tokio::pin!(shutdown);
        loop {
            let permit = tokio::select! {
                () = &mut shutdown => return Ok(()),
                permit = Arc::clone(&permits).acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => return Ok(()),
                },
            };
            let stream = tokio::select! {
                () = &mut shutdown => return Ok(()),
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!(error = %e, "the operator port could not accept a connection");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                },
            };
            let probes = self.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let answer = probes.respond(&request);
                    async move {
                        Ok::<_, std::convert::Infallible>(
                            answer.await.map(http_body_util::Full::new),
                        )
                    }
                });
                let mut builder = hyper::server::conn::http1::Builder::new();
                builder
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(5));
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = builder.serve_connection(io, service).await;
                drop(permit);
            });
        }
    }
}

/// One store's answer to a readiness check, within `timeout`.
async fn ask(
    role: &'static str,
    store: &'static str,
    asked: BoxFuture<'_, Result<(), crate::store::StoreError>>,
    timeout: Duration,
) -> StoreCheck {
    let problem = match crate::platform::rt::timeout(timeout, asked).await {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(crate::calls::error::Chain(&e).to_string()),
        Err(_) => Some(format!("no answer within {} s", timeout.as_secs_f64())),
    };
    StoreCheck {
        role,
        store,
        problem,
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Bytes> {
    let mut r = Response::new(Bytes::from_static(text.as_bytes()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stores::dedupe::Claim;
    use crate::stores::store::{StoreError, StoreErrorKind};

    /// A deduplication store that is down.
    struct Down;

    impl DedupeStore for Down {
        fn claim<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, Result<Claim, StoreError>> {
            Box::pin(std::future::ready(Ok(Claim::Run)))
        }
        fn complete<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, ()> {
            Box::pin(std::future::ready(()))
        }
        fn release<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, ()> {
            Box::pin(std::future::ready(()))
        }
        fn name(&self) -> &'static str {
            "down"
        }
        fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
            Box::pin(std::future::ready(Err(StoreError::new(
                "down",
                StoreErrorKind::Unavailable,
                "connection refused",
            ))))
        }
    }

    /// A deduplication store that never answers.
    struct Hung;

    impl DedupeStore for Hung {
        fn claim<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, Result<Claim, StoreError>> {
            Box::pin(std::future::pending())
        }
        fn complete<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, ()> {
            Box::pin(std::future::pending())
        }
        fn release<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, ()> {
            Box::pin(std::future::pending())
        }
        fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
            Box::pin(std::future::pending())
        }
    }

    fn get(path: &str) -> http::Request<Bytes> {
        http::Request::get(path).body(Bytes::new()).unwrap()
    }

    #[tokio::test]
    async fn liveness_asks_nothing_and_readiness_names_the_store_that_failed() {
        let mut probes = Probes::new().with_timeout(Duration::from_millis(50));
        probes.dedupe.push(Arc::new(Down));
        probes.dedupe.push(Arc::new(Hung));
        let live = probes.respond(&get("/livez")).await;
        assert_eq!(
            (live.status(), live.body().as_ref()),
            (StatusCode::OK, &b"ok\n"[..])
        );
        let ready = probes.respond(&get("/readyz")).await;
        assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
        let json: serde_json::Value = serde_json::from_slice(ready.body()).unwrap();
        assert_eq!(json["ready"], false);
        assert_eq!(json["stores"][0]["store"], "down");
        assert!(
            json["stores"][0]["problem"]
                .as_str()
                .unwrap()
                .contains("connection refused"),
            "{json}"
        );
        assert_eq!(json["stores"][1]["store"], "custom");
        assert_eq!(json["stores"][1]["problem"], "no answer within 0.05 s");
        // Without a store, ready; and the memory store is ready.
        let none = Probes::new().respond(&get("/readyz")).await;
        assert_eq!(none.status(), StatusCode::OK);
        let mut memory = Probes::new();
        memory
            .dedupe
            .push(Arc::new(crate::dedupe::MemoryDedupe::default()));
        assert!(memory.readiness().await.is_ready());
    }

    #[tokio::test]
    async fn other_paths_and_methods_are_refused_and_metrics_only_when_given() {
        let probes = Probes::new();
        for path in ["/", "/metrics", "/host/health", "/readyz/x"] {
            assert_eq!(
                probes.respond(&get(path)).await.status(),
                StatusCode::NOT_FOUND,
                "{path}"
            );
        }
        let post = http::Request::post("/readyz").body(Bytes::new()).unwrap();
        let refused = probes.respond(&post).await;
        assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(refused.headers()[header::ALLOW], "GET, HEAD");
        let with = Probes::new().with_metrics(|| "host_up 1\n".to_owned());
        let metrics = with.respond(&get("/metrics")).await;
        assert_eq!(
            (metrics.status(), metrics.body().as_ref()),
            (StatusCode::OK, &b"host_up 1\n"[..])
        );
    }

    /// The operator port over HTTP.
    #[cfg(feature = "server")]
    #[tokio::test]
    async fn served_on_a_port_of_its_own() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(Probes::new().serve_until(listener, async {
            let _ = stopped.await;
        }));
        let host = crate::testing::TestHost::development("x");
        let live = host
            .send_http(&format!("http://{addr}"), get("/livez"))
            .await
            .unwrap();
        assert_eq!(live.status, 200);
        let _ = stop.send(());
        served.await.unwrap().unwrap();
    }
}
