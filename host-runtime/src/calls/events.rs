//! Typed payloads of the 12 published host events, and the [`HostEvent`] trait that ties each
//! payload to its catalogue name.
//!
//! Each struct mirrors one entry of the interface's "Payload fields": field names are the camelCase
//! keys the host sends, and every field's doc says whether it is always present, nullable or
//! optional. On serialization a nullable field that is `None` is written as `null` and an optional
//! one is left out, so a payload built here has the shape the interface describes.
//!
//! - Payloads evolve additively (interface, Versioning item 4), so no struct denies unknown fields
//!   and every enum the host may extend has an `Unknown` variant.
//! - Identifiers and timestamps are strings, as the interface says. [`Timestamp`] keeps the host's
//!   text unchanged and parses only on request.
//! - Each payload type takes its name from its entry of the interface's catalogue
//!   (`host_interface::catalogue`), which also holds its scope and the fields of its deduplication
//!   key; a test checks each struct's "Needs scope" line against it.
//! - [`HostEvent::dedupe_key`] is the content part of the deduplication key; the caller prefixes
//!   the event name and the install id. `X-Host-Event-Id` is never part of it, because it changes
//!   on every attempt. It is read from the payload's JSON by the catalogue's forms, as a delivery's
//!   key is, so the typed payload and the JSON one cannot disagree.
//! - On install events `project_id` is `None` for an organization install.
//!
//! The 9 reserved names carry no payload yet; [`Unpublished`] stands in for them. Delivery, retries
//! and the dedupe window are not in this module.

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use host_interface::catalogue;
use serde::{Deserialize, Serialize};

/// An ISO 8601 UTC timestamp, kept exactly as the host sent it.
///
/// The text is kept rather than parsed so that a payload re-serializes unchanged and dedupe keys
/// use the host's own spelling. Ordering compares the text, which follows time order only between
/// timestamps written in the same format; use [`Timestamp::to_datetime`] to compare real times.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(String);

impl Timestamp {
    /// The timestamp as the host wrote it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Parses the timestamp as RFC 3339, the ISO 8601 profile the host writes; `None` if it does
    /// not parse.
    pub fn to_datetime(&self) -> Option<DateTime<Utc>> {
        DateTime::parse_from_rfc3339(&self.0)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }
}

impl From<DateTime<Utc>> for Timestamp {
    /// Formats with seconds precision and a `Z` suffix, e.g. `2026-11-02T14:03:11Z`, as the host
    /// does.
    fn from(time: DateTime<Utc>) -> Self {
        Self(time.to_rfc3339_opts(SecondsFormat::Secs, true))
    }
}

impl From<&str> for Timestamp {
    fn from(text: &str) -> Self {
        Self(text.to_owned())
    }
}

impl From<String> for Timestamp {
    fn from(text: String) -> Self {
        Self(text)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The store platform of a project event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// `ios`.
    Ios,
    /// `android`.
    Android,
    /// A platform this SDK version does not know yet. Serializes as `unknown`; the host's text is
    /// not kept.
    #[serde(other)]
    Unknown,
}

/// Whether an install belongs to one project or to a whole organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallScope {
    /// `project`: the install belongs to one project.
    Project,
    /// `organization`: the install covers the whole organization and has no project.
    Organization,
}

/// Where an install was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallSource {
    /// `directory`: from the extension directory.
    Directory,
    /// `link`: from an install link.
    Link,
    /// `recipe`: as part of a recipe.
    Recipe,
    /// `assistant`: at the assistant's suggestion.
    Assistant,
    /// `connect`: from a connect flow.
    Connect,
    /// `dev`: a development install.
    Dev,
    /// A source this SDK version does not know yet. Serializes as `unknown`; the host's text is not
    /// kept.
    #[serde(other)]
    Unknown,
}

/// Why an install was revoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RevokeReason {
    /// `uninstalled`: the owner uninstalled the extension.
    Uninstalled,
    /// `retired`: the extension was retired.
    Retired,
    /// `suspended`: allowed by the schema but never sent by the host.
    Suspended,
    /// A reason this SDK version does not know yet. Serializes as `unknown`; the host's text is not
    /// kept.
    #[serde(other)]
    Unknown,
}

/// A published host event: a payload type bound to its catalogue name.
///
/// The full deduplication key is the event name, the install id and [`HostEvent::dedupe_key`].
pub trait HostEvent:
    serde::de::DeserializeOwned + serde::Serialize + Send + Sync + 'static
{
    /// The catalogue name, e.g. `release.shipped`.
    const NAME: &'static str;
    /// The content key used for deduplication (without event name and install id, which the caller
    /// adds).
    ///
    /// The default reads it from the payload's JSON by the forms of the event's catalogue entry
    /// ([`Event::dedupe`](host_interface::catalogue::Event::dedupe)), as the runtime does with a
    /// delivery; for a name without forms, the whole payload's JSON is the key.
    fn dedupe_key(&self) -> String {
        match serde_json::to_value(self) {
            Ok(payload) => content_key(Self::NAME, &payload),
            // None of this crate's payload types fails to serialize; one of a vendor's that did
            // still gets a key naming why, never the empty key every such failure would share.
            Err(e) => format!("unserializable {} payload: {e}", Self::NAME),
        }
    }
    /// A realistic payload, for tests and the local host's `trigger` command.
    fn example() -> Self;
}

// Shared by every example so that the twelve read as one story: one project-scoped install of
// `keyword-tracker` on one iOS app.
const EXAMPLE_PROJECT: &str = "prj_7Kq2";
const EXAMPLE_APP: &str = "app_3391";
const EXAMPLE_INSTALL: &str = "ins_01J9ZQ";
const EXAMPLE_EXTENSION: &str = "keyword-tracker";
const EXAMPLE_ORGANIZATION: &str = "org_5521";

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

// ---------------------------------------------------------------------------------------------
// Project events: need a store or project scope; `platform` is always present.
// ---------------------------------------------------------------------------------------------

/// `release.shipped`: a release went live. Needs scope `projects:read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseShipped {
    /// The project. Always present.
    pub project_id: String,
    /// The store the release went live on. Always present.
    pub platform: Platform,
    /// The app. Always present.
    pub app_id: String,
    /// The version that went live, e.g. `4.12.0`. Always present.
    pub version: String,
    /// When the release went live. Always present.
    pub shipped_at: Timestamp,
    /// The build number. Nullable.
    #[serde(default)]
    pub build: Option<String>,
    /// The host's release id, the content key for deduplication. Optional; without it the key falls
    /// back to `version@shippedAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_id: Option<String>,
}

impl HostEvent for ReleaseShipped {
    const NAME: &'static str = catalogue::RELEASE_SHIPPED.name;

    fn example() -> Self {
        Self {
            project_id: EXAMPLE_PROJECT.into(),
            platform: Platform::Ios,
            app_id: EXAMPLE_APP.into(),
            version: "4.12.0".into(),
            shipped_at: "2026-11-02T14:03:11Z".into(),
            build: Some("4120".into()),
            release_id: Some("rel_8Hc41".into()),
        }
    }
}

/// `metadata.changed`: listing metadata changed for a locale. Needs scope `store.metadata:read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataChanged {
    /// The project. Always present.
    pub project_id: String,
    /// The store whose listing changed. Always present.
    pub platform: Platform,
    /// The app. Always present.
    pub app_id: String,
    /// The locale whose metadata changed, e.g. `en-US`. Always present.
    pub locale: String,
    /// Names of the changed metadata fields. Always present.
    pub fields: Vec<String>,
    /// When the change was made. Always present.
    pub changed_at: Timestamp,
}

impl HostEvent for MetadataChanged {
    const NAME: &'static str = catalogue::METADATA_CHANGED.name;

    fn example() -> Self {
        Self {
            project_id: EXAMPLE_PROJECT.into(),
            platform: Platform::Ios,
            app_id: EXAMPLE_APP.into(),
            locale: "en-US".into(),
            fields: strings(&["subtitle", "keywords"]),
            changed_at: "2026-11-02T09:41:27Z".into(),
        }
    }
}

/// `keyword.set_changed`: the tracked keywords changed in a country. Needs scope
/// `store.metadata:read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeywordSetChanged {
    /// The project. Always present.
    pub project_id: String,
    /// The store the keywords are tracked on. Always present.
    pub platform: Platform,
    /// The app. Always present.
    pub app_id: String,
    /// The country whose keyword set changed, e.g. `US`. Always present.
    pub country: String,
    /// When the change was made. Always present.
    pub changed_at: Timestamp,
    /// Keywords added to the set. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<Vec<String>>,
    /// Keywords removed from the set. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<String>>,
    /// How many keywords the set holds after the change (a JSON number). Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
}

impl HostEvent for KeywordSetChanged {
    const NAME: &'static str = catalogue::KEYWORD_SET_CHANGED.name;

    fn example() -> Self {
        Self {
            project_id: EXAMPLE_PROJECT.into(),
            platform: Platform::Ios,
            app_id: EXAMPLE_APP.into(),
            country: "US".into(),
            changed_at: "2026-11-02T10:15:00Z".into(),
            added: Some(strings(&["habit tracker", "streak app"])),
            removed: Some(strings(&["todo list"])),
            total: Some(48.0),
        }
    }
}

/// `screenshots.updated`: screenshots were pushed for a locale. Needs scope
/// `store.metadata:read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotsUpdated {
    /// The project. Always present.
    pub project_id: String,
    /// The store the screenshots were pushed to. Always present.
    pub platform: Platform,
    /// The app. Always present.
    pub app_id: String,
    /// The locale whose screenshots changed. Always present.
    pub locale: String,
    /// When the screenshots were updated. Always present.
    pub updated_at: Timestamp,
    /// The device class the screenshots are for. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_class: Option<String>,
    /// How many screenshots the set now holds (a JSON number). Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<f64>,
}

impl HostEvent for ScreenshotsUpdated {
    const NAME: &'static str = catalogue::SCREENSHOTS_UPDATED.name;

    fn example() -> Self {
        Self {
            project_id: EXAMPLE_PROJECT.into(),
            platform: Platform::Ios,
            app_id: EXAMPLE_APP.into(),
            locale: "de-DE".into(),
            updated_at: "2026-11-02T11:20:45Z".into(),
            device_class: Some("iphone-6.9".into()),
            count: Some(6.0),
        }
    }
}

/// `price.changed`: a price changed in a territory. Needs scope `store.metadata:read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceChanged {
    /// The project. Always present.
    pub project_id: String,
    /// The store the price changed on. Always present.
    pub platform: Platform,
    /// The app. Always present.
    pub app_id: String,
    /// The territory whose price changed. Always present.
    pub territory: String,
    /// The new price, in `currency`. Always present.
    pub to: f64,
    /// The currency of `to` and `from`, e.g. `USD`. Always present.
    pub currency: String,
    /// When the price changed. Always present.
    pub changed_at: Timestamp,
    /// The in-app product whose price changed. Nullable.
    #[serde(default)]
    pub product_id: Option<String>,
    /// The previous price. Nullable: a first price has no `from`.
    #[serde(default)]
    pub from: Option<f64>,
}

impl HostEvent for PriceChanged {
    const NAME: &'static str = catalogue::PRICE_CHANGED.name;

    fn example() -> Self {
        Self {
            project_id: EXAMPLE_PROJECT.into(),
            platform: Platform::Ios,
            app_id: EXAMPLE_APP.into(),
            territory: "US".into(),
            to: 5.99,
            currency: "USD".into(),
            changed_at: "2026-11-02T12:00:00Z".into(),
            product_id: Some("pro_monthly".into()),
            from: Some(4.99),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Install events: need no scope; `project_id` is nullable on all of them.
// ---------------------------------------------------------------------------------------------

/// `install.created`: the extension was installed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallCreated {
    /// The new install. Always present.
    pub install_id: String,
    /// The installed extension. Always present.
    pub extension_id: String,
    /// The organization that installed it. Always present.
    pub organization_id: String,
    /// Whether the install belongs to a project or the whole organization. Always present.
    pub install_scope: InstallScope,
    /// Where the install was made from. Always present.
    pub source: InstallSource,
    /// The scope keys granted at install. Always present.
    pub granted_scopes: Vec<String>,
    /// When the install was created. Always present.
    pub created_at: Timestamp,
    /// The project of a project install. Nullable: `null` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
}

impl HostEvent for InstallCreated {
    const NAME: &'static str = catalogue::INSTALL_CREATED.name;

    fn example() -> Self {
        Self {
            install_id: EXAMPLE_INSTALL.into(),
            extension_id: EXAMPLE_EXTENSION.into(),
            organization_id: EXAMPLE_ORGANIZATION.into(),
            install_scope: InstallScope::Project,
            source: InstallSource::Directory,
            granted_scopes: strings(&[
                "ui:render",
                "projects:read",
                "analytics:read",
                "store.metadata:read",
            ]),
            created_at: "2026-10-28T08:12:54Z".into(),
            project_id: Some(EXAMPLE_PROJECT.into()),
        }
    }
}

/// `install.paused`: the install was paused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallPaused {
    /// The install. Always present.
    pub install_id: String,
    /// The installed extension. Always present.
    pub extension_id: String,
    /// The organization owning the install. Always present.
    pub organization_id: String,
    /// When the install was paused. Always present.
    pub paused_at: Timestamp,
    /// The project of a project install. Nullable: `null` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
}

impl HostEvent for InstallPaused {
    const NAME: &'static str = catalogue::INSTALL_PAUSED.name;

    fn example() -> Self {
        Self {
            install_id: EXAMPLE_INSTALL.into(),
            extension_id: EXAMPLE_EXTENSION.into(),
            organization_id: EXAMPLE_ORGANIZATION.into(),
            paused_at: "2026-11-01T17:30:02Z".into(),
            project_id: Some(EXAMPLE_PROJECT.into()),
        }
    }
}

/// `install.resumed`: a paused install was resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallResumed {
    /// The install. Always present.
    pub install_id: String,
    /// The installed extension. Always present.
    pub extension_id: String,
    /// The organization owning the install. Always present.
    pub organization_id: String,
    /// When the install was resumed. Always present.
    pub resumed_at: Timestamp,
    /// The project of a project install. Nullable: `null` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
}

impl HostEvent for InstallResumed {
    const NAME: &'static str = catalogue::INSTALL_RESUMED.name;

    fn example() -> Self {
        Self {
            install_id: EXAMPLE_INSTALL.into(),
            extension_id: EXAMPLE_EXTENSION.into(),
            organization_id: EXAMPLE_ORGANIZATION.into(),
            resumed_at: "2026-11-02T08:05:40Z".into(),
            project_id: Some(EXAMPLE_PROJECT.into()),
        }
    }
}

/// `install.revoked`: the install ended, by uninstall or retirement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallRevoked {
    /// The install. Always present.
    pub install_id: String,
    /// The extension that was installed. Always present.
    pub extension_id: String,
    /// The organization that owned the install. Always present.
    pub organization_id: String,
    /// When the install was revoked. Always present.
    pub revoked_at: Timestamp,
    /// Why the install was revoked. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<RevokeReason>,
    /// The project of a project install. Nullable: `null` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
}

impl HostEvent for InstallRevoked {
    const NAME: &'static str = catalogue::INSTALL_REVOKED.name;

    fn example() -> Self {
        Self {
            install_id: EXAMPLE_INSTALL.into(),
            extension_id: EXAMPLE_EXTENSION.into(),
            organization_id: EXAMPLE_ORGANIZATION.into(),
            revoked_at: "2026-11-20T16:44:09Z".into(),
            reason: Some(RevokeReason::Uninstalled),
            project_id: Some(EXAMPLE_PROJECT.into()),
        }
    }
}

/// `install.token_rotated`: the install token was rotated. The new secret is never in the payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallTokenRotated {
    /// The install. Always present.
    pub install_id: String,
    /// The installed extension. Always present.
    pub extension_id: String,
    /// The organization owning the install. Always present.
    pub organization_id: String,
    /// The token generation after the rotation. Always present.
    pub generation: u64,
    /// When the token was rotated. Always present.
    pub rotated_at: Timestamp,
    /// The project of a project install. Nullable: `null` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
}

impl HostEvent for InstallTokenRotated {
    const NAME: &'static str = catalogue::INSTALL_TOKEN_ROTATED.name;

    fn example() -> Self {
        Self {
            install_id: EXAMPLE_INSTALL.into(),
            extension_id: EXAMPLE_EXTENSION.into(),
            organization_id: EXAMPLE_ORGANIZATION.into(),
            generation: 3,
            rotated_at: "2026-11-02T13:00:00Z".into(),
            project_id: Some(EXAMPLE_PROJECT.into()),
        }
    }
}

/// `scopes.changed`: the scopes granted to the install changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopesChanged {
    /// The install. Always present.
    pub install_id: String,
    /// The installed extension. Always present.
    pub extension_id: String,
    /// The organization owning the install. Always present.
    pub organization_id: String,
    /// The full set of granted scope keys after the change, so handlers replace rather than
    /// patch. Always present.
    pub granted_scopes: Vec<String>,
    /// When the scopes changed. Always present.
    pub changed_at: Timestamp,
    /// Scope keys granted by this change. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_scopes: Option<Vec<String>>,
    /// Scope keys withdrawn by this change. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_scopes: Option<Vec<String>>,
    /// The project of a project install. Nullable: `null` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
}

impl HostEvent for ScopesChanged {
    const NAME: &'static str = catalogue::SCOPES_CHANGED.name;

    fn example() -> Self {
        // Follows `InstallCreated::example`: `analytics:read` swapped for `alerts:write`.
        Self {
            install_id: EXAMPLE_INSTALL.into(),
            extension_id: EXAMPLE_EXTENSION.into(),
            organization_id: EXAMPLE_ORGANIZATION.into(),
            granted_scopes: strings(&[
                "ui:render",
                "projects:read",
                "store.metadata:read",
                "alerts:write",
            ]),
            changed_at: "2026-11-02T13:30:18Z".into(),
            added_scopes: Some(strings(&["alerts:write"])),
            removed_scopes: Some(strings(&["analytics:read"])),
            project_id: Some(EXAMPLE_PROJECT.into()),
        }
    }
}

/// `settings.changed`: an owner changed the install's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsChanged {
    /// The install. Always present.
    pub install_id: String,
    /// The installed extension. Always present.
    pub extension_id: String,
    /// The organization owning the install. Always present.
    pub organization_id: String,
    /// Names of the changed setting fields only; the values are not sent. Always present.
    pub keys: Vec<String>,
    /// When the settings changed. Always present.
    pub changed_at: Timestamp,
    /// The project of a project install. Nullable: `null` on an organization install.
    #[serde(default)]
    pub project_id: Option<String>,
}

impl HostEvent for SettingsChanged {
    const NAME: &'static str = catalogue::SETTINGS_CHANGED.name;

    fn example() -> Self {
        Self {
            install_id: EXAMPLE_INSTALL.into(),
            extension_id: EXAMPLE_EXTENSION.into(),
            organization_id: EXAMPLE_ORGANIZATION.into(),
            keys: strings(&["trackedCountries", "alertThreshold"]),
            changed_at: "2026-11-02T13:45:51Z".into(),
            project_id: Some(EXAMPLE_PROJECT.into()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The catalogue as seen from here.
// ---------------------------------------------------------------------------------------------

/// The content part of the deduplication key of a payload of the event `name`, read from its JSON by
/// the catalogue's forms: the one reading of them, for a typed payload ([`HostEvent::dedupe_key`])
/// and for a delivery (`dedupe::key_of`). A field's text is a string's own or a number's digits;
/// `null` counts as absent. An event without forms (reserved or unknown) has its whole payload as
/// the content, since it has no payload contract; so has a payload none of the forms reads (none
/// that parses as its event: each event's last form names fields its payload always has).
pub(crate) fn content_key(name: &str, payload: &serde_json::Value) -> String {
    use serde_json::Value;
    catalogue::event(name)
        .and_then(|event| {
            event.dedupe_content(|field| match payload.get(field)? {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                _ => None,
            })
        })
        .unwrap_or_else(|| payload.to_string())
}

/// One published event as this crate handles it: its name, the content part of its deduplication
/// key and its example payload, each read through its payload type.
pub(crate) struct Published {
    /// The catalogue name.
    pub name: &'static str,
    /// The content part of the deduplication key of a payload ([`content_key`]), or `None` when the
    /// payload does not parse as the event.
    pub dedupe_key: fn(&serde_json::Value) -> Option<String>,
    /// [`HostEvent::example`] as JSON.
    pub example: fn() -> Option<serde_json::Value>,
}

const fn published<E: HostEvent>() -> Published {
    fn dedupe_key<E: HostEvent>(payload: &serde_json::Value) -> Option<String> {
        // Only a payload that parses as the event has a key; the handler reports the others invalid.
        E::deserialize(payload).ok()?;
        Some(content_key(E::NAME, payload))
    }
    fn example<E: HostEvent>() -> Option<serde_json::Value> {
        serde_json::to_value(E::example()).ok()
    }
    Published {
        name: E::NAME,
        dedupe_key: dedupe_key::<E>,
        example: example::<E>,
    }
}

/// The 12 published events, in catalogue order: the one list of their payload types. Their names,
/// scopes and keys are the interface's catalogue (`host_interface::catalogue::EVENTS`); a test checks
/// that the list covers its published events.
pub(crate) const PUBLISHED: [Published; 12] = [
    published::<ReleaseShipped>(),
    published::<MetadataChanged>(),
    published::<KeywordSetChanged>(),
    published::<ScreenshotsUpdated>(),
    published::<PriceChanged>(),
    published::<InstallCreated>(),
    published::<InstallPaused>(),
    published::<InstallResumed>(),
    published::<InstallRevoked>(),
    published::<InstallTokenRotated>(),
    published::<ScopesChanged>(),
    published::<SettingsChanged>(),
];

/// The published event `name`, if it is one.
pub(crate) fn published_event(name: &str) -> Option<&'static Published> {
    PUBLISHED.iter().find(|e| e.name == name)
}

/// The names of the 12 published events, in catalogue order.
pub fn published_names() -> [&'static str; 12] {
    PUBLISHED.map(|e| e.name)
}

/// The realistic example payload ([`HostEvent::example`]) of the published event `name`, as JSON;
/// `None` for a reserved or unknown name. What `cargo host trigger` sends by default.
pub fn example_payload(name: &str) -> Option<serde_json::Value> {
    published_event(name).and_then(|e| (e.example)())
}

/// The payload type of a reserved event, which the host does not deliver yet.
///
/// It holds whatever JSON arrives, untyped, until the event is published and gets a struct of its
/// own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Unpublished(pub serde_json::Value);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::fmt::Debug;

    use chrono::{TimeZone, Timelike};
    use serde_json::{Value, json};

    use super::*;

    /// The interface's keys for one payload, by presence.
    struct Keys {
        always: &'static [&'static str],
        nullable: &'static [&'static str],
        optional: &'static [&'static str],
    }

    fn is_camel_case(key: &str) -> bool {
        key.starts_with(|c: char| c.is_ascii_lowercase())
            && key.chars().all(|c| c.is_ascii_alphanumeric())
    }

    fn parse<E: HostEvent>(value: Value) -> Result<E, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn without(value: &Value, key: &str) -> Value {
        let mut value = value.clone();
        value.as_object_mut().unwrap().remove(key);
        value
    }

    fn with(value: &Value, key: &str, field: Value) -> Value {
        let mut value = value.clone();
        value.as_object_mut().unwrap().insert(key.into(), field);
        value
    }

    /// Every check the interface implies for one payload type.
    fn check_payload<E: HostEvent + PartialEq + Debug>(keys: Keys) {
        let name = E::NAME;
        let example = E::example();
        let json = serde_json::to_value(&example).unwrap();

        // Examples fill every field, so the serialized keys are exactly the interface's.
        let mut actual: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in &actual {
            assert!(is_camel_case(key), "{name}: `{key}` is not camelCase");
        }
        let mut expected: Vec<&str> = [keys.always, keys.nullable, keys.optional].concat();
        actual.sort_unstable();
        expected.sort_unstable();
        assert_eq!(actual, expected, "{name}: serialized keys");
        check_dedupe_fields(name, &keys);

        // Example timestamps must parse, so `to_datetime` works on them.
        for key in expected.iter().filter(|k| k.ends_with("At")) {
            let text = json[*key].as_str().unwrap();
            assert!(
                Timestamp::from(text).to_datetime().is_some(),
                "{name}: {key} `{text}` does not parse"
            );
        }

        assert_eq!(
            parse::<E>(json.clone()).unwrap(),
            example,
            "{name}: round trip"
        );

        let grown = with(&json, "addedLater", json!({ "x": 1 }));
        assert_eq!(parse::<E>(grown).unwrap(), example, "{name}: unknown field");

        for key in keys.always {
            assert!(
                parse::<E>(without(&json, key)).is_err(),
                "{name}: accepted a payload without always-present `{key}`"
            );
        }

        // A nullable field reads `null` and absence alike, and is written back as `null`.
        for key in keys.nullable {
            for payload in [with(&json, key, Value::Null), without(&json, key)] {
                let back = serde_json::to_value(parse::<E>(payload).unwrap()).unwrap();
                assert_eq!(back[*key], Value::Null, "{name}: nullable `{key}`");
                assert!(
                    back.get(*key).is_some(),
                    "{name}: nullable `{key}` left out"
                );
            }
        }

        // An optional field reads `null` and absence alike, and is left out when written back.
        for key in keys.optional {
            for payload in [with(&json, key, Value::Null), without(&json, key)] {
                let back = serde_json::to_value(parse::<E>(payload).unwrap()).unwrap();
                assert!(back.get(*key).is_none(), "{name}: optional `{key}` written");
            }
        }
    }

    /// Every field of the event's dedupe forms is a key of its payload, and the last form names
    /// only keys the payload always has, so that every payload has a key.
    fn check_dedupe_fields(name: &str, keys: &Keys) {
        let forms = catalogue::event(name).unwrap().dedupe;
        let all = [keys.always, keys.nullable, keys.optional].concat();
        for form in forms {
            for field in catalogue::dedupe_fields(form) {
                assert!(all.contains(&field), "{name}: `{form}` names `{field}`");
            }
        }
        let last = forms.last().unwrap();
        for field in catalogue::dedupe_fields(last) {
            assert!(
                keys.always.contains(&field),
                "{name}: the last form `{last}` needs `{field}`, which a payload may lack"
            );
        }
    }

    /// The doc comment of `pub struct {ty}` in this file, its lines joined by spaces.
    fn struct_doc(ty: &str) -> String {
        const SOURCE: &str = include_str!("events.rs");
        let end = SOURCE
            .find(&format!("\npub struct {ty} "))
            .unwrap_or_else(|| panic!("no `pub struct {ty}` here"));
        let mut lines: Vec<&str> = SOURCE[..end]
            .lines()
            .rev()
            .skip_while(|line| line.starts_with("#["))
            .take_while(|line| line.starts_with("///"))
            .map(|line| line.trim_start_matches("///").trim())
            .collect();
        lines.reverse();
        lines.join(" ")
    }

    /// `E` is a published event of the catalogue, its doc names the event and the scope the
    /// catalogue gives it, and its example's typed key is the key of its JSON. Returns the name.
    fn check_against_catalogue<E: HostEvent>() -> &'static str {
        let name = E::NAME;
        let event = catalogue::event(name).unwrap();
        assert!(event.published, "{name} is not published");

        let ty = std::any::type_name::<E>().rsplit("::").next().unwrap();
        let doc = struct_doc(ty);
        assert!(
            doc.starts_with(&format!("`{name}`: ")),
            "{ty}: the doc is not of `{name}`: {doc}"
        );
        match event.scope {
            Some(scope) => assert!(
                doc.contains(&format!("Needs scope `{scope}`.")),
                "{ty}: the catalogue gives `{name}` the scope `{scope}`; the doc says: {doc}"
            ),
            None => assert!(
                !doc.contains("Needs scope"),
                "{ty}: `{name}` needs no scope; the doc says: {doc}"
            ),
        }

        let example = E::example();
        let payload = serde_json::to_value(&example).unwrap();
        assert_eq!(
            crate::dedupe::key_of(name, "ins_1", &payload),
            Some(format!("{name}|ins_1|{}", example.dedupe_key())),
            "{name}: the typed key and the key of the JSON differ"
        );
        name
    }

    #[test]
    fn every_event_type_agrees_with_the_catalogue() {
        let checked = [
            check_against_catalogue::<ReleaseShipped>(),
            check_against_catalogue::<MetadataChanged>(),
            check_against_catalogue::<KeywordSetChanged>(),
            check_against_catalogue::<ScreenshotsUpdated>(),
            check_against_catalogue::<PriceChanged>(),
            check_against_catalogue::<InstallCreated>(),
            check_against_catalogue::<InstallPaused>(),
            check_against_catalogue::<InstallResumed>(),
            check_against_catalogue::<InstallRevoked>(),
            check_against_catalogue::<InstallTokenRotated>(),
            check_against_catalogue::<ScopesChanged>(),
            check_against_catalogue::<SettingsChanged>(),
        ];
        assert_eq!(checked, published_names());
    }

    /// The backticked words of a Markdown table cell.
    fn ticked(cell: &str) -> Vec<&str> {
        cell.split('`').skip(1).step_by(2).collect()
    }

    // The interface page's table of content keys describes the catalogue's forms: each row names
    // the fields of its events' forms, or says "the event's own timestamp" for a single `...At`.
    #[test]
    fn the_interface_pages_key_table_follows_the_catalogue() {
        const PAGE: &str = include_str!("../../docs/interface.md");
        let fields_of = |event: &catalogue::Event| -> Vec<&str> {
            let mut fields: Vec<&str> = event
                .dedupe
                .iter()
                .flat_map(|form| catalogue::dedupe_fields(form))
                .collect();
            fields.sort_unstable();
            fields.dedup();
            fields
        };
        let is_own_timestamp = |fields: &[&str]| matches!(fields, [one] if one.ends_with("At"));
        let table = PAGE.split("| event | content key |").nth(1).unwrap();
        let mut named = Vec::new();
        for row in table.lines().skip(2).map(str::trim) {
            let Some(row) = row.strip_prefix('|') else {
                break;
            };
            let cells: Vec<&str> = row.split('|').collect();
            let mut fields: Vec<&str> = ticked(cells[1])
                .into_iter()
                .flat_map(|key| key.split('@'))
                .collect();
            fields.sort_unstable();
            for name in ticked(cells[0]) {
                let ours = fields_of(catalogue::event(name).unwrap());
                if fields.is_empty() {
                    assert!(is_own_timestamp(&ours), "{name}: the page says: {row}");
                } else {
                    assert_eq!(ours, fields, "{name}: the page says: {row}");
                }
                named.push(name);
            }
        }
        assert!(named.contains(&"release.shipped"), "no table read");
        for event in catalogue::EVENTS.iter().filter(|e| e.published) {
            if !named.contains(&event.name) {
                let ours = fields_of(event);
                assert!(is_own_timestamp(&ours), "{}: not on the page", event.name);
            }
        }
    }

    #[test]
    fn every_published_event_has_an_example_payload_and_no_other_does() {
        for name in published_names() {
            let payload = example_payload(name).unwrap();
            assert!(payload.is_object(), "{name}");
        }
        assert_eq!(example_payload("incident.opened"), None);
        assert_eq!(example_payload("release.shiped"), None);
    }

    #[test]
    fn published_names_follow_the_catalogue() {
        let catalogue: Vec<&str> = host_interface::catalogue::EVENTS
            .iter()
            .filter(|e| e.published)
            .map(|e| e.name)
            .collect();
        assert_eq!(published_names().to_vec(), catalogue);
    }

    #[test]
    fn release_shipped_payload() {
        check_payload::<ReleaseShipped>(Keys {
            always: &["projectId", "platform", "appId", "version", "shippedAt"],
            nullable: &["build"],
            optional: &["releaseId"],
        });
    }

    #[test]
    fn metadata_changed_payload() {
        check_payload::<MetadataChanged>(Keys {
            always: &[
                "projectId",
                "platform",
                "appId",
                "locale",
                "fields",
                "changedAt",
            ],
            nullable: &[],
            optional: &[],
        });
    }

    #[test]
    fn keyword_set_changed_payload() {
        check_payload::<KeywordSetChanged>(Keys {
            always: &["projectId", "platform", "appId", "country", "changedAt"],
            nullable: &[],
            optional: &["added", "removed", "total"],
        });
    }

    #[test]
    fn screenshots_updated_payload() {
        check_payload::<ScreenshotsUpdated>(Keys {
            always: &["projectId", "platform", "appId", "locale", "updatedAt"],
            nullable: &[],
            optional: &["deviceClass", "count"],
        });
    }

    #[test]
    fn price_changed_payload() {
        check_payload::<PriceChanged>(Keys {
            always: &[
                "projectId",
                "platform",
                "appId",
                "territory",
                "to",
                "currency",
                "changedAt",
            ],
            nullable: &["productId", "from"],
            optional: &[],
        });
    }

    #[test]
    fn install_created_payload() {
        check_payload::<InstallCreated>(Keys {
            always: &[
                "installId",
                "extensionId",
                "organizationId",
                "installScope",
                "source",
                "grantedScopes",
                "createdAt",
            ],
            nullable: &["projectId"],
            optional: &[],
        });
    }

    #[test]
    fn install_paused_payload() {
        check_payload::<InstallPaused>(Keys {
            always: &["installId", "extensionId", "organizationId", "pausedAt"],
            nullable: &["projectId"],
            optional: &[],
        });
    }

    #[test]
    fn install_resumed_payload() {
        check_payload::<InstallResumed>(Keys {
            always: &["installId", "extensionId", "organizationId", "resumedAt"],
            nullable: &["projectId"],
            optional: &[],
        });
    }

    #[test]
    fn install_revoked_payload() {
        check_payload::<InstallRevoked>(Keys {
            always: &["installId", "extensionId", "organizationId", "revokedAt"],
            nullable: &["projectId"],
            optional: &["reason"],
        });
    }

    #[test]
    fn install_token_rotated_payload() {
        check_payload::<InstallTokenRotated>(Keys {
            always: &[
                "installId",
                "extensionId",
                "organizationId",
                "generation",
                "rotatedAt",
            ],
            nullable: &["projectId"],
            optional: &[],
        });
    }

    #[test]
    fn scopes_changed_payload() {
        check_payload::<ScopesChanged>(Keys {
            always: &[
                "installId",
                "extensionId",
                "organizationId",
                "grantedScopes",
                "changedAt",
            ],
            nullable: &["projectId"],
            optional: &["addedScopes", "removedScopes"],
        });
    }

    #[test]
    fn settings_changed_payload() {
        check_payload::<SettingsChanged>(Keys {
            always: &[
                "installId",
                "extensionId",
                "organizationId",
                "keys",
                "changedAt",
            ],
            nullable: &["projectId"],
            optional: &[],
        });
    }

    #[test]
    fn example_scopes_are_catalogue_scope_keys() {
        let created = InstallCreated::example();
        let changed = ScopesChanged::example();
        let all = created
            .granted_scopes
            .iter()
            .chain(&changed.granted_scopes)
            .chain(changed.added_scopes.iter().flatten())
            .chain(changed.removed_scopes.iter().flatten());
        for key in all {
            assert!(
                host_interface::catalogue::scope(key).is_some(),
                "`{key}` is not a scope key"
            );
        }
    }

    #[test]
    fn organization_install_has_no_project() {
        let mut payload = serde_json::to_value(InstallCreated::example()).unwrap();
        payload["installScope"] = json!("organization");
        payload["projectId"] = Value::Null;
        let created: InstallCreated = serde_json::from_value(payload).unwrap();
        assert_eq!(created.install_scope, InstallScope::Organization);
        assert_eq!(created.project_id, None);
    }

    #[test]
    fn unknown_enum_values_fall_back_to_unknown() {
        let mut created = serde_json::to_value(InstallCreated::example()).unwrap();
        created["source"] = json!("marketplace");
        let created: InstallCreated = serde_json::from_value(created).unwrap();
        assert_eq!(created.source, InstallSource::Unknown);

        let mut shipped = serde_json::to_value(ReleaseShipped::example()).unwrap();
        shipped["platform"] = json!("visionos");
        let shipped: ReleaseShipped = serde_json::from_value(shipped).unwrap();
        assert_eq!(shipped.platform, Platform::Unknown);

        let mut revoked = serde_json::to_value(InstallRevoked::example()).unwrap();
        revoked["reason"] = json!("banned");
        let revoked: InstallRevoked = serde_json::from_value(revoked).unwrap();
        assert_eq!(revoked.reason, Some(RevokeReason::Unknown));
    }

    #[test]
    fn suspended_reason_is_read_though_never_sent() {
        let mut revoked = serde_json::to_value(InstallRevoked::example()).unwrap();
        revoked["reason"] = json!("suspended");
        let revoked: InstallRevoked = serde_json::from_value(revoked).unwrap();
        assert_eq!(revoked.reason, Some(RevokeReason::Suspended));
    }

    #[test]
    fn release_key_is_the_release_id() {
        let first = ReleaseShipped::example();
        let retried = ReleaseShipped {
            shipped_at: "2026-11-02T14:03:12Z".into(),
            ..first.clone()
        };
        assert_eq!(first.dedupe_key(), retried.dedupe_key());
        assert_eq!(first.dedupe_key(), "rel_8Hc41");
    }

    #[test]
    fn release_key_without_release_id_uses_version_and_time() {
        let shipped = ReleaseShipped {
            release_id: None,
            ..ReleaseShipped::example()
        };
        assert_eq!(shipped.dedupe_key(), "4.12.0@2026-11-02T14:03:11Z");
    }

    #[test]
    fn store_keys_include_locale_country_or_territory() {
        let en = MetadataChanged::example();
        let fr = MetadataChanged {
            locale: "fr-FR".into(),
            ..en.clone()
        };
        assert_ne!(en.dedupe_key(), fr.dedupe_key());

        let us = KeywordSetChanged::example();
        let gb = KeywordSetChanged {
            country: "GB".into(),
            ..us.clone()
        };
        assert_ne!(us.dedupe_key(), gb.dedupe_key());

        let de = ScreenshotsUpdated::example();
        let it = ScreenshotsUpdated {
            locale: "it-IT".into(),
            ..de.clone()
        };
        assert_ne!(de.dedupe_key(), it.dedupe_key());
    }

    #[test]
    fn price_key_adds_the_product_when_present() {
        let product = PriceChanged::example();
        assert_eq!(product.dedupe_key(), "2026-11-02T12:00:00Z|US|pro_monthly");
        let app = PriceChanged {
            product_id: None,
            ..product
        };
        assert_eq!(app.dedupe_key(), "2026-11-02T12:00:00Z|US");
    }

    #[test]
    fn token_rotation_key_is_the_generation() {
        let rotated = InstallTokenRotated {
            generation: 12,
            ..InstallTokenRotated::example()
        };
        assert_eq!(rotated.dedupe_key(), "12");
    }

    #[test]
    fn install_keys_are_their_own_timestamp() {
        assert_eq!(
            InstallCreated::example().dedupe_key(),
            "2026-10-28T08:12:54Z"
        );
        assert_eq!(
            InstallPaused::example().dedupe_key(),
            "2026-11-01T17:30:02Z"
        );
        assert_eq!(
            InstallResumed::example().dedupe_key(),
            "2026-11-02T08:05:40Z"
        );
        assert_eq!(
            InstallRevoked::example().dedupe_key(),
            "2026-11-20T16:44:09Z"
        );
        assert_eq!(
            ScopesChanged::example().dedupe_key(),
            "2026-11-02T13:30:18Z"
        );
        assert_eq!(
            SettingsChanged::example().dedupe_key(),
            "2026-11-02T13:45:51Z"
        );
    }

    #[test]
    fn timestamp_parses_rfc3339_and_rejects_other_text() {
        let plain = Timestamp::from("2026-11-02T14:03:11Z")
            .to_datetime()
            .unwrap();
        assert_eq!(plain, Utc.with_ymd_and_hms(2026, 11, 2, 14, 3, 11).unwrap());

        let fractional = Timestamp::from("2026-11-02T14:03:11.250+00:00")
            .to_datetime()
            .unwrap();
        assert_eq!(fractional.timestamp(), plain.timestamp());
        assert_eq!(fractional.nanosecond(), 250_000_000);

        assert_eq!(Timestamp::from("yesterday").to_datetime(), None);
    }

    #[test]
    fn timestamp_from_datetime_is_utc_seconds_with_z() {
        let time = Utc.with_ymd_and_hms(2026, 11, 2, 14, 3, 11).unwrap()
            + chrono::Duration::milliseconds(250);
        let stamp = Timestamp::from(time);
        assert_eq!(stamp.as_str(), "2026-11-02T14:03:11Z");
        assert_eq!(stamp.to_string(), "2026-11-02T14:03:11Z");
    }

    #[test]
    fn timestamp_keeps_the_host_text() {
        let text = "2026-11-02T14:03:11.250+00:00";
        let stamp: Timestamp = serde_json::from_value(json!(text)).unwrap();
        assert_eq!(stamp.as_str(), text);
        assert_eq!(serde_json::to_value(&stamp).unwrap(), json!(text));
    }

    #[test]
    fn unpublished_holds_any_json() {
        let payload = json!({ "score": 71, "previous": 64 });
        let held: Unpublished = serde_json::from_value(payload.clone()).unwrap();
        assert_eq!(held.0, payload);
        assert_eq!(serde_json::to_value(&held).unwrap(), payload);
    }

    /// The typed key of `E`'s example, with its name.
    fn typed_key<E: HostEvent>() -> (&'static str, String) {
        (E::NAME, E::example().dedupe_key())
    }

    /// The typed key of `payload` read as `E`.
    fn typed_key_of<E: HostEvent>(payload: &Value) -> String {
        parse::<E>(payload.clone()).unwrap().dedupe_key()
    }

    /// The whole key [`crate::dedupe::key_of`] makes of `payload` for the install `ins_1`.
    fn json_key(name: &str, payload: &Value) -> Option<String> {
        crate::dedupe::key_of(name, "ins_1", payload)
    }

    // Every example's key as the SDK has always made it, by both paths: a change to how keys are
    // read must not change one byte of them, or deliveries already recorded would run again.
    #[test]
    fn dedupe_keys_of_the_examples_are_pinned() {
        let pinned = [
            ("release.shipped", "rel_8Hc41"),
            ("metadata.changed", "2026-11-02T09:41:27Z|en-US"),
            ("keyword.set_changed", "2026-11-02T10:15:00Z|US"),
            ("screenshots.updated", "2026-11-02T11:20:45Z|de-DE"),
            ("price.changed", "2026-11-02T12:00:00Z|US|pro_monthly"),
            ("install.created", "2026-10-28T08:12:54Z"),
            ("install.paused", "2026-11-01T17:30:02Z"),
            ("install.resumed", "2026-11-02T08:05:40Z"),
            ("install.revoked", "2026-11-20T16:44:09Z"),
            ("install.token_rotated", "3"),
            ("scopes.changed", "2026-11-02T13:30:18Z"),
            ("settings.changed", "2026-11-02T13:45:51Z"),
        ];
        let typed = [
            typed_key::<ReleaseShipped>(),
            typed_key::<MetadataChanged>(),
            typed_key::<KeywordSetChanged>(),
            typed_key::<ScreenshotsUpdated>(),
            typed_key::<PriceChanged>(),
            typed_key::<InstallCreated>(),
            typed_key::<InstallPaused>(),
            typed_key::<InstallResumed>(),
            typed_key::<InstallRevoked>(),
            typed_key::<InstallTokenRotated>(),
            typed_key::<ScopesChanged>(),
            typed_key::<SettingsChanged>(),
        ];
        for ((name, key), typed) in pinned.into_iter().zip(typed) {
            assert_eq!(typed, (name, key.to_owned()), "{name}: typed key");
            let payload = example_payload(name).unwrap();
            assert_eq!(
                json_key(name, &payload),
                Some(format!("{name}|ins_1|{key}")),
                "{name}: key of the JSON payload"
            );
        }
    }

    #[test]
    fn dedupe_key_fallbacks_are_pinned() {
        let release = example_payload("release.shipped").unwrap();
        for payload in [
            without(&release, "releaseId"),
            with(&release, "releaseId", Value::Null),
        ] {
            let key = "4.12.0@2026-11-02T14:03:11Z";
            assert_eq!(typed_key_of::<ReleaseShipped>(&payload), key);
            let json = json_key("release.shipped", &payload);
            assert_eq!(json, Some(format!("release.shipped|ins_1|{key}")));
        }

        let price = example_payload("price.changed").unwrap();
        for payload in [
            without(&price, "productId"),
            with(&price, "productId", Value::Null),
        ] {
            let key = "2026-11-02T12:00:00Z|US";
            assert_eq!(typed_key_of::<PriceChanged>(&payload), key);
            let json = json_key("price.changed", &payload);
            assert_eq!(json, Some(format!("price.changed|ins_1|{key}")));
        }

        let rotated = with(
            &example_payload("install.token_rotated").unwrap(),
            "generation",
            json!(18_446_744_073_709_551_615_u64),
        );
        assert_eq!(
            typed_key_of::<InstallTokenRotated>(&rotated),
            "18446744073709551615"
        );
        assert_eq!(
            json_key("install.token_rotated", &rotated).as_deref(),
            Some("install.token_rotated|ins_1|18446744073709551615")
        );
    }

    #[test]
    fn dedupe_keys_of_payloads_that_do_not_parse_and_of_reserved_events_are_pinned() {
        let release = example_payload("release.shipped").unwrap();
        for payload in [
            without(&release, "version"),
            with(&release, "releaseId", json!(7)),
            json!("rel_8Hc41"),
            Value::Null,
        ] {
            assert_eq!(json_key("release.shipped", &payload), None, "{payload}");
        }
        let rotated = example_payload("install.token_rotated").unwrap();
        for generation in [json!(3.0), json!(-3), json!("3")] {
            let payload = with(&rotated, "generation", generation);
            assert_eq!(
                json_key("install.token_rotated", &payload),
                None,
                "{payload}"
            );
        }
        let score = json!({ "score": 71, "previous": 64 });
        assert_eq!(
            json_key("score.changed", &score).as_deref(),
            Some(r#"score.changed|ins_1|{"previous":64,"score":71}"#)
        );
        assert_eq!(
            json_key("not.an_event", &Value::Null).as_deref(),
            Some("not.an_event|ins_1|null")
        );
    }
}
