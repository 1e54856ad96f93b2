//! `cargo host dev`: the host's side of a vendor server in development, on loopback.
//!
//! Serves `GET /.well-known/jwks.json` (the well-known development key set, the one `call`,
//! `trigger` and `check` sign with) and `POST /v1/events`, where the vendor server posts its own
//! events; the [inbox](super::inbox) checks each as the host does and the first failed check
//! answers. One line per event goes to stdout, flushed at once.
//!
//! Unless `--no-console`, it also serves the [console](super::console) on a port of its own, and
//! every posted event goes on its timeline with the checks the inbox applied.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use host_runtime::testing::{DEVELOPMENT_WEBHOOK_SECRET, development_jwks};
use host_runtime::webhook::Secret;
use http::{HeaderMap, StatusCode, Uri, header};
use serde_json::Value;

use super::console::timeline::Timeline;
use super::inbox::{Inbox, Verdict};
use super::web::{self, BODY_LIMIT, loopback};
use super::{Fail, ManifestArg};
use crate::output::{Term, indented, line};

/// Arguments of `cargo host dev`.
#[derive(Debug, clap::Args)]
pub(crate) struct DevArgs {
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

/// What the local host's server holds.
struct Local {
    inbox: Arc<Inbox>,
    jwks: Bytes,
    term: Term,
    /// The console's timeline, which records every posted event, when the console is served.
    timeline: Option<Arc<Timeline>>,
}

/// Runs `cargo host dev` until Ctrl-C.
pub(crate) async fn run(args: DevArgs, term: Term) -> ExitCode {
    match serve(args, term).await {
        Ok(code) => code,
        Err(fail) => fail.report(&term),
    }
}

async fn serve(args: DevArgs, term: Term) -> Result<ExitCode, Fail> {
    let addr = loopback("--listen", &args.listen)?;
    let loaded = super::load_manifest(&args.manifest.manifest, &term)?;
    let secret_text = args.secret.as_deref().unwrap_or(DEVELOPMENT_WEBHOOK_SECRET);
    let secret = Secret::parse(secret_text).map_err(|e| {
        Fail::usage(format!(
            "`--secret`: {e}; pass `whsec_` + base64 of at least 24 bytes"
        ))
    })?;
    let inbox = Arc::new(Inbox::new(&loaded.manifest, secret));
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
    let timeline = console_listener.as_ref().map(|_| Arc::new(Timeline::new()));
    let local = Arc::new(Local {
        inbox: Arc::clone(&inbox),
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
            Some(place) => match crate::outbox_store::open(place, &args.outbox_prefix).await {
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
            inbox,
            timeline,
            manifest: loaded.manifest.clone(),
            shown: loaded.shown.clone(),
            client,
            outbox,
        });
        tokio::spawn(web::serve(listener, super::console::router(console)));
    }
    banner(
        &term,
        bound,
        secret_text,
        &loaded.shown,
        local.inbox.declared(),
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

    tokio::select! {
        () = web::serve(listener, router(local)) => {}
        () = stop_signal() => {}
    }
    // Whatever stops the local host stops the vendor server it runs.
    if let Some(child) = running.lock().ok().and_then(|mut r| r.take()) {
        super::supervise::stop_child(child);
    }
    line("local host stopped");
    Ok(ExitCode::SUCCESS)
}

/// The local host's routes: the key set and the event inbox.
fn router(local: Arc<Local>) -> Router {
    Router::new()
        .route("/.well-known/jwks.json", get(jwks))
        .route("/v1/events", post(event))
        .fallback(not_found)
        .method_not_allowed_fallback(web::method_not_allowed)
        .layer(axum::middleware::from_fn(guard))
        .with_state(local)
}

/// Refuses what no vendor server sends, before it is read: a request addressed to a name other
/// than this machine's (a DNS-rebound page), and a `POST` a web page sent (browsers put an
/// `Origin` on it; a server's HTTP client does not). The key set is public and may be read by
/// anyone on this machine.
async fn guard(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    if !super::console::loopback_host(host) {
        return web::error(
            StatusCode::MISDIRECTED_REQUEST,
            "MISDIRECTED",
            "the local host answers only requests addressed to 127.0.0.1, localhost or [::1]",
        );
    }
    if request.method() != http::Method::GET && request.headers().contains_key(header::ORIGIN) {
        return web::error(
            StatusCode::FORBIDDEN,
            "FOREIGN_ORIGIN",
            "the local host takes events from servers, not from web pages: this request carries \
             an `Origin`",
        );
    }
    next.run(request).await
}

async fn jwks(State(local): State<Arc<Local>>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        local.jwks.clone(),
    )
        .into_response()
}

/// `POST /v1/events`: the inbox's verdict, printed, put on the console's timeline, answered.
async fn event(State(local): State<Arc<Local>>, headers: HeaderMap, body: Body) -> Response {
    let started = Instant::now();
    let (read, verdict) = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(read) => {
            let verdict = local.inbox.verify(&headers, &read, SystemTime::now());
            (read, verdict)
        }
        Err(e) => {
            let e = e.into_inner();
            let too_large = e.is::<http_body_util::LengthLimitError>();
            (
                Bytes::new(),
                Verdict::unreadable(too_large, BODY_LIMIT, &e.to_string()),
            )
        }
    };
    print_verdict(&local.term, &verdict);
    let (status, body) = verdict.answer();
    if let Some(timeline) = &local.timeline {
        let _ = timeline.posted(&headers, read, &verdict, started.elapsed());
    }
    web::json(
        StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
        &body,
    )
}

async fn not_found(uri: Uri) -> Response {
    web::error(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        &format!(
            "the local host has no `{}`; it serves GET /.well-known/jwks.json and POST /v1/events",
            uri.path()
        ),
    )
}

/// Binds the console's address; a taken port falls back to any free one, so two local hosts (or
/// tests) can run side by side.
async fn console_listener(text: &str, term: &Term) -> Result<tokio::net::TcpListener, Fail> {
    let addr = loopback("--console", text)?;
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
        Verdict::Rejected(r) => line(&format!(
            "{} rejected {}: {} {}",
            term.bad(),
            r.event.as_deref().unwrap_or("?"),
            r.message,
            term.dim(&format!("(answered {} {})", r.status, r.code))
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::Method;
    use tower::ServiceExt;

    fn local() -> Arc<Local> {
        let manifest: host_manifest::Manifest = serde_json::from_value(serde_json::json!({
            "id": "notes", "name": "Notes", "description": "Notes for apps.", "icon": "icon.png",
            "category": "support", "sdk": "^2.0.0", "visibility": "private",
            "installScope": "project", "scopes": [], "contributes": {}
        }))
        .unwrap();
        let secret = Secret::parse(DEVELOPMENT_WEBHOOK_SECRET).unwrap();
        Arc::new(Local {
            inbox: Arc::new(Inbox::new(&manifest, secret)),
            jwks: Bytes::from_static(b"{}"),
            term: Term {
                out: false,
                err: false,
            },
            timeline: None,
        })
    }

    async fn ask(method: Method, path: &str, body: Vec<u8>) -> (u16, HeaderMap, Value) {
        ask_with(method, path, body, &[(header::HOST, "127.0.0.1:8788")]).await
    }

    async fn ask_with(
        method: Method,
        path: &str,
        body: Vec<u8>,
        headers: &[(header::HeaderName, &str)],
    ) -> (u16, HeaderMap, Value) {
        let mut request = http::Request::builder().method(method).uri(path);
        for (name, value) in headers {
            request = request.header(name, *value);
        }
        let request = request.body(Body::from(body)).unwrap();
        let answer = router(local()).oneshot(request).await.unwrap();
        let status = answer.status().as_u16();
        let headers = answer.headers().clone();
        let body = axum::body::to_bytes(answer.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            headers,
            serde_json::from_slice(&body).unwrap_or(Value::Null),
        )
    }

    #[tokio::test]
    async fn every_refusal_is_the_hosts_error_body() {
        let (status, headers, body) = ask(Method::GET, "/v1/events", Vec::new()).await;
        assert_eq!(status, 405);
        assert_eq!(headers[header::ALLOW], "POST");
        assert_eq!(body["error"]["code"], "METHOD_NOT_ALLOWED");
        let (status, _, body) = ask(Method::GET, "/nothing", Vec::new()).await;
        assert_eq!(status, 404);
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`/nothing`")
        );
        let (status, _, body) = ask(Method::POST, "/v1/events", vec![b' '; BODY_LIMIT + 1]).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (413, Some("PAYLOAD_TOO_LARGE"))
        );
        let (status, _, body) = ask(Method::POST, "/v1/events", b"{}".to_vec()).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (401, Some("UNAUTHORIZED"))
        );
        let (status, headers, _) = ask(Method::GET, "/.well-known/jwks.json", Vec::new()).await;
        assert_eq!(status, 200);
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    }

    /// No web page can drive the inbox: not one rebound to another name, nor one posting from
    /// its own origin; a server's post, addressed to this machine with no `Origin`, gets through.
    #[tokio::test]
    async fn the_inbox_answers_only_this_machine_and_no_web_page() {
        async fn post(headers: &[(header::HeaderName, &str)]) -> (u16, HeaderMap, Value) {
            ask_with(Method::POST, "/v1/events", b"{}".to_vec(), headers).await
        }
        for host in [
            "evil.example",
            "evil.example:8788",
            "127.0.0.1.evil.example",
        ] {
            let (status, _, body) = post(&[(header::HOST, host)]).await;
            assert_eq!(
                (status, body["error"]["code"].as_str()),
                (421, Some("MISDIRECTED")),
                "{host}"
            );
        }
        let (status, _, _) = ask_with(Method::GET, "/.well-known/jwks.json", Vec::new(), &[]).await;
        assert_eq!(status, 421, "no Host at all");
        for origin in ["http://evil.example", "http://127.0.0.1:8788", "null"] {
            let (status, _, body) =
                post(&[(header::HOST, "localhost:8788"), (header::ORIGIN, origin)]).await;
            assert_eq!(
                (status, body["error"]["code"].as_str()),
                (403, Some("FOREIGN_ORIGIN")),
                "{origin}"
            );
        }
        for host in [
            "127.0.0.1:8788",
            "localhost:8788",
            "[::1]:8788",
            "localhost",
        ] {
            let (status, _, body) = post(&[(header::HOST, host)]).await;
            assert_eq!(
                (status, body["error"]["code"].as_str()),
                (401, Some("UNAUTHORIZED")),
                "{host}: through the guard, to the inbox's own checks"
            );
        }
    }
}
