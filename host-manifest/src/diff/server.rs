//! `server`: where the host calls, which host events the server subscribes to, and the procedures
//! the extension's pages call.

use super::schemas::{PROCEDURE_INPUT, PROCEDURE_OUTPUT};
use super::{Class, Diff, Side, named, quoted};
use crate::model::Server;

impl Diff {
    /// Addresses, subscribed events and procedures; adding or removing the whole server is risky,
    /// besides its events and procedures.
    pub(super) fn server(&mut self, old: Option<&Server>, new: Option<&Server>) {
        match (old, new) {
            (Some(a), Some(b)) => {
                self.address("baseUrl", Some(&a.base_url), Some(&b.base_url));
                self.address(
                    "sandboxBaseUrl",
                    a.sandbox_base_url.as_ref(),
                    b.sandbox_base_url.as_ref(),
                );
            }
            _ => self.loose("/server", old, new),
        }
        self.events(
            old.map_or(&[], |s| &s.events),
            new.map_or(&[], |s| &s.events),
        );
        self.procedures(old, new);
    }

    /// A changed address moves every install's calls; one added or removed is risky as any other
    /// member.
    fn address(&mut self, url: &str, old: Option<&String>, new: Option<&String>) {
        let p = format!("/server/{url}");
        match (old, new) {
            (Some(a), Some(b)) if a != b => self.push(
                Class::Risky,
                Side::New,
                p,
                format!(
                    "`{url}` changes from {} to {}: every install's calls go to the new address once the update is live; keep the old one serving until then",
                    quoted(a),
                    quoted(b)
                ),
            ),
            _ => self.loose(&p, old, new),
        }
    }

    /// An event no longer subscribed to is breaking, a new one safe; reordering is not a change.
    fn events(&mut self, was: &[String], now: &[String]) {
        for (i, name) in was.iter().enumerate() {
            if !now.contains(name) {
                self.push(
                    Class::Breaking,
                    Side::Old,
                    format!("/server/events/{i}"),
                    format!(
                        "the server no longer subscribes to `{name}`: installs stop receiving it, and what it kept up to date goes stale"
                    ),
                );
            }
        }
        for (i, name) in now.iter().enumerate() {
            if !was.contains(name) {
                self.push(
                    Class::Safe,
                    Side::New,
                    format!("/server/events/{i}"),
                    format!("the server now subscribes to `{name}`"),
                );
            }
        }
    }

    /// Procedures by name: input, output, `kind` and `cache`.
    fn procedures(&mut self, old: Option<&Server>, new: Option<&Server>) {
        let base = "/server/procedures";
        let procedures = self.pairs(
            named(old.map(|s| &s.procedures), base),
            named(new.map(|s| &s.procedures), base),
            "procedure",
            Class::Breaking,
            "the extension's pages that call it get 404 NOT_FOUND until they are updated too",
        );
        for pair in procedures {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let what = format!("procedure `{}`", pair.id);
            self.schema(&a.input, &b.input, p, "input", PROCEDURE_INPUT, &what);
            self.schema(&a.output, &b.output, p, "output", PROCEDURE_OUTPUT, &what);
            // Only a `kind` that changes is reported, not one added or removed.
            if let (Some(x), Some(y)) = (a.kind, b.kind)
                && x != y
            {
                self.push(
                    Class::Risky,
                    Side::New,
                    format!("{p}/kind"),
                    format!(
                        "{what} changes `kind` from {} to {}",
                        quoted(x.as_str()),
                        quoted(y.as_str())
                    ),
                );
            }
            self.member(&what, p, "cache", a.cache.as_ref(), b.cache.as_ref());
        }
    }
}
