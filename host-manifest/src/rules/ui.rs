//! Rules about UI contributions: slots per page, banners and markers tied to webhooks, series tied
//! to metrics, organization installs, and the total count.

use serde_json::Value;

use super::Ctxt;
use super::events::webhooks_as;
use crate::catalogue;
use crate::diagnostic::Rule;
use crate::schema::list;

use host_interface::limits::UI_CONTRIBUTIONS;

/// A widget's slot must be one of its page's slots.
pub(crate) fn check_widget_slots(cx: &mut Ctxt<'_>) {
    for (i, widget) in cx.items("/contributes/widgets") {
        let page = widget.get("page").and_then(Value::as_str);
        let slot = widget.get("slot").and_then(Value::as_str);
        let (Some(page), Some(slot)) = (page, slot) else {
            continue;
        };
        let Some(slots) = catalogue::slots_of(page) else {
            continue;
        };
        if !slots.contains(&slot) {
            let have = if slots.len() == 1 {
                "that page has only"
            } else {
                "that page has"
            };
            cx.error(
                Rule::WidgetSlot,
                format!("/contributes/widgets/{i}/slot"),
                format!(
                    "slot `{slot}` is not on page `{page}`; {have} {}",
                    list(slots)
                ),
            );
        }
    }
}

/// A banner must name a webhook declared with `as: "banner"`.
pub(crate) fn check_banner_webhooks(cx: &mut Ctxt<'_>) {
    check_webhook_link(cx, "banners", "banner", Rule::BannerWebhook);
}

/// A marker must name a webhook declared with `as: "event"`.
pub(crate) fn check_marker_webhooks(cx: &mut Ctxt<'_>) {
    check_webhook_link(cx, "markers", "event", Rule::MarkerWebhook);
}

fn check_webhook_link(cx: &mut Ctxt<'_>, kind: &str, wanted: &str, rule: Rule) {
    let matching = webhooks_as(cx, wanted);
    for (i, item) in cx.items(&format!("/contributes/{kind}")) {
        let Some(event) = item.get("event").and_then(Value::as_str) else {
            continue;
        };
        if matching.contains(&event) {
            continue;
        }
        let declared_as = cx
            .items("/contributes/webhooks")
            .find(|(_, h)| h.get("event").and_then(Value::as_str) == Some(event))
            .and_then(|(_, h)| h.get("as").and_then(Value::as_str));
        let why = match declared_as {
            Some(other) => format!(
                "the webhook `{event}` is declared with `as: \"{other}\"`, not `as: \"{wanted}\"`"
            ),
            None => format!("no webhook under `contributes.webhooks` declares `{event}`"),
        };
        cx.error(
            rule,
            format!("/contributes/{kind}/{i}/event"),
            format!("{why}; declare {{ \"event\": \"{event}\", \"as\": \"{wanted}\", ... }} there or name another event"),
        );
    }
}

/// A series must draw a metric the connector declares.
pub(crate) fn check_series_metrics(cx: &mut Ctxt<'_>) {
    let metrics = cx.strings_of("/contributes/connector/metrics", "key");
    for (i, series) in cx.items("/contributes/series") {
        let Some(metric) = series.get("metric").and_then(Value::as_str) else {
            continue;
        };
        if !metrics.contains(&metric) {
            let have = if metrics.is_empty() {
                "the connector declares no metrics".to_owned()
            } else {
                format!("it declares {}", list(&metrics))
            };
            cx.error(
                Rule::SeriesMetric,
                format!("/contributes/series/{i}/metric"),
                format!("metric `{metric}` is not declared under `contributes.connector.metrics`; {have}"),
            );
        }
    }
}

/// An organization install contributes no pages, tabs, widgets or series.
pub(crate) fn check_organization_ui(cx: &mut Ctxt<'_>) {
    if cx.str("/installScope") != Some("organization") {
        return;
    }
    for kind in ["pages", "tabs", "widgets", "series"] {
        let pointer = format!("/contributes/{kind}");
        if cx.has_items(&pointer) {
            cx.error(
                Rule::OrganizationUi,
                pointer,
                format!("an organization install cannot contribute {kind}, which live on project pages; remove them or use `\"installScope\": \"project\"`"),
            );
        }
    }
}

/// At most 20 UI contributions in total; the settings panel counts as one.
pub(crate) fn check_ui_limit(cx: &mut Ctxt<'_>) {
    let kinds = [
        "pages",
        "tabs",
        "widgets",
        "series",
        "banners",
        "rowActions",
        "markers",
    ];
    let mut counts: Vec<(&str, usize)> = kinds
        .iter()
        .map(|k| {
            (
                *k,
                cx.get(&format!("/contributes/{k}"))
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len),
            )
        })
        .collect();
    counts.push((
        "settings",
        usize::from(
            cx.get("/contributes/settings")
                .is_some_and(Value::is_object),
        ),
    ));
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    if total > UI_CONTRIBUTIONS {
        let parts: Vec<String> = counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        cx.error(
            Rule::UiLimit,
            "/contributes",
            format!(
                "a manifest may have at most {UI_CONTRIBUTIONS} UI contributions in total; this one has {total} ({})",
                parts.join(", ")
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    #[test]
    fn a_slot_off_its_page_fails() {
        assert!(run_rule(&base(), check_widget_slots).is_empty());
        let mut doc = base();
        set(&mut doc, "/contributes/widgets/0/page", json!("ai_chat"));
        assert_eq!(
            run_rule(&doc, check_widget_slots),
            vec![(Rule::WidgetSlot, "/contributes/widgets/0/slot".into())]
        );
    }

    #[test]
    fn every_d5_slot_passes_on_its_page() {
        for (page, slots) in catalogue::PAGE_SLOTS {
            for slot in slots {
                let mut doc = base();
                set(&mut doc, "/contributes/widgets/0/page", json!(page));
                set(&mut doc, "/contributes/widgets/0/slot", json!(slot));
                assert!(
                    run_rule(&doc, check_widget_slots).is_empty(),
                    "{page}/{slot}"
                );
            }
        }
    }

    #[test]
    fn a_banner_needs_a_banner_webhook() {
        assert!(run_rule(&base(), check_banner_webhooks).is_empty());
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/banners/0/event",
            json!("rank.update"),
        );
        assert_eq!(
            run_rule(&doc, check_banner_webhooks),
            vec![(Rule::BannerWebhook, "/contributes/banners/0/event".into())]
        );
        set(
            &mut doc,
            "/contributes/banners/0/event",
            json!("rank.nothing"),
        );
        assert_eq!(
            run_rule(&doc, check_banner_webhooks),
            vec![(Rule::BannerWebhook, "/contributes/banners/0/event".into())]
        );
    }

    #[test]
    fn a_marker_needs_an_event_webhook() {
        assert!(run_rule(&base(), check_marker_webhooks).is_empty());
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/markers/0/event",
            json!("rank.dropped"),
        );
        assert_eq!(
            run_rule(&doc, check_marker_webhooks),
            vec![(Rule::MarkerWebhook, "/contributes/markers/0/event".into())]
        );
    }

    #[test]
    fn a_series_needs_a_declared_metric() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/connector",
            json!({ "metrics": [ { "key": "rank", "label": "Rank", "unit": "count", "kind": "gauge" } ] }),
        );
        set(
            &mut doc,
            "/contributes/series",
            json!([ { "id": "rank", "label": "Rank", "chart": "conversion", "metric": "rank" } ]),
        );
        assert!(run_rule(&doc, check_series_metrics).is_empty());
        set(&mut doc, "/contributes/series/0/metric", json!("ranks"));
        assert_eq!(
            run_rule(&doc, check_series_metrics),
            vec![(Rule::SeriesMetric, "/contributes/series/0/metric".into())]
        );
    }

    #[test]
    fn organization_installs_have_no_project_ui() {
        let mut doc = base();
        set(&mut doc, "/installScope", json!("organization"));
        assert_eq!(
            run_rule(&doc, check_organization_ui),
            vec![(Rule::OrganizationUi, "/contributes/widgets".into())]
        );
        set(&mut doc, "/contributes/widgets", json!([]));
        assert!(run_rule(&doc, check_organization_ui).is_empty());
    }

    #[test]
    fn twenty_ui_contributions_pass_and_twenty_one_fail() {
        let mut doc = base();
        // The base has 1 widget, 1 banner and 1 marker: 17 pages make 20.
        let pages: Vec<_> = (0..17)
            .map(|i| json!({ "id": format!("p{i}"), "title": "P", "entry": "p.tsx" }))
            .collect();
        set(&mut doc, "/contributes/pages", json!(pages));
        assert!(run_rule(&doc, check_ui_limit).is_empty());
        set(
            &mut doc,
            "/contributes/settings",
            json!({ "entry": "s.tsx", "schema": {} }),
        );
        assert_eq!(
            run_rule(&doc, check_ui_limit),
            vec![(Rule::UiLimit, "/contributes".into())]
        );
    }
}
