//! The console of `cargo host dev`: a page on its own loopback port that calls every contribution
//! of the manifest from a form generated from its input schema, delivers host events, shows the
//! vendor server's outbox, and shows every call and every event the vendor server posts back on a
//! live timeline with the checks the local host applied.
//!
//! The console is a view and a controller over the local host's engine: calls are built by
//! [`request`] and judged by `check`'s answer rules ([`actions`]), inputs are
//! judged by the runtime's own validator before they are sent (`/api/check/*`), posted events reach
//! the [`timeline`] from `dev`'s inbox. This module serves the page ([`assets`], embedded in the
//! binary, so it works offline), a JSON API under `/api/` and the timeline as Server-Sent Events
//! at `/api/stream`, on an axum router.
//!
//! What guards it, on every request ([`guard`]):
//!
//! - only requests whose `Host` is a loopback name are answered (a page elsewhere cannot reach it
//!   through DNS rebinding): 421 otherwise;
//! - a `POST` whose `Origin` is not the console's own is refused (403), and every `POST` takes
//!   `application/json` (415), which a form on another site cannot send;
//! - every answer carries a Content-Security-Policy that runs only the console's own scripts and
//!   lets no page frame it, with `X-Frame-Options: DENY` and `X-Content-Type-Options: nosniff`.
//!
//! The page puts every string from the manifest or the server in the document as text, never as
//! markup. Nothing a request carries can panic the local host: bodies are parsed into the typed
//! [`forms`] and every failure answers JSON `{"error":{"code","message"}}`.

pub(crate) mod actions;
pub(crate) mod assets;
pub(crate) mod forms;
pub(crate) mod timeline;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream::{self, Stream, StreamExt};
use host_manifest::Manifest;
use host_runtime::outbox::{OutboxStore, Which};
use http::{HeaderValue, Method, StatusCode, Uri, header};
use serde::Deserialize;
use serde_json::{Value, json};

use super::client::Client;
use super::inbox::Inbox;
use super::install::Local;
use super::request::{self, Kind as CallKind};
use super::web::{self, BODY_LIMIT};
use super::{InstallArgs, trigger};
use timeline::Timeline;

/// The server's outbox, as the console can reach it.
pub(crate) enum Outbox {
    /// Not named: `cargo host dev --outbox FOLDER|URL` names it.
    Unnamed,
    /// Open.
    Open(Arc<dyn OutboxStore>),
    /// Named, but it could not be opened: why.
    Failed(String),
}

/// What the console serves from.
pub(crate) struct Console {
    /// The local host's inbox, whose checks replay posted events.
    pub inbox: Arc<Inbox>,
    /// Every call and event.
    pub timeline: Arc<Timeline>,
    /// The manifest the local host serves.
    pub manifest: Manifest,
    /// Its path, as the user wrote it.
    pub shown: String,
    /// The vendor server.
    pub client: Client,
    /// The vendor server's outbox.
    pub outbox: Outbox,
}

/// The policy every answer carries: the console's own scripts, styles and API only; no inline
/// script, no plugin, no base or form target elsewhere, and no page may frame it.
pub(crate) const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

type Shared = State<Arc<Console>>;

/// The console's routes, behind [`guard`].
pub(crate) fn router(console: Arc<Console>) -> Router {
    Router::new()
        .route("/api/manifest", get(manifest))
        .route("/api/timeline", get(timeline_all))
        .route("/api/stream", get(stream))
        .route("/api/server", get(server_health))
        .route("/api/outbox", get(outbox_list))
        .route("/api/outbox/retry", post(outbox_retry))
        .route("/api/outbox/drop", post(outbox_drop))
        .route("/api/check/input", post(check_input))
        .route("/api/check/payload", post(check_payload))
        .route("/api/call", post(call))
        .route("/api/deliver", post(deliver))
        .route("/api/example", post(example))
        .route("/api/replay", post(replay))
        .fallback(asset)
        .method_not_allowed_fallback(web::method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn(guard))
        .with_state(console)
}

/// Opens `url` in the default browser; a failure is a note, the console still serves.
pub(crate) fn open_browser(url: &str) -> Result<(), String> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("cannot open a browser ({e}); open {url} yourself"))
}

/// Whether `Host` names this machine: `127.0.0.1`, `localhost` or `[::1]`, with any port.
pub(in crate::local) fn loopback_host(value: Option<&str>) -> bool {
    let Some(value) = value else { return false };
    let name = match value.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => value,
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

/// Whether a request may change something: a `POST` with no `Origin` (not from a page: curl, the
/// tests) or with the console's own, `http://` and the `Host` it was sent to.
fn own_origin(origin: Option<&HeaderValue>, host: &str) -> bool {
    match origin {
        None => true,
        Some(origin) => origin
            .to_str()
            .ok()
            .and_then(|o| o.strip_prefix("http://"))
            .is_some_and(|o| o == host),
    }
}

/// Refuses what the console must not answer and puts the security headers on every answer.
async fn guard(request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut response = match &host {
        Some(host) if loopback_host(Some(host)) => {
            let reads = matches!(*request.method(), Method::GET | Method::HEAD);
            if reads || own_origin(request.headers().get(header::ORIGIN), host) {
                next.run(request).await
            } else {
                web::error(
                    StatusCode::FORBIDDEN,
                    "FOREIGN_ORIGIN",
                    &format!(
                        "the console takes changes only from its own page (http://{host}); this request came from another origin"
                    ),
                )
            }
        }
        _ => web::error(
            StatusCode::MISDIRECTED_REQUEST,
            "MISDIRECTED",
            "the console answers only requests addressed to 127.0.0.1, localhost or [::1]",
        ),
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (
            header::HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
        (
            header::HeaderName::from_static("cross-origin-resource-policy"),
            "same-origin",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The page's files for `GET`, and a JSON 404 for anything else.
async fn asset(method: Method, uri: Uri) -> Response {
    let path = uri.path();
    match assets::find(path) {
        Some(asset) if matches!(method, Method::GET | Method::HEAD) => (
            [
                (header::CONTENT_TYPE, asset.content_type),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            asset.bytes,
        )
            .into_response(),
        _ => web::error(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            &format!("the console has no `{method} {path}`"),
        ),
    }
}

/// A JSON body read into `T`, or the console's error body naming what was wrong: 415 without
/// `application/json`, 413 over the limit, 400 for anything else.
struct Form<T>(T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Form<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Form(value)),
            Err(rejection) => Err(refused(&rejection)),
        }
    }
}

fn refused(rejection: &JsonRejection) -> Response {
    match rejection {
        JsonRejection::MissingJsonContentType(_) => web::error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            "send the request as Content-Type: application/json",
        ),
        JsonRejection::BytesRejection(_) => web::error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            &format!("the request is over the console's {BODY_LIMIT}-byte limit, or broke off"),
        ),
        other => web::error(
            StatusCode::BAD_REQUEST,
            "BAD_REQUEST",
            &format!(
                "the request body is not what this route takes: {}",
                other.body_text()
            ),
        ),
    }
}

fn entry_response(console: &Console, id: u64) -> Response {
    match console.timeline.get(id) {
        Some(entry) => web::json(
            StatusCode::OK,
            &serde_json::to_value(&entry).unwrap_or(Value::Null),
        ),
        None => web::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "GONE",
            "the entry left the timeline at once",
        ),
    }
}

async fn manifest(State(console): Shared) -> Response {
    web::json(StatusCode::OK, &describe(&console))
}

async fn timeline_all(State(console): Shared) -> Response {
    let all = format!("[{}]", console.timeline.all().join(","));
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        all,
    )
        .into_response()
}

async fn check_input(State(console): Shared, Form(form): Form<forms::CheckForm>) -> Response {
    match actions::check_input(&console, &form) {
        Ok(judged) => web::json(StatusCode::OK, &json!(judged)),
        Err(why) => web::error(StatusCode::UNPROCESSABLE_ENTITY, "KIND_UNKNOWN", &why),
    }
}

async fn check_payload(Form(form): Form<forms::PayloadForm>) -> Response {
    match actions::check_payload(&form) {
        Ok(judged) => web::json(StatusCode::OK, &json!(judged)),
        Err(why) => web::error(StatusCode::UNPROCESSABLE_ENTITY, "EVENT_UNKNOWN", &why),
    }
}

async fn call(State(console): Shared, Form(form): Form<forms::CallForm>) -> Response {
    let id = actions::call(&console, form).await;
    entry_response(&console, id)
}

async fn deliver(State(console): Shared, Form(form): Form<forms::DeliverForm>) -> Response {
    let id = actions::deliver(&console, form);
    entry_response(&console, id)
}

/// `{"id": "..."}`: an entry or an outbox event.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdForm {
    #[serde(deserialize_with = "id_text")]
    id: String,
}

/// An id given as a number or as text.
fn id_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(serde::de::Error::custom(format!(
            "`id` must be a string or a number, not {other}"
        ))),
    }
}

async fn replay(State(console): Shared, Form(IdForm { id }): Form<IdForm>) -> Response {
    let Ok(n) = id.parse::<u64>() else {
        return web::error(
            StatusCode::BAD_REQUEST,
            "BAD_REQUEST",
            &format!("`{id}` is not an entry number"),
        );
    };
    match actions::replay(&console, n).await {
        Ok(new) => entry_response(&console, new),
        Err(why) => web::error(StatusCode::NOT_FOUND, "NOT_FOUND", &why),
    }
}

/// `{"event", "install"}`: a fresh example payload.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExampleForm {
    event: String,
    #[serde(default)]
    install: forms::InstallForm,
}

async fn example(State(console): Shared, Form(form): Form<ExampleForm>) -> Response {
    let name = match trigger::published(&form.event) {
        Ok(name) => name,
        Err(fail) => {
            return web::error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "EVENT_UNKNOWN",
                &fail.message,
            );
        }
    };
    let args = InstallArgs {
        install: form.install.id.clone(),
        ..InstallArgs::default()
    };
    match Local::new(&console.manifest, &args) {
        Ok(local) => web::json(StatusCode::OK, &actions::example(&console, name, &local)),
        Err(fail) => web::error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "INSTALL_INVALID",
            &fail.message,
        ),
    }
}

/// The vendor server's `GET /host/health`, for the page's header.
async fn server_health(State(console): Shared) -> Response {
    let route = host_runtime::route::Route::Health;
    let sent = console
        .client
        .send(super::client::Request {
            method: route.method(),
            route: route.path(None).unwrap_or_default(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            timeout: Duration::from_secs(3),
        })
        .await;
    let (ok, said) = match sent {
        Ok(a) if a.is_success() => (true, format!("{} {}", a.status, a.reason())),
        Ok(a) => (
            false,
            format!("health answered {} {}", a.status, a.reason()),
        ),
        Err(e) => (false, e.to_string()),
    };
    web::json(
        StatusCode::OK,
        &json!({ "url": console.client.base(), "ok": ok, "said": said }),
    )
}

async fn outbox_list(State(console): Shared) -> Response {
    let store = match &console.outbox {
        Outbox::Open(store) => store,
        Outbox::Unnamed => {
            return web::json(
                StatusCode::OK,
                &json!({ "exposed": false, "why": "No outbox is named. Start `cargo host dev --outbox FOLDER|redis://...` with the server's HOST_OUTBOX to see what it holds (a Redis outbox can be read while the server runs; the embedded one is locked by it)." }),
            );
        }
        Outbox::Failed(why) => {
            return web::json(StatusCode::OK, &json!({ "exposed": false, "why": why }));
        }
    };
    let mut lists = serde_json::Map::new();
    for (name, which) in [("pending", Which::Pending), ("dead", Which::Dead)] {
        match store.list(which, 100).await {
            Ok(entries) => {
                let rows: Vec<Value> = entries
                    .iter()
                    .map(|e| {
                        let body: Value = serde_json::from_slice(&e.body).unwrap_or_else(|_| {
                            Value::String(String::from_utf8_lossy(&e.body).into_owned())
                        });
                        json!({
                            "id": e.id,
                            "attempts": e.attempts,
                            "due": crate::outbox_store::time(e.due),
                            "accepted": crate::outbox_store::time(e.accepted),
                            "lastError": e.last_error,
                            "body": body,
                        })
                    })
                    .collect();
                lists.insert(name.to_owned(), Value::Array(rows));
            }
            Err(e) => {
                return web::json(
                    StatusCode::OK,
                    &json!({ "exposed": false, "why": format!("the outbox could not be read: {e}") }),
                );
            }
        }
    }
    // The numbers of the server's outbox gauges, from the same function.
    match store.backlog().await {
        Ok(b) => {
            let now = crate::outbox_store::now_ms();
            lists.insert(
                "backlog".to_owned(),
                json!({
                    "pending": b.pending,
                    "oldestAgeSecs": b.oldest_age_secs(now),
                    "dead": b.dead,
                }),
            );
        }
        Err(e) => {
            return web::json(
                StatusCode::OK,
                &json!({ "exposed": false, "why": format!("the outbox could not be counted: {e}") }),
            );
        }
    }
    lists.insert("exposed".to_owned(), Value::Bool(true));
    web::json(StatusCode::OK, &Value::Object(lists))
}

async fn outbox_retry(State(console): Shared, Form(IdForm { id }): Form<IdForm>) -> Response {
    outbox_change(&console, true, &id).await
}

async fn outbox_drop(State(console): Shared, Form(IdForm { id }): Form<IdForm>) -> Response {
    outbox_change(&console, false, &id).await
}

async fn outbox_change(console: &Console, retry: bool, id: &str) -> Response {
    let Outbox::Open(store) = &console.outbox else {
        return web::error(
            StatusCode::CONFLICT,
            "OUTBOX_NOT_EXPOSED",
            "no outbox is open: start `cargo host dev --outbox FOLDER|URL`",
        );
    };
    let done = if retry {
        store.revive(id, crate::outbox_store::now_ms()).await
    } else {
        store.discard(id).await
    };
    match done {
        Ok(true) => web::json(StatusCode::OK, &json!({ "done": true, "id": id })),
        Ok(false) => web::error(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            &format!("no event `{id}` in the outbox"),
        ),
        Err(e) => web::error(StatusCode::BAD_GATEWAY, "OUTBOX_FAILED", &e.to_string()),
    }
}

/// The timeline as Server-Sent Events: every entry kept, then each change as it happens, each as
/// an `entry` event whose data is the whole entry. A page that fell behind gets `reload`.
async fn stream(State(console): Shared) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let changes = console.timeline.subscribe();
    let backlog = console.timeline.all();
    let entry = |data: String| Ok(Event::default().event("entry").data(data));
    let live = stream::unfold(changes, move |mut changes| async move {
        use tokio::sync::broadcast::error::RecvError;
        let event = match changes.recv().await {
            Ok(data) => entry(data),
            Err(RecvError::Lagged(_)) => Ok(Event::default().event("reload").data("{}")),
            Err(RecvError::Closed) => return None,
        };
        Some((event, changes))
    });
    // A comment now and then finds pages that went away.
    Sse::new(stream::iter(backlog.into_iter().map(entry)).chain(live))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// What the page needs to draw itself: the extension, its contributions with their input schemas
/// and start values, the published events with examples, the install's defaults and the scopes
/// it may be granted.
fn describe(console: &Console) -> Value {
    let m = &console.manifest;
    let contribution = |kind: CallKind, id: Option<&str>, description: &str| {
        let target = request::target(m, kind, id, &console.shown).ok();
        json!({
            "kind": kind.word(),
            "id": id,
            "description": description,
            "schema": request::input_schema(m, kind, id),
            "query": kind.takes_query(),
            "item": kind == CallKind::WorkComment,
            "route": target.map(|t| format!("{} {}", t.method, t.route)),
        })
    };
    let ai = &m.contributes.ai;
    let mut contributions = Vec::new();
    for t in &ai.tools {
        let mut c = contribution(CallKind::Tool, Some(&t.id), &t.description);
        c["returns"] = json!(t.returns.as_str());
        contributions.push(c);
    }
    for a in &ai.actions {
        contributions.push(contribution(CallKind::Action, Some(&a.id), &a.description));
    }
    for name in m.server.iter().flat_map(|s| s.procedures.keys()) {
        contributions.push(contribution(CallKind::Procedure, Some(name), ""));
    }
    for x in &ai.mentions {
        contributions.push(contribution(CallKind::Mention, Some(&x.id), &x.label));
    }
    for c in &ai.context {
        contributions.push(contribution(CallKind::Context, Some(&c.id), &c.description));
    }
    if let Some(connector) = m
        .contributes
        .connector
        .as_ref()
        .filter(|c| !c.metrics.is_empty())
    {
        let keys: Vec<&str> = connector.metrics.iter().map(|x| x.key.as_str()).collect();
        let mut c = contribution(
            CallKind::Sync,
            None,
            &format!("The connector sync of {}", keys.join(", ")),
        );
        // The members the host always sends; `backfill` and `cursor` can be added.
        let mut start = request::sync_input(m, None);
        if let Some(start) = start.as_object_mut() {
            start.retain(|k, _| matches!(k.as_str(), "metrics" | "from" | "to"));
        }
        c["start"] = start;
        contributions.push(c);
    }
    if let Some(work) = &m.contributes.work {
        contributions.push(contribution(
            CallKind::WorkContainers,
            None,
            "The work destination's container picker",
        ));
        let mut c = contribution(CallKind::WorkItem, None, "A new work item");
        let mut start = request::new_item(m, "");
        if let Some(start) = start.as_object_mut() {
            // The container is the user's to name: the container list says which exist.
            start.remove("container");
        }
        c["start"] = start;
        contributions.push(c);
        if work.comments == host_manifest::model::CommentSync::TwoWay {
            contributions.push(contribution(
                CallKind::WorkComment,
                None,
                "A comment on a work item",
            ));
        }
    }
    let local = Local::new(m, &InstallArgs::default()).ok();
    let subscribed = m.subscribed_events();
    let events: Vec<Value> = host_runtime::events::published_names()
        .iter()
        .map(|name| {
            let example = local
                .as_ref()
                .map(|l| actions::example(console, name, l))
                .unwrap_or(Value::Null);
            json!({
                "name": name,
                "subscribed": subscribed.iter().any(|e| e == name),
                "scope": host_manifest::catalogue::event(name).and_then(|e| e.scope),
                "example": example,
            })
        })
        .collect();
    let install = local.as_ref().map(|l| {
        json!({
            "id": l.host.install_id,
            "scopes": l.host.scopes,
            "documents": l.documents,
            "credentials": l.host.credentials,
            "context": l.call_body(json!({}))["context"],
        })
    });
    let declared: Vec<&str> = m.scopes.iter().map(|s| s.key.as_str()).collect();
    let scopes: Vec<Value> = host_manifest::catalogue::SCOPES
        .iter()
        .map(|s| json!({ "key": s.key, "declared": declared.contains(&s.key) }))
        .collect();
    json!({
        "extension": { "id": m.id, "name": m.name, "description": m.description },
        "manifest": console.shown,
        "server": console.client.base(),
        "contributions": contributions,
        "events": events,
        "install": install,
        "scopes": scopes,
        "retryWaitsSeconds": host_manifest::limits::EVENT_RETRY_WAITS_SECS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_are_answered() {
        for ok in ["127.0.0.1:8789", "localhost:1", "[::1]:8789", "localhost"] {
            assert!(loopback_host(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.example:8789",
            "127.0.0.1.evil.example",
            "",
            "0.0.0.0:8789",
        ] {
            assert!(!loopback_host(Some(bad)), "{bad}");
        }
        assert!(!loopback_host(None));
    }

    #[test]
    fn changes_come_only_from_the_consoles_own_origin() {
        let host = "127.0.0.1:8789";
        let origin = |o: &'static str| HeaderValue::from_static(o);
        assert!(own_origin(None, host));
        assert!(own_origin(Some(&origin("http://127.0.0.1:8789")), host));
        for foreign in [
            "http://127.0.0.1:8790",
            "http://evil.example",
            "https://127.0.0.1:8789",
            "null",
            "http://127.0.0.1:8789.evil.example",
        ] {
            assert!(!own_origin(Some(&origin(foreign)), host), "{foreign}");
        }
    }
}
