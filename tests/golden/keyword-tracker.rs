const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/host.extension.json"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/assets/icon.png"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/RankingsPage.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/OpportunitiesPage.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/KeywordsTab.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/RankMoversWidget.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/VisibilityWidget.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/TrackKeywordAction.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/Settings.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/docs/rank-definitions.md"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/docs/connecting.md"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/docs/skills/weekly-rank-review.md"
);
/// What `host.extension.json` declares for `keyword-tracker` (Keyword Tracker), as constants and enums.
///
/// Daily App Store and Google Play keyword ranks, with alerts when a tracked keyword drops.
#[allow(dead_code)]
#[allow(unreachable_pub)]
pub mod manifest {
    /// The extension id.
    pub const EXTENSION_ID: &str = "keyword-tracker";
    /// The name shown to owners.
    pub const NAME: &str = "Keyword Tracker";
    /// The SDK range the manifest targets.
    pub const SDK: &str = "^2.0.0";
    /// A scope the manifest declares under `scopes`.
    #[derive(
        ::core::fmt::Debug,
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
        ::core::hash::Hash
    )]
    pub enum Scope {
        /// `ui:render`
        UiRender,
        /// `projects:read`
        ProjectsRead,
        /// `metrics:write`: Writes the metrics the connector syncs from your account into the host metrics store, so they can be charted next to your installs.
        MetricsWrite,
        /// `alerts:write`: Raises inbox alerts and page banners when the vendor detects a change that needs your attention.
        AlertsWrite,
        /// `insights:write`: Saves insights the assistant drafts to the project insight feed, only after you approve each one.
        InsightsWrite,
        /// `ai:tools`
        AiTools,
        /// `ai:actions`: Lets the assistant propose changes that run only after an owner approves them on the approval card.
        AiActions,
        /// `storage:write`: Keeps your watchlists and saved views in hosted storage that belongs to this install.
        StorageWrite,
        /// `ai:skills`
        AiSkills,
    }
    impl Scope {
        /// Every value, in manifest order.
        pub const ALL: &'static [Scope] = &[
            Scope::UiRender,
            Scope::ProjectsRead,
            Scope::MetricsWrite,
            Scope::AlertsWrite,
            Scope::InsightsWrite,
            Scope::AiTools,
            Scope::AiActions,
            Scope::StorageWrite,
            Scope::AiSkills,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Scope::UiRender => "ui:render",
                Scope::ProjectsRead => "projects:read",
                Scope::MetricsWrite => "metrics:write",
                Scope::AlertsWrite => "alerts:write",
                Scope::InsightsWrite => "insights:write",
                Scope::AiTools => "ai:tools",
                Scope::AiActions => "ai:actions",
                Scope::StorageWrite => "storage:write",
                Scope::AiSkills => "ai:skills",
            }
        }
    }
    /// A host event the vendor server subscribes to under `server.events`.
    #[derive(
        ::core::fmt::Debug,
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
        ::core::hash::Hash
    )]
    pub enum SubscribedEvent {
        /// `release.shipped`: delivered to `POST /host/events`.
        ReleaseShipped,
        /// `install.created`: delivered to `POST /host/events`.
        InstallCreated,
        /// `install.paused`: delivered to `POST /host/events`.
        InstallPaused,
        /// `install.resumed`: delivered to `POST /host/events`.
        InstallResumed,
        /// `install.revoked`: delivered to `POST /host/events`.
        InstallRevoked,
        /// `install.token_rotated`: delivered to `POST /host/events`.
        InstallTokenRotated,
        /// `settings.changed`: delivered to `POST /host/events`.
        SettingsChanged,
    }
    impl SubscribedEvent {
        /// Every value, in manifest order.
        pub const ALL: &'static [SubscribedEvent] = &[
            SubscribedEvent::ReleaseShipped,
            SubscribedEvent::InstallCreated,
            SubscribedEvent::InstallPaused,
            SubscribedEvent::InstallResumed,
            SubscribedEvent::InstallRevoked,
            SubscribedEvent::InstallTokenRotated,
            SubscribedEvent::SettingsChanged,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                SubscribedEvent::ReleaseShipped => "release.shipped",
                SubscribedEvent::InstallCreated => "install.created",
                SubscribedEvent::InstallPaused => "install.paused",
                SubscribedEvent::InstallResumed => "install.resumed",
                SubscribedEvent::InstallRevoked => "install.revoked",
                SubscribedEvent::InstallTokenRotated => "install.token_rotated",
                SubscribedEvent::SettingsChanged => "settings.changed",
            }
        }
    }
    /// A telemetry name the extension may report (`telemetry`).
    #[derive(
        ::core::fmt::Debug,
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
        ::core::hash::Hash
    )]
    pub enum Telemetry {
        /// `rankings_opened`.
        RankingsOpened,
        /// `keyword_tracked`.
        KeywordTracked,
        /// `digest_clicked`.
        DigestClicked,
    }
    impl Telemetry {
        /// Every value, in manifest order.
        pub const ALL: &'static [Telemetry] = &[
            Telemetry::RankingsOpened,
            Telemetry::KeywordTracked,
            Telemetry::DigestClicked,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Telemetry::RankingsOpened => "rankings_opened",
                Telemetry::KeywordTracked => "keyword_tracked",
                Telemetry::DigestClicked => "digest_clicked",
            }
        }
    }
    /// A metric key the connector declares under `contributes.connector.metrics`.
    #[derive(
        ::core::fmt::Debug,
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
        ::core::hash::Hash,
        ::host_runtime::__private_0_1_0::serde::Serialize,
        ::host_runtime::__private_0_1_0::serde::Deserialize
    )]
    #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
    pub enum Metric {
        /// `average_rank`: Average rank (count, gauge); dimensions `country` (Country), `store` (Store).
        #[serde(rename = "average_rank")]
        AverageRank,
        /// `ranked_keywords`: Ranked keywords (count, gauge); dimensions `country` (Country).
        #[serde(rename = "ranked_keywords")]
        RankedKeywords,
        /// `search_impressions`: Search impressions (count, counter); dimensions `country` (Country), `keyword` (Keyword).
        #[serde(rename = "search_impressions")]
        SearchImpressions,
    }
    impl Metric {
        /// Every declared metric, in manifest order.
        pub const ALL: &'static [Metric] = &[
            Metric::AverageRank,
            Metric::RankedKeywords,
            Metric::SearchImpressions,
        ];
        /// The key as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Metric::AverageRank => "average_rank",
                Metric::RankedKeywords => "ranked_keywords",
                Metric::SearchImpressions => "search_impressions",
            }
        }
        /// The dimension keys the metric declares.
        pub fn dimensions(self) -> &'static [&'static str] {
            match self {
                Metric::AverageRank => &["country", "store"],
                Metric::RankedKeywords => &["country"],
                Metric::SearchImpressions => &["country", "keyword"],
            }
        }
    }
}
/// Connector credentials the owner entered at install (`contributes.connector.auth`), sent on
/// every call with a body.
#[derive(::core::clone::Clone, ::host_runtime::__private_0_1_0::serde::Deserialize)]
#[serde(crate = "::host_runtime::__private_0_1_0::serde")]
#[allow(unreachable_pub)]
pub struct Credentials {
    /// API key (`api_key`, a password input).
    ///
    /// Create one under Settings, API in your Keyword Tracker account.
    #[serde(rename = "api_key")]
    pub api_key: ::std::string::String,
    /// Workspace (`workspace`, a text input).
    ///
    /// Optional: `None` when the owner left it empty.
    #[serde(rename = "workspace", default)]
    pub workspace: ::core::option::Option<::std::string::String>,
}
#[allow(unreachable_pub)]
impl ::core::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str("Credentials(..)")
    }
}
/// Types of the hosted storage collections (`contributes.storage`).
#[allow(unreachable_pub)]
pub mod storage {
    /// Documents of the storage collection `preferences` (owned per user).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod preferences {
        /// One document of the storage collection `preferences`, typed from the schema at `/contributes/storage/preferences/schema` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Default
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Document {
            /// `pinnedCountries`.
            #[serde(
                rename = "pinnedCountries",
                default,
                skip_serializing_if = "::std::option::Option::is_none"
            )]
            pub pinned_countries: ::std::option::Option<
                ::std::vec::Vec<::std::string::String>,
            >,
        }
    }
    /// Documents of the storage collection `watchlists` (owned per install).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod watchlists {
        /// One document of the storage collection `watchlists`, typed from the schema at `/contributes/storage/watchlists/schema` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Document {
            /// `keywords`.
            pub keywords: ::std::vec::Vec<DocumentKeywordsItem>,
            /// `name`.
            pub name: DocumentName,
        }
        /// Typed from a part of the schema without a `description`; add one in the manifest to document it here.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(transparent)]
        pub struct DocumentName(::std::string::String);
        impl ::std::ops::Deref for DocumentName {
            type Target = ::std::string::String;
            fn deref(&self) -> &::std::string::String {
                &self.0
            }
        }
        impl ::std::convert::From<DocumentName> for ::std::string::String {
            fn from(value: DocumentName) -> Self {
                value.0
            }
        }
        impl ::std::str::FromStr for DocumentName {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                if value.chars().count() > 60usize {
                    return Err("longer than 60 characters".into());
                }
                if value.chars().count() < 1usize {
                    return Err("shorter than 1 characters".into());
                }
                Ok(Self(value.to_string()))
            }
        }
        impl ::std::convert::TryFrom<&str> for DocumentName {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for DocumentName {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
        for DocumentName {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::host_runtime::__private_0_1_0::serde::Deserializer<'de>,
            {
                ::std::string::String::deserialize(deserializer)?
                    .parse()
                    .map_err(|e: ::host_runtime::ConversionError| {
                        <D::Error as ::host_runtime::__private_0_1_0::serde::de::Error>::custom(
                            e.to_string(),
                        )
                    })
            }
        }
        #[doc(inline)]
        pub use super::super::shared::InputKeyword as DocumentKeywordsItem;
    }
}
/// The values owners fill in on the settings panel (`contributes.settings.schema`).
#[allow(clippy::all, clippy::pedantic, clippy::nursery)]
#[allow(unreachable_pub)]
pub mod settings {
    /// The values of the settings panel, typed from the schema at `/contributes/settings/schema` in the manifest.
    #[derive(
        ::host_runtime::__private_0_1_0::serde::Deserialize,
        ::host_runtime::__private_0_1_0::serde::Serialize,
        Clone,
        Debug,
        Default
    )]
    #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
    #[serde(deny_unknown_fields)]
    pub struct Settings {
        /** Rank positions lost before an alert is raised.

Default: `10` (not filled in when absent).*/
        #[serde(
            rename = "alertThreshold",
            skip_serializing_if = "::std::option::Option::is_none"
        )]
        pub alert_threshold: ::std::option::Option<::std::num::NonZeroU64>,
        /** Store country used when none is picked.

Default: `"US"` (not filled in when absent).*/
        #[serde(
            rename = "defaultCountry",
            skip_serializing_if = "::std::option::Option::is_none"
        )]
        pub default_country: ::std::option::Option<::std::string::String>,
        /// Default: `true` (not filled in when absent).
        #[serde(
            rename = "weeklyDigest",
            skip_serializing_if = "::std::option::Option::is_none"
        )]
        pub weekly_digest: ::std::option::Option<bool>,
    }
}
/// Hosted storage documents, sent with every call that has a body.
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::host_runtime::__private_0_1_0::serde::Deserialize
)]
#[serde(crate = "::host_runtime::__private_0_1_0::serde")]
#[allow(unreachable_pub)]
pub struct Documents {
    /// The `preferences` collection, which holds one document (`None` until it is written).
    #[serde(rename = "preferences", default)]
    pub preferences: ::core::option::Option<storage::preferences::Document>,
    /// The `watchlists` collection.
    #[serde(rename = "watchlists", default)]
    pub watchlists: ::std::vec::Vec<
        ::host_runtime::Document<storage::watchlists::Document>,
    >,
    /// The settings panel's values (the reserved `settings` collection); `None` until saved.
    #[serde(default)]
    pub settings: ::core::option::Option<settings::Settings>,
}
/// Input types of the assistant tools (`contributes.ai.tools`), one module per tool.
#[allow(unreachable_pub)]
pub mod tools {
    /// Daily rank history of one tracked keyword in one country.
    ///
    /// Types of the tool `keyword-ranks`, called as `POST /host/tools/keyword-ranks`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod keyword_ranks {
        /// The tool id.
        #[allow(dead_code)]
        pub const ID: &str = "keyword-ranks";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/tools/keyword-ranks";
        /// The input of the tool `keyword-ranks`, typed from the schema at `/contributes/ai/tools/0/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// ISO 3166-1 alpha-2 store country.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub country: ::std::option::Option<::std::string::String>,
            /** Days of history, counting back from today.

Default: `30` (not filled in when absent).*/
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub days: ::std::option::Option<::std::num::NonZeroU64>,
            /// The keyword exactly as tracked.
            pub keyword: InputKeyword,
        }
        /// The keyword exactly as tracked.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(transparent)]
        pub struct InputKeyword(::std::string::String);
        impl ::std::ops::Deref for InputKeyword {
            type Target = ::std::string::String;
            fn deref(&self) -> &::std::string::String {
                &self.0
            }
        }
        impl ::std::convert::From<InputKeyword> for ::std::string::String {
            fn from(value: InputKeyword) -> Self {
                value.0
            }
        }
        impl ::std::str::FromStr for InputKeyword {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                if value.chars().count() > 100usize {
                    return Err("longer than 100 characters".into());
                }
                if value.chars().count() < 1usize {
                    return Err("shorter than 1 characters".into());
                }
                Ok(Self(value.to_string()))
            }
        }
        impl ::std::convert::TryFrom<&str> for InputKeyword {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for InputKeyword {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
        for InputKeyword {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::host_runtime::__private_0_1_0::serde::Deserializer<'de>,
            {
                ::std::string::String::deserialize(deserializer)?
                    .parse()
                    .map_err(|e: ::host_runtime::ConversionError| {
                        <D::Error as ::host_runtime::__private_0_1_0::serde::de::Error>::custom(
                            e.to_string(),
                        )
                    })
            }
        }
    }
    /// Compares rank, volume and difficulty of two to five keywords side by side.
    ///
    /// Types of the tool `compare-keywords`, called as `POST /host/tools/compare-keywords`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod compare_keywords {
        /// The tool id.
        #[allow(dead_code)]
        pub const ID: &str = "compare-keywords";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/tools/compare-keywords";
        /// The input of the tool `compare-keywords`, typed from the schema at `/contributes/ai/tools/1/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `country`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub country: ::std::option::Option<::std::string::String>,
            /// `keywords`.
            pub keywords: ::std::vec::Vec<InputKeywordsItem>,
        }
        #[doc(inline)]
        pub use super::super::shared::InputKeyword as InputKeywordsItem;
    }
    /// Keywords whose rank changed most over the last days.
    ///
    /// Types of the tool `top-movers`, called as `POST /host/tools/top-movers`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod top_movers {
        /// The tool id.
        #[allow(dead_code)]
        pub const ID: &str = "top-movers";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/tools/top-movers";
        /// The input of the tool `top-movers`, typed from the schema at `/contributes/ai/tools/2/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Default
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// Default: `7` (not filled in when absent).
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub days: ::std::option::Option<::std::num::NonZeroU64>,
            /// Default: `"both"` (not filled in when absent).
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub direction: ::std::option::Option<InputDirection>,
        }
        /// Default: `"both"` (not filled in when absent).
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Copy,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        pub enum InputDirection {
            /// `up`.
            #[serde(rename = "up")]
            Up,
            /// `down`.
            #[serde(rename = "down")]
            Down,
            /// `both`.
            #[serde(rename = "both")]
            Both,
        }
        impl ::std::fmt::Display for InputDirection {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match *self {
                    Self::Up => f.write_str("up"),
                    Self::Down => f.write_str("down"),
                    Self::Both => f.write_str("both"),
                }
            }
        }
        impl ::std::str::FromStr for InputDirection {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                match value {
                    "up" => Ok(Self::Up),
                    "down" => Ok(Self::Down),
                    "both" => Ok(Self::Both),
                    _ => Err("invalid value".into()),
                }
            }
        }
        impl ::std::convert::TryFrom<&str> for InputDirection {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for InputDirection {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
    }
    /// Suggests new keywords related to a seed keyword.
    ///
    /// Types of the tool `keyword-ideas`, called as `POST /host/tools/keyword-ideas`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod keyword_ideas {
        /// The tool id.
        #[allow(dead_code)]
        pub const ID: &str = "keyword-ideas";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/tools/keyword-ideas";
        /// The input of the tool `keyword-ideas`, typed from the schema at `/contributes/ai/tools/3/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `seed`.
            pub seed: InputSeed,
        }
        /// Typed from a part of the schema without a `description`; add one in the manifest to document it here.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(transparent)]
        pub struct InputSeed(::std::string::String);
        impl ::std::ops::Deref for InputSeed {
            type Target = ::std::string::String;
            fn deref(&self) -> &::std::string::String {
                &self.0
            }
        }
        impl ::std::convert::From<InputSeed> for ::std::string::String {
            fn from(value: InputSeed) -> Self {
                value.0
            }
        }
        impl ::std::str::FromStr for InputSeed {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                if value.chars().count() > 100usize {
                    return Err("longer than 100 characters".into());
                }
                if value.chars().count() < 1usize {
                    return Err("shorter than 1 characters".into());
                }
                Ok(Self(value.to_string()))
            }
        }
        impl ::std::convert::TryFrom<&str> for InputSeed {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for InputSeed {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
        for InputSeed {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::host_runtime::__private_0_1_0::serde::Deserializer<'de>,
            {
                ::std::string::String::deserialize(deserializer)?
                    .parse()
                    .map_err(|e: ::host_runtime::ConversionError| {
                        <D::Error as ::host_runtime::__private_0_1_0::serde::de::Error>::custom(
                            e.to_string(),
                        )
                    })
            }
        }
    }
    /// Current visibility score of the app, from 0 to 100.
    ///
    /// Types of the tool `visibility-score`, called as `POST /host/tools/visibility-score`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod visibility_score {
        /// The tool id.
        #[allow(dead_code)]
        pub const ID: &str = "visibility-score";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/tools/visibility-score";
        /// The input of the tool `visibility-score`, typed from the schema at `/contributes/ai/tools/4/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Default
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `country`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub country: ::std::option::Option<::std::string::String>,
        }
    }
}
/// Input types of the owner-approved actions (`contributes.ai.actions`), one module per action.
#[allow(unreachable_pub)]
pub mod actions {
    /// Saves a short insight about a keyword's rank change to the project insight feed.
    ///
    /// Types of the action `save-rank-insight`, called as `POST /host/actions/save-rank-insight`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod save_rank_insight {
        /// The action id.
        #[allow(dead_code)]
        pub const ID: &str = "save-rank-insight";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/actions/save-rank-insight";
        /// The scope the action needs.
        #[allow(dead_code)]
        pub const SCOPE: &str = "insights:write";
        /// The input of the action `save-rank-insight`, typed from the schema at `/contributes/ai/actions/0/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `keyword`.
            pub keyword: InputKeyword,
            /// `summary`.
            pub summary: InputSummary,
        }
        /// Typed from a part of the schema without a `description`; add one in the manifest to document it here.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(transparent)]
        pub struct InputSummary(::std::string::String);
        impl ::std::ops::Deref for InputSummary {
            type Target = ::std::string::String;
            fn deref(&self) -> &::std::string::String {
                &self.0
            }
        }
        impl ::std::convert::From<InputSummary> for ::std::string::String {
            fn from(value: InputSummary) -> Self {
                value.0
            }
        }
        impl ::std::str::FromStr for InputSummary {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                if value.chars().count() > 500usize {
                    return Err("longer than 500 characters".into());
                }
                if value.chars().count() < 10usize {
                    return Err("shorter than 10 characters".into());
                }
                Ok(Self(value.to_string()))
            }
        }
        impl ::std::convert::TryFrom<&str> for InputSummary {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for InputSummary {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
        for InputSummary {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::host_runtime::__private_0_1_0::serde::Deserializer<'de>,
            {
                ::std::string::String::deserialize(deserializer)?
                    .parse()
                    .map_err(|e: ::host_runtime::ConversionError| {
                        <D::Error as ::host_runtime::__private_0_1_0::serde::de::Error>::custom(
                            e.to_string(),
                        )
                    })
            }
        }
        #[doc(inline)]
        pub use super::super::shared::InputKeyword;
    }
}
/// Input types of the prompts' owner forms (`contributes.ai.prompts[].input`).
#[allow(unreachable_pub)]
pub mod prompts {
    /// The owner form of the prompt `why-rank-dropped` (Why did this keyword drop?).
    ///
    /// The host fills the prompt's `{{input.*}}` placeholders with these values; the vendor server never receives them, so the type is for tests and tools that build them.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod why_rank_dropped {
        /// The prompt id.
        #[allow(dead_code)]
        pub const ID: &str = "why-rank-dropped";
        /// The owner form of the prompt `why-rank-dropped`, typed from the schema at `/contributes/ai/prompts/0/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `keyword`.
            pub keyword: InputKeyword,
        }
        #[doc(inline)]
        pub use super::super::shared::InputKeyword;
    }
}
/// Input and output types of the procedures (`server.procedures`), one module per procedure.
#[allow(unreachable_pub)]
pub mod procedures {
    /// Types of the procedure `addKeyword`, called as `POST /host/procedures/addKeyword`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod add_keyword {
        /// The procedure name.
        #[allow(dead_code)]
        pub const NAME: &str = "addKeyword";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/procedures/addKeyword";
        /// The input of the procedure `addKeyword`, typed from the schema at `/server/procedures/addKeyword/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `country`.
            pub country: ::std::string::String,
            /// `keyword`.
            pub keyword: InputKeyword,
        }
        /// The output of the procedure `addKeyword`, typed from the schema at `/server/procedures/addKeyword/output` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Output {
            /// `tracked`.
            pub tracked: bool,
        }
        #[doc(inline)]
        pub use super::super::shared::InputKeyword;
    }
    /// Types of the procedure `listWatchlists`, called as `POST /host/procedures/listWatchlists`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod list_watchlists {
        /// The procedure name.
        #[allow(dead_code)]
        pub const NAME: &str = "listWatchlists";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/procedures/listWatchlists";
        /// The input of the procedure `listWatchlists`, typed from the schema at `/server/procedures/listWatchlists/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Default
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {}
        /// The output of the procedure `listWatchlists`, typed from the schema at `/server/procedures/listWatchlists/output` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Output {
            /// `items`.
            pub items: ::std::vec::Vec<OutputItemsItem>,
        }
        /// An item of the array at `/server/procedures/listWatchlists/output/properties/items`.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct OutputItemsItem {
            /// `id`.
            pub id: ::std::string::String,
            /// `name`.
            pub name: ::std::string::String,
        }
    }
}
/// Types that several of the manifest's schemas define alike, each written once. Every module whose schema has one names it with a `pub use`, at the path it would have on its own, so one function can take the type from each of them.
#[allow(clippy::all, clippy::pedantic, clippy::nursery, unreachable_pub)]
pub mod shared {
    /// Typed from a part of the schema without a `description`; add one in the manifest to document it here.
    ///
    /// The same type in `actions::save_rank_insight`, `procedures::add_keyword`, `prompts::why_rank_dropped`, `storage::watchlists` (as `DocumentKeywordsItem`) and `tools::compare_keywords` (as `InputKeywordsItem`): their schemas define it alike, so it is written once here and each of those modules names it.
    #[derive(
        ::host_runtime::__private_0_1_0::serde::Serialize,
        Clone,
        Debug,
        Eq,
        Hash,
        Ord,
        PartialEq,
        PartialOrd
    )]
    #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
    #[serde(transparent)]
    pub struct InputKeyword(::std::string::String);
    impl ::std::ops::Deref for InputKeyword {
        type Target = ::std::string::String;
        fn deref(&self) -> &::std::string::String {
            &self.0
        }
    }
    impl ::std::convert::From<InputKeyword> for ::std::string::String {
        fn from(value: InputKeyword) -> Self {
            value.0
        }
    }
    impl ::std::str::FromStr for InputKeyword {
        type Err = ::host_runtime::ConversionError;
        fn from_str(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            if value.chars().count() < 1usize {
                return Err("shorter than 1 characters".into());
            }
            Ok(Self(value.to_string()))
        }
    }
    impl ::std::convert::TryFrom<&str> for InputKeyword {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl ::std::convert::TryFrom<::std::string::String> for InputKeyword {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: ::std::string::String,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de> for InputKeyword {
        fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
        where
            D: ::host_runtime::__private_0_1_0::serde::Deserializer<'de>,
        {
            ::std::string::String::deserialize(deserializer)?
                .parse()
                .map_err(|e: ::host_runtime::ConversionError| {
                    <D::Error as ::host_runtime::__private_0_1_0::serde::de::Error>::custom(
                        e.to_string(),
                    )
                })
        }
    }
    /// One sentence shown to the owner.
    ///
    /// The same type in `webhooks::rank_collapsed` and `webhooks::rank_dropped`: their schemas define it alike, so it is written once here and each of those modules names it.
    #[derive(
        ::host_runtime::__private_0_1_0::serde::Serialize,
        Clone,
        Debug,
        Eq,
        Hash,
        Ord,
        PartialEq,
        PartialOrd
    )]
    #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
    #[serde(transparent)]
    pub struct PayloadWhy(::std::string::String);
    impl ::std::ops::Deref for PayloadWhy {
        type Target = ::std::string::String;
        fn deref(&self) -> &::std::string::String {
            &self.0
        }
    }
    impl ::std::convert::From<PayloadWhy> for ::std::string::String {
        fn from(value: PayloadWhy) -> Self {
            value.0
        }
    }
    impl ::std::str::FromStr for PayloadWhy {
        type Err = ::host_runtime::ConversionError;
        fn from_str(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            if value.chars().count() > 280usize {
                return Err("longer than 280 characters".into());
            }
            if value.chars().count() < 1usize {
                return Err("shorter than 1 characters".into());
            }
            Ok(Self(value.to_string()))
        }
    }
    impl ::std::convert::TryFrom<&str> for PayloadWhy {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl ::std::convert::TryFrom<::std::string::String> for PayloadWhy {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: ::std::string::String,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de> for PayloadWhy {
        fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
        where
            D: ::host_runtime::__private_0_1_0::serde::Deserializer<'de>,
        {
            ::std::string::String::deserialize(deserializer)?
                .parse()
                .map_err(|e: ::host_runtime::ConversionError| {
                    <D::Error as ::host_runtime::__private_0_1_0::serde::de::Error>::custom(
                        e.to_string(),
                    )
                })
        }
    }
}
/// A call to an assistant tool, with its typed `input`.
#[allow(unreachable_pub)]
pub type ToolCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
/// A call to a procedure, with its typed `input`.
#[allow(unreachable_pub)]
pub type ProcedureCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
/// An action call the owner approved; only the runtime can make one.
#[allow(unreachable_pub)]
pub type Approved<I> = ::host_runtime::Approved<I, Credentials, Documents>;
/// A host event delivery, with its typed payload as `input`.
#[allow(unreachable_pub)]
pub type EventCall<P> = ::host_runtime::Call<P, Credentials, Documents>;
/// A metrics sync call (`POST /host/metrics`).
#[allow(unreachable_pub)]
pub type SyncCall = ::host_runtime::Call<
    ::host_runtime::metrics::SyncRequest<manifest::Metric>,
    Credentials,
    Documents,
>;
/// The assistant tools this extension declares (`contributes.ai.tools`): one method per tool.
///
/// Answers are checked against the card shape of each tool's `returns` kind and the size limit; see [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes" and "Limits".
#[allow(unreachable_pub)]
pub trait Tools: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Daily rank history of one tracked keyword in one country.
    ///
    /// Called by the host as `POST /host/tools/keyword-ranks`, never retried; answers within 30 s and 1 MB.
    ///
    /// Returns a series card: `{ series: [{ key, label, unit?, points }] }`. Cost: low.
    ///
    /// The host may serve an identical call from cache for 1h.
    fn keyword_ranks(
        &self,
        call: ToolCall<tools::keyword_ranks::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Series,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// Compares rank, volume and difficulty of two to five keywords side by side.
    ///
    /// Called by the host as `POST /host/tools/compare-keywords`, never retried; answers within 30 s and 1 MB.
    ///
    /// Returns a comparison card: `{ subjects, rows }` with one value per subject. Cost: medium.
    ///
    /// The host may serve an identical call from cache for 5m.
    fn compare_keywords(
        &self,
        call: ToolCall<tools::compare_keywords::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Comparison,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// Keywords whose rank changed most over the last days.
    ///
    /// Called by the host as `POST /host/tools/top-movers`, never retried; answers within 30 s and 1 MB.
    ///
    /// Returns a table card: `{ columns, rows }`; row keys must be columns. Cost: low.
    ///
    /// The host may serve an identical call from cache for 5m.
    fn top_movers(
        &self,
        call: ToolCall<tools::top_movers::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Table,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// Suggests new keywords related to a seed keyword.
    ///
    /// Called by the host as `POST /host/tools/keyword-ideas`, never retried; answers within 30 s and 1 MB.
    ///
    /// Returns a list card: `{ items: [{ title, subtitle?, url?, value? }] }`. Cost: high.
    fn keyword_ideas(
        &self,
        call: ToolCall<tools::keyword_ideas::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::List,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// Current visibility score of the app, from 0 to 100.
    ///
    /// Called by the host as `POST /host/tools/visibility-score`, never retried; answers within 30 s and 1 MB.
    ///
    /// Returns a value card: `{ value, label?, unit?, change? }`. Cost: low.
    ///
    /// The host may serve an identical call from cache for 1m.
    fn visibility_score(
        &self,
        call: ToolCall<tools::visibility_score::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Value,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Tools + ?::core::marker::Sized> Tools for ::std::sync::Arc<T> {
    fn keyword_ranks(
        &self,
        call: ToolCall<tools::keyword_ranks::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Series,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Tools>::keyword_ranks(&**self, call)
    }
    fn compare_keywords(
        &self,
        call: ToolCall<tools::compare_keywords::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Comparison,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Tools>::compare_keywords(&**self, call)
    }
    fn top_movers(
        &self,
        call: ToolCall<tools::top_movers::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Table,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Tools>::top_movers(&**self, call)
    }
    fn keyword_ideas(
        &self,
        call: ToolCall<tools::keyword_ideas::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::List,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Tools>::keyword_ideas(&**self, call)
    }
    fn visibility_score(
        &self,
        call: ToolCall<tools::visibility_score::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Value,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Tools>::visibility_score(&**self, call)
    }
}
/// The owner-approved actions this extension declares (`contributes.ai.actions`): one method per action.
///
/// See [`host_runtime::interface`](::host_runtime::interface#routes), "Routes", for the scopes a call needs.
#[allow(unreachable_pub)]
pub trait Actions: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Saves a short insight about a keyword's rank change to the project insight feed.
    ///
    /// Called by the host as `POST /host/actions/save-rank-insight`, only after the owner approved it on the approval card.
    ///
    /// Needs the scope `insights:write`. The owner can undo it. Any 2xx answer marks the run succeeded and the answer is stored.
    fn save_rank_insight(
        &self,
        call: Approved<actions::save_rank_insight::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::serde_json::Value,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Actions + ?::core::marker::Sized> Actions for ::std::sync::Arc<T> {
    fn save_rank_insight(
        &self,
        call: Approved<actions::save_rank_insight::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::serde_json::Value,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Actions>::save_rank_insight(&**self, call)
    }
}
/// The mention pickers this extension declares (`contributes.ai.mentions`): one method per picker.
///
/// Answers are trimmed to the limits in [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes".
#[allow(unreachable_pub)]
pub trait Mentions: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// The `keyword` mention picker (Keyword).
    ///
    /// Called by the host as `GET /host/mentions/keyword?q=<text>`; the host keeps the first 20 items and cuts labels to 80 characters.
    fn keyword(
        &self,
        call: ::host_runtime::MentionCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::MentionItems,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Mentions + ?::core::marker::Sized> Mentions for ::std::sync::Arc<T> {
    fn keyword(
        &self,
        call: ::host_runtime::MentionCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::MentionItems,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Mentions>::keyword(&**self, call)
    }
}
/// The context providers this extension declares (`contributes.ai.context`): one method per provider.
///
/// The block's size limit is in [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes".
#[allow(unreachable_pub)]
pub trait ContextProviders: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// The tracked keywords and their current ranks in the selected country.
    ///
    /// Called by the host as `GET /host/context/tracked-keywords` (asked at `turn_start`); the block is at most 2 KB once rendered.
    fn tracked_keywords(
        &self,
        call: ::host_runtime::ContextCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::ContextBlock,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: ContextProviders + ?::core::marker::Sized> ContextProviders
for ::std::sync::Arc<T> {
    fn tracked_keywords(
        &self,
        call: ::host_runtime::ContextCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::ContextBlock,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as ContextProviders>::tracked_keywords(&**self, call)
    }
}
/// The procedures the host may call (`server.procedures`): one method per procedure.
///
/// Answers are checked against each procedure's `output` schema; see [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes".
#[allow(unreachable_pub)]
pub trait Procedures: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// The procedure `addKeyword`.
    ///
    /// Called by the host as `POST /host/procedures/addKeyword`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema.
    ///
    /// Kind: write.
    fn add_keyword(
        &self,
        call: ProcedureCall<procedures::add_keyword::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::add_keyword::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// The procedure `listWatchlists`.
    ///
    /// Called by the host as `POST /host/procedures/listWatchlists`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema.
    ///
    /// Kind: read.
    ///
    /// Identical calls may be served from cache for 1m.
    fn list_watchlists(
        &self,
        call: ProcedureCall<procedures::list_watchlists::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::list_watchlists::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Procedures + ?::core::marker::Sized> Procedures for ::std::sync::Arc<T> {
    fn add_keyword(
        &self,
        call: ProcedureCall<procedures::add_keyword::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::add_keyword::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Procedures>::add_keyword(&**self, call)
    }
    fn list_watchlists(
        &self,
        call: ProcedureCall<procedures::list_watchlists::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::list_watchlists::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Procedures>::list_watchlists(&**self, call)
    }
}
/// The connector's metrics sync (`contributes.connector`).
///
/// See [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes", for what a sync answer may hold.
#[allow(unreachable_pub)]
pub trait Connector: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Syncs metrics into the host's metrics store.
    ///
    /// Called by the host as `POST /host/metrics` (every 6h); answer points of the asked metrics only, with the metric's declared dimensions, and a `cursor` when more pages follow.
    fn sync(
        &self,
        call: SyncCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::metrics::SyncAnswer<manifest::Metric>,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Connector + ?::core::marker::Sized> Connector for ::std::sync::Arc<T> {
    fn sync(
        &self,
        call: SyncCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::metrics::SyncAnswer<manifest::Metric>,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Connector>::sync(&**self, call)
    }
}
/// The host events the vendor server subscribes to (`server.events`): one method per event.
///
/// What a 4xx and a 5xx mean to the host, retries and deduplication: [`host_runtime::interface`](::host_runtime::interface#events-and-deduplication), "Events and deduplication".
#[allow(unreachable_pub)]
pub trait Events: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Handles `release.shipped`.
    ///
    /// Delivered as `POST /host/events` to installs granted the scope `projects:read`; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn release_shipped(
        &self,
        call: EventCall<::host_runtime::events::ReleaseShipped>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
    /// Handles `install.created`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn install_created(
        &self,
        call: EventCall<::host_runtime::events::InstallCreated>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
    /// Handles `install.paused`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn install_paused(
        &self,
        call: EventCall<::host_runtime::events::InstallPaused>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
    /// Handles `install.resumed`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn install_resumed(
        &self,
        call: EventCall<::host_runtime::events::InstallResumed>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
    /// Handles `install.revoked`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn install_revoked(
        &self,
        call: EventCall<::host_runtime::events::InstallRevoked>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
    /// Handles `install.token_rotated`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn install_token_rotated(
        &self,
        call: EventCall<::host_runtime::events::InstallTokenRotated>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
    /// Handles `settings.changed`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn settings_changed(
        &self,
        call: EventCall<::host_runtime::events::SettingsChanged>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Events + ?::core::marker::Sized> Events for ::std::sync::Arc<T> {
    fn release_shipped(
        &self,
        call: EventCall<::host_runtime::events::ReleaseShipped>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::release_shipped(&**self, call)
    }
    fn install_created(
        &self,
        call: EventCall<::host_runtime::events::InstallCreated>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::install_created(&**self, call)
    }
    fn install_paused(
        &self,
        call: EventCall<::host_runtime::events::InstallPaused>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::install_paused(&**self, call)
    }
    fn install_resumed(
        &self,
        call: EventCall<::host_runtime::events::InstallResumed>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::install_resumed(&**self, call)
    }
    fn install_revoked(
        &self,
        call: EventCall<::host_runtime::events::InstallRevoked>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::install_revoked(&**self, call)
    }
    fn install_token_rotated(
        &self,
        call: EventCall<::host_runtime::events::InstallTokenRotated>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::install_token_rotated(&**self, call)
    }
    fn settings_changed(
        &self,
        call: EventCall<::host_runtime::events::SettingsChanged>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::settings_changed(&**self, call)
    }
}
/// Payload types of the events the vendor server posts (`contributes.webhooks`).
#[allow(unreachable_pub)]
pub mod webhooks {
    /// The payload of `rank.dropped` (`as: "alert"`).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod rank_dropped {
        /// The event name.
        pub const EVENT: &str = "rank.dropped";
        /// The payload schema the manifest declares, checked before each event is signed.
        pub static SCHEMA: ::host_runtime::webhook::PayloadSchema = ::host_runtime::webhook::PayloadSchema::new(
            EVENT,
            "{\"additionalProperties\":false,\"properties\":{\"country\":{\"pattern\":\"^[A-Z]{2}$\",\"type\":\"string\"},\"current\":{\"minimum\":1,\"type\":\"integer\"},\"keyword\":{\"type\":\"string\"},\"previous\":{\"minimum\":1,\"type\":\"integer\"},\"why\":{\"description\":\"One sentence shown to the owner.\",\"maxLength\":280,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"why\"],\"type\":\"object\"}",
            ::core::option::Option::None,
            true,
        );
        /// The payload of the event `rank.dropped`, typed from the schema at `/contributes/webhooks/0/payload` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Payload {
            /// `country`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub country: ::std::option::Option<::std::string::String>,
            /// `current`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub current: ::std::option::Option<::std::num::NonZeroU64>,
            /// `keyword`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub keyword: ::std::option::Option<::std::string::String>,
            /// `previous`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub previous: ::std::option::Option<::std::num::NonZeroU64>,
            /// One sentence shown to the owner.
            pub why: PayloadWhy,
        }
        #[doc(inline)]
        pub use super::super::shared::PayloadWhy;
    }
    /// The payload of `rank.collapsed` (`as: "banner"`).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod rank_collapsed {
        /// The event name.
        pub const EVENT: &str = "rank.collapsed";
        /// The payload schema the manifest declares, checked before each event is signed.
        pub static SCHEMA: ::host_runtime::webhook::PayloadSchema = ::host_runtime::webhook::PayloadSchema::new(
            EVENT,
            "{\"additionalProperties\":false,\"properties\":{\"keywords\":{\"items\":{\"type\":\"string\"},\"type\":\"array\"},\"why\":{\"description\":\"One sentence shown to the owner.\",\"maxLength\":280,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"why\"],\"type\":\"object\"}",
            ::core::option::Option::None,
            true,
        );
        /// The payload of the event `rank.collapsed`, typed from the schema at `/contributes/webhooks/1/payload` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Payload {
            /// `keywords`.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub keywords: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
            /// One sentence shown to the owner.
            pub why: PayloadWhy,
        }
        #[doc(inline)]
        pub use super::super::shared::PayloadWhy;
    }
    /// The payload of `store.algorithm_updated` (`as: "event"`).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod store_algorithm_updated {
        /// The event name.
        pub const EVENT: &str = "store.algorithm_updated";
        /// The payload schema the manifest declares, checked before each event is signed.
        pub static SCHEMA: ::host_runtime::webhook::PayloadSchema = ::host_runtime::webhook::PayloadSchema::new(
            EVENT,
            "{\"additionalProperties\":false,\"properties\":{\"detectedAt\":{\"format\":\"date-time\",\"type\":\"string\"},\"store\":{\"enum\":[\"app_store\",\"google_play\"]}},\"required\":[\"store\"],\"type\":\"object\"}",
            ::core::option::Option::None,
            false,
        );
        /// The payload of the event `store.algorithm_updated`, typed from the schema at `/contributes/webhooks/2/payload` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Payload {
            /// `detectedAt`.
            #[serde(
                rename = "detectedAt",
                skip_serializing_if = "::std::option::Option::is_none"
            )]
            pub detected_at: ::std::option::Option<::std::string::String>,
            /// The member `store`, at `/contributes/webhooks/2/payload/properties/store`.
            pub store: PayloadStore,
        }
        /// The member `store`, at `/contributes/webhooks/2/payload/properties/store`.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Copy,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        pub enum PayloadStore {
            /// `app_store`.
            #[serde(rename = "app_store")]
            AppStore,
            /// `google_play`.
            #[serde(rename = "google_play")]
            GooglePlay,
        }
        impl ::std::fmt::Display for PayloadStore {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match *self {
                    Self::AppStore => f.write_str("app_store"),
                    Self::GooglePlay => f.write_str("google_play"),
                }
            }
        }
        impl ::std::str::FromStr for PayloadStore {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                match value {
                    "app_store" => Ok(Self::AppStore),
                    "google_play" => Ok(Self::GooglePlay),
                    _ => Err("invalid value".into()),
                }
            }
        }
        impl ::std::convert::TryFrom<&str> for PayloadStore {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for PayloadStore {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
    }
}
/// Typed sender for the events this extension declares under `contributes.webhooks`: one method
/// per event, taking that event's payload type.
#[derive(::core::fmt::Debug, ::core::clone::Clone)]
#[allow(unreachable_pub)]
pub struct Webhooks {
    sender: ::host_runtime::EventSender,
}
#[allow(unreachable_pub)]
impl Webhooks {
    /// Wraps a configured event sender.
    pub fn new(sender: ::host_runtime::EventSender) -> Self {
        Webhooks { sender }
    }
    /// Signs `rank.dropped` for the install `source`: the host turns it into an inbox alert showing the payload's `why`.
    ///
    /// `dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`). The payload is first checked against the declared schema and for a `why` with words in it; a payload the host would refuse is `WebhookError::PayloadInvalid`, naming the pointer, and is not signed.
    pub fn rank_dropped(
        &self,
        source: &str,
        dedupe_key: &str,
        payload: &webhooks::rank_dropped::Payload,
    ) -> ::core::result::Result<
        ::host_runtime::webhook::OutboundEvent,
        ::host_runtime::webhook::WebhookError,
    > {
        self.sender.event(&webhooks::rank_dropped::SCHEMA, source, dedupe_key, payload)
    }
    /// Signs `rank.collapsed` for the install `source`: the host turns it into a page banner showing the payload's `why`.
    ///
    /// `dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`). The payload is first checked against the declared schema and for a `why` with words in it; a payload the host would refuse is `WebhookError::PayloadInvalid`, naming the pointer, and is not signed.
    pub fn rank_collapsed(
        &self,
        source: &str,
        dedupe_key: &str,
        payload: &webhooks::rank_collapsed::Payload,
    ) -> ::core::result::Result<
        ::host_runtime::webhook::OutboundEvent,
        ::host_runtime::webhook::WebhookError,
    > {
        self.sender.event(&webhooks::rank_collapsed::SCHEMA, source, dedupe_key, payload)
    }
    /// Signs `store.algorithm_updated` for the install `source`: the host turns it into an event for chart markers and client subscriptions.
    ///
    /// `dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`). The payload is first checked against the declared schema; a payload the host would refuse is `WebhookError::PayloadInvalid`, naming the pointer, and is not signed.
    pub fn store_algorithm_updated(
        &self,
        source: &str,
        dedupe_key: &str,
        payload: &webhooks::store_algorithm_updated::Payload,
    ) -> ::core::result::Result<
        ::host_runtime::webhook::OutboundEvent,
        ::host_runtime::webhook::WebhookError,
    > {
        self.sender
            .event(
                &webhooks::store_algorithm_updated::SCHEMA,
                source,
                dedupe_key,
                payload,
            )
    }
}
static __HOST_SPEC: ::host_runtime::__private_0_1_0::Spec = {
    use ::host_runtime::__private_0_1_0 as __rt;
    __rt::Spec {
        extension_id: "keyword-tracker",
        tools: &[
            __rt::Tool {
                id: "keyword-ranks",
                input: "{\"additionalProperties\":false,\"properties\":{\"country\":{\"description\":\"ISO 3166-1 alpha-2 store country.\",\"pattern\":\"^[A-Z]{2}$\",\"type\":\"string\"},\"days\":{\"default\":30,\"description\":\"Days of history, counting back from today.\",\"maximum\":90,\"minimum\":1,\"type\":\"integer\"},\"keyword\":{\"description\":\"The keyword exactly as tracked.\",\"maxLength\":100,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"keyword\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
            __rt::Tool {
                id: "compare-keywords",
                input: "{\"additionalProperties\":false,\"properties\":{\"country\":{\"pattern\":\"^[A-Z]{2}$\",\"type\":\"string\"},\"keywords\":{\"items\":{\"minLength\":1,\"type\":\"string\"},\"maxItems\":5,\"minItems\":2,\"type\":\"array\"}},\"required\":[\"keywords\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
            __rt::Tool {
                id: "top-movers",
                input: "{\"additionalProperties\":false,\"properties\":{\"days\":{\"default\":7,\"maximum\":30,\"minimum\":1,\"type\":\"integer\"},\"direction\":{\"default\":\"both\",\"enum\":[\"up\",\"down\",\"both\"]}},\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
            __rt::Tool {
                id: "keyword-ideas",
                input: "{\"additionalProperties\":false,\"properties\":{\"seed\":{\"maxLength\":100,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"seed\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
            __rt::Tool {
                id: "visibility-score",
                input: "{\"additionalProperties\":false,\"properties\":{\"country\":{\"pattern\":\"^[A-Z]{2}$\",\"type\":\"string\"}},\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
        ],
        actions: &[
            __rt::Action {
                id: "save-rank-insight",
                scope: "insights:write",
                input: "{\"additionalProperties\":false,\"properties\":{\"keyword\":{\"minLength\":1,\"type\":\"string\"},\"summary\":{\"maxLength\":500,\"minLength\":10,\"type\":\"string\"}},\"required\":[\"keyword\",\"summary\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
        ],
        mentions: &["keyword"],
        context: &["tracked-keywords"],
        procedures: &[
            __rt::Procedure {
                name: "addKeyword",
                input: "{\"additionalProperties\":false,\"properties\":{\"country\":{\"pattern\":\"^[A-Z]{2}$\",\"type\":\"string\"},\"keyword\":{\"minLength\":1,\"type\":\"string\"}},\"required\":[\"keyword\",\"country\"],\"type\":\"object\"}",
                output: "{\"additionalProperties\":false,\"properties\":{\"tracked\":{\"type\":\"boolean\"}},\"required\":[\"tracked\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
                output_check: ::core::option::Option::None,
            },
            __rt::Procedure {
                name: "listWatchlists",
                input: "{\"additionalProperties\":false,\"properties\":{},\"type\":\"object\"}",
                output: "{\"additionalProperties\":false,\"properties\":{\"items\":{\"items\":{\"additionalProperties\":false,\"properties\":{\"id\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"}},\"required\":[\"id\",\"name\"],\"type\":\"object\"},\"type\":\"array\"}},\"required\":[\"items\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
                output_check: ::core::option::Option::None,
            },
        ],
        metrics: &[
            __rt::Metric {
                key: "average_rank",
                dimensions: &["country", "store"],
            },
            __rt::Metric {
                key: "ranked_keywords",
                dimensions: &["country"],
            },
            __rt::Metric {
                key: "search_impressions",
                dimensions: &["country", "keyword"],
            },
        ],
        work: ::core::option::Option::None,
        events: &[
            "release.shipped",
            "install.created",
            "install.paused",
            "install.resumed",
            "install.revoked",
            "install.token_rotated",
            "settings.changed",
        ],
    }
};
struct __HostDispatch<S>(S);
#[allow(unreachable_pub)]
impl<
    S: Tools + Actions + Mentions + ContextProviders + Procedures + Connector + Events,
> ::host_runtime::__private_0_1_0::Dispatch for __HostDispatch<S> {
    fn dispatch<'a>(
        &'a self,
        route: ::host_runtime::__private_0_1_0::Route<'a>,
        call: ::host_runtime::__private_0_1_0::RawCall,
    ) -> ::host_runtime::__private_0_1_0::BoxFuture<
        'a,
        ::core::result::Result<
            ::host_runtime::__private_0_1_0::Reply,
            ::host_runtime::HostError,
        >,
    > {
        use ::host_runtime::__private_0_1_0 as __rt;
        #[allow(unreachable_patterns)]
        match route {
            __rt::Route::Tool("keyword-ranks") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ToolCall<tools::keyword_ranks::Input>| <S as Tools>::keyword_ranks(
                        &self.0,
                        call,
                    ),
                    __rt::tool_answer,
                )
            }
            __rt::Route::Tool("compare-keywords") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ToolCall<tools::compare_keywords::Input>| <S as Tools>::compare_keywords(
                        &self.0,
                        call,
                    ),
                    __rt::tool_answer,
                )
            }
            __rt::Route::Tool("top-movers") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ToolCall<tools::top_movers::Input>| <S as Tools>::top_movers(
                        &self.0,
                        call,
                    ),
                    __rt::tool_answer,
                )
            }
            __rt::Route::Tool("keyword-ideas") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ToolCall<tools::keyword_ideas::Input>| <S as Tools>::keyword_ideas(
                        &self.0,
                        call,
                    ),
                    __rt::tool_answer,
                )
            }
            __rt::Route::Tool("visibility-score") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ToolCall<tools::visibility_score::Input>| <S as Tools>::visibility_score(
                        &self.0,
                        call,
                    ),
                    __rt::tool_answer,
                )
            }
            __rt::Route::Action("save-rank-insight") => {
                __rt::answer(
                    __rt::approved(call),
                    |call: Approved<actions::save_rank_insight::Input>| <S as Actions>::save_rank_insight(
                        &self.0,
                        call,
                    ),
                    __rt::json_answer,
                )
            }
            __rt::Route::Mention("keyword") => {
                __rt::answer(
                    __rt::mention(call),
                    |call: ::host_runtime::MentionCall| <S as Mentions>::keyword(
                        &self.0,
                        call,
                    ),
                    __rt::mention_answer,
                )
            }
            __rt::Route::Context("tracked-keywords") => {
                __rt::answer(
                    __rt::context(call),
                    |call: ::host_runtime::ContextCall| <S as ContextProviders>::tracked_keywords(
                        &self.0,
                        call,
                    ),
                    __rt::context_answer,
                )
            }
            __rt::Route::Procedure("addKeyword") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ProcedureCall<procedures::add_keyword::Input>| <S as Procedures>::add_keyword(
                        &self.0,
                        call,
                    ),
                    __rt::procedure_answer,
                )
            }
            __rt::Route::Procedure("listWatchlists") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ProcedureCall<procedures::list_watchlists::Input>| <S as Procedures>::list_watchlists(
                        &self.0,
                        call,
                    ),
                    __rt::procedure_answer,
                )
            }
            __rt::Route::Metrics => {
                __rt::answer(
                    __rt::call(call),
                    |call: SyncCall| <S as Connector>::sync(&self.0, call),
                    __rt::json_answer,
                )
            }
            __rt::Route::Event(::core::option::Option::Some("release.shipped")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::ReleaseShipped>| <S as Events>::release_shipped(
                        &self.0,
                        call,
                    ),
                    __rt::event_answer,
                )
            }
            __rt::Route::Event(::core::option::Option::Some("install.created")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::InstallCreated>| <S as Events>::install_created(
                        &self.0,
                        call,
                    ),
                    __rt::event_answer,
                )
            }
            __rt::Route::Event(::core::option::Option::Some("install.paused")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::InstallPaused>| <S as Events>::install_paused(
                        &self.0,
                        call,
                    ),
                    __rt::event_answer,
                )
            }
            __rt::Route::Event(::core::option::Option::Some("install.resumed")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::InstallResumed>| <S as Events>::install_resumed(
                        &self.0,
                        call,
                    ),
                    __rt::event_answer,
                )
            }
            __rt::Route::Event(::core::option::Option::Some("install.revoked")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::InstallRevoked>| <S as Events>::install_revoked(
                        &self.0,
                        call,
                    ),
                    __rt::event_answer,
                )
            }
            __rt::Route::Event(::core::option::Option::Some("install.token_rotated")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::InstallTokenRotated>| <S as Events>::install_token_rotated(
                        &self.0,
                        call,
                    ),
                    __rt::event_answer,
                )
            }
            __rt::Route::Event(::core::option::Option::Some("settings.changed")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::SettingsChanged>| <S as Events>::settings_changed(
                        &self.0,
                        call,
                    ),
                    __rt::event_answer,
                )
            }
            route => {
                let _ = call;
                __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
            }
        }
    }
}
/// Builds the host handler of `keyword-tracker` from your server value.
///
/// The value must implement `Tools`, `Actions`, `Mentions`, `ContextProviders`, `Procedures`, `Connector`, `Events`: exactly the traits this manifest needs.
#[allow(unreachable_pub)]
pub fn handler<
    S: Tools + Actions + Mentions + ContextProviders + Procedures + Connector + Events,
>(server: S) -> ::host_runtime::Handler {
    ::host_runtime::__private_0_1_0::handler(&__HOST_SPEC, __HostDispatch(server))
}
::host_runtime::__private_0_1_0::validators_needed!();
