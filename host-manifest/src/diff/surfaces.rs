//! The UI surfaces the extension adds to the host: its pages, tabs, widgets, chart series,
//! banners, row actions and chart markers, each list matched by id. A removed surface is risky
//! (owners who use it no longer find it); its other members are compared as a whole.

use super::{Class, Diff, listed};
use crate::model::{Banner, Contributes, Marker, Page, RowAction, Series, Tab, Widget};

/// What a removed surface means for owners.
const GONE: &str = "owners who use it no longer find it";

impl Diff {
    /// Every list of surfaces.
    pub(super) fn surfaces(&mut self, old: &Contributes, new: &Contributes) {
        let (a, b) = (&old.pages, &new.pages);
        self.surface("pages", "page", a, b, |s| &s.id, Diff::page);
        let (a, b) = (&old.tabs, &new.tabs);
        self.surface("tabs", "tab", a, b, |s| &s.id, Diff::tab);
        let (a, b) = (&old.widgets, &new.widgets);
        self.surface("widgets", "widget", a, b, |s| &s.id, Diff::widget);
        let (a, b) = (&old.series, &new.series);
        self.surface("series", "series", a, b, |s| &s.id, Diff::series);
        let (a, b) = (&old.banners, &new.banners);
        self.surface("banners", "banner", a, b, |s| &s.id, Diff::banner);
        let (a, b) = (&old.row_actions, &new.row_actions);
        self.surface(
            "rowActions",
            "row action",
            a,
            b,
            |s| &s.id,
            Diff::row_action,
        );
        let (a, b) = (&old.markers, &new.markers);
        self.surface("markers", "marker", a, b, |s| &s.id, Diff::marker);
    }

    /// The surfaces of `contributes.<list>` matched by id: the removed and added ones reported,
    /// each one in both compared by `members` (given its name for messages, such as
    /// ``page `home` ``, and its pointer in the new manifest).
    fn surface<T>(
        &mut self,
        list: &str,
        what: &str,
        old: &[T],
        new: &[T],
        id: fn(&T) -> &str,
        members: fn(&mut Diff, &str, &str, &T, &T),
    ) {
        let base = format!("/contributes/{list}");
        let was = listed(old, &base, id);
        for pair in self.pairs(was, listed(new, &base, id), what, Class::Risky, GONE) {
            let name = format!("{what} `{}`", pair.id);
            members(self, &name, &pair.pointer, pair.old, pair.new);
        }
    }

    fn page(&mut self, what: &str, p: &str, a: &Page, b: &Page) {
        self.member(what, p, "title", Some(&a.title), Some(&b.title));
        self.member(what, p, "entry", Some(&a.entry), Some(&b.entry));
        self.member(what, p, "nav", a.nav.as_ref(), b.nav.as_ref());
        self.member(what, p, "mobile", a.mobile.as_ref(), b.mobile.as_ref());
    }

    fn tab(&mut self, what: &str, p: &str, a: &Tab, b: &Tab) {
        self.member(what, p, "title", Some(&a.title), Some(&b.title));
        self.member(what, p, "entry", Some(&a.entry), Some(&b.entry));
        self.member(what, p, "page", Some(&a.page), Some(&b.page));
        self.member(what, p, "mobile", a.mobile.as_ref(), b.mobile.as_ref());
    }

    fn widget(&mut self, what: &str, p: &str, a: &Widget, b: &Widget) {
        self.member(what, p, "title", Some(&a.title), Some(&b.title));
        self.member(what, p, "entry", Some(&a.entry), Some(&b.entry));
        self.member(what, p, "page", Some(&a.page), Some(&b.page));
        self.member(what, p, "slot", Some(&a.slot), Some(&b.slot));
        self.member(what, p, "size", Some(&a.size), Some(&b.size));
        self.member(
            what,
            p,
            "expandable",
            a.expandable.as_ref(),
            b.expandable.as_ref(),
        );
        self.member(what, p, "mobile", a.mobile.as_ref(), b.mobile.as_ref());
    }

    fn series(&mut self, what: &str, p: &str, a: &Series, b: &Series) {
        self.member(what, p, "label", Some(&a.label), Some(&b.label));
        self.member(what, p, "chart", Some(&a.chart), Some(&b.chart));
        self.member(what, p, "metric", Some(&a.metric), Some(&b.metric));
    }

    fn banner(&mut self, what: &str, p: &str, a: &Banner, b: &Banner) {
        self.member(what, p, "page", Some(&a.page), Some(&b.page));
        self.member(what, p, "event", Some(&a.event), Some(&b.event));
    }

    fn row_action(&mut self, what: &str, p: &str, a: &RowAction, b: &RowAction) {
        self.member(what, p, "title", Some(&a.title), Some(&b.title));
        self.member(what, p, "entry", Some(&a.entry), Some(&b.entry));
        self.member(what, p, "table", Some(&a.table), Some(&b.table));
    }

    fn marker(&mut self, what: &str, p: &str, a: &Marker, b: &Marker) {
        self.member(what, p, "label", Some(&a.label), Some(&b.label));
        self.member(what, p, "chart", Some(&a.chart), Some(&b.chart));
        self.member(what, p, "event", Some(&a.event), Some(&b.event));
        self.member(what, p, "glyph", Some(&a.glyph), Some(&b.glyph));
    }
}
