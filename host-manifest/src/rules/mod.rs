//! The cross-field rules (those the interface sets, and its "Errors" item 4): one small `check_*` function
//! per rule. A rule with a file of its own lives in the file named after it (`duplicate-id` in
//! `duplicate_id.rs`); the others share a file with the rules of their subject:
//!
//! | rules                                                                        | file            |
//! |------------------------------------------------------------------------------|-----------------|
//! | `unknown-event`, `event-scope-missing`, `reserved-event`                     | `events.rs`     |
//! | `file-missing`, `file-path`, `icon-format`, `screenshot-format`              | `files.rs`      |
//! | `rust-name`                                                                  | `rust_names.rs` |
//! | `input-schema-size`, `invalid-json-schema`, `key-pattern`                    | `schemas.rs`    |
//! | `scope-missing`, `action-scope`, `duplicate-scope`, `unused-scope`, `scope-justification` | `scopes.rs` |
//! | `sdk-range`                                                                  | `sdk.rs`        |
//! | `widget-slot`, `banner-webhook`, `marker-webhook`, `series-metric`, `organization-ui`, `ui-limit` | `ui.rs` |
//!
//! Rules read the raw JSON document, not the typed model, so that they can run even when the schema
//! pass has already found errors and every problem is reported at once. Each rule reads only values of
//! the expected JSON type and skips anything else: the schema pass has reported it.

use std::path::Path;

use serde_json::Value;

use crate::diagnostic::{Rule, Severity};
use crate::source::Target;

mod duplicate_id;
mod events;
pub(crate) mod files;
mod listing_incomplete;
mod prompt_placeholder;
mod rust_names;
pub(crate) mod schemas;
mod scopes;
mod sdk;
mod server_missing;
mod storage_reserved;
pub(crate) mod ui;
mod undeclared_tool;
mod webhook_why;
mod work_status_webhook;

/// One finding of a rule, before it is located in the text.
pub(crate) struct Finding {
    pub severity: Severity,
    pub rule: Rule,
    pub pointer: String,
    pub target: Target,
    pub message: String,
}

/// What every rule gets: the document, the manifest's folder, and somewhere to put findings.
pub(crate) struct Ctxt<'a> {
    pub root: &'a Value,
    /// The folder that file paths are relative to; `None` skips the file rules.
    pub base_dir: Option<&'a Path>,
    findings: Vec<Finding>,
}

impl<'a> Ctxt<'a> {
    pub(crate) fn new(root: &'a Value, base_dir: Option<&'a Path>) -> Self {
        Ctxt {
            root,
            base_dir,
            findings: Vec::new(),
        }
    }

    pub(crate) fn error(
        &mut self,
        rule: Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(
            Severity::Error,
            rule,
            pointer.into(),
            Target::Value,
            message.into(),
        );
    }

    /// An error about a member's name rather than its value (located at the name).
    pub(crate) fn error_at_key(
        &mut self,
        rule: Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(
            Severity::Error,
            rule,
            pointer.into(),
            Target::Key,
            message.into(),
        );
    }

    pub(crate) fn warning(
        &mut self,
        rule: Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(
            Severity::Warning,
            rule,
            pointer.into(),
            Target::Value,
            message.into(),
        );
    }

    fn push(
        &mut self,
        severity: Severity,
        rule: Rule,
        pointer: String,
        target: Target,
        message: String,
    ) {
        self.findings.push(Finding {
            severity,
            rule,
            pointer,
            target,
            message,
        });
    }

    /// The value at a JSON pointer, if present.
    pub(crate) fn get(&self, pointer: &str) -> Option<&'a Value> {
        self.root.pointer(pointer)
    }

    /// A string at a JSON pointer, if present and a string.
    pub(crate) fn str(&self, pointer: &str) -> Option<&'a str> {
        self.get(pointer).and_then(Value::as_str)
    }

    /// The elements of the array at `pointer` with their indices; nothing if it is not an array.
    pub(crate) fn items(
        &self,
        pointer: &str,
    ) -> impl Iterator<Item = (usize, &'a Value)> + use<'a> {
        self.get(pointer)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
    }

    /// The members of the object at `pointer`; nothing if it is not an object.
    pub(crate) fn members(
        &self,
        pointer: &str,
    ) -> impl Iterator<Item = (&'a String, &'a Value)> + use<'a> {
        self.get(pointer)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
    }

    /// Whether the array at `pointer` has at least one element.
    pub(crate) fn has_items(&self, pointer: &str) -> bool {
        self.get(pointer)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    }

    /// The string member `key` of each element of the array at `pointer`.
    pub(crate) fn strings_of(&self, pointer: &str, key: &str) -> Vec<&'a str> {
        self.items(pointer)
            .filter_map(|(_, v)| v.get(key).and_then(Value::as_str))
            .collect()
    }

    /// The declared scope keys, in order, skipping malformed entries.
    pub(crate) fn declared_scopes(&self) -> Vec<&'a str> {
        self.strings_of("/scopes", "key")
    }

    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }
}

/// Runs every cross-field rule, in a fixed order.
pub(crate) fn run(cx: &mut Ctxt<'_>) {
    // Errors.
    sdk::check_sdk_range(cx);
    events::check_unknown_events(cx);
    ui::check_widget_slots(cx);
    ui::check_banner_webhooks(cx);
    ui::check_marker_webhooks(cx);
    ui::check_series_metrics(cx);
    ui::check_organization_ui(cx);
    ui::check_ui_limit(cx);
    scopes::check_duplicate_scopes(cx);
    scopes::check_contribution_scopes(cx);
    scopes::check_action_scopes(cx);
    server_missing::check_server_present(cx);
    listing_incomplete::check_listing_complete(cx);
    storage_reserved::check_storage_reserved(cx);
    undeclared_tool::check_undeclared_tools(cx);
    prompt_placeholder::check_prompt_placeholders(cx);
    work_status_webhook::check_work_status_webhook(cx);
    duplicate_id::check_duplicate_ids(cx);
    rust_names::check_rust_names(cx);
    webhook_why::check_webhook_why(cx);
    schemas::check_input_schema_size(cx);
    schemas::check_embedded_schemas(cx);
    schemas::check_key_patterns(cx);
    files::check_files(cx);
    files::check_icon(cx);
    files::check_screenshots(cx);
    // Warnings.
    scopes::check_unused_scopes(cx);
    scopes::check_scope_justifications(cx);
    events::check_event_scopes(cx);
    events::check_reserved_events(cx);
}

#[cfg(test)]
pub(crate) mod test_support {
    //! A valid base manifest for rule tests, and helpers to run one rule on a variation of it.

    use super::*;
    use serde_json::json;

    /// A small valid manifest that exercises most sections, with no warning.
    pub(crate) fn base() -> Value {
        json!({
            "id": "rank-tracker",
            "name": "Rank Tracker",
            "description": "Tracks keyword ranks for your apps.",
            "icon": "icon.png",
            "category": "market_data",
            "sdk": "^2.0.0",
            "visibility": "unlisted",
            "installScope": "project",
            "scopes": [
                { "key": "ui:render" },
                { "key": "ai:tools" },
                { "key": "alerts:write", "justification": "Raises an alert when a tracked keyword drops." },
                { "key": "projects:read" }
            ],
            "contributes": {
                "widgets": [
                    { "id": "ranks", "title": "Ranks", "entry": "ui/ranks.tsx", "page": "overview", "slot": "kpi-row", "size": "1x1" }
                ],
                "banners": [ { "id": "drop", "page": "overview", "event": "rank.dropped" } ],
                "markers": [ { "id": "update", "label": "Algorithm update", "chart": "*", "event": "rank.update", "glyph": "A" } ],
                "webhooks": [
                    { "event": "rank.dropped", "as": "banner", "payload": { "type": "object", "required": ["why"], "properties": { "why": { "type": "string" } } } },
                    { "event": "rank.update", "as": "event", "payload": { "type": "object" } }
                ],
                "ai": {
                    "tools": [
                        { "id": "keyword-ranks", "description": "Ranks of tracked keywords.", "input": { "type": "object" }, "returns": "table", "cost": "low" }
                    ]
                }
            },
            "server": { "baseUrl": "https://ranks.example.com", "events": ["release.shipped"] }
        })
    }

    /// Runs one rule on `doc` (no file rules) and returns `(rule, pointer)` of each finding.
    pub(crate) fn run_rule(doc: &Value, rule: fn(&mut Ctxt<'_>)) -> Vec<(Rule, String)> {
        let mut cx = Ctxt::new(doc, None);
        rule(&mut cx);
        cx.into_findings()
            .into_iter()
            .map(|f| (f.rule, f.pointer))
            .collect()
    }

    /// Sets the value at `pointer` (whose parent must exist).
    pub(crate) fn set(doc: &mut Value, pointer: &str, value: Value) {
        let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
        match doc.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                map.insert(last.to_owned(), value);
            }
            Some(Value::Array(arr)) => match last.parse::<usize>() {
                Ok(i) if i < arr.len() => arr[i] = value,
                _ => arr.push(value),
            },
            _ => panic!("no parent at {parent}"),
        }
    }

    /// Removes the member at `pointer`.
    pub(crate) fn remove(doc: &mut Value, pointer: &str) {
        let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
        if let Some(Value::Object(map)) = doc.pointer_mut(parent) {
            map.remove(last);
        }
    }
}
