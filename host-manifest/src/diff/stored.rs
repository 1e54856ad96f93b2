//! `contributes.settings` and `contributes.storage`: what installs already stored must still fit
//! the new schemas.

use super::schemas::{SETTINGS, STORAGE};
use super::{Class, Diff, named};
use crate::model::Contributes;

impl Diff {
    /// The settings panel and the storage collections (by name).
    pub(super) fn stored(&mut self, old: &Contributes, new: &Contributes) {
        let p = "/contributes/settings";
        match (&old.settings, &new.settings) {
            (Some(a), Some(b)) => {
                self.schema(&a.schema, &b.schema, p, "schema", SETTINGS, "the settings");
                self.loose(&format!("{p}/entry"), Some(&a.entry), Some(&b.entry));
            }
            (a, b) => self.loose(p, a.as_ref(), b.as_ref()),
        }
        let base = "/contributes/storage";
        let collections = self.pairs(
            named(Some(&old.storage), base),
            named(Some(&new.storage), base),
            "storage collection",
            Class::Breaking,
            "the documents installs keep in it are no longer reachable",
        );
        for pair in collections {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let what = format!("storage collection `{}`", pair.id);
            self.schema(&a.schema, &b.schema, p, "schema", STORAGE, &what);
            self.member(&what, p, "scope", Some(&a.scope), Some(&b.scope));
            self.member(
                &what,
                p,
                "singleton",
                a.singleton.as_ref(),
                b.singleton.as_ref(),
            );
        }
    }
}
