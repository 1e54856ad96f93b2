//! The interface's fixed vocabularies as data: scope keys, the scope each kind of contribution needs,
//! the event catalogue and the widget slots of each host page.
//!
//! This is the one place these lists exist. The manifest JSON Schema repeats the enums for editors; a
//! test keeps the two in step.

/// A host scope key, as declared under `scopes[].key`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scope {
    /// The key as written in the manifest, for example `ai:tools`.
    pub key: &'static str,
    /// Whether the scope writes or acts, so that the consent screen needs a justification.
    pub writes: bool,
}

/// Every scope key the host grants, in the interface's order.
pub const SCOPES: [Scope; 19] = [
    Scope {
        key: "ui:render",
        writes: false,
    },
    Scope {
        key: "projects:read",
        writes: false,
    },
    Scope {
        key: "analytics:read",
        writes: false,
    },
    Scope {
        key: "store.metadata:read",
        writes: false,
    },
    Scope {
        key: "reviews:read",
        writes: false,
    },
    Scope {
        key: "crashes:read",
        writes: false,
    },
    Scope {
        key: "revenue:read",
        writes: false,
    },
    Scope {
        key: "metrics:write",
        writes: true,
    },
    Scope {
        key: "alerts:write",
        writes: true,
    },
    Scope {
        key: "insights:write",
        writes: true,
    },
    Scope {
        key: "ai:tools",
        writes: false,
    },
    Scope {
        key: "ai:actions",
        writes: true,
    },
    Scope {
        key: "store.metadata:write",
        writes: true,
    },
    Scope {
        key: "autopilot:trigger",
        writes: true,
    },
    Scope {
        key: "work:create",
        writes: true,
    },
    Scope {
        key: "work:sync",
        writes: false,
    },
    Scope {
        key: "storage:write",
        writes: true,
    },
    Scope {
        key: "messaging:send",
        writes: true,
    },
    Scope {
        key: "ai:skills",
        writes: false,
    },
];

/// Looks a scope up by its key.
pub fn scope(key: &str) -> Option<&'static Scope> {
    SCOPES.iter().find(|s| s.key == key)
}

/// A kind of contribution, for the scopes it needs: the manifest engine requires them to be declared
/// (`scope-missing`), and the runtime requires the install to have been granted them before a call
/// reaches a handler (`SCOPE_MISSING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Contribution {
    /// `contributes.pages`.
    Pages,
    /// `contributes.tabs`.
    Tabs,
    /// `contributes.widgets`.
    Widgets,
    /// `contributes.rowActions`.
    RowActions,
    /// `contributes.markers`: drawn on charts from the extension's own events.
    Markers,
    /// `contributes.settings`, the settings panel.
    SettingsPanel,
    /// `contributes.storage`.
    Storage,
    /// The connector's metrics (`contributes.connector.metrics`), synced through `POST /host/metrics`.
    ConnectorMetrics,
    /// A webhook declared `as: "alert"` or `as: "banner"`.
    AlertOrBannerWebhook,
    /// Assistant tools (`contributes.ai.tools`).
    Tools,
    /// Mention pickers (`contributes.ai.mentions`).
    Mentions,
    /// Owner-approved actions (`contributes.ai.actions`), besides each action's own `scope`.
    Actions,
    /// Skills (`contributes.ai.skills`).
    Skills,
    /// Prompts (`contributes.ai.prompts`).
    Prompts,
    /// Context providers (`contributes.ai.context`).
    ContextProviders,
    /// The work destination's containers and new items (`contributes.work`).
    WorkItems,
    /// The work destination's comment sync (`contributes.work`).
    WorkComments,
}

impl Contribution {
    /// Every kind, in the order the manifest lists them.
    pub const ALL: [Contribution; 17] = [
        Contribution::Pages,
        Contribution::Tabs,
        Contribution::Widgets,
        Contribution::RowActions,
        Contribution::Markers,
        Contribution::SettingsPanel,
        Contribution::Storage,
        Contribution::ConnectorMetrics,
        Contribution::AlertOrBannerWebhook,
        Contribution::Tools,
        Contribution::Mentions,
        Contribution::Actions,
        Contribution::Skills,
        Contribution::Prompts,
        Contribution::ContextProviders,
        Contribution::WorkItems,
        Contribution::WorkComments,
    ];

    /// The scopes this kind of contribution needs: the one table of them.
    pub const fn scopes(self) -> &'static [&'static str] {
        match self {
            Contribution::Pages
            | Contribution::Tabs
            | Contribution::Widgets
            | Contribution::RowActions
            | Contribution::SettingsPanel => &["ui:render"],
            Contribution::Markers => &["ui:render", "alerts:write"],
            Contribution::Storage => &["storage:write"],
            Contribution::ConnectorMetrics => &["metrics:write"],
            Contribution::AlertOrBannerWebhook => &["alerts:write"],
            Contribution::Tools | Contribution::Mentions => &["ai:tools"],
            Contribution::Actions => &["ai:actions"],
            Contribution::Skills | Contribution::Prompts | Contribution::ContextProviders => {
                &["ai:skills"]
            }
            Contribution::WorkItems => &["work:create"],
            Contribution::WorkComments => &["work:sync"],
        }
    }
}

/// One name of the host's event catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Event {
    /// The event name, `domain.verb`.
    pub name: &'static str,
    /// Published events carry a payload and are delivered; reserved ones are never delivered yet.
    pub published: bool,
    /// The scope an install needs to receive the event, if any.
    pub scope: Option<&'static str>,
}

const fn published(name: &'static str, scope: Option<&'static str>) -> Event {
    Event {
        name,
        published: true,
        scope,
    }
}

const fn reserved(name: &'static str, scope: Option<&'static str>) -> Event {
    Event {
        name,
        published: false,
        scope,
    }
}

/// The 21 catalogue names: 12 published, then 9 reserved.
pub const EVENTS: [Event; 21] = [
    published("release.shipped", Some("projects:read")),
    published("metadata.changed", Some("store.metadata:read")),
    published("keyword.set_changed", Some("store.metadata:read")),
    published("screenshots.updated", Some("store.metadata:read")),
    published("price.changed", Some("store.metadata:read")),
    published("install.created", None),
    published("install.paused", None),
    published("install.resumed", None),
    published("install.revoked", None),
    published("install.token_rotated", None),
    published("scopes.changed", None),
    published("settings.changed", None),
    reserved("featuring.started", Some("store.metadata:read")),
    reserved("score.changed", Some("projects:read")),
    reserved("incident.opened", Some("crashes:read")),
    reserved("incident.resolved", Some("crashes:read")),
    reserved("playbook.step_approved", Some("projects:read")),
    reserved("review.thread_opened", Some("reviews:read")),
    reserved("review.thread_resolved", Some("reviews:read")),
    reserved("approval.requested", None),
    reserved("digest.sent", None),
];

/// Looks an event up by name.
pub fn event(name: &str) -> Option<&'static Event> {
    EVENTS.iter().find(|e| e.name == name)
}

/// The widget slots each host page has, in the interface's order.
pub const PAGE_SLOTS: [(&str, &[&str]); 4] = [
    (
        "overview",
        &["kpi-row", "insights", "sidebar", "below-chart"],
    ),
    (
        "analytics",
        &["kpi-row", "insights", "below-chart", "below-list"],
    ),
    ("deployments", &["kpi-row", "sidebar", "below-list"]),
    ("ai_chat", &["sidebar"]),
];

/// The slots of a host page, or `None` for a page the host does not have.
pub fn slots_of(page: &str) -> Option<&'static [&'static str]> {
    PAGE_SLOTS
        .iter()
        .find(|(p, _)| *p == page)
        .map(|(_, slots)| *slots)
}

/// The SDK major version the host serves.
pub const SERVED_MAJOR: u64 = 2;

/// The version of the extension interface this SDK implements: what the health route reports as
/// `sdk`, so that it satisfies the `sdk` range a manifest states (`^2.0.0`).
pub const INTERFACE_VERSION: &str = "2.0.0";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interface_version_is_of_the_served_major() {
        let major = INTERFACE_VERSION
            .split('.')
            .next()
            .and_then(|m| m.parse::<u64>().ok());
        assert_eq!(major, Some(SERVED_MAJOR));
    }

    #[test]
    fn catalogue_has_twelve_published_and_nine_reserved_names() {
        assert_eq!(EVENTS.iter().filter(|e| e.published).count(), 12);
        assert_eq!(EVENTS.iter().filter(|e| !e.published).count(), 9);
    }

    #[test]
    fn names_are_unique() {
        for (i, e) in EVENTS.iter().enumerate() {
            assert!(
                EVENTS[i + 1..].iter().all(|o| o.name != e.name),
                "{} repeats",
                e.name
            );
        }
        for (i, s) in SCOPES.iter().enumerate() {
            assert!(
                SCOPES[i + 1..].iter().all(|o| o.key != s.key),
                "{} repeats",
                s.key
            );
        }
    }

    #[test]
    fn every_contribution_scope_is_a_scope_key() {
        for c in Contribution::ALL {
            assert!(!c.scopes().is_empty(), "{c:?}");
            for s in c.scopes() {
                assert!(scope(s).is_some(), "{c:?} needs unknown scope {s}");
            }
        }
    }

    #[test]
    fn every_event_scope_is_a_scope_key() {
        for e in EVENTS {
            if let Some(s) = e.scope {
                assert!(scope(s).is_some(), "{} needs unknown scope {s}", e.name);
            }
        }
    }
}
