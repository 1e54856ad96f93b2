//! Rules that tie sections together: the vendor server, the listing, storage names, tool references,
//! the work status webhook, unique ids and the `why` of alerts and banners.

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;
use crate::schema::list;

/// `server` is required once the manifest declares a connector, webhooks, assistant contributions or a
/// work destination. (Procedures live under `server` itself, so they cannot lack one.)
pub(crate) fn check_server_present(cx: &mut Ctxt<'_>) {
    if cx.get("/server").is_some() {
        return;
    }
    let ai_used = cx
        .members("/contributes/ai")
        .any(|(_, v)| v.as_array().is_some_and(|a| !a.is_empty()));
    let needs = [
        (
            "/contributes/connector",
            "a connector",
            cx.get("/contributes/connector")
                .is_some_and(Value::is_object),
        ),
        (
            "/contributes/webhooks",
            "webhooks",
            cx.has_items("/contributes/webhooks"),
        ),
        ("/contributes/ai", "assistant contributions", ai_used),
        (
            "/contributes/work",
            "a work destination",
            cx.get("/contributes/work").is_some_and(Value::is_object),
        ),
    ];
    if let Some((pointer, what, _)) = needs.iter().find(|(_, _, present)| *present) {
        cx.error(
            Rule::ServerMissing,
            *pointer,
            format!("the manifest declares {what}, which the host serves through the vendor server, but has no `server`; add \"server\": {{ \"baseUrl\": \"https://...\" }}"),
        );
    }
}

/// A public extension needs all five listing fields.
pub(crate) fn check_listing_complete(cx: &mut Ctxt<'_>) {
    if cx.str("/visibility") != Some("public") {
        return;
    }
    const FIELDS: [&str; 5] = [
        "longDescription",
        "screenshots",
        "website",
        "supportUrl",
        "privacyUrl",
    ];
    let listing = cx.get("/listing").and_then(Value::as_object);
    let missing: Vec<&str> = FIELDS
        .iter()
        .copied()
        .filter(|f| listing.is_none_or(|l| !l.contains_key(*f)))
        .collect();
    for field in &missing {
        cx.error(
            Rule::ListingIncomplete,
            format!("/listing/{field}"),
            format!(
                "a public extension needs all five listing fields and `listing.{field}` is missing (missing: {}); add it, or use `\"visibility\": \"unlisted\"`",
                list(&missing)
            ),
        );
    }
}

/// `settings` is the reserved name of the settings panel's collection.
pub(crate) fn check_storage_reserved(cx: &mut Ctxt<'_>) {
    if cx.get("/contributes/storage/settings").is_some() {
        cx.error(
            Rule::StorageReserved,
            "/contributes/storage/settings",
            "the storage collection name `settings` is reserved for the settings panel's values (`contributes.settings.schema`); choose another name",
        );
    }
}

/// Skills' `tools` and prompts' `after` must name tools the extension declares.
pub(crate) fn check_undeclared_tools(cx: &mut Ctxt<'_>) {
    let tools = cx.strings_of("/contributes/ai/tools", "id");
    for (kind, member) in [("skills", "tools"), ("prompts", "after")] {
        let mut found = Vec::new();
        for (i, item) in cx.items(&format!("/contributes/ai/{kind}")) {
            for (j, name) in item
                .get(member)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let Some(name) = name.as_str() else { continue };
                if !tools.contains(&name) {
                    found.push((format!("/contributes/ai/{kind}/{i}/{member}/{j}"), name));
                }
            }
        }
        for (pointer, name) in found {
            let have = if tools.is_empty() {
                "the manifest declares no tools".to_owned()
            } else {
                format!("declared tools: {}", list(&tools))
            };
            cx.error(
                Rule::UndeclaredTool,
                pointer,
                format!("`{name}` is not a tool under `contributes.ai.tools`; {have}"),
            );
        }
    }
}

/// Prompt templates use placeholders of three forms only: `{{project.*}}`, `{{context.*}}` and
/// `{{input.*}}`, where an `input` field is one of the prompt's own `input` form (when that form lists
/// its `properties`). Anything else would reach the owner unresolved.
pub(crate) fn check_prompt_placeholders(cx: &mut Ctxt<'_>) {
    let mut found = Vec::new();
    for (i, prompt) in cx.items("/contributes/ai/prompts") {
        let Some(template) = prompt.get("template").and_then(Value::as_str) else {
            continue;
        };
        let input = prompt.get("input");
        let fields: Option<Vec<&str>> = input
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect());
        let mut problems = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find("{{") {
            let after = &rest[open + 2..];
            let Some(close) = after.find("}}") else {
                problems.push("a `{{` that is never closed with `}}`".to_owned());
                break;
            };
            let inside = after[..close].trim();
            rest = &after[close + 2..];
            let (root, path) = inside.split_once('.').unwrap_or((inside, ""));
            let well_formed = !path.is_empty()
                && path.split('.').all(|segment| {
                    segment.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                        && segment
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            let shown = crate::schema::clip(inside);
            match root {
                "project" | "context" | "input" if !well_formed => problems.push(format!(
                    "`{{{{{shown}}}}}` names no field after `{root}.`"
                )),
                "project" | "context" => {}
                "input" => {
                    let field = path.split('.').next().unwrap_or_default();
                    match (&fields, input) {
                        (_, None) => problems.push(format!(
                            "`{{{{{shown}}}}}` reads the prompt's input form, but the prompt declares no `input`"
                        )),
                        (Some(fields), _) if !fields.contains(&field) => {
                            let have = if fields.is_empty() {
                                "the form has no fields".to_owned()
                            } else {
                                format!("its fields: {}", list(fields))
                            };
                            problems.push(format!(
                                "`{{{{{shown}}}}}` is not a field of the prompt's `input` form; {have}"
                            ));
                        }
                        _ => {}
                    }
                }
                _ => problems.push(format!(
                    "`{{{{{shown}}}}}` is not a placeholder the host resolves; use `{{{{project.*}}}}`, `{{{{context.*}}}}` or `{{{{input.*}}}}`"
                )),
            }
        }
        if !problems.is_empty() {
            found.push((
                format!("/contributes/ai/prompts/{i}/template"),
                problems.join("; "),
            ));
        }
    }
    for (pointer, message) in found {
        cx.error(Rule::PromptPlaceholder, pointer, message);
    }
}

/// `work.status.webhook` must be a webhook the extension declares.
pub(crate) fn check_work_status_webhook(cx: &mut Ctxt<'_>) {
    let Some(hook) = cx.str("/contributes/work/status/webhook") else {
        return;
    };
    let declared = cx.strings_of("/contributes/webhooks", "event");
    if !declared.contains(&hook) {
        cx.error(
            Rule::WorkStatusWebhook,
            "/contributes/work/status/webhook",
            format!("the work status webhook `{hook}` is not declared under `contributes.webhooks`; declare it there so the host accepts the status posts"),
        );
    }
}

/// Ids are unique within one contribution kind; so are webhook events, metric keys, dimension keys
/// within a metric, and connector auth field names.
pub(crate) fn check_duplicate_ids(cx: &mut Ctxt<'_>) {
    let mut groups: Vec<(String, &str, &str)> = Vec::new();
    for kind in [
        "pages",
        "tabs",
        "widgets",
        "series",
        "banners",
        "rowActions",
        "markers",
    ] {
        groups.push((format!("/contributes/{kind}"), "id", kind));
    }
    for kind in [
        "tools",
        "mentions",
        "actions",
        "knowledge",
        "skills",
        "prompts",
        "context",
    ] {
        groups.push((format!("/contributes/ai/{kind}"), "id", kind));
    }
    groups.push(("/contributes/webhooks".into(), "event", "webhooks"));
    groups.push(("/contributes/connector/metrics".into(), "key", "metrics"));
    groups.push((
        "/contributes/connector/auth/fields".into(),
        "name",
        "auth fields",
    ));
    for (i, _) in cx.items("/contributes/connector/metrics") {
        groups.push((
            format!("/contributes/connector/metrics/{i}/dimensions"),
            "key",
            "dimensions of this metric",
        ));
    }
    for (pointer, member, what) in groups {
        let mut seen: Vec<&str> = Vec::new();
        let mut repeats = Vec::new();
        for (i, item) in cx.items(&pointer) {
            let Some(id) = item.get(member).and_then(Value::as_str) else {
                continue;
            };
            if seen.contains(&id) {
                repeats.push((format!("{pointer}/{i}/{member}"), id));
            } else {
                seen.push(id);
            }
        }
        for (at, id) in repeats {
            cx.error(
                Rule::DuplicateId,
                at,
                format!("`{id}` is used twice among the {what}; each `{member}` must be unique, so rename one"),
            );
        }
    }
}

/// An alert or banner webhook's payload must require a string `why`: the host shows it to the owner.
pub(crate) fn check_webhook_why(cx: &mut Ctxt<'_>) {
    let mut bad = Vec::new();
    for (i, hook) in cx.items("/contributes/webhooks") {
        let Some(kind @ ("alert" | "banner")) = hook.get("as").and_then(Value::as_str) else {
            continue;
        };
        let Some(payload) = hook.get("payload").filter(|p| p.is_object()) else {
            continue;
        };
        let required = payload
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|v| v.as_str() == Some("why")));
        let string = payload
            .pointer("/properties/why/type")
            .and_then(Value::as_str)
            == Some("string");
        if !(required && string) {
            let event = hook.get("event").and_then(Value::as_str).unwrap_or("?");
            let problem = match (required, string) {
                (false, false) => "neither requires `why` nor declares it a string",
                (false, true) => "does not list `why` under `required`",
                _ => "does not declare `why` with `\"type\": \"string\"`",
            };
            bad.push((i, format!(
                "the {kind} webhook `{event}` shows its `why` sentence to the owner, but its payload schema {problem}; add \"required\": [\"why\"] and \"properties\": {{ \"why\": {{ \"type\": \"string\" }} }}"
            )));
        }
    }
    for (i, message) in bad {
        cx.error(
            Rule::WebhookWhy,
            format!("/contributes/webhooks/{i}/payload"),
            message,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, remove, run_rule, set};
    use serde_json::json;

    #[test]
    fn server_is_required_for_webhooks_and_ai() {
        assert!(run_rule(&base(), check_server_present).is_empty());
        let mut doc = base();
        remove(&mut doc, "/server");
        assert_eq!(
            run_rule(&doc, check_server_present),
            vec![(Rule::ServerMissing, "/contributes/webhooks".into())]
        );
        let mut doc = base();
        remove(&mut doc, "/server");
        set(&mut doc, "/contributes/connector", json!({ "sync": "1h" }));
        assert_eq!(
            run_rule(&doc, check_server_present),
            vec![(Rule::ServerMissing, "/contributes/connector".into())]
        );
    }

    #[test]
    fn server_is_required_for_a_work_destination() {
        let mut doc = base();
        remove(&mut doc, "/server");
        set(
            &mut doc,
            "/contributes",
            json!({ "work": { "kind": "chat", "container": { "label": "Channel", "list": "/channels" },
                "creates": ["message"], "fields": { "required": [] }, "attachments": [],
                "comments": "none", "identity": "install" } }),
        );
        assert_eq!(
            run_rule(&doc, check_server_present),
            vec![(Rule::ServerMissing, "/contributes/work".into())]
        );
        set(
            &mut doc,
            "/server",
            json!({ "baseUrl": "https://chat.example.com" }),
        );
        assert!(run_rule(&doc, check_server_present).is_empty());
    }

    #[test]
    fn a_manifest_with_only_ui_needs_no_server() {
        let mut doc = base();
        remove(&mut doc, "/server");
        set(
            &mut doc,
            "/contributes",
            json!({ "pages": [ { "id": "home", "title": "Home", "entry": "a.tsx" } ], "ai": { "tools": [] } }),
        );
        assert!(run_rule(&doc, check_server_present).is_empty());
    }

    #[test]
    fn public_needs_all_five_listing_fields() {
        let mut doc = base();
        assert!(run_rule(&doc, check_listing_complete).is_empty());
        set(&mut doc, "/visibility", json!("public"));
        set(
            &mut doc,
            "/listing",
            json!({ "longDescription": "x", "screenshots": ["a.png"], "website": "https://a.example", "supportUrl": "https://a.example" }),
        );
        assert_eq!(
            run_rule(&doc, check_listing_complete),
            vec![(Rule::ListingIncomplete, "/listing/privacyUrl".into())]
        );
        set(
            &mut doc,
            "/listing/privacyUrl",
            json!("https://a.example/privacy"),
        );
        assert!(run_rule(&doc, check_listing_complete).is_empty());
    }

    #[test]
    fn storage_may_not_be_named_settings() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/storage",
            json!({ "notes": { "scope": "user", "schema": {} } }),
        );
        assert!(run_rule(&doc, check_storage_reserved).is_empty());
        set(
            &mut doc,
            "/contributes/storage/settings",
            json!({ "scope": "user", "schema": {} }),
        );
        assert_eq!(
            run_rule(&doc, check_storage_reserved),
            vec![(
                Rule::StorageReserved,
                "/contributes/storage/settings".into()
            )]
        );
    }

    #[test]
    fn prompt_placeholders_are_project_context_or_input_fields() {
        let prompt = |template: &str, input: Option<Value>| {
            let mut doc = base();
            let mut prompt = json!({ "id": "why", "title": "Why", "template": template, "surfaces": ["widget"] });
            if let Some(input) = input {
                prompt["input"] = input;
            }
            set(&mut doc, "/contributes/ai/prompts", json!([prompt]));
            let mut cx = Ctxt::new(&doc, None);
            check_prompt_placeholders(&mut cx);
            cx.into_findings()
                .into_iter()
                .map(|f| {
                    assert_eq!(f.pointer, "/contributes/ai/prompts/0/template");
                    assert_eq!(f.rule, Rule::PromptPlaceholder);
                    f.message
                })
                .collect::<Vec<_>>()
        };
        let form =
            || Some(json!({ "type": "object", "properties": { "keyword": { "type": "string" } } }));
        for fine in [
            "Why did {{input.keyword}} drop in {{project.name}} between {{context.from}} and {{ context.to }}?",
            "No placeholder at all, and a lone }} is text.",
            "{{project.store.country}} nests",
        ] {
            assert!(prompt(fine, form()).is_empty(), "{fine}");
        }
        // A form without `properties` cannot be checked field by field.
        assert!(prompt("{{input.anything}}", Some(json!({ "type": "object" }))).is_empty());
        for (bad, says) in [
            ("Hello {{user.name}}", "not a placeholder the host resolves"),
            ("Hello {{name}}", "not a placeholder the host resolves"),
            ("Hello {{project.}}", "names no field"),
            ("Hello {{project.first name}}", "names no field"),
            ("Hello {{input.country}}", "its fields: `keyword`"),
            ("Hello {{project.name", "never closed"),
        ] {
            let found = prompt(bad, form());
            assert_eq!(found.len(), 1, "{bad}: {found:?}");
            assert!(found[0].contains(says), "{bad}: {}", found[0]);
        }
        let found = prompt("Hello {{input.keyword}}", None);
        assert!(found[0].contains("declares no `input`"), "{found:?}");
        // Every problem of one template is in its one diagnostic.
        let found = prompt("{{a.b}} and {{input.x}}", form());
        assert!(
            found.len() == 1 && found[0].contains("{{a.b}}") && found[0].contains("{{input.x}}")
        );
    }

    #[test]
    fn skills_and_prompts_name_declared_tools() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/ai/skills",
            json!([ { "id": "s", "name": "S", "description": "Does things.", "file": "s.md", "tools": ["keyword-ranks"] } ]),
        );
        set(
            &mut doc,
            "/contributes/ai/prompts",
            json!([ { "id": "p", "title": "P", "template": "t", "surfaces": ["page"], "after": ["keyword-ranks"] } ]),
        );
        assert!(run_rule(&doc, check_undeclared_tools).is_empty());
        set(
            &mut doc,
            "/contributes/ai/skills/0/tools/0",
            json!("keyword-rank"),
        );
        set(&mut doc, "/contributes/ai/prompts/0/after/0", json!("nope"));
        assert_eq!(
            run_rule(&doc, check_undeclared_tools),
            vec![
                (
                    Rule::UndeclaredTool,
                    "/contributes/ai/skills/0/tools/0".into()
                ),
                (
                    Rule::UndeclaredTool,
                    "/contributes/ai/prompts/0/after/0".into()
                )
            ]
        );
    }

    #[test]
    fn the_work_status_webhook_must_be_declared() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/work",
            json!({ "status": { "webhook": "rank.update", "map": {} } }),
        );
        assert!(run_rule(&doc, check_work_status_webhook).is_empty());
        set(
            &mut doc,
            "/contributes/work/status/webhook",
            json!("issue.moved"),
        );
        assert_eq!(
            run_rule(&doc, check_work_status_webhook),
            vec![(
                Rule::WorkStatusWebhook,
                "/contributes/work/status/webhook".into()
            )]
        );
    }

    #[test]
    fn ids_are_unique_per_kind_but_may_repeat_across_kinds() {
        let mut doc = base();
        set(&mut doc, "/contributes/banners/0/id", json!("ranks"));
        assert!(run_rule(&doc, check_duplicate_ids).is_empty());
        set(&mut doc, "/contributes/widgets/1", json!({ "id": "ranks" }));
        assert_eq!(
            run_rule(&doc, check_duplicate_ids),
            vec![(Rule::DuplicateId, "/contributes/widgets/1/id".into())]
        );
    }

    #[test]
    fn webhook_events_and_dimension_keys_are_unique() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/webhooks/1/event",
            json!("rank.dropped"),
        );
        set(
            &mut doc,
            "/contributes/connector",
            json!({ "metrics": [ { "key": "m", "dimensions": [ { "key": "c" }, { "key": "c" } ] } ] }),
        );
        assert_eq!(
            run_rule(&doc, check_duplicate_ids),
            vec![
                (Rule::DuplicateId, "/contributes/webhooks/1/event".into()),
                (
                    Rule::DuplicateId,
                    "/contributes/connector/metrics/0/dimensions/1/key".into()
                )
            ]
        );
    }

    #[test]
    fn alert_and_banner_payloads_require_a_string_why() {
        assert!(run_rule(&base(), check_webhook_why).is_empty());
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/webhooks/0/payload/properties/why/type",
            json!("number"),
        );
        assert_eq!(
            run_rule(&doc, check_webhook_why),
            vec![(Rule::WebhookWhy, "/contributes/webhooks/0/payload".into())]
        );
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/webhooks/0/payload/required",
            json!([]),
        );
        assert_eq!(
            run_rule(&doc, check_webhook_why),
            vec![(Rule::WebhookWhy, "/contributes/webhooks/0/payload".into())]
        );
        // An `event` webhook needs no `why`.
        let mut doc = base();
        set(&mut doc, "/contributes/webhooks/0/as", json!("event"));
        set(
            &mut doc,
            "/contributes/webhooks/0/payload",
            json!({ "type": "object" }),
        );
        assert!(run_rule(&doc, check_webhook_why).is_empty());
    }
}
