//! The console's timeline: every call the console made, every event it delivered and every event
//! the vendor server posted back, each with its request, answer, timing and the checks the local
//! host applied. Entries change while they run (a delivery's attempts); each change is sent to the
//! open pages over Server-Sent Events as the whole entry, which replaces the one with its id.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::{SecondsFormat, Utc};
use http::HeaderMap;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::super::inbox::{self, Verdict};
use super::forms::Replay;

/// Entries kept; the oldest go first. A page shows the newest.
pub(crate) const KEPT: usize = 500;

/// Bytes the kept entries may hold in all (as JSON, with the bodies kept for replay); past it the
/// oldest go first, whatever their number: 500 posted bodies of 1 MiB each, kept twice, would
/// otherwise hold about 1 GB.
pub(crate) const KEPT_BYTES: usize = 64 * 1024 * 1024;

/// How long after a delivery's last attempt the events the server posts are counted as its
/// reaction.
pub(crate) const REACTION_WINDOW: Duration = Duration::from_secs(3);

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    /// A call of a contribution, made by the console.
    Call,
    /// A host event delivered by the console, once or on the retry schedule.
    Delivery,
    /// An event the vendor server posted to the local host.
    Posted,
}

/// Where an entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    /// Still running (a delivery waiting for its next attempt).
    Running,
    /// Every check passed.
    Passed,
    /// A check failed; `why` says which and why.
    Failed,
}

/// The state of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    /// Passed.
    Pass,
    /// Failed: the entry failed.
    Fail,
    /// Passed, with something worth reading (a duplicate, a refused sample).
    Note,
    /// Not run: an earlier check failed, or it does not apply.
    Skip,
}

/// One check the local host applied.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    /// Its name: `token`, `input schema`, `answer shape`, `signature`, ...
    pub name: String,
    /// Its state.
    pub state: State,
    /// What was checked and what came of it, in words.
    pub detail: String,
}

impl Check {
    /// A check in state `state`.
    pub(crate) fn new(name: &str, state: State, detail: impl Into<String>) -> Check {
        Check {
            name: name.to_owned(),
            state,
            detail: detail.into(),
        }
    }
}

/// One attempt of a delivery.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Attempt {
    /// 1 for the first.
    pub n: usize,
    /// Its `X-Host-Event-Id`.
    pub event_id: String,
    /// When it was sent, in milliseconds after the delivery began.
    pub sent_ms: u64,
    /// The answer's status; `None` when no answer came.
    pub status: Option<u16>,
    /// Time to the whole answer.
    pub ms: u64,
    /// The answer or why none came, in words.
    pub said: String,
}

/// An event the vendor server posted while a delivery ran: which attempt was the latest sent
/// when it arrived, and whether the local host took it as a new event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Reaction {
    /// The posted event's entry.
    pub posted: u64,
    /// The attempt it is counted to: the latest one sent when it arrived.
    pub attempt: usize,
    /// Accepted as a new event; a duplicate `webhook-id` or a refused event is not.
    pub new: bool,
    /// Its `webhook-id`.
    pub webhook_id: String,
    /// What it says, as the outbox digests it (`occurredAt`, `build` and `dedupeKey` aside), in
    /// hex: the same event posted under two ids has one content.
    pub content: String,
}

/// One entry of the timeline.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Entry {
    /// Its number, from 1, in the order entries began.
    pub id: u64,
    /// What it is.
    pub kind: Kind,
    /// `tool keyword-ranks`, `release.shipped`, `rank.dropped (alert)`.
    pub title: String,
    /// When it began, RFC 3339.
    pub at: String,
    /// Where it stands.
    pub outcome: Outcome,
    /// Why it failed, in words: the first failed check.
    pub why: Option<String>,
    /// Time to the answer (a delivery: from the first attempt to the last answer).
    pub ms: Option<u64>,
    /// What was sent: `method`, `url`, `headers`, `body`.
    pub request: Value,
    /// What came back: `status`, `reason`, `body`.
    pub answer: Option<Value>,
    /// The checks, in the order applied.
    pub checks: Vec<Check>,
    /// A delivery's attempts.
    pub attempts: Vec<Attempt>,
    /// A posted event: the delivery it reacted to. (A delivery lists its reaction in
    /// `reactions`.)
    pub related: Vec<u64>,
    /// A delivery: each posted event of its reaction, with the attempt it is counted to.
    pub reactions: Vec<Reaction>,
    /// What replaying it does; `None` when it cannot be replayed.
    #[serde(skip)]
    pub replay: Option<Replay>,
    /// What it holds, in bytes, as last announced: its JSON and its replay body.
    #[serde(skip)]
    size: usize,
}

impl Entry {
    /// A new running entry; [`Timeline::begin`] numbers it.
    pub(crate) fn new(kind: Kind, title: impl Into<String>, request: Value) -> Entry {
        Entry {
            id: 0,
            kind,
            title: title.into(),
            at: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
            outcome: Outcome::Running,
            why: None,
            ms: None,
            request,
            answer: None,
            checks: Vec::new(),
            attempts: Vec::new(),
            related: Vec::new(),
            reactions: Vec::new(),
            replay: None,
            size: 0,
        }
    }

    /// `json`'s length and the body kept for replay.
    fn weigh(&mut self, json: &str) {
        let replay = match &self.replay {
            Some(Replay::Posted { headers, body }) => {
                body.len()
                    + headers
                        .iter()
                        .map(|(k, v)| k.len() + v.len())
                        .sum::<usize>()
            }
            _ => 0,
        };
        self.size = json.len() + replay;
    }

    /// Sets the outcome from the checks: failed at the first failed check, whose detail is `why`.
    pub(crate) fn conclude(&mut self) {
        match self.checks.iter().find(|c| c.state == State::Fail) {
            Some(failed) => {
                self.outcome = Outcome::Failed;
                self.why = Some(format!("{}: {}", failed.name, failed.detail));
            }
            None => {
                self.outcome = Outcome::Passed;
                self.why = None;
            }
        }
    }
}

/// The delivery whose reaction posted events are counted as.
struct Reacting {
    delivery: u64,
    /// The latest attempt sent.
    attempt: usize,
    /// `None` while its attempts run.
    until: Option<Instant>,
}

struct Inner {
    entries: Vec<Entry>,
    /// The sum of the entries' sizes.
    bytes: usize,
    next: u64,
    reacting: Option<Reacting>,
    /// The first delivery of each content key, so that a later delivery of the same content is
    /// known as a redelivery.
    delivered: std::collections::HashMap<String, u64>,
}

/// The timeline, shared by the console and the local host's event endpoint.
pub(crate) struct Timeline {
    inner: Mutex<Inner>,
    changes: broadcast::Sender<String>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new()
    }
}

impl Timeline {
    /// An empty timeline.
    pub(crate) fn new() -> Timeline {
        let (changes, _) = broadcast::channel(256);
        Timeline {
            inner: Mutex::new(Inner {
                entries: Vec::new(),
                bytes: 0,
                next: 1,
                reacting: None,
                delivered: std::collections::HashMap::new(),
            }),
            changes,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves entries that are still readable.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every entry as JSON, oldest first.
    pub(crate) fn all(&self) -> Vec<String> {
        self.lock().entries.iter().map(to_json).collect()
    }

    /// Changes as they happen: each the whole entry, as JSON.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.changes.subscribe()
    }

    /// Numbers `entry`, keeps it and announces it; gives its id.
    pub(crate) fn begin(&self, mut entry: Entry) -> u64 {
        let mut inner = self.lock();
        entry.id = inner.next;
        inner.next += 1;
        let id = entry.id;
        let json = to_json(&entry);
        entry.weigh(&json);
        let _ = self.changes.send(json);
        inner.bytes += entry.size;
        inner.entries.push(entry);
        let keep_from = {
            let mut bytes = inner.bytes;
            let mut from = 0;
            let last = inner.entries.len() - 1;
            while from < last && (inner.entries.len() - from > KEPT || bytes > KEPT_BYTES) {
                bytes -= inner.entries[from].size;
                from += 1;
            }
            inner.bytes = bytes;
            from
        };
        inner.entries.drain(..keep_from);
        if inner.delivered.len() > KEPT.saturating_mul(4)
            && let Some(oldest) = inner.entries.first().map(|e| e.id)
        {
            inner.delivered.retain(|_, first| *first >= oldest);
        }
        id
    }

    /// What the kept entries hold, in bytes (see [`KEPT_BYTES`]), and how many there are.
    #[cfg(test)]
    pub(crate) fn held(&self) -> (usize, usize) {
        let inner = self.lock();
        (inner.bytes, inner.entries.len())
    }

    /// Changes entry `id` with `change` and announces it; `None` when it is gone.
    pub(crate) fn update<T>(&self, id: u64, change: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let entry = inner.entries.iter_mut().find(|e| e.id == id)?;
        let out = change(entry);
        let json = to_json(entry);
        let before = entry.size;
        entry.weigh(&json);
        inner.bytes = inner.bytes - before + entry.size;
        let _ = self.changes.send(json);
        Some(out)
    }

    /// A copy of entry `id`.
    pub(crate) fn get(&self, id: u64) -> Option<Entry> {
        self.lock().entries.iter().find(|e| e.id == id).cloned()
    }

    /// Delivery `id` carries content `key`: gives the earlier delivery of the same content, if one
    /// is on record, and records this one otherwise.
    pub(crate) fn first_delivery_of(&self, key: &str, id: u64) -> Option<u64> {
        let mut inner = self.lock();
        match inner.delivered.get(key) {
            Some(first) => Some(*first),
            None => {
                inner.delivered.insert(key.to_owned(), id);
                None
            }
        }
    }

    /// Attempt `n` of delivery `id` is being sent: the events posted from now on are its
    /// reaction, until the next attempt or [`Timeline::delivered`].
    pub(crate) fn attempting(&self, id: u64, n: usize) {
        self.lock().reacting = Some(Reacting {
            delivery: id,
            attempt: n,
            until: None,
        });
    }

    /// Delivery `id` made its last attempt: events posted within [`REACTION_WINDOW`] are still
    /// its reaction.
    pub(crate) fn delivered(&self, id: u64) {
        if let Some(r) = self.lock().reacting.as_mut().filter(|r| r.delivery == id) {
            r.until = Some(Instant::now() + REACTION_WINDOW);
        }
    }

    /// Records an event the vendor server posted and the local host's verdict on it.
    /// Gives the entry's id.
    pub(in crate::local) fn posted(
        &self,
        headers: &HeaderMap,
        body: Bytes,
        verdict: &Verdict,
        took: Duration,
    ) -> u64 {
        let mut entry = posted_entry(headers, &body, verdict);
        entry.ms = Some(millis(took));
        let content = content_of(&body);
        let header_list = headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        entry.replay = Some(Replay::Posted {
            headers: header_list,
            body,
        });
        let reacting = {
            let mut inner = self.lock();
            let live = inner
                .reacting
                .as_ref()
                .filter(|r| r.until.is_none_or(|u| Instant::now() < u))
                .map(|r| (r.delivery, r.attempt));
            if live.is_none() {
                inner.reacting = None;
            }
            live
        };
        entry.related = reacting.iter().map(|(delivery, _)| *delivery).collect();
        let id = self.begin(entry);
        if let Some((delivery, attempt)) = reacting {
            let new = matches!(verdict, Verdict::Accepted { .. });
            let webhook_id = headers
                .get("webhook-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            self.update(delivery, |d| {
                d.reactions.push(Reaction {
                    posted: id,
                    attempt,
                    new,
                    webhook_id,
                    content,
                });
            });
        }
        id
    }
}

fn to_json(entry: &Entry) -> String {
    serde_json::to_string(entry).unwrap_or_else(|_| "{}".to_owned())
}

/// What a posted event says, as 16 hex digits: the outbox's digest of its envelope without
/// `dedupeKey` (which repeats the id), so that one event posted under two ids has one content.
fn content_of(body: &[u8]) -> String {
    let digest = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(mut envelope)) => {
            envelope.remove("dedupeKey");
            let bytes = serde_json::to_vec(&envelope).unwrap_or_default();
            host_runtime::outbox::content_digest(&bytes)
        }
        _ => host_runtime::outbox::content_digest(body),
    };
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Milliseconds, saturated.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The entry of one posted event: its headers and body, the local host's answer, and the inbox's
/// checks up to the one that failed.
fn posted_entry(headers: &HeaderMap, body: &[u8], verdict: &Verdict) -> Entry {
    let shown: serde_json::Map<String, Value> = headers
        .iter()
        .filter(|(k, _)| k.as_str().starts_with("webhook-") || *k == http::header::CONTENT_TYPE)
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                Value::String(String::from_utf8_lossy(v.as_bytes()).into_owned()),
            )
        })
        .collect();
    let body_json = serde_json::from_slice::<Value>(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()));
    let request = json!({
        "method": "POST",
        "url": "/v1/events",
        "headers": shown,
        "body": body_json,
    });
    let (status, answer_body) = verdict.answer();
    let all_passed = || -> Vec<Check> {
        inbox::Check::ALL
            .iter()
            .map(|c| Check::new(c.name(), State::Pass, c.passed()))
            .collect()
    };
    let (title, checks) = match verdict {
        Verdict::Accepted {
            event, kind, why, ..
        } => {
            let mut checks = all_passed();
            if let Some(last) = checks.last_mut() {
                match why {
                    Some(why) => last.detail = format!("the owner reads: {why}"),
                    None => {
                        last.state = State::Skip;
                        last.detail = format!("not needed: `{event}` is declared `as: {kind}`");
                    }
                }
            }
            (format!("{event} ({kind})"), checks)
        }
        Verdict::Duplicate { event, id, .. } => {
            let mut checks = all_passed();
            checks.push(Check::new(
                "duplicate",
                State::Note,
                format!(
                    "`webhook-id` {id} was accepted before: the host keeps the first and answers 200"
                ),
            ));
            (format!("{event} (duplicate)"), checks)
        }
        Verdict::Rejected(refusal) => {
            let checks = match refusal.check {
                Some(failed) => inbox::Check::ALL
                    .iter()
                    .map(|c| match c.cmp(&failed) {
                        std::cmp::Ordering::Less => Check::new(c.name(), State::Pass, c.passed()),
                        std::cmp::Ordering::Equal => {
                            Check::new(c.name(), State::Fail, refusal.message.clone())
                        }
                        std::cmp::Ordering::Greater => Check::new(
                            c.name(),
                            State::Skip,
                            "not checked: an earlier check failed",
                        ),
                    })
                    .collect(),
                // Not read at all: no check ran.
                None => vec![Check::new("body", State::Fail, refusal.message.clone())],
            };
            (
                format!(
                    "{} (rejected)",
                    refusal.event.as_deref().unwrap_or("an event")
                ),
                checks,
            )
        }
    };
    let mut entry = Entry::new(Kind::Posted, title, request);
    entry.answer = Some(json!({
        "status": status,
        "reason": http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()),
        "body": answer_body,
    }));
    entry.checks = checks;
    entry.conclude();
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page that posts 1 MiB bodies to the inbox, again and again, holds the timeline to its
    /// byte bound, keeping the newest entries.
    #[test]
    fn posted_bodies_are_kept_within_the_byte_bound() {
        let timeline = Timeline::new();
        let body = Bytes::from(vec![b'x'; 1024 * 1024]);
        let verdict = Verdict::unreadable(false, 1024 * 1024, "not JSON");
        let mut last = 0;
        for _ in 0..200 {
            last = timeline.posted(&HeaderMap::new(), body.clone(), &verdict, Duration::ZERO);
            let (bytes, entries) = timeline.held();
            assert!(bytes <= KEPT_BYTES, "{bytes} bytes in {entries} entries");
        }
        let (bytes, entries) = timeline.held();
        assert!(
            entries < 64 && entries > 10,
            "{entries} entries, {bytes} bytes"
        );
        assert!(timeline.get(last).is_some(), "the newest is kept");
        assert!(timeline.get(1).is_none(), "the oldest went first");
        // Small entries are bounded by their number.
        let small = Timeline::new();
        for _ in 0..(KEPT + 20) {
            small.posted(
                &HeaderMap::new(),
                Bytes::from_static(b"{}"),
                &verdict,
                Duration::ZERO,
            );
        }
        assert_eq!(small.held().1, KEPT);
    }
}
