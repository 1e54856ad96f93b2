//! What a manifest change means for the installs of the published version.
//!
//! [`diff`] compares two valid manifests and classifies every change:
//!
//! - [`Class::Breaking`]: installs of the old version stop working as they did: a removed tool,
//!   action, procedure, mention, context provider, webhook, metric or subscribed event; an input
//!   that accepts less than before (a new required property, a narrower type, tighter bounds, a
//!   removed enum value, a new pattern); a changed `installScope` or `id`.
//! - [`Class::Risky`]: installs keep working but someone must act or may be surprised: a new scope
//!   (owners approve the update before it reaches their installs), an output or event payload that
//!   may now carry what its consumers did not expect, a schema change this comparison cannot
//!   reason about, any other change to how the host calls the server.
//! - [`Class::Safe`]: additions and text: a new tool, an optional input property, a looser input,
//!   a new description.
//!
//! Each embedded schema's change is classified by the JSON Schema compatibility checker beside this
//! module (`schema_compat`), according to who reads the schema. A schema is an **input** when
//! installed callers send values to it (tool, action and procedure inputs) or when stored values
//! must still fit it (settings and storage schemas): accepting less breaks them. It is an
//! **output** when consumers read what it describes (procedure outputs, webhook payloads):
//! allowing more may surprise them.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::schema_compat::{Effect, compare, short};

/// How a change affects the installs of the old version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Installs of the old version break.
    Breaking,
    /// Installs keep working, but someone must act or may be surprised.
    Risky,
    /// Nothing changes for installs.
    Safe,
}

impl Class {
    /// `breaking`, `risky` or `safe`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Risky => "risky",
            Class::Safe => "safe",
        }
    }
}

/// Which manifest a pointer points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The old manifest (for something removed).
    Old,
    /// The new manifest.
    New,
}

impl Side {
    /// `old` or `new`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Old => "old",
            Side::New => "new",
        }
    }
}

/// One classified change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// How it affects installs.
    pub class: Class,
    /// A JSON pointer to the changed member, in the manifest `side` names.
    pub pointer: String,
    /// The manifest the pointer points into.
    pub side: Side,
    /// One sentence: what changed and what it means for installed users.
    pub message: String,
}

/// Every change from `old` to `new`, breaking ones first, then by pointer. Both are manifest
/// JSON documents; they are expected to be valid (the comparison reads members by their
/// documented names and skips what is missing or of another type).
pub fn diff(old: &Value, new: &Value) -> Vec<Change> {
    let mut d = Diff::default();
    d.top(old, new);
    d.rest(old, new, "");
    let mut changes = d.changes;
    changes.sort_by(|a, b| (a.class, &a.pointer).cmp(&(b.class, &b.pointer)));
    changes
}

/// Whether a schema is read from callers or stored data (`Input`) or read by consumers (`Output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Accepting less breaks; the text says who.
    Input(&'static str),
    /// Allowing more may surprise; the text says who.
    Output(&'static str),
}

const TOOL_INPUT: Role =
    Role::Input("calls the assistant makes as before may be refused with 422 INPUT_INVALID");
const PROCEDURE_INPUT: Role =
    Role::Input("calls the extension's pages make as before may be refused with 422 INPUT_INVALID");
const PROCEDURE_OUTPUT: Role =
    Role::Output("the pages that read it may get values they do not expect");
const PAYLOAD: Role =
    Role::Output("automations and surfaces that read the event may get values they do not expect");
const SETTINGS: Role = Role::Input("settings owners saved before may no longer fit");
const STORAGE: Role = Role::Input("documents installs stored before may no longer fit");

#[derive(Default)]
struct Diff {
    changes: Vec<Change>,
    /// Pointers (in either manifest) already explained: the generic pass skips what is under them.
    covered: BTreeSet<String>,
}

/// `a/b` -> `/a/b` segment escaping.
fn seg(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn at<'v>(v: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        Some(v)
    } else {
        v.pointer(pointer)
    }
}

/// The members of an array of objects keyed by `key`: (key, index, value).
fn keyed<'v>(v: Option<&'v Value>, key: &str) -> Vec<(String, usize, &'v Value)> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, item)| {
            let k = match item.get(key)? {
                Value::String(s) => s.clone(),
                _ => return None,
            };
            Some((k, i, item))
        })
        .collect()
}

/// The members of a list at `base`: for an array of objects, each keyed by its `key` member and
/// pointed to by index; for an object (`key` is `None`), each keyed by its name.
fn members<'v>(
    v: Option<&'v Value>,
    base: &str,
    key: Option<&str>,
) -> Vec<(String, String, &'v Value)> {
    match (v, key) {
        (Some(Value::Object(map)), None) => map
            .iter()
            .map(|(name, item)| (name.clone(), format!("{base}/{}", seg(name)), item))
            .collect(),
        (v, Some(key)) => keyed(v, key)
            .into_iter()
            .map(|(id, i, item)| (id, format!("{base}/{i}"), item))
            .collect(),
        _ => Vec::new(),
    }
}

/// One item in both manifests, matched by its key.
struct Pair<'v> {
    /// Its key (id, name, event).
    id: String,
    /// Where it is in the new manifest.
    pointer: String,
    old: &'v Value,
    new: &'v Value,
}

/// The strings of an array.
fn strings(v: Option<&Value>) -> Vec<(String, usize)> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, s)| s.as_str().map(|s| (s.to_owned(), i)))
        .collect()
}

impl Diff {
    fn push(&mut self, class: Class, side: Side, pointer: String, message: String) {
        self.covered.insert(pointer.clone());
        self.changes.push(Change {
            class,
            pointer,
            side,
            message,
        });
    }

    /// Matches the items of the list at `base` by `key` (`None`: an object's names). A removed item
    /// is reported with `removed` ("{what} `id` is removed: {gone}"), an added one as safe; the
    /// list is then covered, and the items in both come back for their own comparison.
    #[allow(clippy::too_many_arguments)]
    fn pairs<'v>(
        &mut self,
        old: &'v Value,
        new: &'v Value,
        base: &str,
        key: Option<&str>,
        what: &str,
        removed: Class,
        gone: &str,
    ) -> Vec<Pair<'v>> {
        let was = members(at(old, base), base, key);
        let now = members(at(new, base), base, key);
        let mut both = Vec::new();
        for (id, pointer, a) in &was {
            match now.iter().find(|(k, _, _)| k == id) {
                Some((_, p, b)) => both.push(Pair {
                    id: id.clone(),
                    pointer: p.clone(),
                    old: a,
                    new: b,
                }),
                None => self.push(
                    removed,
                    Side::Old,
                    pointer.clone(),
                    format!("{what} `{id}` is removed: {gone}"),
                ),
            }
        }
        for (id, pointer, _) in &now {
            if !was.iter().any(|(k, _, _)| k == id) {
                self.push(
                    Class::Safe,
                    Side::New,
                    pointer.clone(),
                    format!("new {what} `{id}`"),
                );
            }
        }
        // The generic pass compares by position; items that moved are matched by key here.
        self.cover(base);
        both
    }

    /// Marks a pointer as explained without reporting a change.
    fn cover(&mut self, pointer: &str) {
        self.covered.insert(pointer.to_owned());
    }

    fn top(&mut self, old: &Value, new: &Value) {
        if let (Some(a), Some(b)) = (old.get("id"), new.get("id"))
            && a != b
        {
            self.push(
                Class::Breaking,
                Side::New,
                "/id".into(),
                format!(
                    "the id changes from {a} to {b}: this is a different extension, and installs of {a} do not move to it"
                ),
            );
        }
        if let (Some(a), Some(b)) = (old.get("installScope"), new.get("installScope"))
            && a != b
        {
            self.push(
                Class::Breaking,
                Side::New,
                "/installScope".into(),
                format!(
                    "`installScope` changes from {a} to {b}: existing installs were made per {} and cannot become per {}",
                    a.as_str().unwrap_or("?"),
                    b.as_str().unwrap_or("?")
                ),
            );
        }
        self.scopes(old, new);
        self.server(old, new);
        self.ai(old, new);
        self.webhooks(old, new);
        self.connector(old, new);
        self.work(old, new);
        self.stored(old, new);
        for list in [
            "pages",
            "tabs",
            "widgets",
            "series",
            "banners",
            "rowActions",
            "markers",
        ] {
            self.surfaces(old, new, list);
        }
    }

    fn scopes(&mut self, old: &Value, new: &Value) {
        let was = keyed(old.get("scopes"), "key");
        let now = keyed(new.get("scopes"), "key");
        for (key, i, _) in &now {
            if !was.iter().any(|(k, _, _)| k == key) {
                self.push(
                    Class::Risky,
                    Side::New,
                    format!("/scopes/{i}"),
                    format!(
                        "new scope `{key}`: owners must approve the update before it reaches their installs, and installs keep the old version until they do"
                    ),
                );
            }
        }
        for (key, i, _) in &was {
            if !now.iter().any(|(k, _, _)| k == key) {
                self.push(
                    Class::Safe,
                    Side::Old,
                    format!("/scopes/{i}"),
                    format!("scope `{key}` is no longer asked for"),
                );
            }
        }
        // Reordering the list is not a change.
        self.cover("/scopes");
    }

    fn server(&mut self, old: &Value, new: &Value) {
        for url in ["baseUrl", "sandboxBaseUrl"] {
            let p = format!("/server/{url}");
            if let (Some(a), Some(b)) = (at(old, &p), at(new, &p))
                && a != b
            {
                self.push(
                    Class::Risky,
                    Side::New,
                    p,
                    format!(
                        "`{url}` changes from {a} to {b}: every install's calls go to the new address once the update is live; keep the old one serving until then"
                    ),
                );
            }
        }
        let was = strings(at(old, "/server/events"));
        let now = strings(at(new, "/server/events"));
        for (name, i) in &was {
            if !now.iter().any(|(n, _)| n == name) {
                self.push(
                    Class::Breaking,
                    Side::Old,
                    format!("/server/events/{i}"),
                    format!(
                        "the server no longer subscribes to `{name}`: installs stop receiving it, and what it kept up to date goes stale"
                    ),
                );
            }
        }
        for (name, i) in &now {
            if !was.iter().any(|(n, _)| n == name) {
                self.push(
                    Class::Safe,
                    Side::New,
                    format!("/server/events/{i}"),
                    format!("the server now subscribes to `{name}`"),
                );
            }
        }
        self.cover("/server/events");
        let procedures = self.pairs(
            old,
            new,
            "/server/procedures",
            None,
            "procedure",
            Class::Breaking,
            "the extension's pages that call it get 404 NOT_FOUND until they are updated too",
        );
        for pair in procedures {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let what = format!("procedure `{}`", pair.id);
            self.schema_at(a, b, p, "input", PROCEDURE_INPUT, &what);
            self.schema_at(a, b, p, "output", PROCEDURE_OUTPUT, &what);
            if let (Some(x), Some(y)) = (a.get("kind"), b.get("kind"))
                && x != y
            {
                self.push(
                    Class::Risky,
                    Side::New,
                    format!("{p}/kind"),
                    format!("{what} changes `kind` from {x} to {y}"),
                );
            }
            self.rest_of(a, b, p, &what, &["input", "output", "kind"]);
        }
    }

    fn ai(&mut self, old: &Value, new: &Value) {
        for (list, what, gone) in [
            (
                "tools",
                "tool",
                "assistants that call it get 404 NOT_FOUND, and saved prompts or skills naming it stop working",
            ),
            (
                "actions",
                "action",
                "runs waiting for approval can no longer be carried out",
            ),
            (
                "mentions",
                "mention",
                "`@` pickers that offered it are gone from the assistant",
            ),
            (
                "context",
                "context provider",
                "the assistant stops getting its context block",
            ),
        ] {
            let base = format!("/contributes/ai/{list}");
            for pair in self.pairs(old, new, &base, Some("id"), what, Class::Breaking, gone) {
                let (a, b, p) = (pair.old, pair.new, &pair.pointer);
                let name = format!("{what} `{}`", pair.id);
                self.schema_at(a, b, p, "input", TOOL_INPUT, &name);
                if let (Some(x), Some(y)) = (a.get("returns"), b.get("returns"))
                    && x != y
                {
                    self.push(
                        Class::Breaking,
                        Side::New,
                        format!("{p}/returns"),
                        format!(
                            "{name} now returns {y} cards instead of {x}: surfaces and saved answers that show its {x} cards break"
                        ),
                    );
                }
                if let (Some(x), Some(y)) = (a.get("scope"), b.get("scope"))
                    && x != y
                {
                    self.push(
                        Class::Risky,
                        Side::New,
                        format!("{p}/scope"),
                        format!(
                            "{name} now needs the scope {y} instead of {x}: installs without it get 403 SCOPE_MISSING"
                        ),
                    );
                }
                self.rest_of(a, b, p, &name, &["input", "returns", "scope", "id"]);
            }
        }
    }

    fn webhooks(&mut self, old: &Value, new: &Value) {
        let gone = "the host refuses it from then on, and the banners, markers and automations that follow it go quiet";
        let webhooks = self.pairs(
            old,
            new,
            "/contributes/webhooks",
            Some("event"),
            "webhook",
            Class::Breaking,
            gone,
        );
        for pair in webhooks {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let name = format!("webhook `{}`", pair.id);
            if let (Some(x), Some(y)) = (a.get("as"), b.get("as"))
                && x != y
            {
                self.push(
                    Class::Breaking,
                    Side::New,
                    format!("{p}/as"),
                    format!(
                        "{name} changes `as` from {x} to {y}: the host shows it differently, and what was built on the old kind stops matching"
                    ),
                );
            }
            self.schema_at(a, b, p, "payload", PAYLOAD, &name);
            self.rest_of(a, b, p, &name, &["event", "as", "payload"]);
        }
    }

    fn connector(&mut self, old: &Value, new: &Value) {
        let metrics = self.pairs(
            old,
            new,
            "/contributes/connector/metrics",
            Some("key"),
            "metric",
            Class::Breaking,
            "the series, widgets and dashboards that chart it stop getting data",
        );
        for pair in metrics {
            let (a, b, p, key) = (pair.old, pair.new, &pair.pointer, &pair.id);
            let dims_a = keyed(a.get("dimensions"), "key");
            let dims_b = keyed(b.get("dimensions"), "key");
            for (dim, k, _) in &dims_a {
                if !dims_b.iter().any(|(d, _, _)| d == dim) {
                    self.push(
                        Class::Breaking,
                        Side::Old,
                        format!("{p}/dimensions/{k}"),
                        format!(
                            "metric `{key}` loses the dimension `{dim}`: charts broken down by it stop getting data"
                        ),
                    );
                }
            }
            for (dim, k, _) in &dims_b {
                if !dims_a.iter().any(|(d, _, _)| d == dim) {
                    self.push(
                        Class::Safe,
                        Side::New,
                        format!("{p}/dimensions/{k}"),
                        format!("metric `{key}` gains the dimension `{dim}`"),
                    );
                }
            }
            self.cover(&format!("{p}/dimensions"));
            self.rest_of(
                a,
                b,
                p,
                &format!("metric `{key}`"),
                &["key", "dimensions", "unit", "kind"],
            );
            for member in ["unit", "kind"] {
                if let (Some(x), Some(y)) = (a.get(member), b.get(member))
                    && x != y
                {
                    self.push(
                        Class::Risky,
                        Side::New,
                        format!("{p}/{member}"),
                        format!(
                            "metric `{key}` changes `{member}` from {x} to {y}: the points already stored keep the old meaning"
                        ),
                    );
                }
            }
        }

        let auth = "/contributes/connector/auth";
        if let (Some(x), Some(y)) = (
            at(old, &format!("{auth}/method")),
            at(new, &format!("{auth}/method")),
        ) && x != y
        {
            self.push(
                Class::Breaking,
                Side::New,
                format!("{auth}/method"),
                format!(
                    "the connector's auth method changes from {x} to {y}: every install must connect again"
                ),
            );
        }
        let fields = format!("{auth}/fields");
        let was = keyed(at(old, &fields), "name");
        let now = keyed(at(new, &fields), "name");
        for (name, j, b) in &now {
            let required = b.get("required") == Some(&Value::Bool(true));
            let before = was.iter().find(|(n, _, _)| n == name);
            let was_required =
                before.is_some_and(|(_, _, a)| a.get("required") == Some(&Value::Bool(true)));
            let p = format!("{fields}/{j}");
            match before {
                None if required => self.push(
                    Class::Breaking,
                    Side::New,
                    p,
                    format!(
                        "new required auth field `{name}`: installs connected before have no value for it until the owner fills it in"
                    ),
                ),
                None => self.push(
                    Class::Safe,
                    Side::New,
                    p,
                    format!("new optional auth field `{name}`"),
                ),
                Some(_) if required && !was_required => self.push(
                    Class::Breaking,
                    Side::New,
                    format!("{p}/required"),
                    format!(
                        "auth field `{name}` becomes required: installs that left it empty have no value for it"
                    ),
                ),
                Some((_, i, a)) => {
                    self.cover(&format!("{fields}/{i}"));
                    self.cover(&p);
                    self.rest_of(a, b, &p, &format!("auth field `{name}`"), &["name"]);
                }
            }
        }
        for (name, i, _) in &was {
            if !now.iter().any(|(n, _, _)| n == name) {
                self.push(
                    Class::Safe,
                    Side::Old,
                    format!("{fields}/{i}"),
                    format!("auth field `{name}` is no longer asked for"),
                );
            }
        }
        self.cover(&fields);
        let connector = "/contributes/connector";
        if let (Some(a), Some(b)) = (at(old, connector), at(new, connector)) {
            let what = "the connector";
            self.rest_of(a, b, connector, what, &["metrics", "auth"]);
            if let (Some(x), Some(y)) = (a.get("auth"), b.get("auth")) {
                self.rest_of(x, y, auth, what, &["method", "fields"]);
            }
        }
        self.cover(connector);
    }

    fn work(&mut self, old: &Value, new: &Value) {
        let base = "/contributes/work";
        match (at(old, base), at(new, base)) {
            (Some(_), None) => self.push(
                Class::Breaking,
                Side::Old,
                base.into(),
                "the work destination is removed: owners can no longer create items from the host, and synced items stop syncing".into(),
            ),
            (None, Some(_)) => {
                self.push(
                    Class::Safe,
                    Side::New,
                    base.into(),
                    "new work destination".into(),
                );
            }
            (Some(a), Some(b)) => {
                let was = strings(a.get("creates"));
                let now = strings(b.get("creates"));
                for (kind, i) in &was {
                    if !now.iter().any(|(k, _)| k == kind) {
                        self.push(
                            Class::Breaking,
                            Side::Old,
                            format!("{base}/creates/{i}"),
                            format!(
                                "the work destination no longer creates `{kind}` items: the host's `{kind}` requests get 422"
                            ),
                        );
                    }
                }
                for (kind, i) in &now {
                    if !was.iter().any(|(k, _)| k == kind) {
                        self.push(
                            Class::Safe,
                            Side::New,
                            format!("{base}/creates/{i}"),
                            format!("the work destination now creates `{kind}` items"),
                        );
                    }
                }
                self.cover(&format!("{base}/creates"));
                if a.get("comments") != b.get("comments")
                    && a.get("comments") == Some(&Value::from("two-way"))
                {
                    self.push(
                        Class::Breaking,
                        Side::New,
                        format!("{base}/comments"),
                        "comments stop syncing both ways: comments made in the host no longer reach the items".into(),
                    );
                }
                let required = format!("{base}/fields/required");
                let was = strings(at(old, &required));
                for (field, i) in strings(at(new, &required)) {
                    if !was.iter().any(|(f, _)| *f == field) {
                        self.push(
                            Class::Breaking,
                            Side::New,
                            format!("{required}/{i}"),
                            format!(
                                "`{field}` becomes a required field of new items: owners' saved item templates without it are refused"
                            ),
                        );
                    }
                }
                self.cover(&required);
                let what = "the work destination";
                self.rest_of(a, b, base, what, &["creates", "comments", "fields"]);
                if let (Some(x), Some(y)) = (a.get("fields"), b.get("fields")) {
                    self.rest_of(x, y, &format!("{base}/fields"), what, &["required"]);
                }
                if a.get("comments") != b.get("comments") {
                    self.cover(&format!("{base}/comments"));
                    if a.get("comments") != Some(&Value::from("two-way")) {
                        self.push(
                            Class::Safe,
                            Side::New,
                            format!("{base}/comments"),
                            "comments now sync both ways".into(),
                        );
                    }
                }
                self.cover(base);
            }
            (None, None) => {}
        }
    }

    /// Settings and storage: values installs already stored must still fit.
    fn stored(&mut self, old: &Value, new: &Value) {
        let p = "/contributes/settings";
        if let (Some(a), Some(b)) = (at(old, p), at(new, p)) {
            self.schema_at(a, b, p, "schema", SETTINGS, "the settings");
        }
        let collections = self.pairs(
            old,
            new,
            "/contributes/storage",
            None,
            "storage collection",
            Class::Breaking,
            "the documents installs keep in it are no longer reachable",
        );
        for pair in collections {
            let what = format!("storage collection `{}`", pair.id);
            self.schema_at(pair.old, pair.new, &pair.pointer, "schema", STORAGE, &what);
            self.rest_of(pair.old, pair.new, &pair.pointer, &what, &["schema"]);
        }
    }

    /// Pages, tabs, widgets and the other UI surfaces, matched by id.
    fn surfaces(&mut self, old: &Value, new: &Value, list: &str) {
        let what = match list {
            "rowActions" => "row action".to_owned(),
            "series" => "series".to_owned(),
            other => other.trim_end_matches('s').to_owned(),
        };
        let base = format!("/contributes/{list}");
        let gone = "owners who use it no longer find it";
        for pair in self.pairs(old, new, &base, Some("id"), &what, Class::Risky, gone) {
            let name = format!("{what} `{}`", pair.id);
            self.rest_of(pair.old, pair.new, &pair.pointer, &name, &["id"]);
        }
    }

    /// Compares the schemas at `member` of two items at `pointer` (in the new manifest).
    fn schema_at(
        &mut self,
        a: &Value,
        b: &Value,
        pointer: &str,
        member: &str,
        role: Role,
        what: &str,
    ) {
        let p = format!("{pointer}/{member}");
        self.cover(&p);
        let (Some(x), Some(y)) = (a.get(member), b.get(member)) else {
            return;
        };
        let mut deltas = Vec::new();
        compare(x, y, "", &mut deltas);
        for delta in deltas {
            let class = match (role, delta.effect) {
                (_, Effect::Unknown) => Class::Risky,
                (_, Effect::Text) => Class::Safe,
                (Role::Input(_), Effect::Narrows | Effect::Both) => Class::Breaking,
                (Role::Input(_), Effect::Widens) => Class::Safe,
                (Role::Output(_), Effect::Widens | Effect::Both) => Class::Risky,
                (Role::Output(_), Effect::Narrows) => Class::Safe,
            };
            let consequence = match (role, class) {
                (_, Class::Safe) => "",
                (_, Class::Risky) if delta.effect == Effect::Unknown => {
                    "this comparison cannot tell what it accepts now; check it by hand"
                }
                (Role::Input(who) | Role::Output(who), _) => who,
            };
            let at = if delta.at.is_empty() {
                String::new()
            } else {
                format!(" at `{}`", delta.at)
            };
            self.push(
                class,
                Side::New,
                format!("{p}{}", delta.pointer),
                if consequence.is_empty() {
                    format!("{what} {member}{at}: {}", delta.sentence)
                } else {
                    format!("{what} {member}{at}: {}; {consequence}", delta.sentence)
                },
            );
        }
    }

    /// Other members of two matched items, compared generically.
    fn rest_of(&mut self, a: &Value, b: &Value, pointer: &str, what: &str, skip: &[&str]) {
        let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
            return;
        };
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for key in keys.into_iter().filter(|k| !skip.contains(&k.as_str())) {
            let p = format!("{pointer}/{}", seg(key));
            match (a.get(key), b.get(key)) {
                (Some(x), Some(y)) if x == y => {}
                (x, y) => {
                    let class = if is_text(key) {
                        Class::Safe
                    } else {
                        Class::Risky
                    };
                    let message = match (x, y) {
                        (Some(x), Some(y)) => {
                            format!("{what} changes `{key}` from {} to {}", short(x), short(y))
                        }
                        (None, Some(y)) => format!("{what} gains `{key}`: {}", short(y)),
                        (Some(x), None) => format!("{what} drops `{key}` (was {})", short(x)),
                        (None, None) => continue,
                    };
                    self.push(
                        class,
                        if y.is_some() { Side::New } else { Side::Old },
                        p,
                        message,
                    );
                }
            }
        }
    }

    fn is_covered(&self, pointer: &str) -> bool {
        self.covered
            .iter()
            .any(|c| pointer == c || pointer.starts_with(&format!("{c}/")))
    }

    /// Everything not explained above, member by member.
    fn rest(&mut self, old: &Value, new: &Value, pointer: &str) {
        if self.is_covered(pointer) || old == new {
            return;
        }
        match (old, new) {
            (Value::Object(a), Value::Object(b)) => {
                let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
                for key in keys {
                    let p = format!("{pointer}/{}", seg(key));
                    match (a.get(key), b.get(key)) {
                        (Some(x), Some(y)) => self.rest(x, y, &p),
                        (x, y) => {
                            if self.is_covered(&p) {
                                continue;
                            }
                            let class = if is_text(key) || pointer.starts_with("/listing") {
                                Class::Safe
                            } else {
                                Class::Risky
                            };
                            let message = match (x, y) {
                                (None, Some(y)) => format!("`{}` is added: {}", p, short(y)),
                                (Some(x), _) => format!("`{p}` is removed (was {})", short(x)),
                                (None, None) => continue,
                            };
                            self.push(
                                class,
                                if y.is_some() { Side::New } else { Side::Old },
                                p,
                                message,
                            );
                        }
                    }
                }
            }
            _ => {
                let key = pointer.rsplit('/').next().unwrap_or("");
                let class = if is_text(key) || pointer.starts_with("/listing") {
                    Class::Safe
                } else {
                    Class::Risky
                };
                self.push(
                    class,
                    Side::New,
                    pointer.to_owned(),
                    format!("`{pointer}` changes from {} to {}", short(old), short(new)),
                );
            }
        }
    }
}

/// Members whose change is only text owners read.
fn is_text(key: &str) -> bool {
    matches!(
        key,
        "description"
            | "name"
            | "label"
            | "title"
            | "help"
            | "icon"
            | "justification"
            | "placeholder"
            | "$schema"
            | "examples"
            | "glyph"
    )
}
