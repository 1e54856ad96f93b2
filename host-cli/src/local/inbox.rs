//! The local host's inbox: the vendor server's own events, posted to `POST /v1/events`, checked as
//! the host checks them.
//!
//! The checks run in the order of [`Check::ALL`] and the first that fails answers; each is one
//! function below, and each [`Check`] knows its name, what passing it means, and the status and
//! code it answers with when it fails. `cargo host dev` prints the verdict, the console shows each
//! check on its timeline, and a replayed event goes through the same [`Inbox::verify`].
//!
//! An accepted event answers 202 `{"accepted":true}`; the same `webhook-id` again answers 200
//! `{"accepted":true,"duplicate":true}`. Refusals are 4xx with an error body, so a sender does not
//! retry them.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::SystemTime;

use host_manifest::Manifest;
use host_manifest::closest;
use host_manifest::model::WebhookKind;
use host_runtime::webhook::{Secret, WebhookError, verify_webhook};
use http::HeaderMap;
use serde_json::{Map, Value, json};

use super::listed;

/// One check of a posted event, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Check {
    /// The three Standard Webhooks headers are present.
    Signed,
    /// The signature is valid with the install's secret, within 300 s of now.
    Signature,
    /// The body is the JSON envelope with members of the right types.
    Envelope,
    /// `dedupeKey` equals `webhook-id`.
    DedupeKey,
    /// `event` is declared under `contributes.webhooks`.
    Declared,
    /// `payload` is valid against that webhook's `payload` schema.
    PayloadSchema,
    /// An `alert` or `banner` payload has a non-empty string `why`.
    Why,
}

impl Check {
    /// Every check, in the order they run.
    pub(crate) const ALL: [Check; 7] = [
        Check::Signed,
        Check::Signature,
        Check::Envelope,
        Check::DedupeKey,
        Check::Declared,
        Check::PayloadSchema,
        Check::Why,
    ];

    /// Its name, as the console's timeline shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Check::Signed => "signed",
            Check::Signature => "signature",
            Check::Envelope => "envelope",
            Check::DedupeKey => "dedupe key",
            Check::Declared => "declared name",
            Check::PayloadSchema => "payload schema",
            Check::Why => "why",
        }
    }

    /// What passing it established, in words.
    pub(crate) fn passed(self) -> &'static str {
        match self {
            Check::Signed => "the three Standard Webhooks headers are present",
            Check::Signature => "signed with the install's secret, within 300 s of now",
            Check::Envelope => {
                "{ event, source, occurredAt, build, dedupeKey, payload } with the right types"
            }
            Check::DedupeKey => "`dedupeKey` equals `webhook-id`",
            Check::Declared => "declared under `contributes.webhooks`",
            Check::PayloadSchema => "the payload is valid against the webhook's schema",
            Check::Why => "an alert or banner carries the sentence the owner reads",
        }
    }

    /// The status a failure answers with: 401 for a missing or wrong signature (the sender's
    /// credentials), 400 for a malformed request, 422 for one the manifest does not allow.
    pub(crate) fn status(self) -> u16 {
        match self {
            Check::Signed | Check::Signature => 401,
            Check::Envelope | Check::DedupeKey => 400,
            Check::Declared | Check::PayloadSchema | Check::Why => 422,
        }
    }

    /// The error code a failure answers with.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Check::Signed | Check::Signature => "UNAUTHORIZED",
            Check::Envelope | Check::DedupeKey => "BAD_REQUEST",
            Check::Declared => "EVENT_NOT_DECLARED",
            Check::PayloadSchema | Check::Why => "PAYLOAD_INVALID",
        }
    }
}

/// A refused event: the check that failed, or the body that could not be read at all.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// The failed check; `None` when the body could not be read (too large, broken off), before
    /// any check ran.
    pub check: Option<Check>,
    /// The event's name, when the body named one.
    pub event: Option<String>,
    /// The answer's status.
    pub status: u16,
    /// The answer's error code.
    pub code: &'static str,
    /// What is wrong and what to do, in words.
    pub message: String,
}

/// The verdict on one posted event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Every check passed and the id is new.
    Accepted {
        /// The event's name.
        event: String,
        /// How the manifest declares it (`as`).
        kind: WebhookKind,
        /// The envelope's `source`.
        source: String,
        /// Its `webhook-id`.
        id: String,
        /// The sentence the owner reads, for an alert or a banner.
        why: Option<String>,
        /// The payload.
        payload: Value,
    },
    /// Every check passed and the id was accepted before.
    Duplicate {
        /// The event's name.
        event: String,
        /// The envelope's `source`.
        source: String,
        /// Its `webhook-id`.
        id: String,
    },
    /// A check failed.
    Rejected(Refusal),
}

impl Verdict {
    /// The verdict on a body that could not be read: over `limit` bytes, or broken off.
    pub(crate) fn unreadable(too_large: bool, limit: usize, why: &str) -> Verdict {
        let (status, code, message) = if too_large {
            (
                413,
                "PAYLOAD_TOO_LARGE",
                format!("the event body is over the {limit}-byte limit"),
            )
        } else {
            (
                400,
                "BAD_REQUEST",
                format!("the body could not be read: {why}"),
            )
        };
        Verdict::Rejected(Refusal {
            check: None,
            event: None,
            status,
            code,
            message,
        })
    }

    /// The status and body the local host answers with.
    pub(crate) fn answer(&self) -> (u16, Value) {
        match self {
            Verdict::Accepted { .. } => (202, json!({ "accepted": true })),
            Verdict::Duplicate { .. } => (200, json!({ "accepted": true, "duplicate": true })),
            Verdict::Rejected(r) => (
                r.status,
                json!({ "error": { "code": r.code, "message": r.message } }),
            ),
        }
    }
}

/// A webhook declared under `contributes.webhooks`.
struct Declared {
    kind: WebhookKind,
    /// `None` only when the schema does not compile, which the manifest engine reports first.
    validator: Option<jsonschema::Validator>,
}

/// The envelope's members, once their types are right.
struct Envelope<'a> {
    event: &'a str,
    source: &'a str,
    dedupe_key: &'a str,
    payload: &'a Value,
}

/// The three Standard Webhooks headers.
struct Headers<'a> {
    id: &'a str,
    timestamp: &'a str,
    signature: &'a str,
}

/// What the local host knows of the events it may be posted, and which it accepted.
pub(crate) struct Inbox {
    secret: Secret,
    webhooks: HashMap<String, Declared>,
    /// `webhook-id`s of accepted events.
    accepted: Mutex<HashSet<String>>,
}

impl Inbox {
    /// The inbox for `manifest`'s webhooks, checking signatures with `secret`.
    pub(crate) fn new(manifest: &Manifest, secret: Secret) -> Inbox {
        let webhooks = manifest
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
        Inbox {
            secret,
            webhooks,
            accepted: Mutex::new(HashSet::new()),
        }
    }

    /// How many webhooks the manifest declares.
    pub(crate) fn declared(&self) -> usize {
        self.webhooks.len()
    }

    /// Checks one posted event in the order of [`Check::ALL`] and records it when accepted.
    pub(crate) fn verify(&self, headers: &HeaderMap, body: &[u8], now: SystemTime) -> Verdict {
        let parsed: Option<Value> = serde_json::from_slice(body).ok();
        // For messages only until the signature is checked.
        let named = parsed
            .as_ref()
            .and_then(|b| b.get("event"))
            .and_then(Value::as_str);
        let refuse = |check: Check, event: Option<&str>, message: String| {
            Verdict::Rejected(Refusal {
                check: Some(check),
                event: event.map(str::to_owned),
                status: check.status(),
                code: check.code(),
                message,
            })
        };
        let sent = match signed(headers) {
            Ok(sent) => sent,
            Err(why) => return refuse(Check::Signed, named, why),
        };
        if let Err(why) = self.signature(&sent, body, now) {
            return refuse(Check::Signature, named, why);
        }
        let envelope = match envelope(parsed.as_ref()) {
            Ok(envelope) => envelope,
            Err(why) => return refuse(Check::Envelope, named, why),
        };
        let event = Some(envelope.event);
        if let Err(why) = dedupe_key(&envelope, sent.id) {
            return refuse(Check::DedupeKey, event, why);
        }
        let declared = match self.declared_as(envelope.event) {
            Ok(declared) => declared,
            Err(why) => return refuse(Check::Declared, event, why),
        };
        if let Err(why) = payload_schema(declared, &envelope) {
            return refuse(Check::PayloadSchema, event, why);
        }
        let why = match why(declared, &envelope) {
            Ok(why) => why,
            Err(message) => return refuse(Check::Why, event, message),
        };

        let first = self
            .accepted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(sent.id.to_owned());
        if !first {
            return Verdict::Duplicate {
                event: envelope.event.to_owned(),
                source: envelope.source.to_owned(),
                id: sent.id.to_owned(),
            };
        }
        Verdict::Accepted {
            event: envelope.event.to_owned(),
            kind: declared.kind,
            source: envelope.source.to_owned(),
            id: sent.id.to_owned(),
            why,
            payload: envelope.payload.clone(),
        }
    }

    /// [`Check::Signature`]: Standard Webhooks v1 with the install's secret.
    fn signature(&self, sent: &Headers<'_>, body: &[u8], now: SystemTime) -> Result<(), String> {
        verify_webhook(&self.secret, sent.id, sent.timestamp, sent.signature, body, now).map_err(
            |e| {
                let hint = match e {
                    WebhookError::NoMatchingSignature => {
                        "; sign with HOST_SIGNING_SECRET as printed by `cargo host dev`, over the body exactly as sent"
                    }
                    WebhookError::TimestampOutOfTolerance => "; is the clock right?",
                    _ => "",
                };
                format!("{e}{hint}")
            },
        )
    }

    /// [`Check::Declared`]: the event is one of the manifest's webhooks.
    fn declared_as(&self, event: &str) -> Result<&Declared, String> {
        if let Some(declared) = self.webhooks.get(event) {
            return Ok(declared);
        }
        let mut names: Vec<&str> = self.webhooks.keys().map(String::as_str).collect();
        names.sort_unstable();
        let hint = closest(event, names.iter().copied())
            .map(|near| format!("did you mean `{near}`? "))
            .unwrap_or_default();
        let known = if names.is_empty() {
            "the manifest declares none".to_owned()
        } else {
            format!("declared: {}", listed(names))
        };
        Err(format!(
            "`{event}` is not declared under `contributes.webhooks`; {hint}{known}"
        ))
    }
}

/// [`Check::Signed`]: the three headers are present.
fn signed(headers: &HeaderMap) -> Result<Headers<'_>, String> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match (
        header("webhook-id"),
        header("webhook-timestamp"),
        header("webhook-signature"),
    ) {
        (Some(id), Some(timestamp), Some(signature)) => Ok(Headers {
            id,
            timestamp,
            signature,
        }),
        _ => {
            let missing = ["webhook-id", "webhook-timestamp", "webhook-signature"]
                .into_iter()
                .filter(|n| header(n).is_none());
            Err(format!(
                "the event is not signed: {} missing; sign it with the install's secret (Standard Webhooks v1)",
                listed(missing)
            ))
        }
    }
}

/// [`Check::Envelope`]: `{ event, source, occurredAt, build, dedupeKey, payload }` with members of
/// the right types; every wrong member is named at once.
fn envelope(parsed: Option<&Value>) -> Result<Envelope<'_>, String> {
    let Some(envelope) = parsed.and_then(Value::as_object) else {
        let why = match parsed {
            None => "the body is not JSON",
            Some(_) => "the body is not a JSON object",
        };
        return Err(format!(
            "{why}; post the envelope {{ event, source, occurredAt, build, dedupeKey, payload }}"
        ));
    };
    let problems = envelope_problems(envelope);
    let text = |k: &str| envelope.get(k).and_then(Value::as_str);
    match (
        text("event"),
        text("source"),
        text("dedupeKey"),
        envelope.get("payload"),
    ) {
        (Some(event), Some(source), Some(dedupe_key), Some(payload)) if problems.is_empty() => {
            Ok(Envelope {
                event,
                source,
                dedupe_key,
                payload,
            })
        }
        _ => Err(format!(
            "the envelope is malformed: {}",
            problems.join("; ")
        )),
    }
}

fn envelope_problems(envelope: &Map<String, Value>) -> Vec<String> {
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
    problems
}

/// [`Check::DedupeKey`]: the idempotency key is the message id.
fn dedupe_key(envelope: &Envelope<'_>, id: &str) -> Result<(), String> {
    if envelope.dedupe_key == id {
        return Ok(());
    }
    Err(format!(
        "`dedupeKey` `{}` differs from the `webhook-id` header `{id}`; they must be equal",
        envelope.dedupe_key
    ))
}

/// [`Check::PayloadSchema`]: the payload against the webhook's schema, naming the JSON pointer.
fn payload_schema(declared: &Declared, envelope: &Envelope<'_>) -> Result<(), String> {
    match declared
        .validator
        .as_ref()
        .and_then(|v| super::schema::first_error(v, envelope.payload))
    {
        Some(e) => Err(format!(
            "the payload fails the `{}` schema {e}",
            envelope.event
        )),
        None => Ok(()),
    }
}

/// [`Check::Why`]: what the owner reads, for alerts and banners; gives it.
fn why(declared: &Declared, envelope: &Envelope<'_>) -> Result<Option<String>, String> {
    if !matches!(declared.kind, WebhookKind::Alert | WebhookKind::Banner) {
        return Ok(None);
    }
    match envelope.payload.get("why").and_then(Value::as_str) {
        Some(why) if !why.trim().is_empty() => Ok(Some(why.to_owned())),
        _ => Err(format!(
            "`{}` is declared `as: {}`: its payload needs a non-empty string `why`, the sentence the owner reads",
            envelope.event, declared.kind
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET;
    use host_runtime::webhook::sign_webhook;
    use std::time::{Duration, UNIX_EPOCH};

    fn inbox() -> Inbox {
        let manifest: Manifest = serde_json::from_value(json!({
            "id": "keyword-tracker", "name": "Keyword Tracker",
            "description": "Daily keyword ranks for apps.", "icon": "icon.png",
            "category": "market_data", "sdk": "^2.0.0", "visibility": "private",
            "installScope": "project", "scopes": [],
            "contributes": { "webhooks": [
                { "event": "rank.dropped", "as": "alert", "payload": { "type": "object",
                  "required": ["why"], "properties": { "why": { "type": "string" },
                  "previous": { "type": "integer", "minimum": 1 } } } },
                { "event": "store.algorithm_updated", "as": "event", "payload": {} }
            ] }
        }))
        .unwrap();
        Inbox::new(
            &manifest,
            Secret::parse(DEVELOPMENT_WEBHOOK_SECRET).unwrap(),
        )
    }

    const NOW: u64 = 1_800_000_000;

    fn signed_request(inbox: &Inbox, id: &str, body: &[u8]) -> HeaderMap {
        let signature = sign_webhook(&inbox.secret, id, NOW as i64, body);
        let mut headers = HeaderMap::new();
        headers.insert("webhook-id", id.parse().unwrap());
        headers.insert("webhook-timestamp", NOW.to_string().parse().unwrap());
        headers.insert("webhook-signature", signature.parse().unwrap());
        headers
    }

    fn envelope(id: &str, event: &str, payload: Value) -> Value {
        json!({ "event": event, "source": "ins_dev_1", "occurredAt": "2027-01-15T08:00:00Z",
                "build": null, "dedupeKey": id, "payload": payload })
    }

    fn check(inbox: &Inbox, id: &str, envelope: &Value) -> Verdict {
        let body = envelope.to_string().into_bytes();
        let headers = signed_request(inbox, id, &body);
        inbox.verify(&headers, &body, UNIX_EPOCH + Duration::from_secs(NOW))
    }

    fn failed(v: &Verdict) -> Option<(Check, u16, &str)> {
        match v {
            Verdict::Rejected(r) => Some((r.check?, r.status, r.message.as_str())),
            _ => None,
        }
    }

    #[test]
    fn a_signed_declared_event_is_accepted_once() {
        let inbox = inbox();
        let e = envelope(
            "msg_1",
            "rank.dropped",
            json!({ "why": "Notes fell to 9", "previous": 3 }),
        );
        let first = check(&inbox, "msg_1", &e);
        assert!(
            matches!(&first, Verdict::Accepted { why: Some(w), .. } if w == "Notes fell to 9"),
            "{first:?}"
        );
        let again = check(&inbox, "msg_1", &e);
        assert!(matches!(again, Verdict::Duplicate { .. }), "{again:?}");
        assert_eq!(again.answer().0, 200);
        let marker = envelope(
            "msg_2",
            "store.algorithm_updated",
            json!({ "store": "app_store" }),
        );
        assert!(matches!(
            check(&inbox, "msg_2", &marker),
            Verdict::Accepted { why: None, .. }
        ));
    }

    #[test]
    fn signatures_are_required_and_checked() {
        let inbox = inbox();
        let body = envelope("msg_1", "rank.dropped", json!({ "why": "x" }))
            .to_string()
            .into_bytes();
        let mut headers = signed_request(&inbox, "msg_1", &body);
        let now = UNIX_EPOCH + Duration::from_secs(NOW);
        let mut tampered = body.clone();
        tampered.push(b' ');
        let bad = inbox.verify(&headers, &tampered, now);
        assert!(
            matches!(failed(&bad), Some((Check::Signature, 401, m)) if m.contains("no signature")),
            "{bad:?}"
        );
        let late = inbox.verify(&headers, &body, now + Duration::from_secs(301));
        assert!(matches!(failed(&late), Some((Check::Signature, 401, _))));
        headers.remove("webhook-timestamp");
        let unsigned = inbox.verify(&headers, &body, now);
        assert!(
            matches!(failed(&unsigned), Some((Check::Signed, 401, m)) if m.contains("`webhook-timestamp`")),
            "{unsigned:?}"
        );
    }

    #[test]
    fn each_check_fails_in_its_order_with_its_answer() {
        let inbox = inbox();
        let mut e = envelope("msg_1", "rank.dropped", json!({ "why": "x" }));
        e["occurredAt"] = json!("yesterday");
        e["build"] = json!(12);
        let v = check(&inbox, "msg_1", &e);
        assert!(
            matches!(failed(&v), Some((Check::Envelope, 400, m)) if m.contains("`occurredAt`") && m.contains("`build`")),
            "{v:?}"
        );

        let other_key = envelope("msg_other", "rank.dropped", json!({ "why": "x" }));
        let v = check(&inbox, "msg_1", &other_key);
        assert!(
            matches!(failed(&v), Some((Check::DedupeKey, 400, m)) if m.contains("`dedupeKey`"))
        );

        let typo = check(
            &inbox,
            "msg_1",
            &envelope("msg_1", "rank.droped", json!({})),
        );
        assert!(
            matches!(failed(&typo), Some((Check::Declared, 422, m)) if m.contains("did you mean `rank.dropped`?")),
            "{typo:?}"
        );
        assert_eq!(typo.answer().1["error"]["code"], "EVENT_NOT_DECLARED");

        let schema = check(
            &inbox,
            "msg_1",
            &envelope(
                "msg_1",
                "rank.dropped",
                json!({ "why": "x", "previous": 0 }),
            ),
        );
        assert!(
            matches!(failed(&schema), Some((Check::PayloadSchema, 422, m)) if m.contains("at `/previous`")),
            "{schema:?}"
        );

        let empty_why = check(
            &inbox,
            "msg_1",
            &envelope("msg_1", "rank.dropped", json!({ "why": " " })),
        );
        assert!(
            matches!(failed(&empty_why), Some((Check::Why, 422, m)) if m.contains("non-empty string `why`")),
            "{empty_why:?}"
        );

        let body = b"not json".to_vec();
        let headers = signed_request(&inbox, "msg_9", &body);
        let not_json = inbox.verify(&headers, &body, UNIX_EPOCH + Duration::from_secs(NOW));
        assert!(matches!(failed(&not_json), Some((Check::Envelope, 400, _))));
    }

    #[test]
    fn the_checks_are_one_table() {
        let names: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names.len(), unique.len());
        assert!(Check::ALL.windows(2).all(|w| w[0] < w[1]));
        for check in Check::ALL {
            assert!((400..500).contains(&check.status()), "{check:?}");
            assert!(!check.passed().is_empty());
        }
    }
}
