//! One call of a vendor server's route, built as the host builds it: the route the manifest
//! declares, the install token, the call body, the input checked the way the runtime checks it, and
//! the runtime's own deadline. `cargo host call` and the console both build their calls here.
//!
//! The inputs of the routes whose shape the interface fixes (the connector sync, a new work item, a
//! comment) are described by JSON Schemas written here from the manifest ([`sync_schema`],
//! [`work_item_schema`], [`work_comment_schema`]), so the console draws their forms and checks them
//! like any declared input.

use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use host_manifest::Manifest;
use host_manifest::closest;
use host_manifest::model::CommentSync;
use host_runtime::route::Route;
use http::Method;
use serde::Serialize;
use serde_json::{Value, json};

use super::client::{Answer, Client, Request, SendError};
use super::install::Local;
pub(crate) use super::schema::Problem;
use super::{Fail, listed};

/// What can be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Kind {
    /// An assistant tool: `POST /host/tools/<id>`.
    Tool,
    /// An approved action: `POST /host/actions/<id>`.
    Action,
    /// A mention picker: `GET /host/mentions/<id>?q=`.
    Mention,
    /// A context provider: `GET /host/context/<id>`.
    Context,
    /// A procedure: `POST /host/procedures/<name>`.
    Procedure,
    /// The connector sync: `POST /host/metrics`.
    Sync,
    /// The work destination's container list: `GET` of the manifest's `work.container.list` path,
    /// `?q=` from `--query`.
    WorkContainers,
    /// A new work item: `POST /host/work/items`. The id, if given, is the container [default: the
    /// first one the container list answers].
    WorkItem,
    /// A comment on a work item: `POST /host/work/items/<id>/comments`; the id is the item's.
    WorkComment,
}

impl Kind {
    /// Every kind, in the order the console lists them.
    pub(crate) const ALL: [Kind; 9] = [
        Kind::Tool,
        Kind::Action,
        Kind::Mention,
        Kind::Context,
        Kind::Procedure,
        Kind::Sync,
        Kind::WorkContainers,
        Kind::WorkItem,
        Kind::WorkComment,
    ];

    /// The word the command line and the console use: `tool`, `work-item`, ...
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Action => "action",
            Kind::Mention => "mention",
            Kind::Context => "context",
            Kind::Procedure => "procedure",
            Kind::Sync => "sync",
            Kind::WorkContainers => "work-containers",
            Kind::WorkItem => "work-item",
            Kind::WorkComment => "work-comment",
        }
    }

    /// The kind a word names.
    pub(crate) fn from_word(word: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.word() == word)
    }

    /// Whether the route takes the picker's text as `?q=`.
    pub(crate) fn takes_query(self) -> bool {
        matches!(self, Kind::Mention | Kind::WorkContainers)
    }

    /// Whether the route takes a body with an `input` (GET routes take none).
    pub(crate) fn takes_input(self) -> bool {
        !matches!(self, Kind::Mention | Kind::Context | Kind::WorkContainers)
    }

    /// How long the runtime lets the handler run before it answers a timeout itself: the tool
    /// deadline for tools, the handler deadline for everything else.
    pub(crate) const fn deadline(self) -> Duration {
        match self {
            Kind::Tool => host_runtime::TOOL_DEADLINE,
            _ => host_runtime::HANDLER_DEADLINE,
        }
    }

    /// How long the local host waits for a whole answer: a little over [`Kind::deadline`], so
    /// the runtime's own `TOOL_TIMEOUT` or `HANDLER_TIMEOUT` answer is seen rather than cut off.
    pub(crate) const fn wait(self) -> Duration {
        Duration::from_secs(self.deadline().as_secs() + 5)
    }
}

/// One route of the server, resolved from the manifest.
pub(crate) struct Target {
    /// GET or POST.
    pub method: Method,
    /// The route, e.g. `/host/tools/keyword-ranks`.
    pub route: String,
    /// "tool `keyword-ranks`", for messages.
    pub name: String,
}

/// An input judged before it is sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Judged {
    /// What the runtime refuses with `INPUT_INVALID` (or a 400 for a body it cannot read).
    pub errors: Vec<Problem>,
    /// What the runtime lets through but the host would never send: `format` values it does not
    /// assert (a `date-time` that is not one), said in words.
    pub warnings: Vec<Problem>,
}

/// A call ready to send.
pub(crate) struct Call {
    /// The route.
    pub target: Target,
    /// The query parameters (the picker's `q`).
    pub query: Vec<(&'static str, String)>,
    /// The call body, for routes that take one.
    pub body: Option<Value>,
    /// The input as judged; empty for routes without input.
    pub judged: Judged,
    /// What is called.
    pub kind: Kind,
}

impl Call {
    /// Sends the call with a fresh token, waiting [`Kind::wait`] for the whole answer.
    pub(crate) async fn send(&self, client: &Client, local: &Local) -> Result<Answer, SendError> {
        client
            .send(Request {
                method: self.target.method.clone(),
                route: self.target.route.clone(),
                query: self.query.clone(),
                headers: vec![("authorization", local.authorization())],
                body: self.body.as_ref(),
                timeout: self.kind.wait(),
            })
            .await
    }
}

/// Builds one call: the route from the manifest, the input (`input`, else the default of its
/// kind), the picker text, and the body of `local`'s install.
pub(crate) fn prepare(
    m: &Manifest,
    shown: &str,
    kind: Kind,
    id: Option<&str>,
    input: Option<Value>,
    query: Option<String>,
    local: &Local,
) -> Result<Call, Fail> {
    let target = target(m, kind, id, shown)?;
    let mut call = Call {
        query: Vec::new(),
        body: None,
        judged: Judged::default(),
        kind,
        target,
    };
    if kind.takes_query() {
        call.query.push(("q", query.unwrap_or_default()));
    }
    if kind.takes_input() {
        let input = input.unwrap_or_else(|| default_input(m, kind, id));
        call.judged = judge(m, kind, id, &input);
        call.body = Some(local.call_body(input));
    }
    Ok(call)
}

/// The input sent when none is given: `{}`, the scheduled sync of the last 24 hours, an item of
/// the first kind the destination creates, a short comment.
pub(crate) fn default_input(m: &Manifest, kind: Kind, id: Option<&str>) -> Value {
    match kind {
        Kind::Sync => sync_input(m, id),
        Kind::WorkItem => new_item(m, id.unwrap_or_default()),
        Kind::WorkComment => json!({ "body": "A comment from the local host." }),
        _ => json!({}),
    }
}

/// The input schema a route is checked against: the declared one, or the one the interface fixes
/// for the sync and the work routes; `None` for routes without input.
pub(crate) fn input_schema(m: &Manifest, kind: Kind, id: Option<&str>) -> Option<Value> {
    let ai = &m.contributes.ai;
    match kind {
        Kind::Tool => ai
            .tools
            .iter()
            .find(|t| Some(t.id.as_str()) == id)
            .map(|t| t.input.clone()),
        Kind::Action => ai
            .actions
            .iter()
            .find(|a| Some(a.id.as_str()) == id)
            .map(|a| a.input.clone()),
        Kind::Procedure => m
            .server
            .as_ref()
            .and_then(|s| s.procedures.get(id?))
            .map(|p| p.input.clone()),
        Kind::Sync => m.contributes.connector.as_ref().map(|_| sync_schema(m)),
        Kind::WorkItem => m.contributes.work.as_ref().map(|_| work_item_schema(m)),
        Kind::WorkComment => Some(work_comment_schema()),
        Kind::Mention | Kind::Context | Kind::WorkContainers => None,
    }
}

/// Judges `input` as the runtime will: against the route's input schema (every violation, by
/// JSON pointer), then, for the routes the interface fixes, as the typed request the handler
/// receives. `format` values the runtime does not assert are warnings.
pub(crate) fn judge(m: &Manifest, kind: Kind, id: Option<&str>, input: &Value) -> Judged {
    let mut judged = Judged::default();
    if let Some(schema) = input_schema(m, kind, id) {
        let (errors, warnings) = super::schema::problems(&schema, input);
        judged.errors = errors;
        judged.warnings = warnings;
    }
    let typed = match kind {
        Kind::Sync => decode::<host_runtime::metrics::SyncRequest<String>>(input),
        Kind::WorkItem => decode::<host_runtime::work::NewItem>(input),
        Kind::WorkComment => decode::<host_runtime::work::NewComment>(input),
        _ => None,
    };
    // The typed request only adds what the schema did not already say.
    if judged.errors.is_empty()
        && let Some(message) = typed
    {
        judged.errors.push(Problem {
            at: "/".to_owned(),
            message,
        });
    }
    // Then the runtime's own rules of the route, with its own function: what passes the schema
    // and the type (an attachment URL of `https://` alone) may still be refused.
    if judged.errors.is_empty()
        && kind == Kind::WorkItem
        && let Some(work) = &m.contributes.work
    {
        let creates: Vec<&str> = work.creates.iter().map(|k| k.as_str()).collect();
        if let Err(e) = host_runtime::check::new_work_item(&creates, Some(input)) {
            let message = e.message().to_owned();
            let at = message
                .strip_prefix("/input")
                .and_then(|rest| rest.split_once(": "))
                .map_or("/".to_owned(), |(at, _)| at.to_owned());
            judged.errors.push(Problem { at, message });
        }
    }
    judged
}

fn decode<T: serde::de::DeserializeOwned>(input: &Value) -> Option<String> {
    T::deserialize(input).err().map(|e| e.to_string())
}

/// The body of a sync: the declared metrics, the period, whether it is the backfill, the cursor.
/// `from` and `to` are RFC 3339 times the host always sends; the runtime hands them to the
/// handler as written.
pub(crate) fn sync_schema(m: &Manifest) -> Value {
    let keys: Vec<&str> = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| c.metrics.iter().map(|x| x.key.as_str()))
        .collect();
    json!({
        "type": "object",
        "required": ["metrics", "from", "to"],
        "properties": {
            "metrics": { "type": "array", "uniqueItems": true, "minItems": 1,
                         "description": "The metrics wanted.",
                         "items": { "type": "string", "enum": keys } },
            "from": { "type": "string", "format": "date-time", "description": "Start of the period." },
            "to": { "type": "string", "format": "date-time", "description": "End of the period." },
            "backfill": { "type": "boolean", "description": "Whether this is the first sync's backfill." },
            "cursor": { "type": ["string", "null"], "description": "Where the previous page stopped." }
        }
    })
}

/// The body of a new work item: a kind the destination creates, the container, the title, and the
/// optional members the manifest's `fields` allow.
pub(crate) fn work_item_schema(m: &Manifest) -> Value {
    let Some(work) = &m.contributes.work else {
        return json!({ "type": "object" });
    };
    let kinds: Vec<&str> = work.creates.iter().map(|k| k.as_str()).collect();
    let mut properties = json!({
        "kind": { "type": "string", "enum": kinds, "description": "One of the kinds the destination creates." },
        "container": { "type": "string", "minLength": 1, "description": "A container id the container list answers." },
        "title": { "type": "string", "minLength": 1 },
        "body": { "type": "string", "description": "Markdown." },
        "labels": { "type": "array", "items": { "type": "string" } },
        "assignee": { "type": "string" },
    });
    properties["priority"] = if work.fields.priority.is_empty() {
        json!({ "type": "string" })
    } else {
        json!({ "type": "string", "enum": work.fields.priority })
    };
    if !work.attachments.is_empty() {
        let kinds: Vec<&str> = work.attachments.iter().map(|a| a.as_str()).collect();
        properties["attachments"] = json!({ "type": "array", "items": {
            "type": "object", "required": ["type", "url"],
            "properties": {
                "type": { "type": "string", "enum": kinds },
                "url": { "type": "string", "pattern": "^https://", "description": "An https URL." }
            }
        } });
    }
    let mut required = vec!["kind", "container", "title"];
    required.extend(work.fields.required.iter().map(String::as_str));
    json!({ "type": "object", "required": required, "properties": properties })
}

/// The body of a comment on a work item.
pub(crate) fn work_comment_schema() -> Value {
    json!({ "type": "object", "required": ["body"],
            "properties": { "body": { "type": "string", "minLength": 1, "description": "Markdown." } } })
}

/// A new item the destination accepts: its first `creates` kind, a title, and a value for each
/// field the manifest marks required.
pub(crate) fn new_item(m: &Manifest, container: &str) -> Value {
    let Some(work) = &m.contributes.work else {
        return json!({});
    };
    let mut item = json!({
        "kind": work.creates.first().map_or("issue", |k| k.as_str()),
        "container": container,
        "title": "Created by cargo host",
    });
    for field in &work.fields.required {
        let value = match field.as_str() {
            "priority" => json!(
                work.fields
                    .priority
                    .first()
                    .map_or("normal", String::as_str)
            ),
            "labels" => json!(["cargo-host"]),
            "assignee" => json!("dev-user"),
            _ => json!("A work item from the local host."),
        };
        item[field.as_str()] = value;
    }
    item
}

/// The sync input the host sends on a scheduled sync: the metric (or every declared one) over the
/// last 24 hours, not a backfill, from the start.
pub(crate) fn sync_input(m: &Manifest, metric: Option<&str>) -> Value {
    let metrics: Vec<&str> = match metric {
        Some(key) => vec![key],
        None => m
            .contributes
            .connector
            .iter()
            .flat_map(|c| c.metrics.iter().map(|x| x.key.as_str()))
            .collect(),
    };
    let to = Utc::now();
    let from = to - chrono::Duration::hours(24);
    json!({
        "metrics": metrics,
        "from": from.to_rfc3339_opts(SecondsFormat::Secs, true),
        "to": to.to_rfc3339_opts(SecondsFormat::Secs, true),
        "backfill": false,
        "cursor": null,
    })
}

/// Resolves the kind and id to a declared route, or explains what is declared.
pub(crate) fn target(
    m: &Manifest,
    kind: Kind,
    id: Option<&str>,
    shown: &str,
) -> Result<Target, Fail> {
    let ai = &m.contributes.ai;
    let procedures = m.server.as_ref().map(|s| &s.procedures);
    let metrics: Vec<&str> = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| c.metrics.iter().map(|x| x.key.as_str()))
        .collect();
    let (what, place, declared): (&str, &str, Vec<&str>) = match kind {
        Kind::Tool => (
            "tool",
            "contributes.ai.tools",
            ai.tools.iter().map(|t| t.id.as_str()).collect(),
        ),
        Kind::Action => (
            "action",
            "contributes.ai.actions",
            ai.actions.iter().map(|a| a.id.as_str()).collect(),
        ),
        Kind::Mention => (
            "mention",
            "contributes.ai.mentions",
            ai.mentions.iter().map(|x| x.id.as_str()).collect(),
        ),
        Kind::Context => (
            "context provider",
            "contributes.ai.context",
            ai.context.iter().map(|c| c.id.as_str()).collect(),
        ),
        Kind::Procedure => (
            "procedure",
            "server.procedures",
            procedures
                .into_iter()
                .flat_map(|p| p.keys().map(String::as_str))
                .collect(),
        ),
        Kind::Sync => ("metric", "contributes.connector.metrics", metrics),
        Kind::WorkContainers | Kind::WorkItem | Kind::WorkComment => {
            return work_target(m, kind, id, shown);
        }
    };
    if declared.is_empty() {
        return Err(Fail::usage(format!(
            "{shown} declares no {what} (under `{place}`), so there is nothing to call"
        )));
    }
    let id = match (id, kind) {
        (Some(id), _) => id,
        (None, Kind::Sync) => {
            return Ok(Target {
                method: Route::Metrics.method(),
                route: Route::Metrics.path(None).unwrap_or_default(),
                name: "sync".to_owned(),
            });
        }
        (None, _) => {
            return Err(Fail::usage(format!(
                "name the {what} to call, e.g. `cargo host call {} {}`; declared: {}",
                kind.word(),
                declared[0],
                listed(declared.iter().copied())
            )));
        }
    };
    if !declared.contains(&id) {
        let hint = match closest(id, declared.iter().copied()) {
            Some(near) => format!("did you mean `{near}`? "),
            None => String::new(),
        };
        return Err(Fail::usage(format!(
            "`{id}` is not a {what} declared in {shown}; {hint}declared under `{place}`: {}",
            listed(declared.iter().copied())
        )));
    }
    let route = match kind {
        Kind::Tool => Route::Tool(id),
        Kind::Action => Route::Action(id),
        Kind::Mention => Route::Mention(id),
        Kind::Context => Route::Context(id),
        Kind::Procedure => Route::Procedure(id),
        _ => Route::Metrics,
    };
    Ok(Target {
        method: route.method(),
        route: route.path(None).unwrap_or_default(),
        name: format!("{what} `{id}`"),
    })
}

/// The work destination's routes.
fn work_target(m: &Manifest, kind: Kind, id: Option<&str>, shown: &str) -> Result<Target, Fail> {
    let Some(work) = &m.contributes.work else {
        return Err(Fail::usage(format!(
            "{shown} declares no work destination (under `contributes.work`), so there is nothing to call"
        )));
    };
    let (route, name) = match kind {
        Kind::WorkContainers => {
            if let Some(id) = id {
                return Err(Fail::usage(format!(
                    "`work-containers` takes no id (`{id}` given); the picker's text goes in `--query`"
                )));
            }
            (Route::WorkContainers, "the work container list".to_owned())
        }
        Kind::WorkItem => (Route::WorkItems, "a new work item".to_owned()),
        _ => {
            if work.comments != CommentSync::TwoWay {
                return Err(Fail::usage(format!(
                    "{shown} does not sync comments (`contributes.work.comments` is `{}`), so there is no comment route",
                    work.comments.as_str()
                )));
            }
            let Some(item) = id.filter(|i| !i.is_empty() && !i.contains('/')) else {
                return Err(Fail::usage(
                    "name the work item to comment on, e.g. `cargo host call work-comment KT-1`",
                ));
            };
            (Route::WorkComment(item), format!("a comment on `{item}`"))
        }
    };
    Ok(Target {
        method: route.method(),
        route: route
            .path(Some(work.container.list.as_str()))
            .unwrap_or_default(),
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        serde_json::from_value(json!({
            "id": "notes", "name": "Notes", "description": "Notes for apps.", "icon": "icon.png",
            "category": "support", "sdk": "^2.0.0", "visibility": "private",
            "installScope": "project", "scopes": [ { "key": "ai:tools" } ],
            "contributes": {
                "ai": { "tools": [ { "id": "greet", "description": "Greets.", "returns": "value", "cost": "low",
                    "input": { "type": "object", "required": ["name"], "properties": {
                        "name": { "type": "string", "minLength": 1 },
                        "seen": { "type": "string", "format": "date-time" } } } } ] },
                "connector": { "metrics": [ { "key": "signups", "label": "Sign-ups",
                    "unit": "count", "kind": "counter" } ] },
                "work": { "kind": "tracker", "container": { "label": "Board", "list": "/host/work/boards" },
                    "creates": ["issue"], "fields": { "priority": ["high", "low"], "labels": true, "required": [] }, "attachments": ["link"],
                    "comments": "two-way", "identity": "install" }
            }
        }))
        .unwrap()
    }

    #[test]
    fn kinds_are_one_table() {
        for kind in Kind::ALL {
            assert_eq!(Kind::from_word(kind.word()), Some(kind));
            assert!(kind.wait() > kind.deadline());
        }
        assert_eq!(Kind::Tool.deadline(), host_runtime::TOOL_DEADLINE);
        assert_eq!(Kind::Sync.deadline(), host_runtime::HANDLER_DEADLINE);
        assert_eq!(Kind::from_word("toll"), None);
    }

    #[test]
    fn inputs_are_judged_as_the_runtime_judges_them() {
        let m = manifest();
        let ok = judge(&m, Kind::Tool, Some("greet"), &json!({ "name": "Ada" }));
        assert_eq!(ok, Judged::default());
        let bad = judge(
            &m,
            Kind::Tool,
            Some("greet"),
            &json!({ "name": "", "seen": "yesterday" }),
        );
        assert_eq!(bad.errors.len(), 1, "{bad:?}");
        assert_eq!(bad.errors[0].at, "/name");
        assert_eq!(bad.warnings.len(), 1, "{bad:?}");
        assert_eq!(bad.warnings[0].at, "/seen");
        assert!(bad.warnings[0].message.contains("date-time"), "{bad:?}");

        let sync = judge(&m, Kind::Sync, None, &sync_input(&m, None));
        assert_eq!(sync, Judged::default());
        let mut wrong = sync_input(&m, None);
        wrong["from"] = json!("yesterday");
        wrong["metrics"] = json!(["installs"]);
        let wrong = judge(&m, Kind::Sync, None, &wrong);
        assert_eq!(wrong.errors[0].at, "/metrics/0", "{wrong:?}");
        assert_eq!(wrong.warnings[0].at, "/from", "{wrong:?}");

        let item = judge(&m, Kind::WorkItem, None, &new_item(&m, "board-1"));
        assert_eq!(item, Judged::default());
        let item = judge(
            &m,
            Kind::WorkItem,
            None,
            &json!({ "kind": "epic", "container": "b", "title": "t", "priority": "urgent" }),
        );
        let at: Vec<&str> = item.errors.iter().map(|p| p.at.as_str()).collect();
        assert_eq!(at, ["/kind", "/priority"], "{item:?}");
        let comment = judge(&m, Kind::WorkComment, Some("KT-1"), &json!({}));
        assert!(comment.errors[0].message.contains("body"), "{comment:?}");
    }

    #[test]
    fn calls_carry_the_default_input_of_their_kind() {
        let m = manifest();
        let local = Local::new(&m, &super::super::InstallArgs::default()).unwrap();
        let call = prepare(&m, "m.json", Kind::Sync, None, None, None, &local).unwrap();
        assert_eq!(call.body.unwrap()["input"]["metrics"], json!(["signups"]));
        let mention = prepare(
            &m,
            "m.json",
            Kind::WorkContainers,
            None,
            None,
            Some("ab".into()),
            &local,
        )
        .unwrap();
        assert_eq!(mention.query, [("q", "ab".to_owned())]);
        assert!(mention.body.is_none());
        let unknown = prepare(&m, "m.json", Kind::Tool, Some("gret"), None, None, &local);
        assert!(unknown.is_err_and(|f| f.message.contains("did you mean `greet`?")));
    }
}
