//! Cloudflare Workers for host extensions: [`respond`] answers a Worker's request with the
//! extension's `Handler`, and [`FetchClient`] lets the handler fetch the host's key set and post
//! events with the Worker's own `fetch`.
//!
//! ```ignore
//! use std::sync::OnceLock;
//! use worker::{Context, Env, Request, Response, Result, event};
//!
//! static HANDLER: OnceLock<host_runtime::Handler> = OnceLock::new();
//!
//! #[event(fetch)]
//! async fn fetch(request: Request, env: Env, ctx: Context) -> Result<Response> {
//!     let handler = HANDLER.get_or_init(|| {
//!         handler(MyServer::default())
//!             .with_http_client(host_runtime_workers::FetchClient::client())
//!             .with_jwks_url(env.var("HOST_JWKS_URL").map(|v| v.to_string()).unwrap_or_default())
//!     });
//!     host_runtime_workers::respond(handler, request, &ctx).await
//! }
//! ```
//!
//! What differs from a native server:
//!
//! - **Key set.** Fetched with the Worker's `fetch` ([`FetchClient`]); it is cached per isolate, so
//!   each new isolate fetches it once. `with_jwks` avoids the fetch where the key set is known.
//! - **Deduplication.** A memory store (`MemoryDedupe`) lives in one isolate: a retry that reaches
//!   another isolate (another location, or after the isolate was evicted) would run again. Give
//!   the handler a Durable Object store (`with_dedupe_store`), strongly consistent wherever the
//!   delivery lands: [`DurableOutbox::dedupe_store`] keeps the records in the outbox's own object,
//!   so a delivery asks one object for its claim, its completion and any event the host did not
//!   take at once; or [`DurableDedupe::new`] claims every key in a Durable Object of its own ([`HostDedupe`]), one
//!   new object per delivery, for Workers that take more deliveries than one object answers (a
//!   few hundred a second). Workers KV is eventually consistent and cannot claim a key atomically.
//! - **The outbox.** Give the sender [`DurableOutbox`] (the outbox argument of `EventSender::new`) and
//!   register how to build
//!   it with [`drain_with`] in `#[event(start)]`: an event the host did not take is kept in a
//!   Durable Object ([`HostOutbox`]) whose alarm posts it again when it is due, with no request to
//!   the Worker.
//! - **Background work.** A Worker's tasks end with its request, so [`respond`] runs each request
//!   as an [`Invocation`](host_runtime::outbox::Invocation): the events the handler handed to the
//!   outbox (`enqueue`, `send` or `spawn`) get one attempt before the response goes back, and what
//!   the host does not take waits for the outbox's next drain (the [`HostOutbox`] alarm). The
//!   outbox's record of each attempt is made after the response, under `ctx.wait_until`.
//! - **Limits.** Workers read at most 100 MB of body; the handler's own limit (1 MiB by default)
//!   still answers 413 above it.
//! - **Start-up.** A handler built on an isolate's first request makes that request wait for it,
//!   and for the runtime to compile the code that builds it. [`module_env`] gives the module the
//!   Worker's environment as the runtime loads it, so `#[event(start)]` can build the handler
//!   before any request comes (the example does; it keeps the first-request path for a runtime
//!   without it). Then [`warm`] compiles what the first calls run, so that they do not wait for
//!   V8 to compile it either: the request path up to the token's check, and a first event
//!   delivery's exchanges with the outbox object.
//!
//! Both Durable Object classes are exported by any Worker that links this crate; bind the ones you
//! use:
//!
//! ```toml
//! [[durable_objects.bindings]]
//! name = "HOST_DEDUPE"
//! class_name = "HostDedupe"
//!
//! [[durable_objects.bindings]]
//! name = "HOST_OUTBOX"
//! class_name = "HostOutbox"
//!
//! [[migrations]]
//! tag = "v1"
//! new_sqlite_classes = ["HostDedupe", "HostOutbox"]
//! ```

mod clock;
mod dedupe;
mod outbox;
mod wire;

pub use dedupe::{DurableDedupe, HostDedupe};
pub use outbox::{ALARM_BUDGET, DurableOutbox, HostOutbox, SenderFactory, drain_with};

use bytes::Bytes;
use host_runtime::client::{Client, ClientError, ClientErrorKind, HttpClient};
use host_runtime::{BoxFuture, Handler};
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Context, Headers, ObjectNamespace, Request, Response, Result, web_sys};

#[wasm_bindgen::prelude::wasm_bindgen(module = "cloudflare:workers")]
extern "C" {
    /// `env` of the runtime's `cloudflare:workers` module: the Worker's bindings, as they are at
    /// module load.
    #[wasm_bindgen(thread_local_v2, js_name = env)]
    static MODULE_ENV: JsValue;
}

/// The Worker's environment (its variables, secrets and bindings) as the runtime gives it to the
/// module while loading it, before any request: `import { env } from "cloudflare:workers"`, which
/// Cloudflare's runtime has served since March 2025. `None` if the runtime gives none. Call it
/// from `#[event(start)]` to build the handler at load, with no I/O there (the runtime refuses it
/// outside a request: a key set the handler must fetch is fetched on the first call).
pub fn module_env() -> Option<worker::Env> {
    MODULE_ENV.with(|env| env.is_object().then(|| env.clone().unchecked_into()))
}

/// Compiles, as the module loads, code that a fresh isolate's first calls would otherwise wait for
/// V8 to compile (it compiles each WebAssembly function on its first call): the handler's request
/// path up to the install token's check ([`Handler::warm`], which runs only when the handler holds
/// keys), and the requests and answers a first event delivery exchanges with the [`DurableOutbox`]
/// object, written and read. No I/O, no handler of yours, no metric or log line. Call it from
/// `#[event(start)]` once the handler is built; it returns what [`Handler::warm`] returns. On the
/// example worker it took a first tool call from 10.0 to 7.0 ms and a first event delivery from
/// 26.7 to 21.9 ms (see BENCHMARKS.md).
pub fn warm(handler: &Handler) -> usize {
    wire::warm();
    handler.warm()
}

/// Answers one Worker request with `handler`: the method, path, query, headers and body become
/// the handler's request, and its answer the Worker's response. The request runs as an
/// [`Invocation`](host_runtime::outbox::Invocation): the events the handler hands to the outbox
/// (`enqueue`, `send` or `spawn` alike) get one attempt, within 5 s, before the response goes back;
/// what the host does not take waits in the [`DurableOutbox`] for its alarm. The outbox's record
/// of each attempt is left to `ctx`'s `wait_until`, so the response does not wait for it (see
/// [`Invocation::run_answer_first`](host_runtime::outbox::Invocation::run_answer_first)).
pub async fn respond(handler: &Handler, mut request: Request, ctx: &Context) -> Result<Response> {
    // The Worker's URL string, not `Request::url`: the handler needs only the path and query,
    // and a full URL parse is code the isolate compiles on its first request.
    let url = request.inner().url();
    let mut builder = http::Request::builder()
        .method(request.method().as_ref())
        .uri(host_runtime::route::target_of(&url).as_ref());
    for (name, value) in request.headers() {
        builder = builder.header(name, value);
    }
    let body = request.bytes().await?;
    let request = builder
        .body(Bytes::from(body))
        .map_err(|e| worker::Error::RustError(format!("the request cannot be read: {e}")))?;
    let (answer, _events, records) = host_runtime::outbox::Invocation::new()
        .run_answer_first(handler.handle(request))
        .await;
    if !records.is_empty() {
        ctx.wait_until(records);
    }
    to_worker(answer)
}

/// The handler's answer as a Worker response.
fn to_worker(answer: http::Response<Bytes>) -> Result<Response> {
    let (parts, body) = answer.into_parts();
    let headers = Headers::new();
    // The Workers API takes header values as strings; the handler only writes visible ASCII.
    for (name, value) in &parts.headers {
        if let Ok(value) = value.to_str() {
            headers.append(name.as_str(), value)?;
        }
    }
    let response = if body.is_empty() {
        Response::empty()?
    } else {
        Response::from_bytes(body.to_vec())?
    };
    Ok(response
        .with_status(parts.status.as_u16())
        .with_headers(headers))
}

/// The Worker's `fetch`, as the handler's and the event sender's HTTP client.
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchClient;

impl FetchClient {
    /// A shared [`Client`] for `with_http_client`.
    pub fn client() -> Client {
        Client::new(FetchClient)
    }
}

impl HttpClient for FetchClient {
    fn send(
        &self,
        request: http::Request<Bytes>,
        max_body: usize,
    ) -> BoxFuture<'_, std::result::Result<http::Response<Bytes>, ClientError>> {
        // JavaScript values live on the isolate's one thread; the wrapper only satisfies `Send`.
        Box::pin(send_wrapper::SendWrapper::new(async move {
            fetch(request, max_body)
                .await
                // worker's error holds JavaScript values, which cannot cross threads: its text
                // is kept.
                .map_err(|e| ClientError::new(ClientErrorKind::Other, e.to_string()))
        }))
    }
}

async fn fetch(request: http::Request<Bytes>, max_body: usize) -> Result<http::Response<Bytes>> {
    let (parts, body) = request.into_parts();
    let headers = web_sys::Headers::new()?;
    for (name, value) in &parts.headers {
        if let Ok(value) = value.to_str() {
            headers.append(name.as_str(), value)?;
        }
    }
    let body = (!body.is_empty()).then(|| js_sys::Uint8Array::from(&body[..]).into());
    let outgoing = new_request(
        parts.method.as_str(),
        &parts.uri.to_string(),
        Some(&headers),
        body.as_ref(),
    )?;
    // The runtime's `fetch` and `arrayBuffer()`: worker's `Fetch` and `Response` would also copy
    // the answer's `cf` and web socket and read its body chunk by chunk.
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let response: web_sys::Response = JsFuture::from(scope.fetch_with_request(outgoing.inner()))
        .await?
        .dyn_into()?;
    let body = JsFuture::from(response.array_buffer()?).await?;
    let bytes = js_sys::Uint8Array::new(&body).to_vec();
    if bytes.len() > max_body {
        return Err(worker::Error::RustError(format!(
            "the answer is larger than {max_body} bytes"
        )));
    }
    let mut answer = http::Response::builder().status(response.status());
    for (name, value) in &Headers(response.headers()) {
        answer = answer.header(name, value);
    }
    answer
        .body(Bytes::from(bytes))
        .map_err(|e| worker::Error::RustError(e.to_string()))
}

/// Posts `body` (a JSON operation) to the Durable Object `name` of `namespace`, at `url`, and
/// returns the status and text of its answer. The runtime's own calls: worker's `Stub` and
/// `Response` would also copy the answer's headers, `cf` and web socket and read its body chunk by
/// chunk, which is code and calls a fresh isolate's first delivery pays for.
pub(crate) async fn ask_object(
    namespace: &ObjectNamespace,
    name: &str,
    url: &str,
    body: &str,
) -> Result<(u16, String)> {
    let namespace: &worker::worker_sys::DurableObjectNamespace = namespace.as_ref().unchecked_ref();
    let stub = namespace.get(&namespace.id_from_name(name)?)?;
    let request = new_request("POST", url, None, Some(&JsValue::from_str(body)))?;
    let answer: web_sys::Response = JsFuture::from(stub.fetch_with_request(request.inner())?)
        .await?
        .dyn_into()?;
    let text = JsFuture::from(answer.text()?)
        .await?
        .as_string()
        .ok_or_else(|| {
            worker::Error::RustError(format!("the answer of the object at {url} is not text"))
        })?;
    Ok((answer.status(), text))
}

/// The response of an object that answers `asked` with `answer`, of the type the request names
/// (see [`Ask`](wire::Ask)): what the clients' typed asks read back.
pub(crate) fn reply<R: wire::Ask>(_asked: &R, answer: &R::Answer) -> Result<Response> {
    Response::from_json(answer)
}

/// A request built on the runtime's own `Request` constructor. (worker's `RequestInit` converts
/// every option it knows of, which is code a new isolate compiles on its first request.)
pub(crate) fn new_request(
    method: &str,
    url: &str,
    headers: Option<&web_sys::Headers>,
    body: Option<&JsValue>,
) -> Result<Request> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    if let Some(headers) = headers {
        init.set_headers(headers);
    }
    if let Some(body) = body {
        init.set_body(body);
    }
    Ok(web_sys::Request::new_with_str_and_init(url, &init)?.into())
}
