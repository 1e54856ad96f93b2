//! `duplicate-id`: ids are unique within one contribution kind; so are webhook events, metric keys,
//! dimension keys within a metric and connector auth field names.

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

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
}
