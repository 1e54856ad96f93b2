//! `cargo host dev`: the host's side of a vendor server in development, on loopback.
//!
//! Serves `GET /.well-known/jwks.json` (the well-known development key set, the one `call`,
//! `trigger` and `check` sign with) and `POST /v1/events`, where the vendor server posts its own
//! events. Each event is checked as the host checks it, in this order, and the first failure
//! answers:
//!
//! 1. the three Standard Webhooks headers are present (401);
//! 2. the signature is valid with the secret, 300 s of skew (401);
//! 3. the body is the JSON envelope `{ event, source, occurredAt, build, dedupeKey, payload }` with
//!    members of the right types (400);
//! 4. `dedupeKey` equals `webhook-id` (400);
//! 5. `event` is declared under `contributes.webhooks` (422);
//! 6. `payload` is valid against that webhook's `payload` schema (422, naming the JSON pointer);
//! 7. an `alert` or `banner` payload has a non-empty string `why` (422).
//!
//! Unless `--no-console`, it also serves the [console](super::console) on a port of its own, and
//! every posted event goes on its timeline with the checks above.
//!
//! An accepted event answers 202 `{"accepted":true}`; the same `webhook-id` again answers 200
//! `{"accepted":true,"duplicate":true}`. Refusals are 4xx with an error body, so a sender does not
//! retry them. One line per event goes to stdout, flushed at once.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use bytes::Bytes;
use host_manifest::model::WebhookKind;
use host_runtime::testing::{DEVELOPMENT_WEBHOOK_SECRET, development_jwks};
use host_runtime::webhook::{Secret, WebhookError, verify_webhook};
use http::{HeaderMap, Method, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use serde_json::{Value, json};

use super::console::timeline::Timeline;
use super::output::{Term, indented, line};
use super::{Fail, ManifestArg, listed};
use host_manifest::closest;

/// The largest event body accepted.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// Arguments of `cargo host dev`.
#[derive(Debug, clap::Args)]
pub struct DevArgs {
    #[command(flatten)]
    pub manifest: ManifestArg,
    /// Where to listen: a loopback address only, because the development key is public; port 0
    /// picks a free port.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8788")]
    pub listen: String,
    /// The secret vendor events must be signed with [default: the well-known development secret].
    #[arg(long, value_name = "whsec_...")]
    pub secret: Option<String>,
    /// Also build and run the vendor server with the environment below, and rebuild and restart
    /// it whenever its sources, `Cargo.toml`, `build.rs` or the manifest change; the local host
    /// stays up throughout.
    #[arg(long)]
    pub watch: bool,
    /// With `--watch`: the vendor crate's folder [default: the manifest's folder].
    #[arg(long, value_name = "PATH", requires = "watch")]
    pub crate_dir: Option<std::path::PathBuf>,
    /// With `--watch`: `LISTEN_ADDR` for the vendor server [default: its own default].
    #[arg(long, value_name = "ADDR", requires = "watch")]
    pub server_listen: Option<String>,
    /// With `--watch`: the binary to run, for a crate with several.
    #[arg(long, value_name = "NAME", requires = "watch")]
    pub bin: Option<String>,
    /// Where to serve the console, the page that calls every contribution from a form and shows
    /// every call and event on a timeline: a loopback address; when its port is taken, any free
    /// port (the address is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8789")]
    pub console: String,
    /// Serve no console.
    #[arg(long, conflicts_with = "open")]
    pub no_console: bool,
    /// Open the console in the default browser.
    #[arg(long)]
    pub open: bool,
    /// The vendor server the console calls.
    #[command(flatten)]
    pub server: super::ServerArg,
    /// The vendor server's outbox, for the console's outbox panel: a folder (the embedded store,
    /// locked while the server runs) or a `redis://` URL.
    #[arg(long, value_name = "FOLDER|URL")]
    pub outbox: Option<String>,
    /// With `--outbox redis://...`: the key prefix.
    #[arg(long, value_name = "PREFIX", default_value = "host-outbox:")]
    pub outbox_prefix: String,
}

/// What the local host knows while it serves.
pub(super) struct Host {
    secret: Secret,
    webhooks: HashMap<String, Declared>,
    /// `webhook-id`s of accepted events.
    accepted: Mutex<HashSet<String>>,
    jwks: Bytes,
    term: Term,
    /// The console's timeline, which records every posted event, when the console is served.
    timeline: Option<Arc<Timeline>>,
}

/// A webhook declared under `contributes.webhooks`.
struct Declared {
    kind: WebhookKind,
    /// `None` only when the schema does not compile, which the manifest engine reports first.
    validator: Option<jsonschema::Validator>,
}

/// The verdict on one posted event.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    Accepted {
        event: String,
        kind: WebhookKind,
        source: String,
        id: String,
        why: Option<String>,
        payload: Value,
    },
    Duplicate {
        event: String,
        source: String,
        id: String,
    },
    Rejected {
        /// The check that failed: an index into [`CHECKS`].
        step: usize,
        event: Option<String>,
        status: u16,
        code: &'static str,
        message: String,
    },
}

/// The checks of a posted event, in the order of the module docs; the console shows each.
pub const CHECKS: [&str; 7] = [
    "signed",
    "signature",
    "envelope",
    "dedupe key",
    "declared name",
    "payload schema",
    "why",
];

fn rejected(
    step: usize,
    event: Option<&str>,
    status: u16,
    code: &'static str,
    message: String,
) -> Verdict {
    Verdict::Rejected {
        step,
        event: event.map(str::to_owned),
        status,
        code,
        message,
    }
}

/// Runs `cargo host dev` until Ctrl-C.
pub async fn run(args: DevArgs, term: Term) -> ExitCode {
    match serve(args, term).await {
        Ok(code) => code,
        Err(fail) => fail.report(&term),
    }
}

async fn serve(args: DevArgs, term: Term) -> Result<ExitCode, Fail> {
    let addr = loopback(&args.listen)?;
    let loaded = super::load_manifest(&args.manifest.manifest, &term)?;
    let secret_text = args.secret.as_deref().unwrap_or(DEVELOPMENT_WEBHOOK_SECRET);
    let secret = Secret::parse(secret_text).map_err(|e| {
        Fail::usage(format!(
            "`--secret`: {e}; pass `whsec_` + base64 of at least 24 bytes"
        ))
    })?;
    let webhooks = loaded
        .manifest
        .contributes
        .webhooks
        .iter()
        .map(|w| {
            let declared = Declared {
                kind: w.kind,
                validator: super::schema::compile(&w.payload).ok(),
            };
            (w.event.clone(), declared)
        })
        .collect();
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        Fail::usage(format!(
            "cannot listen on {addr}: {e}; pass another address, e.g. `--listen 127.0.0.1:0` for any free port"
        ))
    })?;
    let bound = listener.local_addr().unwrap_or(addr);
    let console_listener = if args.no_console {
        None
    } else {
        Some(console_listener(&args.console, &term).await?)
    };
    let timeline = console_listener
        .as_ref()
        .map(|_| Arc::new(super::console::timeline::Timeline::new()));
    let host = Arc::new(Host {
        secret,
        webhooks,
        accepted: Mutex::new(HashSet::new()),
        jwks: Bytes::from(development_jwks().to_string()),
        term,
        timeline: timeline.clone(),
    });
    let mut console_url = None;
    // With `--watch --server-listen ADDR`, the server the console calls is the one it runs.
    let server_url = match (&args.server_listen, args.server.server.as_str()) {
        (Some(listen), super::DEFAULT_SERVER) => format!("http://{listen}"),
        _ => args.server.server.clone(),
    };
    if let (Some(listener), Some(timeline)) = (console_listener, timeline) {
        let client = super::client::Client::new(&server_url)?;
        let outbox = match &args.outbox {
            None => super::console::Outbox::Unnamed,
            Some(place) => match crate::outbox::open(place, &args.outbox_prefix).await {
                Ok(store) => super::console::Outbox::Open(store),
                Err(e) => {
                    term.warning(&format!(
                        "the console cannot show the outbox: {}",
                        e.message
                    ));
                    super::console::Outbox::Failed(e.message)
                }
            },
        };
        let at = listener
            .local_addr()
            .map_or_else(|_| args.console.clone(), |a| a.to_string());
        console_url = Some(format!("http://{at}/"));
        let console = Arc::new(super::console::Console {
            host: Arc::clone(&host),
            timeline,
            manifest: loaded.manifest.clone(),
            shown: loaded.shown.clone(),
            client,
            outbox,
        });
        tokio::spawn(super::console::serve(listener, console));
    }
    banner(
        &term,
        bound,
        secret_text,
        &loaded.shown,
        host.webhooks.len(),
        console_url.as_deref().map(|u| (u, server_url.as_str())),
    );
    if let (true, Some(url)) = (args.open, &console_url)
        && let Err(why) = super::console::open_browser(url)
    {
        term.note(&why);
    }
    let running = Arc::new(Mutex::new(None));
    if args.watch {
        let manifest = std::path::PathBuf::from(&loaded.shown);
        let crate_dir = match &args.crate_dir {
            Some(dir) => dir.clone(),
            None => manifest
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(
                    || std::path::PathBuf::from("."),
                    std::path::Path::to_path_buf,
                ),
        };
        let mut env = exports(bound, secret_text);
        if let Some(listen) = &args.server_listen {
            env.push(("LISTEN_ADDR".to_owned(), listen.clone()));
        }
        let supervisor = super::supervise::Supervisor {
            crate_dir,
            manifest,
            bin: args.bin.clone(),
            env,
            running: Arc::clone(&running),
            term,
        };
        std::thread::spawn(move || supervisor.run());
    }
    // Whatever stops the local host stops the vendor server it runs.
    let stop_server = || {
        if let Some(child) = running.lock().ok().and_then(|mut r| r.take()) {
            super::supervise::stop_child(child);
        }
    };

    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                // A failed accept (a peer gone, a file limit) concerns that connection only.
                let Ok((stream, _)) = accepted else { continue };
                let host = Arc::clone(&host);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let host = Arc::clone(&host);
                        async move { Ok::<_, Infallible>(respond(&host, request).await) }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await;
                });
            }
            _ = &mut stop => {
                stop_server();
                line("local host stopped");
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
}

/// Binds the console's address; a taken port falls back to any free one, so two local hosts (or
/// tests) can run side by side.
async fn console_listener(text: &str, term: &Term) -> Result<tokio::net::TcpListener, Fail> {
    let addr =
        loopback(text).map_err(|f| Fail::usage(f.message.replace("--listen", "--console")))?;
    match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => Ok(listener),
        Err(first) => {
            let any = SocketAddr::new(addr.ip(), 0);
            let listener = tokio::net::TcpListener::bind(any).await.map_err(|e| {
                Fail::usage(format!(
                    "cannot serve the console on {addr} ({first}) nor on any port ({e}); pass `--no-console`"
                ))
            })?;
            if addr.port() != 0 {
                term.note(&format!(
                    "{addr} is taken ({first}); the console is on another port, printed below"
                ));
            }
            Ok(listener)
        }
    }
}

/// Parses `--listen` and refuses anything but loopback.
fn loopback(text: &str) -> Result<SocketAddr, Fail> {
    let addr = match text.strip_prefix("localhost:") {
        Some(port) => port
            .parse::<u16>()
            .map(|p| SocketAddr::from(([127, 0, 0, 1], p)))
            .ok(),
        None => text.parse::<SocketAddr>().ok(),
    };
    let Some(addr) = addr else {
        return Err(Fail::usage(format!(
            "`--listen {text}` is not an address with a port, such as 127.0.0.1:8788"
        )));
    };
    if !addr.ip().is_loopback() {
        return Err(Fail::usage(format!(
            "refusing to listen on {addr}: the development key is public, so anyone who reaches the local host could mint tokens your server accepts; listen on loopback, e.g. 127.0.0.1:8788"
        )));
    }
    Ok(addr)
}

/// The environment that points a vendor server at this local host.
fn exports(addr: SocketAddr, secret: &str) -> Vec<(String, String)> {
    let base = format!("http://{addr}");
    [
        ("HOST_MODE", "production".to_owned()),
        ("HOST_JWKS_URL", format!("{base}/.well-known/jwks.json")),
        ("HOST_ISSUER", host_runtime::auth::DEFAULT_ISSUER.to_owned()),
        ("HOST_EVENT_POST_URL", format!("{base}/v1/events")),
        ("HOST_SIGNING_SECRET", secret.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// Ctrl-C, or SIGTERM on Unix.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn banner(
    term: &Term,
    addr: SocketAddr,
    secret: &str,
    manifest: &str,
    webhooks: usize,
    console: Option<(&str, &str)>,
) {
    let base = format!("http://{addr}");
    line(&format!("local host listening on {base}"));
    line(&format!(
        "  key set     GET  {base}/.well-known/jwks.json (the development key)"
    ));
    line(&format!(
        "  event post  POST {base}/v1/events ({webhooks} webhook{} declared in {manifest})",
        if webhooks == 1 { "" } else { "s" }
    ));
    if let Some((url, server)) = console {
        line(&format!(
            "  console     {url} (every contribution as a form, every call and event on a timeline; calls {server})"
        ));
    }
    line("");
    line("Start your vendor server against it with:");
    line("");
    for (name, value) in exports(addr, secret) {
        line(&format!("export {name}={value}"));
    }
    line("");
    line(&format!(
        "Then `cargo host call ...`, `cargo host trigger ...` and `cargo host check` sign with the development key of this key set. {}",
        term.dim("Ctrl-C stops.")
    ));
    line("");
}

async fn respond(
    host: &Host,
    request: http::Request<hyper::body::Incoming>,
) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    match parts.uri.path() {
        "/.well-known/jwks.json" => match parts.method {
            Method::GET | Method::HEAD => Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::CACHE_CONTROL, "max-age=300")
                .body(Full::new(host.jwks.clone()))
                .unwrap_or_default(),
            _ => method_not_allowed("GET, HEAD"),
        },
        "/v1/events" if parts.method == Method::POST => {
            let started = std::time::Instant::now();
            let mut read = Bytes::new();
            let verdict = match Limited::new(body, BODY_LIMIT).collect().await {
                Ok(collected) => {
                    read = collected.to_bytes();
                    verify(host, &parts.headers, &read, SystemTime::now())
                }
                Err(e) if e.is::<http_body_util::LengthLimitError>() => rejected(
                    0,
                    None,
                    413,
                    "PAYLOAD_TOO_LARGE",
                    format!("the event body is over the {BODY_LIMIT}-byte limit"),
                ),
                Err(e) => rejected(
                    0,
                    None,
                    400,
                    "BAD_REQUEST",
                    format!("the body could not be read: {e}"),
                ),
            };
            print_verdict(&host.term, &verdict);
            let response = answer(&verdict);
            if let Some(timeline) = &host.timeline {
                let _ = timeline.posted(&parts.headers, read, &verdict, started.elapsed());
            }
            response
        }
        "/v1/events" => method_not_allowed("POST"),
        path => error_response(
            404,
            "NOT_FOUND",
            &format!(
                "the local host has no `{path}`; it serves GET /.well-known/jwks.json and POST /v1/events"
            ),
        ),
    }
}

fn method_not_allowed(allow: &str) -> Response<Full<Bytes>> {
    let mut response = error_response(
        405,
        "METHOD_NOT_ALLOWED",
        &format!("this route answers {allow} only"),
    );
    if let Ok(v) = http::HeaderValue::from_str(allow) {
        response.headers_mut().insert(header::ALLOW, v);
    }
    response
}

fn error_response(status: u16, code: &str, message: &str) -> Response<Full<Bytes>> {
    json_response(
        status,
        &json!({ "error": { "code": code, "message": message } }),
    )
}

fn json_response(status: u16, body: &Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap_or_default()
}

fn answer(verdict: &Verdict) -> Response<Full<Bytes>> {
    let (status, body) = answer_of(verdict);
    json_response(status, &body)
}

/// The status and body the local host answers a posted event with.
pub(super) fn answer_of(verdict: &Verdict) -> (u16, Value) {
    match verdict {
        Verdict::Accepted { .. } => (202, json!({ "accepted": true })),
        Verdict::Duplicate { .. } => (200, json!({ "accepted": true, "duplicate": true })),
        Verdict::Rejected {
            status,
            code,
            message,
            ..
        } => (
            *status,
            json!({ "error": { "code": code, "message": message } }),
        ),
    }
}

/// Checks one posted event (steps 1-7 of the module docs) and records it when accepted.
pub(super) fn verify(host: &Host, headers: &HeaderMap, body: &[u8], now: SystemTime) -> Verdict {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    // For messages only until the signature is checked.
    let named = parsed
        .as_ref()
        .and_then(|b| b.get("event"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let named = named.as_deref();

    // 1. The headers.
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let names = ["webhook-id", "webhook-timestamp", "webhook-signature"];
    let missing: Vec<&str> = names.into_iter().filter(|n| header(n).is_none()).collect();
    let (Some(id), Some(timestamp), Some(signature)) = (
        header("webhook-id"),
        header("webhook-timestamp"),
        header("webhook-signature"),
    ) else {
        return rejected(
            0,
            named,
            401,
            "UNAUTHORIZED",
            format!(
                "the event is not signed: {} missing; sign it with the install's secret (Standard Webhooks v1)",
                listed(missing)
            ),
        );
    };

    // 2. The signature.
    if let Err(e) = verify_webhook(&host.secret, id, timestamp, signature, body, now) {
        let hint = match e {
            WebhookError::NoMatchingSignature => {
                "; sign with HOST_SIGNING_SECRET as printed by `cargo host dev`, over the body exactly as sent"
            }
            WebhookError::TimestampOutOfTolerance => "; is the clock right?",
            _ => "",
        };
        return rejected(1, named, 401, "UNAUTHORIZED", format!("{e}{hint}"));
    }

    // 3. The envelope.
    let Some(envelope) = parsed.as_ref().and_then(Value::as_object) else {
        let why = match &parsed {
            None => "the body is not JSON",
            Some(_) => "the body is not a JSON object",
        };
        return rejected(
            2,
            named,
            400,
            "BAD_REQUEST",
            format!(
                "{why}; post the envelope {{ event, source, occurredAt, build, dedupeKey, payload }}"
            ),
        );
    };
    let text = |k: &str| envelope.get(k).and_then(Value::as_str);
    let mut problems = Vec::new();
    for member in ["event", "source", "dedupeKey"] {
        if text(member).is_none() {
            problems.push(format!("`{member}` must be a string"));
        }
    }
    match text("occurredAt") {
        Some(t) if chrono::DateTime::parse_from_rfc3339(t).is_ok() => {}
        Some(t) => problems.push(format!("`occurredAt` `{t}` is not an ISO 8601 timestamp")),
        None => problems.push("`occurredAt` must be an ISO 8601 timestamp string".to_owned()),
    }
    if !matches!(envelope.get("build"), Some(Value::String(_) | Value::Null)) {
        problems.push("`build` must be a string or null".to_owned());
    }
    if !envelope.contains_key("payload") {
        problems.push("`payload` is missing".to_owned());
    }
    let (Some(event), Some(source), Some(dedupe_key), true) = (
        text("event"),
        text("source"),
        text("dedupeKey"),
        problems.is_empty(),
    ) else {
        return rejected(
            2,
            named,
            400,
            "BAD_REQUEST",
            format!("the envelope is malformed: {}", problems.join("; ")),
        );
    };
    let payload = envelope.get("payload").cloned().unwrap_or(Value::Null);

    // 4. The idempotency key.
    if dedupe_key != id {
        return rejected(
            3,
            Some(event),
            400,
            "BAD_REQUEST",
            format!(
                "`dedupeKey` `{dedupe_key}` differs from the `webhook-id` header `{id}`; they must be equal"
            ),
        );
    }

    // 5. Declared.
    let Some(declared) = host.webhooks.get(event) else {
        let names: Vec<&str> = host.webhooks.keys().map(String::as_str).collect();
        let hint = closest(event, names.iter().copied())
            .map(|near| format!("did you mean `{near}`? "))
            .unwrap_or_default();
        let known = if names.is_empty() {
            "the manifest declares none".to_owned()
        } else {
            let mut sorted = names;
            sorted.sort_unstable();
            format!("declared: {}", listed(sorted))
        };
        return rejected(
            4,
            Some(event),
            422,
            "EVENT_NOT_DECLARED",
            format!("`{event}` is not declared under `contributes.webhooks`; {hint}{known}"),
        );
    };

    // 6. The payload schema.
    if let Some(e) = declared
        .validator
        .as_ref()
        .and_then(|v| super::schema::first_error(v, &payload))
    {
        return rejected(
            5,
            Some(event),
            422,
            "PAYLOAD_INVALID",
            format!("the payload fails the `{event}` schema {e}"),
        );
    }

    // 7. `why` on alerts and banners.
    let why = payload.get("why").and_then(Value::as_str);
    let shows_why = matches!(declared.kind, WebhookKind::Alert | WebhookKind::Banner);
    if shows_why && why.is_none_or(|w| w.trim().is_empty()) {
        return rejected(
            6,
            Some(event),
            422,
            "PAYLOAD_INVALID",
            format!(
                "`{event}` is declared `as: {}`: its payload needs a non-empty string `why`, the sentence the owner reads",
                declared.kind
            ),
        );
    }

    let first = match host.accepted.lock() {
        Ok(mut seen) => seen.insert(id.to_owned()),
        Err(poisoned) => poisoned.into_inner().insert(id.to_owned()),
    };
    if !first {
        return Verdict::Duplicate {
            event: event.to_owned(),
            source: source.to_owned(),
            id: id.to_owned(),
        };
    }
    Verdict::Accepted {
        event: event.to_owned(),
        kind: declared.kind,
        source: source.to_owned(),
        id: id.to_owned(),
        why: why.filter(|_| shows_why).map(str::to_owned),
        payload,
    }
}

fn print_verdict(term: &Term, verdict: &Verdict) {
    match verdict {
        Verdict::Accepted {
            event,
            kind,
            source,
            id,
            why,
            payload,
        } => {
            let why = why
                .as_ref()
                .map(|w| format!(": why: {}", Value::String(w.clone())))
                .unwrap_or_default();
            line(&format!(
                "{} accepted {} ({kind}) from {source} {}{why}",
                term.ok(),
                term.bold(event),
                term.dim(&format!("id={id}"))
            ));
            line(&indented(payload, 4));
        }
        Verdict::Duplicate { event, source, id } => line(&format!(
            "{} duplicate {event} from {source} {} (already accepted; answered 200)",
            term.again(),
            term.dim(&format!("id={id}"))
        )),
        Verdict::Rejected {
            event,
            status,
            code,
            message,
            ..
        } => line(&format!(
            "{} rejected {}: {message} {}",
            term.bad(),
            event.as_deref().unwrap_or("?"),
            term.dim(&format!("(answered {status} {code})"))
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use host_runtime::webhook::sign_webhook;
    use std::time::{Duration, UNIX_EPOCH};

    fn host() -> Host {
        let schema = json!({ "type": "object", "required": ["why"],
            "properties": { "why": { "type": "string" }, "previous": { "type": "integer", "minimum": 1 } } });
        let mut webhooks = HashMap::new();
        webhooks.insert(
            "rank.dropped".to_owned(),
            Declared {
                kind: WebhookKind::Alert,
                validator: super::super::schema::compile(&schema).ok(),
            },
        );
        webhooks.insert(
            "store.algorithm_updated".to_owned(),
            Declared {
                kind: WebhookKind::Event,
                validator: None,
            },
        );
        Host {
            secret: Secret::parse(DEVELOPMENT_WEBHOOK_SECRET).unwrap(),
            webhooks,
            accepted: Mutex::new(HashSet::new()),
            jwks: Bytes::new(),
            timeline: None,
            term: Term {
                out: false,
                err: false,
            },
        }
    }

    const NOW: u64 = 1_800_000_000;

    fn signed(host: &Host, id: &str, envelope: &Value) -> (HeaderMap, Vec<u8>) {
        let body = envelope.to_string().into_bytes();
        let signature = sign_webhook(&host.secret, id, NOW as i64, &body);
        let mut headers = HeaderMap::new();
        headers.insert("webhook-id", id.parse().unwrap());
        headers.insert("webhook-timestamp", NOW.to_string().parse().unwrap());
        headers.insert("webhook-signature", signature.parse().unwrap());
        (headers, body)
    }

    fn envelope(id: &str, event: &str, payload: Value) -> Value {
        json!({ "event": event, "source": "ins_dev_1", "occurredAt": "2027-01-15T08:00:00Z",
                "build": null, "dedupeKey": id, "payload": payload })
    }

    fn check(host: &Host, id: &str, envelope: &Value) -> Verdict {
        let (headers, body) = signed(host, id, envelope);
        verify(host, &headers, &body, UNIX_EPOCH + Duration::from_secs(NOW))
    }

    fn status(v: &Verdict) -> u16 {
        match v {
            Verdict::Accepted { .. } => 202,
            Verdict::Duplicate { .. } => 200,
            Verdict::Rejected { status, .. } => *status,
        }
    }

    fn message(v: &Verdict) -> &str {
        match v {
            Verdict::Rejected { message, .. } => message,
            _ => "",
        }
    }

    #[test]
    fn a_signed_declared_event_is_accepted_once() {
        let h = host();
        let e = envelope(
            "msg_1",
            "rank.dropped",
            json!({ "why": "Notes fell to 9", "previous": 3 }),
        );
        let first = check(&h, "msg_1", &e);
        assert!(
            matches!(&first, Verdict::Accepted { why: Some(w), .. } if w == "Notes fell to 9"),
            "{first:?}"
        );
        assert_eq!(status(&check(&h, "msg_1", &e)), 200);
        let marker = envelope(
            "msg_2",
            "store.algorithm_updated",
            json!({ "store": "app_store" }),
        );
        assert!(matches!(
            check(&h, "msg_2", &marker),
            Verdict::Accepted { why: None, .. }
        ));
    }

    #[test]
    fn signatures_are_required_and_checked() {
        let h = host();
        let e = envelope("msg_1", "rank.dropped", json!({ "why": "x" }));
        let (mut headers, body) = signed(&h, "msg_1", &e);
        let now = UNIX_EPOCH + Duration::from_secs(NOW);
        let mut tampered = body.clone();
        tampered.push(b' ');
        let bad = verify(&h, &headers, &tampered, now);
        assert_eq!(status(&bad), 401);
        assert!(message(&bad).contains("no signature"), "{bad:?}");
        let late = verify(&h, &headers, &body, now + Duration::from_secs(301));
        assert_eq!(status(&late), 401);
        headers.remove("webhook-timestamp");
        let unsigned = verify(&h, &headers, &body, now);
        assert!(
            message(&unsigned).contains("`webhook-timestamp`"),
            "{unsigned:?}"
        );
    }

    #[test]
    fn envelopes_events_and_payloads_are_checked_in_order() {
        let h = host();
        let mut e = envelope("msg_1", "rank.dropped", json!({ "why": "x" }));
        e["occurredAt"] = json!("yesterday");
        e["build"] = json!(12);
        let v = check(&h, "msg_1", &e);
        assert_eq!(status(&v), 400);
        assert!(
            message(&v).contains("`occurredAt`") && message(&v).contains("`build`"),
            "{v:?}"
        );

        let other_key = envelope("msg_other", "rank.dropped", json!({ "why": "x" }));
        assert!(message(&check(&h, "msg_1", &other_key)).contains("`dedupeKey`"));

        let typo = check(&h, "msg_1", &envelope("msg_1", "rank.droped", json!({})));
        assert_eq!(status(&typo), 422);
        assert!(
            message(&typo).contains("did you mean `rank.dropped`?"),
            "{typo:?}"
        );

        let schema = check(
            &h,
            "msg_1",
            &envelope(
                "msg_1",
                "rank.dropped",
                json!({ "why": "x", "previous": 0 }),
            ),
        );
        assert_eq!(status(&schema), 422);
        assert!(message(&schema).contains("at `/previous`"), "{schema:?}");

        let empty_why = check(
            &h,
            "msg_1",
            &envelope("msg_1", "rank.dropped", json!({ "why": " " })),
        );
        assert_eq!(status(&empty_why), 422);
        assert!(
            message(&empty_why).contains("non-empty string `why`"),
            "{empty_why:?}"
        );

        let not_json = {
            let body = b"not json".to_vec();
            let sig = sign_webhook(&h.secret, "msg_9", NOW as i64, &body);
            let mut headers = HeaderMap::new();
            headers.insert("webhook-id", "msg_9".parse().unwrap());
            headers.insert("webhook-timestamp", NOW.to_string().parse().unwrap());
            headers.insert("webhook-signature", sig.parse().unwrap());
            verify(&h, &headers, &body, UNIX_EPOCH + Duration::from_secs(NOW))
        };
        assert_eq!(status(&not_json), 400);
    }

    #[test]
    fn only_loopback_is_served() {
        assert!(loopback("127.0.0.1:0").is_ok());
        assert!(loopback("[::1]:8788").is_ok());
        assert_eq!(
            loopback("localhost:9000").ok(),
            Some(SocketAddr::from(([127, 0, 0, 1], 9000)))
        );
        let open = loopback("0.0.0.0:8788").err().map(|f| (f.code, f.message));
        assert!(
            matches!(&open, Some((2, m)) if m.contains("refusing to listen")),
            "{open:?}"
        );
        assert!(loopback("8788").is_err());
    }
}
