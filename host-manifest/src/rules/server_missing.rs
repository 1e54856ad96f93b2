//! `server-missing`: `server` is required once the manifest declares something the host reaches through
//! the vendor server (a connector, webhooks, assistant contributions, a work destination).

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;

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
}
