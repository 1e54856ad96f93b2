//! Two names of one kind that the code generator would turn into the same Rust name: the generated
//! code would not compile (two methods `list_runs`, two variants `AverageRank`), so the engine says so
//! first, at the second name.

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;
use crate::names::{NameKind, snake};

/// `rust-name`: within each kind of [`NameKind::ALL`], no two names map to one Rust name.
pub(crate) fn check_rust_names(cx: &mut Ctxt<'_>) {
    for kind in NameKind::ALL {
        let (what, item) = (kind.plural(), kind.rust_item());
        let names = kind.place().strings(cx.root);
        let mut seen: Vec<(&str, String)> = Vec::new();
        for (pointer, name) in names {
            let rust = kind.rust_name(name);
            match seen.iter().find(|(_, r)| *r == rust) {
                // Identical names are `duplicate-id` already.
                Some((first, _)) if *first != name => cx.error(
                    Rule::RustName,
                    pointer,
                    format!(
                        "the {what} `{first}` and `{name}` would both become the Rust {item} `{rust}`; rename one of them"
                    ),
                ),
                Some(_) => {}
                None => seen.push((name, rust)),
            }
        }
    }
    // An OAuth connector's token is the `Credentials` field `oauth`.
    if cx.str("/contributes/connector/auth/method") == Some("oauth") {
        for (i, field) in cx.items("/contributes/connector/auth/fields") {
            if field
                .get("name")
                .and_then(Value::as_str)
                .map(snake)
                .as_deref()
                == Some("oauth")
            {
                cx.error(
                    Rule::RustName,
                    format!("/contributes/connector/auth/fields/{i}/name"),
                    "an OAuth connector's token is the `Credentials` field `oauth`, so no auth field may be named `oauth`; rename the field",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule};
    use serde_json::json;

    #[test]
    fn the_base_manifest_has_no_collision() {
        assert!(run_rule(&base(), check_rust_names).is_empty());
    }

    #[test]
    fn procedures_spelled_two_ways_collide_at_the_second() {
        let mut doc = base();
        doc["server"]["procedures"] = json!({
            "list-runs": { "input": {}, "output": {} },
            "listRuns": { "input": {}, "output": {} },
            "list_other": { "input": {}, "output": {} }
        });
        assert_eq!(
            run_rule(&doc, check_rust_names),
            vec![(Rule::RustName, "/server/procedures/listRuns".into())]
        );
    }

    #[test]
    fn webhooks_metrics_and_telemetry_are_checked_in_their_own_case() {
        let mut doc = base();
        doc["contributes"]["webhooks"] = json!([
            { "event": "rank.dropped_fast", "as": "event", "payload": {} },
            { "event": "rank_dropped.fast", "as": "event", "payload": {} }
        ]);
        doc["telemetry"] = json!(["opened_page", "opened__page", "opened"]);
        assert_eq!(
            run_rule(&doc, check_rust_names),
            vec![
                (Rule::RustName, "/contributes/webhooks/1/event".into()),
                (Rule::RustName, "/telemetry/1".into()),
            ]
        );
    }

    #[test]
    fn an_oauth_connector_reserves_the_oauth_field() {
        let mut doc = base();
        doc["contributes"]["connector"]["auth"] = json!({
            "method": "oauth",
            "fields": [ { "name": "oauth", "label": "Token", "type": "text" } ]
        });
        assert_eq!(
            run_rule(&doc, check_rust_names),
            vec![(
                Rule::RustName,
                "/contributes/connector/auth/fields/0/name".into()
            )]
        );
    }

    #[test]
    fn identical_names_are_left_to_duplicate_id() {
        let mut doc = base();
        let tool = doc["contributes"]["ai"]["tools"][0].clone();
        doc["contributes"]["ai"]["tools"]
            .as_array_mut()
            .unwrap()
            .push(tool);
        assert!(run_rule(&doc, check_rust_names).is_empty());
    }
}
