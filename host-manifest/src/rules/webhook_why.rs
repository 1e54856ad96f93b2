//! `webhook-why`: an alert or banner webhook's payload requires a string `why`, which the host shows.

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;

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
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

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
