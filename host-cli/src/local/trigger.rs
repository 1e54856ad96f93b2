//! `cargo host trigger`: delivers one host event to `POST /host/events`, once or with the host's
//! retry schedule (interface, Events, Delivery paths item 5).
//!
//! Every attempt carries its own `X-Host-Event-Id` and a fresh token, and all attempts of one
//! invocation carry the same body, so a vendor sees exactly what its deduplication must handle.
//! The default payload is the catalogue's example ([`HostEvent::example`]) made fresh for each
//! invocation by [`freshen`], so two invocations are two distinct events.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use host_runtime::HostEvent;
use host_runtime::events;
use host_runtime::route::Route;
use http::Method;
use serde_json::Value;

use super::client::{Answer, Client, Request, SendError, no_server};
use super::install::Local;
use super::{Fail, InstallArgs, ManifestArg, ServerArg, json_arg, listed};
use crate::output::{self, Term, line};
use host_manifest::closest;

/// The host's waits before the second, third and fourth attempts.
pub(crate) const RETRY_WAITS: [Duration; 3] = {
    let [a, b, c] = host_manifest::limits::EVENT_RETRY_WAITS_SECS;
    [
        Duration::from_secs(a),
        Duration::from_secs(b),
        Duration::from_secs(c),
    ]
};

/// How long an attempt's answer is waited for: the runtime's handler deadline, and a little more to
/// see its own `HANDLER_TIMEOUT` (which the host retries).
pub(crate) const ATTEMPT_WAIT: Duration =
    Duration::from_secs(host_runtime::HANDLER_DEADLINE.as_secs() + 5);

/// Arguments of `cargo host trigger`.
#[derive(Debug, clap::Args)]
pub(crate) struct TriggerArgs {
    /// The event to deliver: one of the 12 published names, e.g. `release.shipped`.
    pub event: String,
    /// The payload, as JSON or `@file`, sent as given [default: the catalogue's example, freshened].
    #[arg(long, value_name = "JSON|@FILE")]
    pub payload: Option<String>,
    /// Replay the host's retry schedule: three more attempts after 30 s, 2 min and 10 min. All four
    /// are sent whatever the answers, as when the host never saw your 2xx.
    #[arg(long)]
    pub retry: bool,
    /// With the retry schedule, stop at the first 2xx or 4xx as the host does (5xx and no answer
    /// are retried). Implies `--retry`.
    #[arg(long)]
    pub until_ok: bool,
    /// Divide every wait by N, e.g. 600 turns 30 s, 2 min, 10 min into 50 ms, 200 ms, 1 s.
    #[arg(long, value_name = "N", default_value_t = 1.0, value_parser = positive)]
    pub time_scale: f64,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub manifest: ManifestArg,
    #[command(flatten)]
    pub install: InstallArgs,
}

fn positive(text: &str) -> Result<f64, String> {
    let scale = text
        .parse::<f64>()
        .map_err(|_| format!("`{text}` is not a number; {SCALE_HINT}"))?;
    retry_waits(scale).map(|_| scale)
}

const SCALE_HINT: &str = "600 turns 30 s, 2 min, 10 min into 50 ms, 200 ms, 1 s";

/// The host's waits before the second, third and fourth attempts, divided by `scale`; refused
/// unless `scale` is a positive number that leaves each wait a duration. `trigger --time-scale`
/// and the console's deliveries both take their schedule from here.
pub(crate) fn retry_waits(scale: f64) -> Result<[Duration; 3], String> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("{scale} is not a positive number; {SCALE_HINT}"));
    }
    let mut waits = RETRY_WAITS;
    for wait in &mut waits {
        *wait = Duration::try_from_secs_f64(wait.as_secs_f64() / scale).map_err(|_| {
            format!("{scale} makes the waits too long; use 1 or more ({SCALE_HINT})")
        })?;
    }
    Ok(waits)
}

/// Runs `cargo host trigger`.
pub(crate) async fn run(args: TriggerArgs, term: Term) -> ExitCode {
    match trigger(args, &term).await {
        Ok(code) => code,
        Err(fail) => fail.report(&term),
    }
}

async fn trigger(args: TriggerArgs, term: &Term) -> Result<ExitCode, Fail> {
    let name = published(&args.event)?;
    let loaded = super::load_manifest(&args.manifest.manifest, term)?;
    let manifest = &loaded.manifest;
    let local = Local::new(manifest, &args.install)?;
    let client = Client::new(&args.server.server)?;
    let retry = args.retry || args.until_ok;
    let waits: Vec<Duration> = if retry {
        retry_waits(args.time_scale)
            .map_err(|why| Fail::usage(format!("`--time-scale`: {why}")))?
            .to_vec()
    } else {
        Vec::new()
    };

    let payload = match &args.payload {
        Some(text) => {
            let payload = json_arg("--payload", text)?;
            if let Err(e) = fits(name, &payload) {
                term.warning(&format!(
                    "the payload is not a `{name}` payload ({e}); the server should answer 422 INPUT_INVALID (sending anyway)"
                ));
            }
            payload
        }
        None => {
            let mut payload = events::example_payload(name).unwrap_or(Value::Null);
            freshen(name, &mut payload, &Fresh::now(&local, &manifest.id));
            payload
        }
    };
    if !manifest.subscribed_events().iter().any(|e| e == name) {
        term.warning(&format!(
            "{} does not subscribe to `{name}` under `server.events`; the server should answer 422 EVENT_NOT_SUBSCRIBED (sending anyway)",
            loaded.shown
        ));
    }
    if let Some(scope) = host_manifest::catalogue::event(name).and_then(|e| e.scope)
        && !local.host.scopes.iter().any(|s| s == scope)
    {
        term.warning(&format!(
            "the install is not granted `{scope}`, which `{name}` needs: the host would not deliver it; the server should answer 403 SCOPE_MISSING (sending anyway)"
        ));
    }

    let body = local.event_body(name, payload.clone());
    line(&format!(
        "{} {name} for install {} -> POST {}",
        term.bold("trigger"),
        local.host.install_id,
        client.url(&Route::Event(None).path(None).unwrap_or_default())
    ));
    line(&format!("payload: {payload}"));

    let total = waits.len() + 1;
    let tty = std::io::stdout().is_terminal();
    let mut succeeded = false;
    let mut answered = false;
    for attempt in 1..=total {
        if let Some(wait) = attempt.checked_sub(2).and_then(|i| waits.get(i)) {
            wait_before(*wait, attempt, total, tty).await;
        }
        let (event_id, sent) = deliver(&client, &local, &body).await;
        let head = format!("attempt {attempt}/{total} X-Host-Event-Id={event_id} ->");
        let final_answer = match sent {
            Ok(answer) => {
                answered = true;
                succeeded |= answer.is_success();
                let detail = match answer.error() {
                    Some((code, message)) if !answer.is_success() => {
                        format!(": {code}: {message}")
                    }
                    _ => String::new(),
                };
                line(&format!(
                    "{head} {} {}{detail}",
                    term.status(answer.status),
                    term.dim(&format!("in {}", output::millis(answer.elapsed)))
                ));
                is_final(&answer)
            }
            // Retried by the host like a 5xx.
            Err(e) => {
                line(&format!(
                    "{head} {}",
                    term.paint("31", &format!("no answer: {e}"))
                ));
                false
            }
        };
        if args.until_ok && final_answer {
            break;
        }
    }
    if !answered {
        term.error(&no_server(client.base()));
    }
    Ok(if succeeded {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// One attempt: `body` posted to `POST /host/events` with a fresh token and its own
/// `X-Host-Event-Id`, which comes back with the answer.
pub(crate) async fn deliver(
    client: &Client,
    local: &Local,
    body: &Value,
) -> (String, Result<Answer, SendError>) {
    let event_id = format!("evt_{}", uuid_v4());
    let request = Request {
        method: Method::POST,
        route: Route::Event(None).path(None).unwrap_or_default(),
        query: Vec::new(),
        headers: vec![
            ("authorization", local.authorization()),
            ("x-host-event-id", event_id.clone()),
        ],
        body: Some(body),
        timeout: ATTEMPT_WAIT,
    };
    let sent = client.send(request).await;
    (event_id, sent)
}

/// Whether the host takes this answer as the vendor's last word: any 2xx or 4xx (a 5xx or no
/// answer is retried).
pub(crate) fn is_final(answer: &Answer) -> bool {
    (200..500).contains(&answer.status) && !(300..400).contains(&answer.status)
}

/// The name if it is a published event; otherwise why it cannot be triggered.
pub(super) fn published(name: &str) -> Result<&'static str, Fail> {
    let names = events::published_names();
    if let Some(found) = names.iter().find(|n| **n == name) {
        return Ok(found);
    }
    let all = host_manifest::catalogue::EVENTS.iter().map(|e| e.name);
    let message = match host_manifest::catalogue::event(name) {
        Some(_) => format!(
            "`{name}` is a reserved event: the host does not deliver it yet, so it cannot be triggered; published events: {}",
            listed(names)
        ),
        None => {
            let hint = closest(name, all)
                .map(|near| format!("did you mean `{near}`? "))
                .unwrap_or_default();
            format!(
                "`{name}` is not a host event; {hint}published events: {}",
                listed(names)
            )
        }
    };
    Err(Fail::usage(message))
}

/// Whether `payload` reads as the typed payload of `name`, as the runtime will read it.
pub(super) fn fits(name: &str, payload: &Value) -> Result<(), String> {
    fn read<E: HostEvent>(payload: &Value) -> Result<(), String> {
        E::deserialize(payload)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    match name {
        events::ReleaseShipped::NAME => read::<events::ReleaseShipped>(payload),
        events::MetadataChanged::NAME => read::<events::MetadataChanged>(payload),
        events::KeywordSetChanged::NAME => read::<events::KeywordSetChanged>(payload),
        events::ScreenshotsUpdated::NAME => read::<events::ScreenshotsUpdated>(payload),
        events::PriceChanged::NAME => read::<events::PriceChanged>(payload),
        events::InstallCreated::NAME => read::<events::InstallCreated>(payload),
        events::InstallPaused::NAME => read::<events::InstallPaused>(payload),
        events::InstallResumed::NAME => read::<events::InstallResumed>(payload),
        events::InstallRevoked::NAME => read::<events::InstallRevoked>(payload),
        events::InstallTokenRotated::NAME => read::<events::InstallTokenRotated>(payload),
        events::ScopesChanged::NAME => read::<events::ScopesChanged>(payload),
        events::SettingsChanged::NAME => read::<events::SettingsChanged>(payload),
        _ => Ok(()),
    }
}

/// What one invocation puts into the example payload.
#[derive(Debug, Clone)]
pub(crate) struct Fresh {
    /// Now, ISO 8601 UTC with milliseconds (two invocations in one second still differ).
    pub now: String,
    /// The local install.
    pub install: String,
    /// Its organization.
    pub organization: String,
    /// Its project (`None` on an organization install).
    pub project: Option<String>,
    /// The manifest's extension id.
    pub extension: String,
    /// `rel_` + 16 random hex digits.
    pub release_id: String,
    /// Unix time in milliseconds: a token generation that only grows.
    pub generation: u64,
}

impl Fresh {
    /// Now, for `local`'s install of extension `extension`.
    pub(crate) fn now(local: &Local, extension: &str) -> Fresh {
        let now = Utc::now();
        Fresh {
            now: now.to_rfc3339_opts(SecondsFormat::Millis, true),
            install: local.host.install_id.clone(),
            organization: local.host.organization_id.clone(),
            project: local.host.project_id.clone(),
            extension: extension.to_owned(),
            release_id: format!("rel_{:016x}", rand::random::<u64>()),
            generation: u64::try_from(now.timestamp_millis()).unwrap_or(1),
        }
    }
}

/// Makes the example payload this invocation's own event. Top-level members only, when present:
///
/// - `projectId` -> the local project (null on an organization install); `installId`,
///   `organizationId`, `extensionId` -> the local install, its organization, the manifest id;
/// - every member whose name ends in `At` (`shippedAt`, `changedAt`, `createdAt`, ...) -> now, with
///   milliseconds;
/// - `release.shipped`: `releaseId` -> `rel_` + random; `install.token_rotated`: `generation` ->
///   the Unix time in milliseconds. These and the timestamps are the content keys used for
///   deduplication, so two invocations are never duplicates of each other.
///
/// Everything else (app, platform, version, locale, scopes, ...) stays as in the example.
pub(crate) fn freshen(name: &str, payload: &mut Value, fresh: &Fresh) {
    let Some(map) = payload.as_object_mut() else {
        return;
    };
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "projectId" => *value = fresh.project.clone().map_or(Value::Null, Value::String),
            "installId" => *value = Value::String(fresh.install.clone()),
            "organizationId" => *value = Value::String(fresh.organization.clone()),
            "extensionId" => *value = Value::String(fresh.extension.clone()),
            "releaseId" if name == events::ReleaseShipped::NAME => {
                *value = Value::String(fresh.release_id.clone());
            }
            "generation" if name == events::InstallTokenRotated::NAME => {
                *value = Value::from(fresh.generation);
            }
            k if k.ends_with("At") && k.len() > 2 => *value = Value::String(fresh.now.clone()),
            _ => {}
        }
    }
}

/// A random (version 4) UUID.
fn uuid_v4() -> uuid::Uuid {
    uuid::Builder::from_random_bytes(rand::random()).into_uuid()
}

/// Waits `wait` before an attempt: a countdown updated in place about once a second on a terminal,
/// one plain line otherwise (or for waits under a second).
async fn wait_before(wait: Duration, attempt: usize, total: usize, tty: bool) {
    let what = |left: Duration| {
        format!(
            "waiting {} before attempt {attempt}/{total}",
            output::wait(left)
        )
    };
    if !tty || wait < Duration::from_secs(1) {
        line(&what(wait));
        tokio::time::sleep(wait).await;
        return;
    }
    let end = Instant::now() + wait;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        // Whole seconds, rounded up, so the countdown never shows 0s while waiting.
        let shown = Duration::from_secs(left.as_secs() + u64::from(left.subsec_nanos() > 0));
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "\r\u{1b}[2K{}", what(shown));
        let _ = out.flush();
        drop(out);
        // Sleep to the next whole second left, when the shown figure changes.
        let step = match left.subsec_nanos() {
            0 => Duration::from_secs(1),
            nanos => Duration::from_nanos(u64::from(nanos)),
        };
        tokio::time::sleep(step.min(left)).await;
    }
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "\r\u{1b}[2K");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> Fresh {
        Fresh {
            now: "2030-01-01T00:00:00.123Z".into(),
            install: "ins_dev_1".into(),
            organization: "org_dev_1".into(),
            project: Some("prj_dev_1".into()),
            extension: "keyword-tracker".into(),
            release_id: "rel_0123456789abcdef".into(),
            generation: 42,
        }
    }

    #[test]
    fn every_published_event_has_an_example_that_reads_back() {
        for name in events::published_names() {
            let mut payload = events::example_payload(name).unwrap();
            freshen(name, &mut payload, &fresh());
            assert!(fits(name, &payload).is_ok(), "{name}: {payload}");
        }
    }

    #[test]
    fn freshening_sets_ids_times_and_content_keys() {
        let mut release = events::example_payload("release.shipped").unwrap();
        freshen("release.shipped", &mut release, &fresh());
        assert_eq!(release["projectId"], "prj_dev_1");
        assert_eq!(release["shippedAt"], "2030-01-01T00:00:00.123Z");
        assert_eq!(release["releaseId"], "rel_0123456789abcdef");
        assert_eq!(
            release["version"],
            events::example_payload("release.shipped").unwrap()["version"]
        );

        let mut rotated = events::example_payload("install.token_rotated").unwrap();
        freshen("install.token_rotated", &mut rotated, &fresh());
        assert_eq!(rotated["generation"], 42);
        assert_eq!(rotated["installId"], "ins_dev_1");
        assert_eq!(rotated["organizationId"], "org_dev_1");
        assert_eq!(rotated["extensionId"], "keyword-tracker");
        assert_eq!(rotated["rotatedAt"], "2030-01-01T00:00:00.123Z");

        let mut org = fresh();
        org.project = None;
        let mut created = events::example_payload("install.created").unwrap();
        freshen("install.created", &mut created, &org);
        assert_eq!(created["projectId"], Value::Null);
    }

    #[test]
    fn only_published_names_are_triggered() {
        assert!(published("release.shipped").is_ok());
        let reserved = published("featuring.started")
            .err()
            .map(|f| (f.code, f.message));
        assert!(
            matches!(&reserved, Some((2, m)) if m.contains("reserved")),
            "{reserved:?}"
        );
        let typo = published("release.shiped").err().map(|f| f.message);
        assert!(typo.is_some_and(|m| m.contains("did you mean `release.shipped`?")));
    }

    #[test]
    fn time_scales_are_positive_numbers() {
        assert_eq!(positive("600"), Ok(600.0));
        assert_eq!(positive("0.5"), Ok(0.5));
        assert!(positive("0").is_err());
        assert!(positive("-3").is_err());
        assert!(positive("inf").is_err());
        assert!(positive("fast").is_err());
        assert!(positive("1e-300").is_err_and(|e| e.contains("too long")));
        assert_eq!(
            retry_waits(600.0),
            Ok([
                Duration::from_millis(50),
                Duration::from_millis(200),
                Duration::from_secs(1)
            ])
        );
        assert!(retry_waits(f64::NAN).is_err());
    }
}
