//! Rules about the host events a vendor server subscribes to under `server.events`.

use serde_json::Value;

use super::Ctxt;
use crate::catalogue::{self, EVENTS};
use crate::diagnostic::Rule;
use crate::schema::closest;

/// A subscribed name outside the 21-name catalogue fails validation (interface, Events item 4).
pub(crate) fn check_unknown_events(cx: &mut Ctxt<'_>) {
    let names: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
    for (i, name) in cx.items("/server/events") {
        let Some(name) = name.as_str() else { continue };
        if catalogue::event(name).is_none() {
            let hint = match closest(name, names.iter().copied()) {
                Some(near) => format!("did you mean `{near}`?"),
                None => {
                    "the catalogue's names are listed in the interface's Events section".to_owned()
                }
            };
            cx.error(
                Rule::UnknownEvent,
                format!("/server/events/{i}"),
                format!(
                    "`{}` is not a host event; {hint}",
                    crate::schema::clip(name)
                ),
            );
        }
    }
}

/// Warning: a subscribed event whose scope is not declared would never be delivered.
pub(crate) fn check_event_scopes(cx: &mut Ctxt<'_>) {
    let declared = cx.declared_scopes();
    for (i, name) in cx.items("/server/events") {
        let Some(event) = name.as_str().and_then(catalogue::event) else {
            continue;
        };
        if let Some(scope) = event.scope.filter(|s| !declared.contains(s)) {
            cx.warning(
                Rule::EventScopeMissing,
                format!("/server/events/{i}"),
                format!(
                    "`{}` is only delivered to installs granted `{scope}`, which `scopes` does not declare; add {{ \"key\": \"{scope}\" }} or the handler never runs",
                    event.name
                ),
            );
        }
    }
}

/// Warning: a reserved event validates but is never delivered yet.
pub(crate) fn check_reserved_events(cx: &mut Ctxt<'_>) {
    for (i, name) in cx.items("/server/events") {
        let Some(event) = name.as_str().and_then(catalogue::event) else {
            continue;
        };
        if !event.published {
            cx.warning(
                Rule::ReservedEvent,
                format!("/server/events/{i}"),
                format!(
                    "`{}` is reserved: it validates, but the host does not deliver it yet",
                    event.name
                ),
            );
        }
    }
}

/// Names of the webhooks declared with a given `as`.
pub(crate) fn webhooks_as<'a>(cx: &Ctxt<'a>, kind: &str) -> Vec<&'a str> {
    cx.items("/contributes/webhooks")
        .filter(|(_, h)| h.get("as").and_then(Value::as_str) == Some(kind))
        .filter_map(|(_, h)| h.get("event").and_then(Value::as_str))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    #[test]
    fn catalogue_events_pass_and_others_fail() {
        assert!(run_rule(&base(), check_unknown_events).is_empty());
        let mut doc = base();
        set(
            &mut doc,
            "/server/events",
            json!(["release.shipped", "release.shiped"]),
        );
        assert_eq!(
            run_rule(&doc, check_unknown_events),
            vec![(Rule::UnknownEvent, "/server/events/1".into())]
        );
    }

    #[test]
    fn an_event_without_its_scope_warns() {
        assert!(run_rule(&base(), check_event_scopes).is_empty());
        let mut doc = base();
        set(
            &mut doc,
            "/server/events",
            json!(["install.created", "metadata.changed"]),
        );
        assert_eq!(
            run_rule(&doc, check_event_scopes),
            vec![(Rule::EventScopeMissing, "/server/events/1".into())]
        );
    }

    #[test]
    fn a_reserved_event_warns() {
        assert!(run_rule(&base(), check_reserved_events).is_empty());
        let mut doc = base();
        set(&mut doc, "/server/events", json!(["digest.sent"]));
        assert_eq!(
            run_rule(&doc, check_reserved_events),
            vec![(Rule::ReservedEvent, "/server/events/0".into())]
        );
    }
}
