//! What sits between the console, the example server and the local host in the browser test: an
//! axum router that forwards every call to the example and every posted event to the local host,
//! records what it forwarded, and misbehaves when told to (a broken answer, refused or failing
//! posts, a naive vendor that reacts to every attempt of a delivery).

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use host_runtime::webhook::{Secret, sign_webhook};
use serde_json::{Value, json};

/// A call the proxy forwarded to the example.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

#[derive(Default)]
pub(crate) struct Modes {
    /// Answer `keyword-ranks` with a series the host refuses.
    pub broken_ranks: AtomicBool,
    /// Answer posted events with this status instead of forwarding them (0: forward).
    pub post_status: AtomicU16,
    /// Act as a naive vendor on `/host/events`: post a new alert for every attempt, answer 204.
    pub naive: AtomicBool,
}

struct Inner {
    http: reqwest::Client,
    example: Mutex<String>,
    inbox: Mutex<String>,
    secret: Secret,
    modes: Arc<Modes>,
    seen: Mutex<Vec<Seen>>,
    naive_posts: AtomicU64,
}

pub(crate) struct Proxy {
    pub url: String,
    pub modes: Arc<Modes>,
    inner: Arc<Inner>,
}

/// A `series` card the host refuses: a point whose time is no time and whose value is no number.
const BROKEN_SERIES: &str = r#"{"series":[{"key":"app_store","label":"App Store rank","points":[{"t":"yesterday","v":"high"}]}]}"#;

impl Proxy {
    /// Starts the proxy on `runtime`; `secret` signs the naive vendor's posts.
    pub(crate) fn start(runtime: &tokio::runtime::Runtime, secret: &str) -> Proxy {
        #[allow(deprecated)] // ring, as everywhere in the SDK (see host-runtime's client)
        let _ = rustls::crypto::ring::default_provider().install_default();
        let modes = Arc::new(Modes::default());
        let inner = Arc::new(Inner {
            http: reqwest::Client::builder().no_proxy().build().unwrap(),
            example: Mutex::new(String::new()),
            inbox: Mutex::new(String::new()),
            secret: Secret::parse(secret).unwrap(),
            modes: Arc::clone(&modes),
            seen: Mutex::new(Vec::new()),
            naive_posts: AtomicU64::new(0),
        });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let router = Router::new()
            .fallback(forward)
            .with_state(Arc::clone(&inner));
        runtime.spawn(async move { axum::serve(listener, router).await });
        Proxy { url, modes, inner }
    }

    /// Where calls go.
    pub(crate) fn set_example(&self, url: &str) {
        *self.inner.example.lock().unwrap() = url.to_owned();
    }

    /// Where posted events go: the local host's `/v1/events`.
    pub(crate) fn set_inbox(&self, url: &str) {
        *self.inner.inbox.lock().unwrap() = url.to_owned();
    }

    /// The calls forwarded so far.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.inner.seen.lock().unwrap().clone()
    }

    /// The last call forwarded to `path`.
    pub(crate) fn last(&self, path: &str) -> Seen {
        self.seen()
            .into_iter()
            .rev()
            .find(|s| s.path == path)
            .unwrap_or_else(|| panic!("no call of {path} went through the proxy"))
    }
}

async fn forward(State(inner): State<Arc<Inner>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let path = parts.uri.path().to_owned();
    let posted = path == "/v1/events";
    if posted {
        let status = inner.modes.post_status.load(Ordering::SeqCst);
        if status != 0 {
            let body = json!({ "error": { "code": "REFUSED_BY_TEST", "message": format!("the test answers {status}") } });
            return (
                http::StatusCode::from_u16(status).unwrap(),
                [(http::header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
        }
    } else {
        let authorization = parts
            .headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        inner.seen.lock().unwrap().push(Seen {
            path: path.clone(),
            authorization,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        });
        if inner.modes.broken_ranks.load(Ordering::SeqCst) && path == "/host/tools/keyword-ranks" {
            return (
                [(http::header::CONTENT_TYPE, "application/json")],
                BROKEN_SERIES,
            )
                .into_response();
        }
        if inner.modes.naive.load(Ordering::SeqCst) && path == "/host/events" {
            naive_post(&inner).await;
            return http::StatusCode::NO_CONTENT.into_response();
        }
    }
    let base = if posted {
        inner.inbox.lock().unwrap().clone()
    } else {
        format!(
            "{}{}",
            inner.example.lock().unwrap(),
            parts.uri.path_and_query().map_or("/", |p| p.as_str())
        )
    };
    let mut out = inner.http.request(parts.method.clone(), base);
    for (name, value) in &parts.headers {
        if name != http::header::HOST {
            out = out.header(name, value);
        }
    }
    match out.body(body).send().await {
        Ok(answer) => {
            let mut response = http::Response::builder().status(answer.status().as_u16());
            for (name, value) in answer.headers() {
                response = response.header(name, value);
            }
            let bytes = answer.bytes().await.unwrap_or_default();
            response.body(axum::body::Body::from(bytes)).unwrap()
        }
        Err(e) => (http::StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    }
}

/// What a vendor without deduplication does: handle every attempt, so post the same alert again
/// each time, under an id of the moment.
async fn naive_post(inner: &Inner) {
    let n = inner.naive_posts.fetch_add(1, Ordering::SeqCst);
    let id = format!("naive-alert-{n}-{}", chrono::Utc::now().timestamp_micros());
    let envelope = json!({
        "event": "rank.dropped", "source": "ins_dev_1",
        "occurredAt": chrono::Utc::now().to_rfc3339(), "build": null, "dedupeKey": id,
        "payload": { "why": "Ranks fell after the release.", "keyword": "notes" },
    });
    let body = Bytes::from(envelope.to_string());
    let now = chrono::Utc::now().timestamp();
    let signature = sign_webhook(&inner.secret, &id, now, &body);
    let inbox = inner.inbox.lock().unwrap().clone();
    let _ = inner
        .http
        .post(inbox)
        .header("content-type", "application/json")
        .header("webhook-id", &id)
        .header("webhook-timestamp", now.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await;
}
