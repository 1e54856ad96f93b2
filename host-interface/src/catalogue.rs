//! The interface's fixed vocabularies as data: scope keys, the scope each kind of contribution needs,
//! the event catalogue (each event's name, scope and deduplication key) and the widget slots of
//! each host page.
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
    /// The content part of the event's deduplication key (the event name and the install id are
    /// the rest): the first of these forms whose fields the payload has, each `{field}` replaced by
    /// the field's value. The last form of a published event names only fields its payload always
    /// has. Empty for a reserved event, whose whole payload is the content.
    pub dedupe: &'static [&'static str],
}

impl Event {
    /// The content part of the deduplication key of a payload whose field `name` has the text
    /// `field(name)` (`None` when the payload lacks it or it is `null`), by [`Event::dedupe`].
    /// `None` when no form has all its fields, as for a reserved event.
    pub fn dedupe_content(&self, mut field: impl FnMut(&str) -> Option<String>) -> Option<String> {
        self.dedupe.iter().find_map(|form| fill(form, &mut field))
    }
}

/// `form` with each `{field}` replaced by its text, or `None` when a field has none.
fn fill(form: &str, field: &mut impl FnMut(&str) -> Option<String>) -> Option<String> {
    let mut chunks = form.split('{');
    let mut key = chunks.next().unwrap_or_default().to_owned();
    for chunk in chunks {
        let (name, text) = chunk.split_once('}')?;
        key.push_str(&field(name)?);
        key.push_str(text);
    }
    Some(key)
}

/// The fields a form of [`Event::dedupe`] names, in order: `version`, `shippedAt` for
/// `{version}@{shippedAt}`.
pub fn dedupe_fields(form: &'static str) -> impl Iterator<Item = &'static str> {
    form.split('{')
        .skip(1)
        .filter_map(|chunk| chunk.split_once('}').map(|(name, _)| name))
}

const fn published(
    name: &'static str,
    scope: Option<&'static str>,
    dedupe: &'static [&'static str],
) -> Event {
    Event {
        name,
        published: true,
        scope,
        dedupe,
    }
}

const fn reserved(name: &'static str, scope: Option<&'static str>) -> Event {
    Event {
        name,
        published: false,
        scope,
        dedupe: &[],
    }
}

// The published events, one constant each, so that the runtime's payload types name their entry.

/// `release.shipped`, keyed by the host's release id, or the version and when it went live.
pub const RELEASE_SHIPPED: Event = published(
    "release.shipped",
    Some("projects:read"),
    &["{releaseId}", "{version}@{shippedAt}"],
);
/// `metadata.changed`, keyed by when and in which locale.
pub const METADATA_CHANGED: Event = published(
    "metadata.changed",
    Some("store.metadata:read"),
    &["{changedAt}|{locale}"],
);
/// `keyword.set_changed`, keyed by when and in which country.
pub const KEYWORD_SET_CHANGED: Event = published(
    "keyword.set_changed",
    Some("store.metadata:read"),
    &["{changedAt}|{country}"],
);
/// `screenshots.updated`, keyed by when and in which locale.
pub const SCREENSHOTS_UPDATED: Event = published(
    "screenshots.updated",
    Some("store.metadata:read"),
    &["{updatedAt}|{locale}"],
);
/// `price.changed`, keyed by when, in which territory and, when there is one, for which product:
/// several products can change price in one territory at the same instant.
pub const PRICE_CHANGED: Event = published(
    "price.changed",
    Some("store.metadata:read"),
    &[
        "{changedAt}|{territory}|{productId}",
        "{changedAt}|{territory}",
    ],
);
/// `install.created`, keyed by its time.
pub const INSTALL_CREATED: Event = published("install.created", None, &["{createdAt}"]);
/// `install.paused`, keyed by its time.
pub const INSTALL_PAUSED: Event = published("install.paused", None, &["{pausedAt}"]);
/// `install.resumed`, keyed by its time.
pub const INSTALL_RESUMED: Event = published("install.resumed", None, &["{resumedAt}"]);
/// `install.revoked`, keyed by its time.
pub const INSTALL_REVOKED: Event = published("install.revoked", None, &["{revokedAt}"]);
/// `install.token_rotated`, keyed by the token generation.
pub const INSTALL_TOKEN_ROTATED: Event =
    published("install.token_rotated", None, &["{generation}"]);
/// `scopes.changed`, keyed by its time.
pub const SCOPES_CHANGED: Event = published("scopes.changed", None, &["{changedAt}"]);
/// `settings.changed`, keyed by its time.
pub const SETTINGS_CHANGED: Event = published("settings.changed", None, &["{changedAt}"]);

/// The 21 catalogue names: 12 published, then 9 reserved.
pub const EVENTS: [Event; 21] = [
    RELEASE_SHIPPED,
    METADATA_CHANGED,
    KEYWORD_SET_CHANGED,
    SCREENSHOTS_UPDATED,
    PRICE_CHANGED,
    INSTALL_CREATED,
    INSTALL_PAUSED,
    INSTALL_RESUMED,
    INSTALL_REVOKED,
    INSTALL_TOKEN_ROTATED,
    SCOPES_CHANGED,
    SETTINGS_CHANGED,
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

    /// The text of each field of a `release.shipped` or `price.changed` payload, as the runtime
    /// reads it from JSON.
    fn payload<'a>(fields: &'a [(&str, &str)]) -> impl FnMut(&str) -> Option<String> + 'a {
        |name| {
            fields
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, text)| (*text).to_owned())
        }
    }

    #[test]
    fn published_events_have_dedupe_forms_and_reserved_ones_none() {
        for e in EVENTS {
            assert_eq!(e.published, !e.dedupe.is_empty(), "{}", e.name);
        }
    }

    #[test]
    fn every_dedupe_form_names_camel_case_fields_in_braces() {
        for e in EVENTS {
            for form in e.dedupe {
                let mut open = false;
                for c in form.chars() {
                    match c {
                        '{' => assert!(!open, "{}: `{form}` nests a brace", e.name),
                        '}' => assert!(open, "{}: `{form}` closes no brace", e.name),
                        _ => continue,
                    }
                    open = !open;
                }
                assert!(!open, "{}: `{form}` leaves a brace open", e.name);
                let fields: Vec<&str> = dedupe_fields(form).collect();
                assert!(!fields.is_empty(), "{}: `{form}` has no field", e.name);
                for field in fields {
                    assert!(
                        field.starts_with(|c: char| c.is_ascii_lowercase())
                            && field.chars().all(|c| c.is_ascii_alphanumeric()),
                        "{}: `{field}` is not a camelCase payload key",
                        e.name
                    );
                }
            }
        }
    }

    #[test]
    fn dedupe_fields_are_read_in_order() {
        let fields: Vec<&str> = dedupe_fields("{version}@{shippedAt}").collect();
        assert_eq!(fields, ["version", "shippedAt"]);
        assert_eq!(dedupe_fields("plain").count(), 0);
    }

    #[test]
    fn the_first_form_with_all_its_fields_is_the_key() {
        let release = [
            ("releaseId", "rel_8Hc41"),
            ("version", "4.12.0"),
            ("shippedAt", "2026-11-02T14:03:11Z"),
        ];
        let content = |fields: &[(&str, &str)]| RELEASE_SHIPPED.dedupe_content(payload(fields));
        assert_eq!(content(&release).as_deref(), Some("rel_8Hc41"));
        assert_eq!(
            content(&release[1..]).as_deref(),
            Some("4.12.0@2026-11-02T14:03:11Z")
        );
        assert_eq!(content(&release[1..2]), None);

        let price = [
            ("changedAt", "2026-11-02T12:00:00Z"),
            ("territory", "US"),
            ("productId", "pro_monthly"),
        ];
        let content = |fields: &[(&str, &str)]| PRICE_CHANGED.dedupe_content(payload(fields));
        assert_eq!(
            content(&price).as_deref(),
            Some("2026-11-02T12:00:00Z|US|pro_monthly")
        );
        assert_eq!(
            content(&price[..2]).as_deref(),
            Some("2026-11-02T12:00:00Z|US")
        );
    }

    #[test]
    fn a_reserved_event_has_no_dedupe_content() {
        let score = event("score.changed").map(|e| e.dedupe_content(|_| Some("x".into())));
        assert_eq!(score, Some(None));
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
