//! `contributes.work`: the work destination owners create items in, and what it syncs back.

use super::{Class, Diff, Side, some};
use crate::model::{CommentSync, Work};

impl Diff {
    /// A removed destination, a kind of item it no longer creates, comments that stop syncing
    /// back and a newly required field are breaking.
    pub(super) fn work(&mut self, old: Option<&Work>, new: Option<&Work>) {
        let base = "/contributes/work";
        let (a, b) = match (old, new) {
            (Some(a), Some(b)) => (a, b),
            (Some(_), None) => {
                return self.push(
                    Class::Breaking,
                    Side::Old,
                    base.into(),
                    "the work destination is removed: owners can no longer create items from the host, and synced items stop syncing".into(),
                );
            }
            (None, Some(_)) => {
                return self.push(
                    Class::Safe,
                    Side::New,
                    base.into(),
                    "new work destination".into(),
                );
            }
            (None, None) => return,
        };
        for (i, kind) in a.creates.iter().enumerate() {
            if !b.creates.contains(kind) {
                self.push(
                    Class::Breaking,
                    Side::Old,
                    format!("{base}/creates/{i}"),
                    format!(
                        "the work destination no longer creates `{kind}` items: the host's `{kind}` requests get 422"
                    ),
                );
            }
        }
        for (i, kind) in b.creates.iter().enumerate() {
            if !a.creates.contains(kind) {
                self.push(
                    Class::Safe,
                    Side::New,
                    format!("{base}/creates/{i}"),
                    format!("the work destination now creates `{kind}` items"),
                );
            }
        }
        if a.comments != b.comments {
            if a.comments == CommentSync::TwoWay {
                self.push(
                    Class::Breaking,
                    Side::New,
                    format!("{base}/comments"),
                    "comments stop syncing both ways: comments made in the host no longer reach the items".into(),
                );
            } else {
                self.push(
                    Class::Safe,
                    Side::New,
                    format!("{base}/comments"),
                    "comments now sync both ways".into(),
                );
            }
        }
        let required = format!("{base}/fields/required");
        for (i, field) in b.fields.required.iter().enumerate() {
            if !a.fields.required.contains(field) {
                self.push(
                    Class::Breaking,
                    Side::New,
                    format!("{required}/{i}"),
                    format!(
                        "`{field}` becomes a required field of new items: owners' saved item templates without it are refused"
                    ),
                );
            }
        }
        let what = "the work destination";
        self.member(what, base, "kind", Some(&a.kind), Some(&b.kind));
        self.member(
            what,
            base,
            "container",
            Some(&a.container),
            Some(&b.container),
        );
        self.member(
            what,
            base,
            "attachments",
            Some(&a.attachments[..]),
            Some(&b.attachments[..]),
        );
        self.member(what, base, "status", a.status.as_ref(), b.status.as_ref());
        self.member(what, base, "identity", Some(&a.identity), Some(&b.identity));
        let (x, y, fields) = (&a.fields, &b.fields, format!("{base}/fields"));
        self.member(
            what,
            &fields,
            "priority",
            some(&x.priority),
            some(&y.priority),
        );
        self.member(
            what,
            &fields,
            "labels",
            x.labels.as_ref(),
            y.labels.as_ref(),
        );
        self.member(
            what,
            &fields,
            "assignee",
            x.assignee.as_ref(),
            y.assignee.as_ref(),
        );
    }
}
