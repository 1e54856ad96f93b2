//! Edge Release Notes: a host extension served by a Cloudflare Worker.
//!
//! The same `host_extension!` traits as a native server; [`fetch`] hands each request to the
//! handler through `host_runtime_workers::respond`. Settings come from the Worker's variables and
//! secrets: `HOST_JWKS_URL`, `HOST_ISSUER`, `HOST_EVENT_POST_URL`, `HOST_SIGNING_SECRET`, and
//! optionally `HOST_JWKS`, a copy of the key set `HOST_JWKS_URL` serves: a new isolate then verifies
//! its first call without fetching the key set (a key missing from the copy is still fetched).
//! An alert the host does not take at once waits in the `HOST_OUTBOX` object (class `HostOutbox`),
//! posted again by the object's alarm; the same object keeps the deliveries' deduplication records, so a
//! retry that reaches another isolate still runs once and a delivery asks one object for all of it
//! (`HOST_DEDUPE_LEASE_MS`, optional: how long a claim whose isolate died keeps its key, 60 000 by
//! default). The notes and releases the tool reports live in the isolate's memory.

host_runtime::host_extension!("host.extension.json");

use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use host_runtime::answer::Value;
use host_runtime::events::ReleaseShipped;
use host_runtime::serde_json::{self, json};
use host_runtime::webhook::{EventSender, RetryPolicy, SendError};
use host_runtime::{Handler, HostError};
use host_runtime_workers::{DurableDedupe, DurableOutbox, FetchClient};
use worker::{Context, Env, Request, Response, Result, event};

/// What the Worker keeps between requests of one isolate.
struct Edge {
    notes: Mutex<Vec<String>>,
    releases: Mutex<Vec<String>>,
    webhooks: Webhooks,
}

impl Tools for Edge {
    async fn latest_release(
        &self,
        _call: ToolCall<tools::latest_release::Input>,
    ) -> std::result::Result<Value, HostError> {
        let (latest, releases) = {
            let releases = lock(&self.releases);
            (releases.last().cloned(), releases.len())
        };
        let notes = lock(&self.notes).len();
        Ok(Value::new(latest.unwrap_or_else(|| "none yet".to_owned()))
            .label(format!("{releases} releases seen, {notes} notes kept")))
    }

    async fn count_tags(
        &self,
        call: ToolCall<tools::count_tags::Input>,
    ) -> std::result::Result<Value, HostError> {
        // Every tag matched the pattern before this runs, on the linear-time engine: the check's
        // time follows the body's size, so one body gets one verdict however busy the isolate.
        let tags = i64::try_from(call.input.tags.len()).unwrap_or(i64::MAX);
        Ok(Value::new(tags).label(format!("{tags} tags")))
    }
}

impl Actions for Edge {
    async fn add_note(
        &self,
        call: Approved<actions::add_note::Input>,
    ) -> std::result::Result<serde_json::Value, HostError> {
        let mut notes = lock(&self.notes);
        notes.push(call.input.text.as_str().to_owned());
        Ok(json!({ "added": true, "notes": notes.len() }))
    }
}

impl Events for Edge {
    async fn release_shipped(
        &self,
        call: EventCall<ReleaseShipped>,
    ) -> std::result::Result<(), HostError> {
        let release = call.input;
        lock(&self.releases).push(release.version.to_string());
        let payload = webhooks::release_noted::Payload {
            why: format!("Version {} shipped; its notes are ready.", release.version)
                .parse()
                .map_err(|_| HostError::internal("the alert sentence does not fit its schema"))?,
            version: Some(release.version.to_string()),
        };
        let key = format!(
            "release.noted-{}-{}",
            call.install.id,
            release.release_id.as_deref().unwrap_or(&release.version)
        );
        let event = self
            .webhooks
            .release_noted(&call.install.id, &key, &payload)
            .map_err(|e| HostError::internal(format!("the alert was not signed: {e}")))?;
        // Posted once, here, before the delivery is answered, and stored in the outbox only if
        // the host did not take it (until this handler returns, the host delivers the release
        // again). One the host did not take yet waits in the outbox and is posted by its alarm;
        // one it refused is a dead letter, logged. An outbox that cannot store it fails the
        // delivery with a 503, so the host delivers the release again and the alert is not lost.
        match event.send().await {
            Ok(_) | Err(SendError::Pending { .. }) => Ok(()),
            Err(e @ (SendError::Rejected { .. } | SendError::Exhausted { .. })) => {
                worker::console_error!("release.noted refused by the host: {e}");
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The handler, built as the module loads (else on the isolate's first request).
static HANDLER: OnceLock<Handler> = OnceLock::new();

/// A setting: a secret, else a variable; `None` when unset or empty.
fn var(env: &Env, name: &str) -> Option<String> {
    env.secret(name)
        .map(|s| s.to_string())
        .or_else(|_| env.var(name).map(|v| v.to_string()))
        .ok()
        .filter(|v| !v.is_empty())
}

/// The alert sender, for the fetch handler and for the outbox object's alarm.
fn sender(env: &Env) -> worker::Result<EventSender> {
    let unset = |name: &str| worker::Error::RustError(format!("{name} is not set"));
    let post_url = var(env, "HOST_EVENT_POST_URL").ok_or_else(|| unset("HOST_EVENT_POST_URL"))?;
    let secret = var(env, "HOST_SIGNING_SECRET").ok_or_else(|| unset("HOST_SIGNING_SECRET"))?;
    let outbox = DurableOutbox::new(env, "HOST_OUTBOX")?;
    Ok(EventSender::new(post_url, &secret, outbox)
        .map_err(|e| worker::Error::RustError(format!("HOST_SIGNING_SECRET is unusable: {e}")))?
        .with_http_client(FetchClient::client())
        // The send makes one attempt within the request; the outbox's alarm makes the rest, 0.2 s
        // to 1 min apart, over about 7 minutes.
        .with_retry(RetryPolicy {
            attempts: 10,
            first_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(60),
            timeout: Duration::from_secs(5),
        })
        // A send stores its event under a claim before posting it; an isolate that dies holding
        // one (evicted, or killed mid-post) leaves the event to the alarm when the claim ends:
        // three attempt timeouts, not the default minute.
        .with_lease(Duration::from_secs(15)))
}

/// Runs wherever the module is loaded, the outbox object's isolate included: registers how the
/// outbox's alarm builds its sender, and builds the handler with the environment the runtime
/// gives the module, so that an isolate's first request does not wait for it. A setting that is
/// wrong is logged here and answered 500 with its reason on every request (which builds the
/// handler again).
#[event(start)]
fn start() {
    host_runtime_workers::drain_with(sender);
    if let Some(env) = host_runtime_workers::module_env() {
        match build(&env) {
            Ok(built) => {
                let _ = HANDLER.set(built);
                // What the first calls run, compiled now rather than on their way (no I/O).
                if let Some(handler) = HANDLER.get() {
                    host_runtime_workers::warm(handler);
                }
            }
            Err(why) => worker::console_error!("not configured: {why}"),
        }
    }
}

fn build(env: &Env) -> std::result::Result<Handler, String> {
    let jwks_url = var(env, "HOST_JWKS_URL").ok_or("HOST_JWKS_URL is not set")?;
    // A new isolate would fetch the key set on its first call: with a copy in HOST_JWKS it verifies
    // at once, and fetches only for a key the copy lacks (or after 5 minutes, to refresh it).
    if let Some(copy) = var(env, "HOST_JWKS") {
        let copy =
            serde_json::from_str(&copy).map_err(|e| format!("HOST_JWKS is not JSON: {e}"))?;
        host_runtime::auth::preload_key_set(&jwks_url, &copy)
            .map_err(|e| format!("HOST_JWKS: {e}"))?;
    }
    let edge = Edge {
        notes: Mutex::default(),
        releases: Mutex::default(),
        webhooks: Webhooks::new(sender(env).map_err(|e| e.to_string())?),
    };
    // The deliveries' records live in the outbox's object, beside the alerts they send: a delivery
    // asks one object for its claim and its completion (and stores its alert there only if the
    // host did not take it).
    let mut dedupe = DurableOutbox::new(env, "HOST_OUTBOX")
        .map_err(|e| e.to_string())?
        .dedupe_store();
    if let Some(lease) = var(env, "HOST_DEDUPE_LEASE_MS") {
        let millis = lease.trim().parse::<u64>().map_err(|_| {
            format!("HOST_DEDUPE_LEASE_MS must be a whole number of milliseconds, not `{lease}`")
        })?;
        dedupe = dedupe.with_lease(Duration::from_millis(millis));
    }
    let handler = handler(edge)
        .with_http_client(FetchClient::client())
        .with_dedupe_store(dedupe)
        .try_with_jwks_url(jwks_url)
        .map_err(|e| e.to_string())?;
    Ok(match var(env, "HOST_ISSUER") {
        Some(issuer) => handler.with_issuer(issuer),
        None => handler,
    })
}

/// The path of the store contracts' run, served only when `HOST_STORE_CONTRACTS` is `1`.
const CONTRACTS_PATH: &str = "/__store-contracts";

/// Runs the SDK's store contracts against this Worker's Durable Objects: the outbox contract on a
/// fresh `HostOutbox` object (its times are in the year 2100, so the object's alarm finds nothing
/// due meanwhile), the deduplication contract on `HostDedupe` objects under fresh keys and on
/// records kept in a fresh `HostOutbox` object; then that a claim's record gets its alarm. Answers
/// `{"outbox": "ok" | "<the broken promise>", "dedupe": ..., "dedupe_in_outbox": ...,
/// "dedupe_alarm": ...}`. For the Workers test only: a deployment leaves `HOST_STORE_CONTRACTS`
/// unset, and the path is then an ordinary 404.
async fn store_contracts(env: &Env) -> Result<Response> {
    let verdict = |outcome: std::result::Result<(), host_runtime::testing::contract::Violation>| {
        outcome.map_or_else(|broken| broken.to_string(), |()| "ok".to_owned())
    };
    let run = format!("contract-{}", worker::Date::now().as_millis());
    let outbox = DurableOutbox::new(env, "HOST_OUTBOX")?.with_name(&run);
    let outbox = verdict(host_runtime::testing::contract::outbox_store(&outbox).await);
    let dedupe = DurableDedupe::new(env, "HOST_DEDUPE")?;
    let dedupe = verdict(host_runtime::testing::contract::dedupe_store(&dedupe).await);
    let kept_in = format!("{run}-dedupe");
    let kept = DurableOutbox::new(env, "HOST_OUTBOX")?
        .with_name(&kept_in)
        .dedupe_store();
    let mut kept = verdict(host_runtime::testing::contract::dedupe_store(&kept).await);
    if kept == "ok" {
        kept = records_erased(env, &kept_in).await?;
    }
    let armed = claim_armed(env, &format!("{run}-alarm")).await?;
    Response::from_json(&json!({
        "outbox": outbox,
        "dedupe": dedupe,
        "dedupe_in_outbox": kept,
        "dedupe_alarm": armed,
    }))
}

/// Asks the `HostOutbox` object `name` to erase the deduplication records that will have ended a
/// day from now, as its alarm does when they end: "ok" when it erased some and kept none.
async fn records_erased(env: &Env, name: &str) -> Result<String> {
    let a_day_on = now_ms() + 86_400_000;
    let swept = ask_outbox(env, name, json!({ "op": "sweep", "now": a_day_on })).await?;
    Ok(match (swept["erased"].as_u64(), swept["left"].as_u64()) {
        (Some(erased), Some(0)) if erased > 0 => "ok".to_owned(),
        _ => format!("ended deduplication records were not all erased: {swept}"),
    })
}

/// Claims a key in the fresh `HostOutbox` object `name`, waits half a second and asks the object
/// when its alarm rings: "ok" when it is set for the minute the claim's lease ends in, when the
/// alarm erases the record (the object sets it just after answering the claim).
async fn claim_armed(env: &Env, name: &str) -> Result<String> {
    use host_runtime::dedupe::{Claim, DedupeStore};
    let lease = Duration::from_secs(60);
    let dedupe = DurableOutbox::new(env, "HOST_OUTBOX")?
        .with_name(name)
        .dedupe_store()
        .with_lease(lease);
    let claimed_at = now_ms();
    match dedupe.claim("armed", "contract").await {
        Ok(Claim::Run) => {}
        other => return Ok(format!("a fresh key's claim answered {other:?}")),
    }
    worker::Delay::from(Duration::from_millis(500)).await;
    let asked = ask_outbox(env, name, json!({ "op": "alarm" })).await?;
    let ends = claimed_at + i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
    Ok(match asked["alarm"].as_i64() {
        Some(alarm) if (ends..ends + 61_000).contains(&alarm) => "ok".to_owned(),
        _ => format!(
            "half a second after a claim whose lease ends at {ends}, the object's alarm is {asked}"
        ),
    })
}

/// Posts `body` to the `HostOutbox` object `name` and reads its JSON answer.
async fn ask_outbox(env: &Env, name: &str, body: serde_json::Value) -> Result<serde_json::Value> {
    let mut init = worker::RequestInit::new();
    init.with_method(worker::Method::Post)
        .with_body(Some(body.to_string().into()));
    let request = Request::new_with_init("https://host-outbox/", &init)?;
    let stub = env
        .durable_object("HOST_OUTBOX")?
        .id_from_name(name)?
        .get_stub()?;
    stub.fetch_with_request(request).await?.json().await
}

/// Now, in Unix milliseconds.
fn now_ms() -> i64 {
    i64::try_from(worker::Date::now().as_millis()).unwrap_or(i64::MAX)
}

/// The Worker's entry point.
#[event(fetch)]
async fn fetch(request: Request, env: Env, ctx: Context) -> Result<Response> {
    if request.path() == CONTRACTS_PATH && var(&env, "HOST_STORE_CONTRACTS").as_deref() == Some("1")
    {
        // Boxed, so the contracts' code is a function of its own, compiled only when this test
        // route runs, not on every fresh isolate's first request.
        let contracts: std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response>>>> =
            Box::pin(store_contracts(&env));
        return contracts.await;
    }
    let handler = match HANDLER.get() {
        Some(handler) => handler,
        None => match build(&env) {
            Ok(built) => HANDLER.get_or_init(|| built),
            Err(why) => {
                worker::console_error!("not configured: {why}");
                return Response::error(format!("not configured: {why}"), 500);
            }
        },
    };
    host_runtime_workers::respond(handler, request, &ctx).await
}
