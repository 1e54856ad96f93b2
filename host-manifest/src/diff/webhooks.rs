//! `contributes.webhooks`: the events the vendor server posts, matched by event name.

use super::schemas::PAYLOAD;
use super::{Class, Diff, Side, listed, quoted};
use crate::model::Webhook;

impl Diff {
    /// A removed webhook is breaking, so is a changed `as`; payloads are outputs.
    pub(super) fn webhooks(&mut self, old: &[Webhook], new: &[Webhook]) {
        let base = "/contributes/webhooks";
        let gone = "the host refuses it from then on, and the banners, markers and automations that follow it go quiet";
        let webhooks = self.pairs(
            listed(old, base, |w| &w.event),
            listed(new, base, |w| &w.event),
            "webhook",
            Class::Breaking,
            gone,
        );
        for pair in webhooks {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let name = format!("webhook `{}`", pair.id);
            if a.kind != b.kind {
                self.push(
                    Class::Breaking,
                    Side::New,
                    format!("{p}/as"),
                    format!(
                        "{name} changes `as` from {} to {}: the host shows it differently, and what was built on the old kind stops matching",
                        quoted(a.kind.as_str()),
                        quoted(b.kind.as_str())
                    ),
                );
            }
            self.schema(&a.payload, &b.payload, p, "payload", PAYLOAD, &name);
        }
    }
}
