::core::compile_error!(
    "widget-slot.json:79:17: /contributes/widgets/1/slot: slot `kpi-row` is not on page `ai_chat`; that page has only `sidebar` [widget-slot]"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/widget-slot.json"
);
/// What `host.extension.json` declares for `keyword-radar` (Keyword Radar), as constants and enums.
///
/// Tracks keyword ranks in both stores and alerts you when a tracked keyword drops.
#[allow(dead_code)]
#[allow(unreachable_pub)]
pub mod manifest {
    /// The extension id.
    pub const EXTENSION_ID: &str = "keyword-radar";
    /// The name shown to owners.
    pub const NAME: &str = "Keyword Radar";
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
        /// `store.metadata:read`
        StoreMetadataRead,
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
            Scope::StoreMetadataRead,
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
                Scope::StoreMetadataRead => "store.metadata:read",
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
        /// `keyword.set_changed`: delivered to `POST /host/events`.
        KeywordSetChanged,
        /// `install.created`: delivered to `POST /host/events`.
        InstallCreated,
    }
    impl SubscribedEvent {
        /// Every value, in manifest order.
        pub const ALL: &'static [SubscribedEvent] = &[
            SubscribedEvent::ReleaseShipped,
            SubscribedEvent::KeywordSetChanged,
            SubscribedEvent::InstallCreated,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                SubscribedEvent::ReleaseShipped => "release.shipped",
                SubscribedEvent::KeywordSetChanged => "keyword.set_changed",
                SubscribedEvent::InstallCreated => "install.created",
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
    }
    impl Telemetry {
        /// Every value, in manifest order.
        pub const ALL: &'static [Telemetry] = &[
            Telemetry::RankingsOpened,
            Telemetry::KeywordTracked,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Telemetry::RankingsOpened => "rankings_opened",
                Telemetry::KeywordTracked => "keyword_tracked",
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
        /// `ranked_keywords`: Ranked keywords (count, gauge); no dimensions.
        #[serde(rename = "ranked_keywords")]
        RankedKeywords,
    }
    impl Metric {
        /// Every declared metric, in manifest order.
        pub const ALL: &'static [Metric] = &[
            Metric::AverageRank,
            Metric::RankedKeywords,
        ];
        /// The key as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Metric::AverageRank => "average_rank",
                Metric::RankedKeywords => "ranked_keywords",
            }
        }
        /// The dimension keys the metric declares.
        pub fn dimensions(self) -> &'static [&'static str] {
            match self {
                Metric::AverageRank => &["country", "store"],
                Metric::RankedKeywords => &[],
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
    #[serde(rename = "api_key")]
    pub api_key: ::std::string::String,
    /// Account (`account`, a text input).
    ///
    /// Optional: `None` when the owner left it empty.
    #[serde(rename = "account", default)]
    pub account: ::core::option::Option<::std::string::String>,
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
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub keywords: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
            /// `name`.
            pub name: DocumentName,
        }
        #[doc(inline)]
        pub use super::super::shared::DocumentName;
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
    /// Daily rank history of one tracked keyword.
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
    /// Compares two to five keywords side by side.
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
            /// `keywords`.
            pub keywords: ::std::vec::Vec<::std::string::String>,
        }
    }
}
/// Input types of the owner-approved actions (`contributes.ai.actions`), one module per action.
#[allow(unreachable_pub)]
pub mod actions {
    /// Saves an insight about a rank change.
    ///
    /// Types of the action `save-insight`, called as `POST /host/actions/save-insight`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod save_insight {
        /// The action id.
        #[allow(dead_code)]
        pub const ID: &str = "save-insight";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/actions/save-insight";
        /// The scope the action needs.
        #[allow(dead_code)]
        pub const SCOPE: &str = "insights:write";
        /// The input of the action `save-insight`, typed from the schema at `/contributes/ai/actions/0/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
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
    }
}
/// Input types of the prompts' owner forms (`contributes.ai.prompts[].input`).
#[allow(unreachable_pub)]
pub mod prompts {
    /// The owner form of the prompt `why-drop` (Why did it drop?).
    ///
    /// The host fills the prompt's `{{input.*}}` placeholders with these values; the vendor server never receives them, so the type is for tests and tools that build them.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod why_drop {
        /// The prompt id.
        #[allow(dead_code)]
        pub const ID: &str = "why-drop";
        /// The owner form of the prompt `why-drop`, typed from the schema at `/contributes/ai/prompts/0/input` in the manifest.
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
        pub use super::super::shared::DocumentName as InputKeyword;
    }
}
/// Input and output types of the procedures (`server.procedures`), one module per procedure.
#[allow(unreachable_pub)]
pub mod procedures {
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
            pub items: ::std::vec::Vec<
                ::host_runtime::__private_0_1_0::serde_json::Map<
                    ::std::string::String,
                    ::host_runtime::__private_0_1_0::serde_json::Value,
                >,
            >,
        }
    }
}
/// Types that several of the manifest's schemas define alike, each written once. Every module whose schema has one names it with a `pub use`, at the path it would have on its own, so one function can take the type from each of them.
#[allow(clippy::all, clippy::pedantic, clippy::nursery, unreachable_pub)]
pub mod shared {
    /// Typed from a part of the schema without a `description`; add one in the manifest to document it here.
    ///
    /// The same type in `prompts::why_drop` (as `InputKeyword`) and `storage::watchlists`: their schemas define it alike, so it is written once here and each of those modules names it.
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
    impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de> for DocumentName {
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
    /// Daily rank history of one tracked keyword.
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
    /// Compares two to five keywords side by side.
    ///
    /// Called by the host as `POST /host/tools/compare-keywords`, never retried; answers within 30 s and 1 MB.
    ///
    /// Returns a comparison card: `{ subjects, rows }` with one value per subject. Cost: medium.
    fn compare_keywords(
        &self,
        call: ToolCall<tools::compare_keywords::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::Comparison,
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
}
/// The owner-approved actions this extension declares (`contributes.ai.actions`): one method per action.
///
/// See [`host_runtime::interface`](::host_runtime::interface#routes), "Routes", for the scopes a call needs.
#[allow(unreachable_pub)]
pub trait Actions: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Saves an insight about a rank change.
    ///
    /// Called by the host as `POST /host/actions/save-insight`, only after the owner approved it on the approval card.
    ///
    /// Needs the scope `insights:write`. The owner can undo it. Any 2xx answer marks the run succeeded and the answer is stored.
    fn save_insight(
        &self,
        call: Approved<actions::save_insight::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::serde_json::Value,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Actions + ?::core::marker::Sized> Actions for ::std::sync::Arc<T> {
    fn save_insight(
        &self,
        call: Approved<actions::save_insight::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::serde_json::Value,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Actions>::save_insight(&**self, call)
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
    /// Tracked keywords and their current ranks.
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
    /// The procedure `listWatchlists`.
    ///
    /// Called by the host as `POST /host/procedures/listWatchlists`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema.
    ///
    /// Kind: read.
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
    /// Handles `keyword.set_changed`.
    ///
    /// Delivered as `POST /host/events` to installs granted the scope `store.metadata:read`; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn keyword_set_changed(
        &self,
        call: EventCall<::host_runtime::events::KeywordSetChanged>,
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
    fn keyword_set_changed(
        &self,
        call: EventCall<::host_runtime::events::KeywordSetChanged>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::keyword_set_changed(&**self, call)
    }
    fn install_created(
        &self,
        call: EventCall<::host_runtime::events::InstallCreated>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::install_created(&**self, call)
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
            "{\"additionalProperties\":false,\"properties\":{\"current\":{\"type\":\"integer\"},\"keyword\":{\"type\":\"string\"},\"previous\":{\"type\":\"integer\"},\"why\":{\"description\":\"One sentence shown to the owner.\",\"maxLength\":280,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"why\"],\"type\":\"object\"}",
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
            /// `current`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub current: ::std::option::Option<i64>,
            /// `keyword`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub keyword: ::std::option::Option<::std::string::String>,
            /// `previous`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub previous: ::std::option::Option<i64>,
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
            "{\"additionalProperties\":false,\"properties\":{\"store\":{\"enum\":[\"app_store\",\"google_play\"]}},\"required\":[\"store\"],\"type\":\"object\"}",
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
        extension_id: "keyword-radar",
        tools: &[
            __rt::Tool {
                id: "keyword-ranks",
                input: "{\"additionalProperties\":false,\"properties\":{\"country\":{\"description\":\"ISO 3166-1 alpha-2 store country.\",\"pattern\":\"^[A-Z]{2}$\",\"type\":\"string\"},\"days\":{\"default\":30,\"description\":\"Days of history, counting back from today.\",\"maximum\":90,\"minimum\":1,\"type\":\"integer\"},\"keyword\":{\"description\":\"The keyword exactly as tracked.\",\"maxLength\":100,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"keyword\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
            __rt::Tool {
                id: "compare-keywords",
                input: "{\"additionalProperties\":false,\"properties\":{\"keywords\":{\"items\":{\"type\":\"string\"},\"maxItems\":5,\"minItems\":2,\"type\":\"array\"}},\"required\":[\"keywords\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
        ],
        actions: &[
            __rt::Action {
                id: "save-insight",
                scope: "insights:write",
                input: "{\"additionalProperties\":false,\"properties\":{\"summary\":{\"minLength\":10,\"type\":\"string\"}},\"required\":[\"summary\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
        ],
        mentions: &["keyword"],
        context: &["tracked-keywords"],
        procedures: &[
            __rt::Procedure {
                name: "listWatchlists",
                input: "{\"additionalProperties\":false,\"properties\":{},\"type\":\"object\"}",
                output: "{\"additionalProperties\":false,\"properties\":{\"items\":{\"items\":{\"type\":\"object\"},\"type\":\"array\"}},\"required\":[\"items\"],\"type\":\"object\"}",
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
                dimensions: &[],
            },
        ],
        work: ::core::option::Option::None,
        events: &["release.shipped", "keyword.set_changed", "install.created"],
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
            __rt::Route::Action("save-insight") => {
                __rt::answer(
                    __rt::approved(call),
                    |call: Approved<actions::save_insight::Input>| <S as Actions>::save_insight(
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
            __rt::Route::Event(::core::option::Option::Some("keyword.set_changed")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::KeywordSetChanged>| <S as Events>::keyword_set_changed(
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
            route => {
                let _ = call;
                __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
            }
        }
    }
}
/// Builds the host handler of `keyword-radar` from your server value.
///
/// The value must implement `Tools`, `Actions`, `Mentions`, `ContextProviders`, `Procedures`, `Connector`, `Events`: exactly the traits this manifest needs.
#[allow(unreachable_pub)]
pub fn handler<
    S: Tools + Actions + Mentions + ContextProviders + Procedures + Connector + Events,
>(server: S) -> ::host_runtime::Handler {
    ::host_runtime::__private_0_1_0::handler(&__HOST_SPEC, __HostDispatch(server))
}
::host_runtime::__private_0_1_0::validators_needed!();
