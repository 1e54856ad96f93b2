//! The console of `cargo host dev`: a page on its own loopback port that calls every contribution
//! of the manifest from a form generated from its input schema, delivers host events, and shows
//! every call and every event the vendor server posts back on a live timeline with the checks the
//! local host applied.
//!
//! The console is a view and a controller over the local host's engine: calls go through
//! [`actions`] (the route table of `call`, the answer rules of `check`, the attempts of `trigger`),
//! posted events reach the [`timeline`] from `dev`'s own endpoint after its own checks. This module
//! serves the page ([`assets`], embedded in the binary, so it works offline), a small JSON API
//! under `/api/` and the timeline as Server-Sent Events at `/api/stream`.
//!
//! Only loopback is served, and only requests whose `Host` is a loopback name (a page elsewhere
//! cannot reach it through DNS rebinding); every `POST` takes `application/json`, which a form on
//! another site cannot send without the browser asking first. Nothing a request carries can panic
//! the local host: bodies are parsed into typed forms and every failure answers JSON
//! `{"error":{"code","message"}}`.

pub mod actions;
pub mod assets;
pub mod timeline;

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use host_manifest::Manifest;
use host_runtime::outbox::{OutboxStore, Which};
use http::{Method, Response, StatusCode, header};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Frame;
use serde::Deserialize;
use serde_json::{Value, json};

use super::client::Client;
use super::dev::Host;
use super::install::Local;
use super::{InstallArgs, call};
use timeline::Timeline;

/// The largest request body the console reads.
pub const BODY_LIMIT: usize = 1024 * 1024;

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// The server's outbox, as the console can reach it.
pub enum Outbox {
    /// Not named: `cargo host dev --outbox FOLDER|URL` names it.
    Unnamed,
    /// Open.
    Open(Arc<dyn OutboxStore>),
    /// Named, but it could not be opened: why.
    Failed(String),
}

/// What the console serves from.
pub struct Console {
    /// The local host, whose checks replay posted events.
    pub(super) host: Arc<Host>,
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

/// Serves the console on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, console: Arc<Console>) {
    loop {
        // A failed accept (a peer gone, a file limit) concerns that connection only.
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let console = Arc::clone(&console);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let console = Arc::clone(&console);
                async move { Ok::<_, Infallible>(respond(&console, request).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}

/// Opens `url` in the default browser; a failure is a note, the console still serves.
pub fn open_browser(url: &str) -> Result<(), String> {
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

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed_unsync()
}

fn json_response(status: u16, body: &Value) -> Response<Body> {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "no-store")
        .body(full(body.to_string()))
        .unwrap_or_default()
}

fn error(status: u16, code: &str, message: &str) -> Response<Body> {
    json_response(
        status,
        &json!({ "error": { "code": code, "message": message } }),
    )
}

/// Whether `Host` names this machine: `127.0.0.1`, `localhost` or `[::1]`, with any port.
fn loopback_host(value: Option<&str>) -> bool {
    let Some(value) = value else { return false };
    let name = match value.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => value,
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

async fn respond(
    console: &Arc<Console>,
    request: http::Request<hyper::body::Incoming>,
) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    if !loopback_host(host) {
        return error(
            421,
            "MISDIRECTED",
            "the console answers only requests addressed to 127.0.0.1, localhost or [::1]",
        );
    }
    let path = parts.uri.path();
    if parts.method == Method::GET || parts.method == Method::HEAD {
        if let Some(asset) = assets::find(path) {
            return Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, asset.content_type)
                .header(header::CACHE_CONTROL, "no-cache")
                .header("x-content-type-options", "nosniff")
                .body(full(asset.bytes))
                .unwrap_or_default();
        }
        return match path {
            "/api/manifest" => json_response(200, &describe(console)),
            "/api/timeline" => {
                let all = format!("[{}]", console.timeline.all().join(","));
                Response::builder()
                    .header(header::CONTENT_TYPE, "application/json")
                    .header(header::CACHE_CONTROL, "no-store")
                    .body(full(all))
                    .unwrap_or_default()
            }
            "/api/stream" => stream(&console.timeline),
            "/api/server" => server_health(console).await,
            "/api/outbox" => outbox_list(console).await,
            _ => error(404, "NOT_FOUND", &format!("the console has no `{path}`")),
        };
    }
    if parts.method != Method::POST {
        return error(
            405,
            "METHOD_NOT_ALLOWED",
            "the console answers GET and POST only",
        );
    }
    let json_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json_type {
        return error(
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "send the request as Content-Type: application/json",
        );
    }
    let bytes = match Limited::new(body, BODY_LIMIT).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return error(
                413,
                "PAYLOAD_TOO_LARGE",
                &format!("the request is over the console's {BODY_LIMIT}-byte limit, or broke off"),
            );
        }
    };
    match path {
        "/api/call" => match parse::<actions::CallForm>(&bytes) {
            Ok(form) => {
                let id = actions::call(console, form).await;
                entry_response(console, id)
            }
            Err(why) => bad_request(&why),
        },
        "/api/deliver" => match parse::<actions::DeliverForm>(&bytes) {
            Ok(form) => {
                let id = actions::deliver(console, form);
                entry_response(console, id)
            }
            Err(why) => bad_request(&why),
        },
        "/api/example" => match parse::<ExampleForm>(&bytes) {
            Ok(form) => example(console, &form),
            Err(why) => bad_request(&why),
        },
        "/api/replay" => match parse::<IdForm>(&bytes) {
            Ok(IdForm { id }) => match id.parse::<u64>() {
                Ok(n) => match actions::replay(console, n).await {
                    Ok(new) => entry_response(console, new),
                    Err(why) => error(404, "NOT_FOUND", &why),
                },
                Err(_) => error(
                    400,
                    "BAD_REQUEST",
                    &format!("`{id}` is not an entry number"),
                ),
            },
            Err(why) => bad_request(&why),
        },
        "/api/outbox/retry" | "/api/outbox/drop" => match parse::<IdForm>(&bytes) {
            Ok(IdForm { id }) => outbox_change(console, path.ends_with("retry"), &id).await,
            Err(why) => bad_request(&why),
        },
        _ => error(
            404,
            "NOT_FOUND",
            &format!("the console has no `POST {path}`"),
        ),
    }
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

/// `{"event", "install"}`: a fresh example payload.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExampleForm {
    event: String,
    #[serde(default)]
    install: actions::InstallForm,
}

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes)
        .map_err(|e| format!("the request body is not what this route takes: {e}"))
}

fn bad_request(why: &str) -> Response<Body> {
    error(400, "BAD_REQUEST", why)
}

fn entry_response(console: &Console, id: u64) -> Response<Body> {
    match console.timeline.get(id) {
        Some(entry) => json_response(200, &serde_json::to_value(&entry).unwrap_or(Value::Null)),
        None => error(500, "GONE", "the entry left the timeline at once"),
    }
}

fn example(console: &Console, form: &ExampleForm) -> Response<Body> {
    let name = match super::trigger::published(&form.event) {
        Ok(name) => name,
        Err(fail) => return error(422, "EVENT_UNKNOWN", &fail.message),
    };
    let args = InstallArgs {
        install: form.install.id.clone(),
        ..InstallArgs::default()
    };
    match Local::new(&console.manifest, &args) {
        Ok(local) => json_response(200, &actions::example(console, name, &local)),
        Err(fail) => error(422, "INSTALL_INVALID", &fail.message),
    }
}

/// The vendor server's `GET /host/health`, for the page's header.
async fn server_health(console: &Console) -> Response<Body> {
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
    json_response(
        200,
        &json!({ "url": console.client.base(), "ok": ok, "said": said }),
    )
}

async fn outbox_list(console: &Console) -> Response<Body> {
    let store = match &console.outbox {
        Outbox::Open(store) => store,
        Outbox::Unnamed => {
            return json_response(
                200,
                &json!({ "exposed": false, "why": "no outbox named: start `cargo host dev --outbox FOLDER|redis://...` with the server's HOST_OUTBOX to see what it holds (a Redis outbox can be read while the server runs; the embedded one is locked by it)" }),
            );
        }
        Outbox::Failed(why) => {
            return json_response(200, &json!({ "exposed": false, "why": why }));
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
                            "due": crate::outbox::time(e.due),
                            "accepted": crate::outbox::time(e.accepted),
                            "lastError": e.last_error,
                            "body": body,
                        })
                    })
                    .collect();
                lists.insert(name.to_owned(), Value::Array(rows));
            }
            Err(e) => {
                return json_response(
                    200,
                    &json!({ "exposed": false, "why": format!("the outbox could not be read: {e}") }),
                );
            }
        }
    }
    lists.insert("exposed".to_owned(), Value::Bool(true));
    json_response(200, &Value::Object(lists))
}

async fn outbox_change(console: &Console, retry: bool, id: &str) -> Response<Body> {
    let Outbox::Open(store) = &console.outbox else {
        return error(
            409,
            "OUTBOX_NOT_EXPOSED",
            "no outbox is open: start `cargo host dev --outbox FOLDER|URL`",
        );
    };
    let done = if retry {
        store.revive(id, crate::outbox::now_ms()).await
    } else {
        store.discard(id).await
    };
    match done {
        Ok(true) => json_response(200, &json!({ "done": true, "id": id })),
        Ok(false) => error(404, "NOT_FOUND", &format!("no event `{id}` in the outbox")),
        Err(e) => error(502, "OUTBOX_FAILED", &e.to_string()),
    }
}

/// The timeline as Server-Sent Events: every entry kept, then each change as it happens, each as
/// an `entry` event whose data is the whole entry. A page that fell behind gets `reload`.
fn stream(timeline: &Arc<Timeline>) -> Response<Body> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(64);
    let mut changes = timeline.subscribe();
    let backlog = timeline.all();
    tokio::spawn(async move {
        let event = |data: &str| Bytes::from(format!("event: entry\ndata: {data}\n\n"));
        for entry in &backlog {
            if tx.send(event(entry)).await.is_err() {
                return;
            }
        }
        let mut beat = tokio::time::interval(Duration::from_secs(15));
        loop {
            let next = tokio::select! {
                change = changes.recv() => match change {
                    Ok(entry) => event(&entry),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        Bytes::from_static(b"event: reload\ndata: {}\n\n")
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
                // A comment now and then finds pages that went away.
                _ = beat.tick() => Bytes::from_static(b": beat\n\n"),
            };
            if tx.send(next).await.is_err() {
                return;
            }
        }
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-store")
        .body(Sse(rx).boxed_unsync())
        .unwrap_or_default()
}

/// A body fed by a channel.
struct Sse(tokio::sync::mpsc::Receiver<Bytes>);

impl hyper::body::Body for Sse {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}

/// What the page needs to draw itself: the extension, its contributions with their schemas, the
/// published events with examples, the install's defaults.
fn describe(console: &Console) -> Value {
    let m = &console.manifest;
    let mut contributions = Vec::new();
    let ai = &m.contributes.ai;
    for t in &ai.tools {
        contributions.push(
            json!({ "kind": "tool", "id": t.id, "description": t.description,
            "schema": t.input, "returns": t.returns.as_str(),
            "route": host_runtime::route::Route::Tool(&t.id).path(None) }),
        );
    }
    for a in &ai.actions {
        contributions.push(
            json!({ "kind": "action", "id": a.id, "description": a.description,
            "schema": a.input, "route": host_runtime::route::Route::Action(&a.id).path(None) }),
        );
    }
    for (name, p) in m.server.iter().flat_map(|s| s.procedures.iter()) {
        contributions.push(json!({ "kind": "procedure", "id": name, "description": "",
            "schema": p.input, "route": host_runtime::route::Route::Procedure(name).path(None) }));
    }
    for x in &ai.mentions {
        contributions.push(
            json!({ "kind": "mention", "id": x.id, "description": x.label,
            "query": true, "route": host_runtime::route::Route::Mention(&x.id).path(None) }),
        );
    }
    for c in &ai.context {
        contributions.push(
            json!({ "kind": "context", "id": c.id, "description": c.description,
            "route": host_runtime::route::Route::Context(&c.id).path(None) }),
        );
    }
    if let Some(connector) = m
        .contributes
        .connector
        .as_ref()
        .filter(|c| !c.metrics.is_empty())
    {
        let keys: Vec<&str> = connector.metrics.iter().map(|x| x.key.as_str()).collect();
        contributions.push(json!({ "kind": "sync", "id": null,
            "description": format!("The connector sync of {}", keys.join(", ")),
            "schema": {
                "type": "object", "required": ["metrics", "from", "to", "backfill"],
                "properties": {
                    "metrics": { "type": "array", "uniqueItems": true, "items": { "type": "string", "enum": keys } },
                    "from": { "type": "string", "format": "date-time" },
                    "to": { "type": "string", "format": "date-time" },
                    "backfill": { "type": "boolean" },
                    "cursor": { "type": ["string", "null"] }
                }
            },
            "example": call::sync_input(m, None),
            "route": host_runtime::route::Route::Metrics.path(None) }));
    }
    if let Some(work) = &m.contributes.work {
        let list = Some(work.container.list.as_str());
        contributions.push(json!({ "kind": "work-containers", "id": null,
            "description": "The work destination's container picker", "query": true,
            "route": host_runtime::route::Route::WorkContainers.path(list) }));
        let kinds: Vec<&str> = work.creates.iter().map(|k| k.as_str()).collect();
        let mut properties = json!({
            "kind": { "type": "string", "enum": kinds },
            "container": { "type": "string", "minLength": 1, "description": "A container id the picker lists" },
            "title": { "type": "string", "minLength": 1 },
            "body": { "type": "string" },
        });
        if !work.fields.priority.is_empty() {
            properties["priority"] = json!({ "type": "string", "enum": work.fields.priority });
        }
        properties["labels"] = json!({ "type": "array", "items": { "type": "string" } });
        properties["assignee"] = json!({ "type": "string" });
        let mut required = vec!["kind", "container", "title"];
        required.extend(work.fields.required.iter().map(String::as_str));
        contributions.push(json!({ "kind": "work-item", "id": null,
            "description": "A new work item", "schema": { "type": "object", "required": required, "properties": properties },
            "example": call::new_item(m, ""),
            "route": host_runtime::route::Route::WorkItems.path(list) }));
        if work.comments == host_manifest::model::CommentSync::TwoWay {
            contributions.push(json!({ "kind": "work-comment", "id": null, "item": true,
                "description": "A comment on a work item",
                "schema": { "type": "object", "required": ["body"], "properties": { "body": { "type": "string", "minLength": 1 } } },
                "route": "/host/work/items/{item}/comments" }));
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
    json!({
        "extension": { "id": m.id, "name": m.name, "description": m.description },
        "manifest": console.shown,
        "server": console.client.base(),
        "contributions": contributions,
        "events": events,
        "install": install,
        "retryWaitsSeconds": host_manifest::limits::EVENT_RETRY_WAITS_SECS,
        "checks": super::dev::CHECKS,
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
}
