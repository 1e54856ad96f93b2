//! Scope rules: what each contribution needs, declared once; repeated, missing, unused and unjustified
//! scopes.

use serde_json::Value;

use super::Ctxt;
use crate::catalogue::{self, Contribution};
use crate::diagnostic::Rule;

/// A scope that a part of the manifest needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScopeNeed {
    pub scope: &'static str,
    /// Where the need comes from: a contribution kind's container, or one webhook's `as`.
    pub pointer: String,
    /// What needs it, capitalized for the start of a message: "Pages", "The settings panel".
    pub what: String,
}

/// Every scope the manifest's contributions need, in document order (the interface's cross-field
/// rules and field tables).
/// Actions' own `scope` members and subscribed events are handled by their own rules.
pub(crate) fn scope_needs(cx: &Ctxt<'_>) -> Vec<ScopeNeed> {
    let mut needs = Vec::new();
    // The scopes themselves come from the interface's one table (`Contribution::scopes`), which the
    // runtime also reads.
    let mut need = |contribution: Contribution, pointer: &str, what: &str| {
        for scope in contribution.scopes() {
            needs.push(ScopeNeed {
                scope,
                pointer: pointer.to_owned(),
                what: what.to_owned(),
            });
        }
    };
    for (kind, contribution, what) in [
        ("pages", Contribution::Pages, "Pages"),
        ("tabs", Contribution::Tabs, "Tabs"),
        ("widgets", Contribution::Widgets, "Widgets"),
        ("rowActions", Contribution::RowActions, "Row actions"),
        ("markers", Contribution::Markers, "Markers"),
    ] {
        let pointer = format!("/contributes/{kind}");
        if cx.has_items(&pointer) {
            need(contribution, &pointer, what);
        }
    }
    if cx
        .get("/contributes/settings")
        .is_some_and(Value::is_object)
    {
        need(
            Contribution::SettingsPanel,
            "/contributes/settings",
            "The settings panel",
        );
    }
    if cx
        .get("/contributes/storage")
        .and_then(Value::as_object)
        .is_some_and(|m| !m.is_empty())
    {
        need(
            Contribution::Storage,
            "/contributes/storage",
            "storage collections",
        );
    }
    if cx.has_items("/contributes/connector/metrics") {
        need(
            Contribution::ConnectorMetrics,
            "/contributes/connector/metrics",
            "connector metrics",
        );
    }
    for (i, hook) in cx.items("/contributes/webhooks") {
        if let Some(kind @ ("alert" | "banner")) = hook.get("as").and_then(Value::as_str) {
            need(
                Contribution::AlertOrBannerWebhook,
                &format!("/contributes/webhooks/{i}/as"),
                &format!("an {kind} webhook"),
            );
        }
    }
    for (kind, contribution, what) in [
        ("tools", Contribution::Tools, "Assistant tools"),
        ("mentions", Contribution::Mentions, "Mentions"),
        ("actions", Contribution::Actions, "Assistant actions"),
        ("skills", Contribution::Skills, "Skills"),
        ("prompts", Contribution::Prompts, "Prompts"),
        (
            "context",
            Contribution::ContextProviders,
            "Context providers",
        ),
    ] {
        let pointer = format!("/contributes/ai/{kind}");
        if cx.has_items(&pointer) {
            need(contribution, &pointer, what);
        }
    }
    if cx.get("/contributes/work").is_some_and(Value::is_object) {
        need(
            Contribution::WorkItems,
            "/contributes/work",
            "The work destination",
        );
        need(
            Contribution::WorkComments,
            "/contributes/work",
            "The work destination",
        );
    }
    needs
}

/// A contribution needs a scope that `scopes` does not declare.
pub(crate) fn check_contribution_scopes(cx: &mut Ctxt<'_>) {
    let declared = cx.declared_scopes();
    for need in scope_needs(cx) {
        if !declared.contains(&need.scope) {
            cx.error(
                Rule::ScopeMissing,
                need.pointer,
                format!(
                    "{} {} the scope `{}`, which `scopes` does not declare; add {{ \"key\": \"{}\" }} to `scopes`",
                    need.what,
                    if need.what.starts_with("The ") { "needs" } else { "need" },
                    need.scope,
                    need.scope
                ),
            );
        }
    }
}

/// An action's own `scope` must also be declared under `scopes`.
pub(crate) fn check_action_scopes(cx: &mut Ctxt<'_>) {
    let declared = cx.declared_scopes();
    for (i, action) in cx.items("/contributes/ai/actions") {
        let Some(scope) = action.get("scope").and_then(Value::as_str) else {
            continue;
        };
        if catalogue::scope(scope).is_some() && !declared.contains(&scope) {
            let id = action.get("id").and_then(Value::as_str).unwrap_or("?");
            cx.error(
                Rule::ActionScope,
                format!("/contributes/ai/actions/{i}/scope"),
                format!("action `{id}` needs the scope `{scope}`, which `scopes` does not declare; add {{ \"key\": \"{scope}\" }} to `scopes`"),
            );
        }
    }
}

/// Scope keys may not repeat.
pub(crate) fn check_duplicate_scopes(cx: &mut Ctxt<'_>) {
    let mut seen: Vec<&str> = Vec::new();
    for (i, entry) in cx.items("/scopes") {
        let Some(key) = entry.get("key").and_then(Value::as_str) else {
            continue;
        };
        if seen.contains(&key) {
            cx.error(
                Rule::DuplicateScope,
                format!("/scopes/{i}/key"),
                format!("the scope `{key}` is declared twice; remove this entry"),
            );
        } else {
            seen.push(key);
        }
    }
}

/// Warning: a declared scope that no contribution, action or subscribed event uses.
pub(crate) fn check_unused_scopes(cx: &mut Ctxt<'_>) {
    let mut used: Vec<&str> = scope_needs(cx).into_iter().map(|n| n.scope).collect();
    used.extend(cx.strings_of("/contributes/ai/actions", "scope"));
    for (_, name) in cx.items("/server/events") {
        if let Some(scope) = name
            .as_str()
            .and_then(catalogue::event)
            .and_then(|e| e.scope)
        {
            used.push(scope);
        }
    }
    for (i, entry) in cx.items("/scopes") {
        let Some(key) = entry.get("key").and_then(Value::as_str) else {
            continue;
        };
        if catalogue::scope(key).is_some() && !used.contains(&key) {
            cx.warning(
                Rule::UnusedScope,
                format!("/scopes/{i}"),
                format!("the scope `{key}` is declared but nothing in the manifest uses it; owners are asked to grant it anyway, so remove it unless you need it"),
            );
        }
    }
}

/// Warning: a scope that writes or acts, declared without a `justification`.
pub(crate) fn check_scope_justifications(cx: &mut Ctxt<'_>) {
    for (i, entry) in cx.items("/scopes") {
        let Some(key) = entry.get("key").and_then(Value::as_str) else {
            continue;
        };
        if catalogue::scope(key).is_some_and(|s| s.writes) && entry.get("justification").is_none() {
            cx.warning(
                Rule::ScopeJustification,
                format!("/scopes/{i}"),
                format!("the scope `{key}` writes or acts on the owner's behalf; add a `justification` (20 to 500 characters) for the consent screen"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    #[test]
    fn contribution_scopes_pass_on_the_base() {
        assert!(run_rule(&base(), check_contribution_scopes).is_empty());
    }

    #[test]
    fn widgets_without_ui_render_fail() {
        let mut doc = base();
        set(
            &mut doc,
            "/scopes/0",
            json!({ "key": "ai:actions", "justification": "Pauses campaigns when asked to." }),
        );
        let found = run_rule(&doc, check_contribution_scopes);
        assert!(
            found.contains(&(Rule::ScopeMissing, "/contributes/widgets".into())),
            "{found:?}"
        );
        assert!(
            found.contains(&(Rule::ScopeMissing, "/contributes/markers".into())),
            "{found:?}"
        );
    }

    #[test]
    fn a_banner_webhook_without_alerts_write_fails_at_its_as() {
        let mut doc = base();
        set(&mut doc, "/scopes/2", json!({ "key": "projects:read" }));
        let found = run_rule(&doc, check_contribution_scopes);
        assert!(
            found.contains(&(Rule::ScopeMissing, "/contributes/webhooks/0/as".into())),
            "{found:?}"
        );
    }

    #[test]
    fn work_needs_both_work_scopes() {
        let mut doc = base();
        set(&mut doc, "/contributes/work", json!({}));
        set(
            &mut doc,
            "/scopes/4",
            json!({ "key": "work:create", "justification": "Creates issues in your tracker." }),
        );
        let found = run_rule(&doc, check_contribution_scopes);
        assert_eq!(
            found,
            vec![(Rule::ScopeMissing, "/contributes/work".into())]
        );
    }

    #[test]
    fn action_scope_must_be_declared() {
        let mut doc = base();
        let action = json!({ "id": "pause", "description": "Pause a campaign.", "input": {}, "approval": true, "reversible": true, "scope": "revenue:read" });
        set(&mut doc, "/contributes/ai/actions", json!([action]));
        assert_eq!(
            run_rule(&doc, check_action_scopes),
            vec![(Rule::ActionScope, "/contributes/ai/actions/0/scope".into())]
        );
        set(&mut doc, "/scopes/4", json!({ "key": "revenue:read" }));
        assert!(run_rule(&doc, check_action_scopes).is_empty());
    }

    #[test]
    fn duplicate_scopes_fail_at_the_second() {
        assert!(run_rule(&base(), check_duplicate_scopes).is_empty());
        let mut doc = base();
        set(&mut doc, "/scopes/4", json!({ "key": "ai:tools" }));
        assert_eq!(
            run_rule(&doc, check_duplicate_scopes),
            vec![(Rule::DuplicateScope, "/scopes/4/key".into())]
        );
    }

    #[test]
    fn unused_scopes_warn() {
        assert!(run_rule(&base(), check_unused_scopes).is_empty());
        let mut doc = base();
        set(&mut doc, "/scopes/4", json!({ "key": "revenue:read" }));
        assert_eq!(
            run_rule(&doc, check_unused_scopes),
            vec![(Rule::UnusedScope, "/scopes/4".into())]
        );
    }

    #[test]
    fn an_event_scope_counts_as_used() {
        let mut doc = base();
        set(&mut doc, "/server/events", json!([]));
        assert_eq!(
            run_rule(&doc, check_unused_scopes),
            vec![(Rule::UnusedScope, "/scopes/3".into())]
        );
    }

    #[test]
    fn write_scopes_without_justification_warn() {
        assert!(run_rule(&base(), check_scope_justifications).is_empty());
        let mut doc = base();
        set(&mut doc, "/scopes/2", json!({ "key": "alerts:write" }));
        assert_eq!(
            run_rule(&doc, check_scope_justifications),
            vec![(Rule::ScopeJustification, "/scopes/2".into())]
        );
    }
}
