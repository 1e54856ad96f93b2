//! `contributes.connector`: the metrics the server writes (matched by key, with their dimensions),
//! how owners connect (auth method and fields, OAuth) and the sync schedule.

use super::{Class, Diff, Side, listed, quoted, some};
use crate::model::{AuthField, Connector, Metric};

impl Diff {
    /// Metrics, auth and sync. A connector added or removed as a whole is reported through its
    /// metrics and auth fields only.
    pub(super) fn connector(&mut self, old: Option<&Connector>, new: Option<&Connector>) {
        self.metrics(
            old.map_or(&[], |c| &c.metrics),
            new.map_or(&[], |c| &c.metrics),
        );
        let auth = "/contributes/connector/auth";
        let (old_auth, new_auth) = (
            old.and_then(|c| c.auth.as_ref()),
            new.and_then(|c| c.auth.as_ref()),
        );
        if let (Some(x), Some(y)) = (old_auth, new_auth)
            && x.method != y.method
        {
            self.push(
                Class::Breaking,
                Side::New,
                format!("{auth}/method"),
                format!(
                    "the connector's auth method changes from {} to {}: every install must connect again",
                    quoted(x.method.as_str()),
                    quoted(y.method.as_str())
                ),
            );
        }
        self.auth_fields(
            old_auth.map_or(&[], |a| &a.fields),
            new_auth.map_or(&[], |a| &a.fields),
        );
        let what = "the connector";
        if let (Some(a), Some(b)) = (old, new) {
            let p = "/contributes/connector";
            self.member(what, p, "sync", a.sync.as_ref(), b.sync.as_ref());
        }
        if let (Some(x), Some(y)) = (old_auth, new_auth) {
            self.member(what, auth, "oauth", x.oauth.as_ref(), y.oauth.as_ref());
        }
    }

    /// Metrics by key: a removed metric or dimension is breaking, a changed unit or kind risky (the
    /// points already stored keep their meaning).
    fn metrics(&mut self, old: &[Metric], new: &[Metric]) {
        let base = "/contributes/connector/metrics";
        let metrics = self.pairs(
            listed(old, base, |m| &m.key),
            listed(new, base, |m| &m.key),
            "metric",
            Class::Breaking,
            "the series, widgets and dashboards that chart it stop getting data",
        );
        for pair in metrics {
            let (a, b, p, key) = (pair.old, pair.new, &pair.pointer, pair.id);
            for (k, dim) in a.dimensions.iter().enumerate() {
                if !b.dimensions.iter().any(|d| d.key == dim.key) {
                    self.push(
                        Class::Breaking,
                        Side::Old,
                        format!("{p}/dimensions/{k}"),
                        format!(
                            "metric `{key}` loses the dimension `{}`: charts broken down by it stop getting data",
                            dim.key
                        ),
                    );
                }
            }
            for (k, dim) in b.dimensions.iter().enumerate() {
                if !a.dimensions.iter().any(|d| d.key == dim.key) {
                    self.push(
                        Class::Safe,
                        Side::New,
                        format!("{p}/dimensions/{k}"),
                        format!("metric `{key}` gains the dimension `{}`", dim.key),
                    );
                }
            }
            let what = format!("metric `{key}`");
            self.member(&what, p, "label", Some(&a.label), Some(&b.label));
            self.member(
                &what,
                p,
                "backfillDays",
                a.backfill_days.as_ref(),
                b.backfill_days.as_ref(),
            );
            for (member, x, y) in [
                ("unit", a.unit.as_str(), b.unit.as_str()),
                ("kind", a.kind.as_str(), b.kind.as_str()),
            ] {
                if x != y {
                    self.push(
                        Class::Risky,
                        Side::New,
                        format!("{p}/{member}"),
                        format!(
                            "metric `{key}` changes `{member}` from {} to {}: the points already stored keep the old meaning",
                            quoted(x),
                            quoted(y)
                        ),
                    );
                }
            }
        }
    }

    /// Auth fields by name: a new required field, or one that becomes required, is breaking
    /// (installs connected before have no value for it); a new optional one and one no longer
    /// asked for are safe.
    fn auth_fields(&mut self, was: &[AuthField], now: &[AuthField]) {
        let fields = "/contributes/connector/auth/fields";
        for (j, b) in now.iter().enumerate() {
            let name = &b.name;
            let before = was.iter().find(|a| a.name == *name);
            let p = format!("{fields}/{j}");
            match before {
                None if b.required => self.push(
                    Class::Breaking,
                    Side::New,
                    p,
                    format!(
                        "new required auth field `{name}`: installs connected before have no value for it until the owner fills it in"
                    ),
                ),
                None => self.push(
                    Class::Safe,
                    Side::New,
                    p,
                    format!("new optional auth field `{name}`"),
                ),
                Some(a) if b.required && !a.required => self.push(
                    Class::Breaking,
                    Side::New,
                    format!("{p}/required"),
                    format!(
                        "auth field `{name}` becomes required: installs that left it empty have no value for it"
                    ),
                ),
                Some(a) => {
                    let what = format!("auth field `{name}`");
                    self.member(&what, &p, "label", Some(&a.label), Some(&b.label));
                    self.member(&what, &p, "type", Some(&a.kind), Some(&b.kind));
                    self.member(&what, &p, "required", Some(&a.required), Some(&b.required));
                    self.member(&what, &p, "options", some(&a.options), some(&b.options));
                    self.member(&what, &p, "help", a.help.as_ref(), b.help.as_ref());
                }
            }
        }
        for (i, a) in was.iter().enumerate() {
            if !now.iter().any(|b| b.name == a.name) {
                self.push(
                    Class::Safe,
                    Side::Old,
                    format!("{fields}/{i}"),
                    format!("auth field `{}` is no longer asked for", a.name),
                );
            }
        }
    }
}
