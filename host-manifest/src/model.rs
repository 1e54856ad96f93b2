//! The typed model of a validated manifest: what the code generator and other tools consume, so that no
//! later stage re-reads raw JSON.
//!
//! Every type mirrors a table of the interface. Values are only built from manifests that passed
//! validation, so the types are exact (closed enums, required members required); embedded JSON Schemas
//! stay [`serde_json::Value`]s.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An embedded JSON Schema, kept as written.
pub type JsonSchema = Value;

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )*
        }

        impl $name {
            /// The value as written in the manifest.
            pub fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $text, )* }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum! {
    /// Directory section.
    Category {
        /// `market_data`
        MarketData = "market_data",
        /// `subscriptions`
        Subscriptions = "subscriptions",
        /// `product_analytics`
        ProductAnalytics = "product_analytics",
        /// `crashes`
        Crashes = "crashes",
        /// `attribution`
        Attribution = "attribution",
        /// `experiments`
        Experiments = "experiments",
        /// `messaging`
        Messaging = "messaging",
        /// `session_replay`
        SessionReplay = "session_replay",
        /// `localization`
        Localization = "localization",
        /// `design`
        Design = "design",
        /// `ci_cd`
        CiCd = "ci_cd",
        /// `trackers`
        Trackers = "trackers",
        /// `support`
        Support = "support",
        /// `chat`
        Chat = "chat",
        /// `ad_monetization`
        AdMonetization = "ad_monetization",
        /// `warehouse`
        Warehouse = "warehouse",
        /// `compliance`
        Compliance = "compliance",
        /// `additional_stores`
        AdditionalStores = "additional_stores",
    }
}

string_enum! {
    /// Who can find and install the extension.
    Visibility {
        /// Listed in the directory; needs all five listing fields.
        Public = "public",
        /// Installable by link.
        Unlisted = "unlisted",
        /// Installable only in the author's own workspace.
        Private = "private",
    }
}

string_enum! {
    /// What one install belongs to.
    InstallScope {
        /// One project.
        Project = "project",
        /// A whole organization (no pages, tabs, widgets or series).
        Organization = "organization",
    }
}

string_enum! {
    /// A host page that carries tabs, widgets and banners.
    HostPage {
        /// `overview`
        Overview = "overview",
        /// `analytics`
        Analytics = "analytics",
        /// `deployments`
        Deployments = "deployments",
        /// `ai_chat`
        AiChat = "ai_chat",
    }
}

string_enum! {
    /// An anchor for widgets on a host page (each page has its own set; see `catalogue::PAGE_SLOTS`).
    Slot {
        /// `kpi-row`
        KpiRow = "kpi-row",
        /// `insights`
        Insights = "insights",
        /// `sidebar`
        Sidebar = "sidebar",
        /// `below-chart`
        BelowChart = "below-chart",
        /// `below-list`
        BelowList = "below-list",
    }
}

string_enum! {
    /// Columns by rows.
    WidgetSize {
        /// `1x1`
        OneByOne = "1x1",
        /// `2x1`
        TwoByOne = "2x1",
        /// `2x2`
        TwoByTwo = "2x2",
    }
}

string_enum! {
    /// A host chart, or every chart (`*`, markers only).
    Chart {
        /// `installs-activity`
        InstallsActivity = "installs-activity",
        /// `conversion`
        Conversion = "conversion",
        /// `release-cadence`
        ReleaseCadence = "release-cadence",
        /// `*`: every chart (markers only).
        All = "*",
    }
}

string_enum! {
    /// A host table whose row menu gains an entry.
    Table {
        /// `analytics.keywords`
        AnalyticsKeywords = "analytics.keywords",
        /// `analytics.reviews`
        AnalyticsReviews = "analytics.reviews",
        /// `deployments.releases`
        DeploymentsReleases = "deployments.releases",
        /// `deployments.builds`
        DeploymentsBuilds = "deployments.builds",
    }
}

string_enum! {
    /// Owner of a storage collection's documents.
    StorageScope {
        /// `user`
        User = "user",
        /// `install`
        Install = "install",
        /// `organization`
        Organization = "organization",
    }
}

string_enum! {
    /// Credential flow at install.
    AuthMethod {
        /// No credentials.
        None = "none",
        /// Owners paste keys into the auth fields.
        ApiKey = "api_key",
        /// OAuth against the outside service.
        Oauth = "oauth",
    }
}

string_enum! {
    /// Input kind of an auth field.
    FieldType {
        /// `text`
        Text = "text",
        /// `password`
        Password = "password",
        /// `textarea`
        Textarea = "textarea",
        /// `file` (the value arrives base64-encoded)
        File = "file",
        /// `select`
        Select = "select",
    }
}

string_enum! {
    /// How often the host asks the vendor server to sync.
    SyncInterval {
        /// `5m`
        FiveMinutes = "5m",
        /// `15m`
        FifteenMinutes = "15m",
        /// `1h`
        OneHour = "1h",
        /// `6h`
        SixHours = "6h",
        /// `24h`
        OneDay = "24h",
    }
}

string_enum! {
    /// Value formatting of a metric or answer.
    Unit {
        /// `count`
        Count = "count",
        /// `ratio`
        Ratio = "ratio",
        /// `currency`
        Currency = "currency",
        /// `seconds`
        Seconds = "seconds",
        /// `bytes`
        Bytes = "bytes",
    }
}

string_enum! {
    /// How a metric behaves over time.
    MetricKind {
        /// Level at a point in time.
        Gauge = "gauge",
        /// Accumulates.
        Counter = "counter",
    }
}

string_enum! {
    /// What the host makes of a vendor event.
    WebhookKind {
        /// An inbox alert.
        Alert = "alert",
        /// A page banner.
        Banner = "banner",
        /// A readable event for chart markers and client subscriptions.
        Event = "event",
    }
}

string_enum! {
    /// The card drawn from a tool's answer (each kind has its own answer shape).
    Returns {
        /// `comparison`
        Comparison = "comparison",
        /// `table`
        Table = "table",
        /// `series`
        Series = "series",
        /// `list`
        List = "list",
        /// `value`
        Value = "value",
    }
}

string_enum! {
    /// Rough cost of one tool call.
    Cost {
        /// `low`
        Low = "low",
        /// `medium`
        Medium = "medium",
        /// `high`
        High = "high",
    }
}

string_enum! {
    /// How long an identical call may be served from cache.
    CacheFor {
        /// `1m`
        OneMinute = "1m",
        /// `5m`
        FiveMinutes = "5m",
        /// `1h`
        OneHour = "1h",
    }
}

string_enum! {
    /// Kind of knowledge file.
    KnowledgeCategory {
        /// `metric_definitions`
        MetricDefinitions = "metric_definitions",
        /// `gotchas`
        Gotchas = "gotchas",
        /// `setup`
        Setup = "setup",
    }
}

string_enum! {
    /// Where a prompt is offered.
    Surface {
        /// `chat_suggestion`
        ChatSuggestion = "chat_suggestion",
        /// `widget`
        Widget = "widget",
        /// `page`
        Page = "page",
        /// `result_card`
        ResultCard = "result_card",
    }
}

string_enum! {
    /// When a context provider is asked.
    ContextWhen {
        /// At the start of each assistant turn.
        TurnStart = "turn_start",
        /// When the owner mentions the extension.
        Mention = "mention",
    }
}

string_enum! {
    /// Kind of work destination.
    WorkKind {
        /// `tracker`
        Tracker = "tracker",
        /// `docs`
        Docs = "docs",
        /// `chat`
        Chat = "chat",
    }
}

string_enum! {
    /// What a work destination can create.
    WorkItemKind {
        /// `issue`
        Issue = "issue",
        /// `page`
        Page = "page",
        /// `message`
        Message = "message",
    }
}

string_enum! {
    /// What can be attached to a work item.
    AttachmentKind {
        /// `image`
        Image = "image",
        /// `link`
        Link = "link",
    }
}

string_enum! {
    /// Comment sync of a work destination.
    CommentSync {
        /// Comments flow both ways.
        TwoWay = "two-way",
        /// No comment sync.
        None = "none",
    }
}

string_enum! {
    /// Whom work items are created as.
    Identity {
        /// The asking owner.
        User = "user",
        /// The install.
        Install = "install",
    }
}

string_enum! {
    /// Whether a procedure reads or writes.
    ProcedureKind {
        /// `read`
        Read = "read",
        /// `write`
        Write = "write",
    }
}

/// A validated `host.extension.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Manifest {
    /// URL of the JSON Schema, for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Extension identifier.
    pub id: String,
    /// Name shown to owners.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Icon path, relative to the manifest.
    pub icon: String,
    /// Directory section.
    pub category: Category,
    /// npm-style semver range of the SDK the build targets.
    pub sdk: String,
    /// Who can find and install the extension.
    pub visibility: Visibility,
    /// What one install belongs to.
    pub install_scope: InstallScope,
    /// Permissions granted at install.
    pub scopes: Vec<ScopeGrant>,
    /// What the extension adds.
    pub contributes: Contributes,
    /// The vendor server the host calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Server>,
    /// Telemetry names the extension may report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub telemetry: Vec<String>,
    /// Directory listing content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing: Option<Listing>,
}

/// One entry of `scopes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeGrant {
    /// The scope key, one of [`crate::catalogue::SCOPES`].
    pub key: String,
    /// Reason shown on the consent screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub justification: Option<String>,
}

/// `contributes`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Contributes {
    /// The extension's own pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<Page>,
    /// Tabs on host pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tabs: Vec<Tab>,
    /// Cards in host page slots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub widgets: Vec<Widget>,
    /// Lines on host charts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<Series>,
    /// Banners raised by `banner` webhooks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub banners: Vec<Banner>,
    /// Entries in host table row menus.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row_actions: Vec<RowAction>,
    /// Chart markers from `event` webhooks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<Marker>,
    /// The settings panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    /// Hosted storage collections by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub storage: BTreeMap<String, StorageCollection>,
    /// Authentication, sync schedule and metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connector: Option<Connector>,
    /// Events the vendor server posts to the host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub webhooks: Vec<Webhook>,
    /// Assistant contributions.
    #[serde(default, skip_serializing_if = "Ai::is_empty")]
    pub ai: Ai,
    /// The work destination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<Work>,
}

/// `contributes.pages[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// Contribution id.
    pub id: String,
    /// Label.
    pub title: String,
    /// Render source.
    pub entry: String,
    /// Also add a project navigation entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nav: Option<bool>,
    /// False hides the page on phone layouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobile: Option<bool>,
}

/// `contributes.tabs[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tab {
    /// Contribution id.
    pub id: String,
    /// Label.
    pub title: String,
    /// Render source.
    pub entry: String,
    /// Host page carrying the tab.
    pub page: HostPage,
    /// False hides the tab on phone layouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobile: Option<bool>,
}

/// `contributes.widgets[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Widget {
    /// Contribution id.
    pub id: String,
    /// Label.
    pub title: String,
    /// Render source.
    pub entry: String,
    /// Host page.
    pub page: HostPage,
    /// Anchor on that page.
    pub slot: Slot,
    /// Columns by rows.
    pub size: WidgetSize,
    /// Whether the widget can open in the expand panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expandable: Option<bool>,
    /// False hides the widget on phone layouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobile: Option<bool>,
}

/// `contributes.series[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// Contribution id.
    pub id: String,
    /// Legend label.
    pub label: String,
    /// Chart that gets the line.
    pub chart: Chart,
    /// A connector metric key.
    pub metric: String,
}

/// `contributes.banners[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Banner {
    /// Contribution id.
    pub id: String,
    /// Page that shows it.
    pub page: HostPage,
    /// A webhook declared with `as: "banner"`.
    pub event: String,
}

/// `contributes.rowActions[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowAction {
    /// Contribution id.
    pub id: String,
    /// Label.
    pub title: String,
    /// Render source.
    pub entry: String,
    /// Table whose row menu gains the entry.
    pub table: Table,
}

/// `contributes.markers[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Marker {
    /// Contribution id.
    pub id: String,
    /// Label.
    pub label: String,
    /// Chart, or every chart.
    pub chart: Chart,
    /// A webhook declared with `as: "event"`.
    pub event: String,
    /// One or two characters drawn on the time axis.
    pub glyph: String,
}

/// `contributes.settings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Render source.
    pub entry: String,
    /// Schema of the values owners fill in (the reserved `settings` collection).
    pub schema: JsonSchema,
}

/// `contributes.storage.<name>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageCollection {
    /// Owner of the documents.
    pub scope: StorageScope,
    /// The collection holds exactly one document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub singleton: Option<bool>,
    /// Schema of one document.
    pub schema: JsonSchema,
}

/// `contributes.connector`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Connector {
    /// Owner authentication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Auth>,
    /// Sync schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncInterval>,
    /// Metrics written into the metrics store.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<Metric>,
}

/// `contributes.connector.auth`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// Credential flow at install.
    pub method: AuthMethod,
    /// Credentials owners enter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<AuthField>,
    /// OAuth endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuth>,
}

/// `contributes.connector.auth.fields[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthField {
    /// Key under which the vendor server reads the value.
    pub name: String,
    /// Input label.
    pub label: String,
    /// Input kind.
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// Must be filled in for the install to work.
    pub required: bool,
    /// Choices for `select`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Hint under the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// `contributes.connector.auth.oauth`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuth {
    /// Where owners approve access.
    pub authorization_url: String,
    /// Where the authorization code is exchanged.
    pub token_url: String,
    /// Scopes asked of the outside service.
    pub scopes: Vec<String>,
}

/// `contributes.connector.metrics[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Metric {
    /// Metric key.
    pub key: String,
    /// Label.
    pub label: String,
    /// Value formatting.
    pub unit: Unit,
    /// Gauge or counter.
    pub kind: MetricKind,
    /// Breakdowns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dimensions: Vec<Dimension>,
    /// Days of history fetched on first sync.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backfill_days: Option<u8>,
}

/// One breakdown of a metric.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dimension {
    /// Dimension key.
    pub key: String,
    /// Label.
    pub label: String,
}

/// `contributes.webhooks[]`: an event the vendor server posts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Webhook {
    /// Event name, `domain.thing`.
    pub event: String,
    /// What the host makes of it.
    #[serde(rename = "as")]
    pub kind: WebhookKind,
    /// Schema of the posted payload.
    pub payload: JsonSchema,
}

/// `contributes.ai`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ai {
    /// Assistant tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Mention pickers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<Mention>,
    /// Owner-approved actions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    /// Markdown the assistant indexes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knowledge: Vec<Knowledge>,
    /// Skills.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<Skill>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<Prompt>,
    /// Context providers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<ContextProvider>,
}

/// `contributes.ai.tools[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// Contribution id.
    pub id: String,
    /// What the assistant reads when deciding to call it.
    pub description: String,
    /// Arguments schema.
    pub input: JsonSchema,
    /// Card drawn from the result.
    pub returns: Returns,
    /// Rough cost of one call.
    pub cost: Cost,
    /// How long an identical call may be served from cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheFor>,
}

/// `contributes.ai.mentions[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mention {
    /// Contribution id.
    pub id: String,
    /// Label.
    pub label: String,
    /// Recorded picker path (the host always calls `/host/mentions/<id>`).
    pub list: String,
}

/// `contributes.ai.actions[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Action {
    /// Contribution id.
    pub id: String,
    /// Text owners read on the approval card.
    pub description: String,
    /// Arguments schema.
    pub input: JsonSchema,
    /// Always true.
    pub approval: bool,
    /// Whether the owner can undo it.
    pub reversible: bool,
    /// Scope the action needs.
    pub scope: String,
    /// Whether the approval card shows cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimates_cost: Option<bool>,
}

/// `contributes.ai.knowledge[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Knowledge {
    /// Contribution id.
    pub id: String,
    /// Kind of knowledge.
    pub category: KnowledgeCategory,
    /// Markdown file, relative to the manifest.
    pub file: String,
}

/// `contributes.ai.skills[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Skill {
    /// Contribution id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Markdown file, relative to the manifest.
    pub file: String,
    /// Tool ids the skill uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
}

/// `contributes.ai.prompts[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// Contribution id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Template with `{{project.*}}`, `{{context.*}}` and `{{input.*}}` placeholders.
    pub template: String,
    /// Where the prompt is offered.
    pub surfaces: Vec<Surface>,
    /// Tool ids after which the prompt is suggested.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
    /// Schema of a short owner form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<JsonSchema>,
}

/// `contributes.ai.context[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextProvider {
    /// Contribution id.
    pub id: String,
    /// Description.
    pub description: String,
    /// When the host asks for it.
    pub when: Vec<ContextWhen>,
    /// How long an answer may be cached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheFor>,
}

/// `contributes.work`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Work {
    /// Destination kind.
    pub kind: WorkKind,
    /// What a container is called and where to list them.
    pub container: WorkContainer,
    /// What can be created.
    pub creates: Vec<WorkItemKind>,
    /// Fields of a new item.
    pub fields: WorkFields,
    /// What can be attached.
    pub attachments: Vec<AttachmentKind>,
    /// Comment sync.
    pub comments: CommentSync,
    /// Status sync.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<WorkStatus>,
    /// Whom items are created as.
    pub identity: Identity,
}

/// `contributes.work.container`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkContainer {
    /// What a container is called.
    pub label: String,
    /// Path under `server.baseUrl` listing selectable containers.
    pub list: String,
}

/// `contributes.work.fields`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkFields {
    /// Priorities, highest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub priority: Vec<String>,
    /// Whether labels can be set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<bool>,
    /// Whether an assignee can be set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<bool>,
    /// Fields the owner must fill in.
    pub required: Vec<String>,
}

/// `contributes.work.status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkStatus {
    /// Event the vendor server posts on a status change.
    pub webhook: String,
    /// The vendor's status names per host state.
    pub map: WorkStatusMap,
}

/// `contributes.work.status.map`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkStatusMap {
    /// Vendor statuses meaning open.
    pub open: Vec<String>,
    /// Vendor statuses meaning in progress.
    pub in_progress: Vec<String>,
    /// Vendor statuses meaning done.
    pub done: Vec<String>,
}

/// `server`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Server {
    /// Address the host calls.
    pub base_url: String,
    /// Address for dev installs and sandbox projects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_base_url: Option<String>,
    /// Procedures the host may call, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub procedures: BTreeMap<String, Procedure>,
    /// Host events the server subscribes to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
}

/// `server.procedures.<name>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Procedure {
    /// Schema of the argument.
    pub input: JsonSchema,
    /// Schema of the answer.
    pub output: JsonSchema,
    /// How long identical calls may be served from cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheFor>,
    /// Whether it reads or writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ProcedureKind>,
}

/// `listing`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Listing {
    /// Markdown body of the listing page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_description: Option<String>,
    /// Screenshot paths, relative to the manifest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub screenshots: Vec<String>,
    /// Learn-more address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    /// Support address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub support_url: Option<String>,
    /// Privacy policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_url: Option<String>,
}

impl Ai {
    /// Whether the extension makes no assistant contribution.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.mentions.is_empty()
            && self.actions.is_empty()
            && self.knowledge.is_empty()
            && self.skills.is_empty()
            && self.prompts.is_empty()
            && self.context.is_empty()
    }
}

impl Manifest {
    /// Whether the manifest declares the scope `key`.
    pub fn declares_scope(&self, key: &str) -> bool {
        self.scopes.iter().any(|s| s.key == key)
    }

    /// The host events the vendor server subscribes to (empty without a server).
    pub fn subscribed_events(&self) -> &[String] {
        self.server.as_ref().map_or(&[], |s| s.events.as_slice())
    }
}
