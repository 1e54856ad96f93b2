//! `work-status-webhook`: `work.status.webhook` names a declared webhook.

use super::Ctxt;
use crate::diagnostic::Rule;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

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
}
