//! The manifest's own members: `id` and `installScope` (which decide whose installs these are),
//! `scopes` (which owners approve), the directory listing and the top-level text.

use super::{Class, Diff, Side, quoted, some};
use crate::Manifest;
use crate::model::{Listing, ScopeGrant};

impl Diff {
    /// `id`, `installScope`, `scopes`, and the top-level members no rule covers: `$schema`, the
    /// text, `category`, `sdk`, `visibility`, `telemetry` and `listing`.
    pub(super) fn manifest(&mut self, old: &Manifest, new: &Manifest) {
        if old.id != new.id {
            let (a, b) = (quoted(&old.id), quoted(&new.id));
            self.push(
                Class::Breaking,
                Side::New,
                "/id".into(),
                format!(
                    "the id changes from {a} to {b}: this is a different extension, and installs of {a} do not move to it"
                ),
            );
        }
        if old.install_scope != new.install_scope {
            let (a, b) = (old.install_scope, new.install_scope);
            self.push(
                Class::Breaking,
                Side::New,
                "/installScope".into(),
                format!(
                    "`installScope` changes from {} to {}: existing installs were made per {a} and cannot become per {b}",
                    quoted(a.as_str()),
                    quoted(b.as_str())
                ),
            );
        }
        self.scopes(&old.scopes, &new.scopes);
        self.loose("/$schema", old.schema.as_ref(), new.schema.as_ref());
        self.loose("/name", Some(&old.name), Some(&new.name));
        self.loose(
            "/description",
            Some(&old.description),
            Some(&new.description),
        );
        self.loose("/icon", Some(&old.icon), Some(&new.icon));
        self.loose("/category", Some(&old.category), Some(&new.category));
        self.loose("/sdk", Some(&old.sdk), Some(&new.sdk));
        self.loose("/visibility", Some(&old.visibility), Some(&new.visibility));
        self.loose("/telemetry", some(&old.telemetry), some(&new.telemetry));
        self.listing(old.listing.as_ref(), new.listing.as_ref());
    }

    /// A new scope is risky (owners approve the update first), one no longer asked for is safe;
    /// reordering the list is not a change.
    fn scopes(&mut self, was: &[ScopeGrant], now: &[ScopeGrant]) {
        for (i, scope) in now.iter().enumerate() {
            if !was.iter().any(|s| s.key == scope.key) {
                self.push(
                    Class::Risky,
                    Side::New,
                    format!("/scopes/{i}"),
                    format!(
                        "new scope `{}`: owners must approve the update before it reaches their installs, and installs keep the old version until they do",
                        scope.key
                    ),
                );
            }
        }
        for (i, scope) in was.iter().enumerate() {
            if !now.iter().any(|s| s.key == scope.key) {
                self.push(
                    Class::Safe,
                    Side::Old,
                    format!("/scopes/{i}"),
                    format!("scope `{}` is no longer asked for", scope.key),
                );
            }
        }
    }

    /// Listing content is only read in the directory: a change to a member is safe; adding or
    /// removing the whole listing is risky, as for any other top-level member.
    fn listing(&mut self, old: Option<&Listing>, new: Option<&Listing>) {
        let (Some(a), Some(b)) = (old, new) else {
            self.loose("/listing", old, new);
            return;
        };
        self.loose(
            "/listing/longDescription",
            a.long_description.as_ref(),
            b.long_description.as_ref(),
        );
        self.loose(
            "/listing/screenshots",
            some(&a.screenshots),
            some(&b.screenshots),
        );
        self.loose("/listing/website", a.website.as_ref(), b.website.as_ref());
        self.loose(
            "/listing/supportUrl",
            a.support_url.as_ref(),
            b.support_url.as_ref(),
        );
        self.loose(
            "/listing/privacyUrl",
            a.privacy_url.as_ref(),
            b.privacy_url.as_ref(),
        );
    }
}
