//! What the console's buttons do, on the local host's own engine: a call is built by
//! [`request`] (the route, the token, the input judged as the runtime judges
//! it, the runtime's deadline) and its answer judged by `check`'s rules; a delivery is `trigger`'s
//! payload and attempts on the host's retry schedule; a posted event is replayed through the
//! [`inbox`](super::super::inbox). Each becomes a timeline entry.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use host_manifest::Manifest;
use host_runtime::route::Route;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::super::check::{Expect, check_answer};
use super::super::client::{Answer, Client, SendError};
use super::super::install::Local;
use super::super::request::{self, Judged, Kind as CallKind};
use super::super::{InstallArgs, trigger};
use super::Console;
use super::forms::{CallForm, CheckForm, DeliverForm, InstallForm, PayloadForm, Replay};
use super::timeline::{Attempt, Check, Entry, Kind, State, millis};
use crate::output;

/// The local install of `form`, as `cargo host call --install --scopes ...` builds it.
fn local(manifest: &Manifest, form: &InstallForm) -> Result<Local, String> {
    let args = InstallArgs {
        install: form.id.clone(),
        scopes: form.scopes.as_ref().map(|s| s.join(",")),
        credentials: form.credentials.as_ref().map(Value::to_string),
        documents: form.documents.as_ref().map(Value::to_string),
    };
    let mut local = Local::new(manifest, &args).map_err(|f| {
        // The messages name the command-line flags; the page names the same things.
        f.message
            .replace("`--scopes`", "scopes")
            .replace("`--credentials`", "credentials")
            .replace("`--documents`", "documents")
            .replace("`--install`", "the install id")
    })?;
    if let Some(context) = &form.context {
        if !context.is_object() {
            return Err("the context must be a JSON object".to_owned());
        }
        local.context = Some(context.clone());
    }
    Ok(local)
}

fn token_check(local: &Local) -> Check {
    let h = &local.host;
    let scopes = if h.scopes.is_empty() {
        "no scopes".to_owned()
    } else {
        h.scopes.join(", ")
    };
    Check::new(
        "token",
        State::Pass,
        format!(
            "minted for install {} of {} ({scopes}), signed with the development key",
            h.install_id, h.organization_id
        ),
    )
}

fn answer_json(answer: &Answer) -> Value {
    let body = match &answer.json {
        Some(json) => json.clone(),
        None if answer.body.is_empty() => Value::Null,
        None => Value::String(output::raw_body(&answer.body)),
    };
    json!({ "status": answer.status, "reason": answer.reason(), "body": body })
}

/// The kind named by the page, or why it names none.
fn call_kind(word: &str) -> Result<CallKind, String> {
    CallKind::from_word(word).ok_or_else(|| {
        let words: Vec<&str> = CallKind::ALL.iter().map(|k| k.word()).collect();
        format!(
            "`{word}` is not a kind of call; kinds: {}",
            words.join(", ")
        )
    })
}

/// Judges an input for the page, as the runtime will when it is sent.
pub(crate) fn check_input(console: &Console, form: &CheckForm) -> Result<Judged, String> {
    let kind = call_kind(&form.kind)?;
    Ok(request::judge(
        &console.manifest,
        kind,
        form.id.as_deref(),
        &form.input,
    ))
}

/// Judges a host event's payload for the page: whether it reads as the event's typed payload.
pub(crate) fn check_payload(form: &PayloadForm) -> Result<Judged, String> {
    let name = trigger::published(&form.event).map_err(|f| f.message)?;
    let mut judged = Judged::default();
    if let Err(message) = trigger::fits(name, &form.payload) {
        judged.errors.push(request::Problem {
            at: "/".to_owned(),
            message,
        });
    }
    Ok(judged)
}

/// The checks of a judged input: one failed check naming the first error and how many there are,
/// and a note for each `format` warning.
fn input_checks(judged: &Judged, name: &str) -> Vec<Check> {
    let mut checks = vec![match judged.errors.first() {
        Some(first) => {
            let more = match judged.errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            Check::new(
                "input",
                State::Fail,
                format!(
                    "the input fails the input of {name} {first}{more}; sent anyway: the server should answer 422 INPUT_INVALID"
                ),
            )
        }
        None => Check::new(
            "input",
            State::Pass,
            format!("valid as the input of {name}"),
        ),
    }];
    checks.extend(
        judged
            .warnings
            .iter()
            .map(|w| Check::new("input format", State::Note, w.to_string())),
    );
    checks
}

/// Makes one call and records it; gives the entry's id.
pub(crate) async fn call(console: &Console, form: CallForm) -> u64 {
    let title = match &form.id {
        Some(id) => format!("{} {id}", form.kind),
        None => form.kind.clone(),
    };
    let mut entry = Entry::new(Kind::Call, title, json!({ "kind": form.kind }));
    entry.replay = Some(Replay::Call(form.clone()));
    let refused = |mut entry: Entry, name: &str, why: String| {
        entry.checks.push(Check::new(name, State::Fail, why));
        entry.conclude();
        console.timeline.begin(entry)
    };
    let m = &console.manifest;
    let kind = match call_kind(&form.kind) {
        Ok(kind) => kind,
        Err(why) => return refused(entry, "route", why),
    };
    let local = match local(m, &form.install) {
        Ok(local) => local,
        Err(why) => return refused(entry, "install", why),
    };
    let call = match request::prepare(
        m,
        &console.shown,
        kind,
        form.id.as_deref(),
        form.input.clone(),
        form.query.clone(),
        &local,
    ) {
        Ok(call) => call,
        Err(fail) => return refused(entry, "route", fail.message),
    };
    entry.checks.push(token_check(&local));
    if kind.takes_input() {
        entry
            .checks
            .extend(input_checks(&call.judged, &call.target.name));
    }
    entry.request = request_json(&console.client, &call);
    let sent = call.send(&console.client, &local).await;
    judge(
        &mut entry,
        m,
        kind,
        form.id.as_deref(),
        &call.target.name,
        sent,
    );
    entry.conclude();
    console.timeline.begin(entry)
}

/// What the timeline shows of a call's request: the token is not shown, the body is.
fn request_json(client: &Client, call: &request::Call) -> Value {
    let mut request = json!({
        "method": call.target.method.as_str(),
        "url": client.url_with(&call.target.route, &call.query),
        "headers": { "authorization": "Bearer <install token>" },
    });
    if let Some(body) = &call.body {
        request["body"] = body.clone();
    }
    request
}

/// The checks of the answer: its status, its shape by the runtime's rules, its time.
fn judge(
    entry: &mut Entry,
    m: &Manifest,
    kind: CallKind,
    id: Option<&str>,
    name: &str,
    sent: Result<Answer, SendError>,
) {
    let answer = match sent {
        Ok(answer) => answer,
        Err(e) => {
            let hint = match e {
                SendError::Unreachable(_) => {
                    "; is the vendor server running? `cargo host dev --server URL` names where it listens"
                }
                _ => "",
            };
            entry
                .checks
                .push(Check::new("answer", State::Fail, format!("{e}{hint}")));
            return;
        }
    };
    entry.ms = Some(millis(answer.elapsed));
    entry.answer = Some(answer_json(&answer));
    if !answer.is_success() {
        let said = match answer.error() {
            Some((code, message)) => format!("{} {code}: {message}", answer.status),
            None => format!(
                "{} {} without an error body {{\"error\":{{\"code\",\"message\"}}}}",
                answer.status,
                answer.reason()
            ),
        };
        entry.checks.push(Check::new(
            "status",
            State::Fail,
            format!("{name} answered {said}"),
        ));
        return;
    }
    entry.checks.push(Check::new(
        "status",
        State::Pass,
        format!("{} {}", answer.status, answer.reason()),
    ));
    match (Expect::of(m, kind, id), &answer.json) {
        (_, None) if answer.body.is_empty() && kind == CallKind::Action => {}
        (_, None) => entry.checks.push(Check::new(
            "answer shape",
            State::Fail,
            format!("the body is not JSON: {}", output::raw_body(&answer.body)),
        )),
        (Some(expect), Some(json)) => entry.checks.push(match check_answer(&expect, json) {
            Ok(said) => Check::new(
                "answer shape",
                State::Pass,
                format!("{} by the host's rules", said.trim_end())
                    .trim()
                    .to_owned(),
            ),
            Err(why) => Check::new(
                "answer shape",
                State::Fail,
                format!("the host would refuse this answer and show the owner an error: {why}"),
            ),
        }),
        (None, Some(_)) => {}
    }
    let limit = kind.deadline();
    let within = answer.elapsed <= limit;
    entry.checks.push(Check::new(
        "time limit",
        if within { State::Pass } else { State::Fail },
        format!(
            "answered in {} (the host waits {})",
            output::millis(answer.elapsed),
            output::wait(limit)
        ),
    ));
}

/// Starts a delivery: records it, then makes its attempts in the background; gives its id.
pub(crate) fn deliver(console: &Arc<Console>, form: DeliverForm) -> u64 {
    let mut entry = Entry::new(Kind::Delivery, form.event.clone(), json!({}));
    let m = &console.manifest;
    let Plan { name, local, waits } = match Plan::of(m, &form) {
        Ok(plan) => plan,
        Err((name, why)) => {
            entry.checks.push(Check::new(name, State::Fail, why));
            entry.conclude();
            return console.timeline.begin(entry);
        }
    };
    entry.checks.push(token_check(&local));
    let payload = delivery_payload(&form, name, &local, &m.id);
    entry
        .checks
        .extend(delivery_checks(console, name, &local, &payload));
    let body = local.event_body(name, payload.clone());
    let key = host_runtime::dedupe::key_of(name, &local.host.install_id, &payload);
    entry.request = json!({
        "method": "POST",
        "url": console.client.url(&Route::Event(None).path(None).unwrap_or_default()),
        "headers": { "authorization": "Bearer <install token>", "x-host-event-id": "evt_<one per attempt>" },
        "body": body,
    });
    // Replaying it is the same event again.
    entry.replay = Some(Replay::Deliver(DeliverForm {
        payload: Some(payload),
        same: true,
        ..form
    }));
    let id = console.timeline.begin(entry);
    let earlier = key
        .as_deref()
        .and_then(|k| console.timeline.first_delivery_of(k, id));
    let attempts = Attempts {
        console: Arc::clone(console),
        id,
        local,
        body,
        waits,
    };
    tokio::spawn(async move {
        attempts.run().await;
        // The server's reaction (events it posts) may come a moment later.
        tokio::time::sleep(super::timeline::REACTION_WINDOW).await;
        attempts.console.timeline.update(id, |e| {
            dedupe_check(e, key.as_deref(), earlier);
            e.conclude();
        });
    });
    id
}

/// What a delivery needs before anything is sent, each refused with the check that names it: the
/// published event, the install it goes to, and the waits between its attempts.
struct Plan {
    /// The published event's name.
    name: &'static str,
    /// The install the event is delivered to.
    local: Local,
    /// The waits before the second and later attempts; none for a single attempt.
    waits: Vec<Duration>,
}

impl Plan {
    /// The plan of `form`, or the failed check's name and why.
    fn of(m: &Manifest, form: &DeliverForm) -> Result<Plan, (&'static str, String)> {
        let name = trigger::published(&form.event).map_err(|fail| ("event", fail.message))?;
        let local = local(m, &form.install).map_err(|why| ("install", why))?;
        let waits = if form.retry {
            trigger::retry_waits(form.time_scale.unwrap_or(1.0))
                .map_err(|why| ("time scale", why))?
                .to_vec()
        } else {
            Vec::new()
        };
        Ok(Plan { name, local, waits })
    }
}

/// The payload a delivery sends: the one given, as given when the same event is sent again;
/// otherwise (or the catalogue's example when none is given) made a new event with fresh ids and
/// times, as `cargo host trigger` makes it.
fn delivery_payload(form: &DeliverForm, name: &str, local: &Local, extension: &str) -> Value {
    let example = || host_runtime::events::example_payload(name).unwrap_or(Value::Null);
    match (&form.payload, form.same) {
        (Some(payload), true) => payload.clone(),
        (given, false) => {
            let mut payload = given.clone().unwrap_or_else(example);
            trigger::freshen(name, &mut payload, &trigger::Fresh::now(local, extension));
            payload
        }
        (None, true) => example(),
    }
}

/// What the host checks before it delivers an event, each a note here since the event is sent
/// anyway: the payload reads as the event's, the manifest subscribes to it, the install is granted
/// the scope it needs.
fn delivery_checks(console: &Console, name: &str, local: &Local, payload: &Value) -> Vec<Check> {
    let mut checks = vec![match trigger::fits(name, payload) {
        Ok(()) => Check::new(
            "payload",
            State::Pass,
            format!("reads as a `{name}` payload"),
        ),
        Err(e) => Check::new(
            "payload",
            State::Fail,
            format!(
                "not a `{name}` payload ({e}); sent anyway: the server should answer 422 INPUT_INVALID"
            ),
        ),
    }];
    checks.push(if console.manifest.subscribed_events().iter().any(|e| e == name) {
        Check::new("subscribed", State::Pass, format!("`server.events` subscribes to `{name}`"))
    } else {
        Check::new(
            "subscribed",
            State::Fail,
            format!("{} does not subscribe to `{name}` under `server.events`: the host would not deliver it; sent anyway", console.shown),
        )
    });
    if let Some(scope) = host_manifest::catalogue::event(name).and_then(|e| e.scope) {
        let granted = local.host.scopes.iter().any(|s| s == scope);
        checks.push(Check::new(
            "scope",
            if granted { State::Pass } else { State::Fail },
            if granted {
                format!("the install is granted `{scope}`, which `{name}` needs")
            } else {
                format!("the install is not granted `{scope}`, which `{name}` needs: the host would not deliver it; sent anyway")
            },
        ));
    }
    checks
}

/// A delivery's attempts, made in the background once its entry is on the timeline.
struct Attempts {
    /// The console whose timeline holds the entry.
    console: Arc<Console>,
    /// The entry.
    id: u64,
    /// The install the event goes to.
    local: Local,
    /// The event's body, the same for every attempt.
    body: Value,
    /// The waits before the second and later attempts.
    waits: Vec<Duration>,
}

impl Attempts {
    /// Makes every attempt on the schedule, each recorded as it is answered, then judges the
    /// answers.
    async fn run(&self) {
        let started = Instant::now();
        let total = self.waits.len() + 1;
        for n in 1..=total {
            if let Some(wait) = n.checked_sub(2).and_then(|i| self.waits.get(i)) {
                tokio::time::sleep(*wait).await;
            }
            self.attempt(n, started).await;
        }
        let timeline = &self.console.timeline;
        timeline.delivered(self.id);
        let took = millis(started.elapsed());
        timeline.update(self.id, |e| {
            e.ms = Some(took);
            attempts_check(e, total);
        });
    }

    /// Attempt `n` (each with its own `X-Host-Event-Id`), its answer or why none came recorded on
    /// the entry.
    async fn attempt(&self, n: usize, started: Instant) {
        let timeline = &self.console.timeline;
        timeline.attempting(self.id, n);
        let sent_ms = millis(started.elapsed());
        let (event_id, sent) =
            trigger::deliver(&self.console.client, &self.local, &self.body).await;
        let attempt = match &sent {
            Ok(answer) => Attempt {
                n,
                event_id,
                sent_ms,
                status: Some(answer.status),
                ms: millis(answer.elapsed),
                said: match answer.error() {
                    Some((code, message)) if !answer.is_success() => {
                        format!("{code}: {message}")
                    }
                    _ => answer.reason().to_owned(),
                },
            },
            Err(e) => Attempt {
                n,
                event_id,
                sent_ms,
                status: None,
                ms: millis(started.elapsed()).saturating_sub(sent_ms),
                said: format!("no answer: {e}"),
            },
        };
        timeline.update(self.id, |e| {
            if let Ok(answer) = &sent {
                e.answer = Some(answer_json(answer));
            }
            e.attempts.push(attempt);
        });
    }
}

/// The catalogue's example payload of `name`, made a new event as `trigger` makes it.
pub(crate) fn example(console: &Console, name: &str, local: &Local) -> Value {
    let mut payload = host_runtime::events::example_payload(name).unwrap_or(Value::Null);
    trigger::freshen(
        name,
        &mut payload,
        &trigger::Fresh::now(local, &console.manifest.id),
    );
    payload
}

/// The answers of a delivery's attempts: all 2xx, or the first that was not, and (for a single
/// attempt) what the host would do about it.
fn attempts_check(e: &mut Entry, total: usize) {
    let ok = e
        .attempts
        .iter()
        .filter(|a| a.status.is_some_and(|s| (200..300).contains(&s)))
        .count();
    let check = if ok == e.attempts.len() {
        Check::new(
            "answers",
            State::Pass,
            format!("{ok} of {total} attempts answered 2xx"),
        )
    } else {
        let first = e
            .attempts
            .iter()
            .find(|a| !a.status.is_some_and(|s| (200..300).contains(&s)));
        let said = first.map_or(String::new(), |a| {
            format!(
                "; attempt {} got {} {}",
                a.n,
                a.status.map_or("no answer".to_owned(), |s| s.to_string()),
                a.said
            )
        });
        let retried = if total == 1 {
            " (the host retries a 5xx or no answer after 30 s, 2 min and 10 min, and drops a 4xx)"
        } else {
            ""
        };
        Check::new(
            "answers",
            State::Fail,
            format!("{ok} of {total} attempts answered 2xx{said}{retried}"),
        )
    };
    e.checks.push(check);
}

/// What the console can see of deduplication: the events the server posted in reaction to a
/// delivery, by id and content, and which of them were new to the local host. The first delivery
/// of a content may react, once: an event posted again under an id the host took, or one event
/// under several ids, means the handler ran again, whichever attempt the posts arrived after (an
/// outbox may post the first attempt's events after a redelivery began). A later delivery of the
/// same content must post nothing new.
fn dedupe_check(e: &mut Entry, key: Option<&str>, earlier: Option<u64>) {
    let key_text = key.map_or(
        "no content key (the payload lacks its content members, so the runtime cannot tell redeliveries apart)".to_owned(),
        |k| format!("content key `{k}`"),
    );
    let (state, detail) = match earlier {
        Some(first) => redelivery_verdict(e, first, &key_text),
        None => first_delivery_verdict(e, &key_text),
    };
    e.checks.push(Check::new("dedupe", state, detail));
}

/// The events posted after the delivery's attempts (those counted to attempt 1 to the last), only
/// those new to the local host when `new_only`.
fn reaction_count(e: &Entry, new_only: bool) -> usize {
    let attempts = e.attempts.len();
    e.reactions
        .iter()
        .filter(|r| (1..=attempts).contains(&r.attempt) && (r.new || !new_only))
        .count()
}

/// `1 event`, `2 new events`: `n` and `what`, plural unless one.
fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A later delivery of content delivered before (as delivery #`first`): it must post nothing new.
fn redelivery_verdict(e: &Entry, first: u64, key_text: &str) -> (State, String) {
    let again = reaction_count(e, true);
    if again == 0 {
        (
            State::Pass,
            format!(
                "a redelivery of delivery #{first} ({key_text}): the server posted no new event, so it did not react again"
            ),
        )
    } else {
        (
            State::Fail,
            format!(
                "a redelivery of delivery #{first} ({key_text}), and the server posted {}: it ran its handler again for an event it had handled",
                counted(again, "new event")
            ),
        )
    }
}

/// The first delivery of a content: its reaction may come after any attempt, but only once.
fn first_delivery_verdict(e: &Entry, key_text: &str) -> (State, String) {
    let attempts = e.attempts.len();
    let all_new = reaction_count(e, true);
    let all = reaction_count(e, false);
    let reaction = if all == all_new {
        counted(all_new, "new event")
    } else {
        format!("{}, {all_new} of them new", counted(all, "event"))
    };
    let again = handled_again(e);
    if !again.is_empty() {
        (
            State::Fail,
            format!(
                "for one event ({key_text}) the server {}: it ran its handler again on a redelivery",
                again.join(", and ")
            ),
        )
    } else if attempts <= 1 {
        (
            State::Skip,
            format!(
                "one attempt, so nothing to compare ({key_text}; the server posted {reaction} in reaction): deliver on the retry schedule, or redeliver the same event, to see deduplication"
            ),
        )
    } else if all_new == 0 {
        (
            State::Skip,
            format!(
                "no attempt made the server post a new event ({key_text}), so the console cannot see whether it ran its handler once"
            ),
        )
    } else {
        (
            State::Pass,
            format!(
                "the server posted {reaction}, each once, whichever attempt it followed; the {} redeliveries, each with its own X-Host-Event-Id and the same {key_text}, posted nothing again",
                attempts - 1
            ),
        )
    }
}

/// What shows that the handler ran again, in words; empty when nothing does. By cause, not by the
/// attempt an event arrived after: an outbox may post the first attempt's events after a
/// redelivery began. A handler that ran again shows as an event posted again under an id the host
/// had taken, or under another id with the same content.
fn handled_again(e: &Entry) -> Vec<String> {
    let mut ids_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in &e.reactions {
        ids_of.entry(&r.content).or_default().insert(&r.webhook_id);
    }
    let mut reposted: Vec<&str> = e
        .reactions
        .iter()
        .filter(|r| {
            !r.new
                && e.reactions
                    .iter()
                    .any(|first| first.new && first.webhook_id == r.webhook_id)
        })
        .map(|r| r.webhook_id.as_str())
        .collect();
    reposted.dedup();
    let twins: Vec<String> = ids_of
        .values()
        .filter(|ids| ids.len() > 1)
        .map(|ids| {
            ids.iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        })
        .collect();
    let mut why = Vec::new();
    if !reposted.is_empty() {
        let ids: Vec<String> = reposted.iter().map(|id| format!("`{id}`")).collect();
        why.push(format!(
            "posted {} again after the host had taken it",
            ids.join(", ")
        ));
    }
    if !twins.is_empty() {
        why.push(format!(
            "posted one event under several ids ({})",
            twins.join("; ")
        ));
    }
    why
}

/// Replays entry `id`; gives the new entry's id, or why it cannot be replayed.
pub(crate) async fn replay(console: &Arc<Console>, id: u64) -> Result<u64, String> {
    let entry = console.timeline.get(id).ok_or_else(|| {
        format!(
            "no entry {id} on the timeline (it keeps the newest {})",
            super::timeline::KEPT
        )
    })?;
    match entry.replay {
        Some(Replay::Call(form)) => Ok(call(console, form).await),
        Some(Replay::Deliver(form)) => Ok(deliver(console, form)),
        Some(Replay::Posted { headers, body }) => {
            let mut map = HeaderMap::new();
            for (k, v) in headers {
                if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::try_from(v)) {
                    map.insert(k, v);
                }
            }
            let started = Instant::now();
            let verdict = console.inbox.verify(&map, &body, SystemTime::now());
            Ok(console
                .timeline
                .posted(&map, body, &verdict, started.elapsed()))
        }
        None => Err(format!("entry {id} cannot be replayed")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::timeline::Reaction;
    use super::*;

    /// A delivery of `attempts` attempts whose reaction posted `reactions`: (the attempt it
    /// arrived after, new to the local host, its webhook-id, its content).
    fn delivery(attempts: usize, reactions: &[(usize, bool, &str, &str)]) -> Entry {
        let mut e = Entry::new(Kind::Delivery, "release.shipped", json!({}));
        for n in 1..=attempts {
            e.attempts.push(Attempt {
                n,
                event_id: format!("evt_{n}"),
                sent_ms: 0,
                status: Some(204),
                ms: 1,
                said: "No Content".into(),
            });
        }
        e.reactions = reactions
            .iter()
            .enumerate()
            .map(|(i, (attempt, new, id, content))| Reaction {
                posted: i as u64 + 10,
                attempt: *attempt,
                new: *new,
                webhook_id: (*id).to_owned(),
                content: (*content).to_owned(),
            })
            .collect();
        e
    }

    fn verdict(mut e: Entry, earlier: Option<u64>) -> (State, String) {
        dedupe_check(&mut e, Some("release.shipped:ins_dev_1:rel_1"), earlier);
        let c = e.checks.pop().unwrap();
        (c.state, c.detail)
    }

    #[test]
    fn the_dedupe_verdict_judges_by_cause_not_by_when_events_arrive() {
        // The example: four events in reaction to the first attempt, nothing after.
        let four = [
            (1, true, "a", "1"),
            (1, true, "b", "2"),
            (1, true, "c", "3"),
            (1, true, "d", "4"),
        ];
        assert_eq!(verdict(delivery(4, &four), None).0, State::Pass);
        // The same four, posted late by an outbox while the redeliveries ran: still one run.
        let late = [
            (1, true, "a", "1"),
            (2, true, "b", "2"),
            (3, true, "c", "3"),
            (4, true, "d", "4"),
        ];
        let (state, detail) = verdict(delivery(4, &late), None);
        assert_eq!(state, State::Pass, "{detail}");
        assert!(detail.contains("4 new events, each once"), "{detail}");
        // A naive vendor: the same alert again for every attempt, each under an id of its own.
        let naive = [
            (1, true, "alert-1", "x"),
            (2, true, "alert-2", "x"),
            (3, true, "alert-3", "x"),
        ];
        let (state, detail) = verdict(delivery(3, &naive), None);
        assert_eq!(state, State::Fail, "{detail}");
        assert!(detail.contains("under several ids"), "{detail}");
        assert!(detail.contains("`alert-2`"), "{detail}");
        // Or under its one id, after the host had taken it: the handler ran again.
        let again = [(1, true, "alert", "x"), (2, false, "alert", "x")];
        let (state, detail) = verdict(delivery(2, &again), None);
        assert_eq!(state, State::Fail, "{detail}");
        assert!(
            detail.contains("`alert` again after the host had taken it"),
            "{detail}"
        );
        // A reaction of events the host had before this delivery: nothing new to judge by.
        let old = [(1, false, "a", "1"), (1, false, "b", "2")];
        let (state, detail) = verdict(delivery(4, &old), None);
        assert_eq!(state, State::Skip, "{detail}");
        // Nothing posted, or one attempt: nothing to see.
        assert_eq!(verdict(delivery(4, &[]), None).0, State::Skip);
        assert_eq!(
            verdict(delivery(1, &[(1, true, "a", "1")]), None).0,
            State::Skip
        );
        // A later delivery of the same content must post nothing new.
        assert_eq!(verdict(delivery(1, &[]), Some(3)).0, State::Pass);
        let (state, detail) = verdict(delivery(1, &[(1, true, "z", "9")]), Some(3));
        assert_eq!(state, State::Fail);
        assert!(detail.contains("redelivery of delivery #3"), "{detail}");
    }
}
