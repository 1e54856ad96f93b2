const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/host.extension.json"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/assets/icon.png"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/CrashesTab.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/CrashFreeWidget.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/OpenCrashGroups.tsx"
);
/// What `host.extension.json` declares for `crash-lens` (Crash Lens), as constants and enums.
///
/// Crash-free users and top crash groups from your crash reporter, per release.
#[allow(dead_code)]
#[allow(unreachable_pub)]
pub mod manifest {
    /// The extension id.
    pub const EXTENSION_ID: &str = "crash-lens";
    /// The name shown to owners.
    pub const NAME: &str = "Crash Lens";
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
        /// `ai:tools`
        AiTools,
    }
    impl Scope {
        /// Every value, in manifest order.
        pub const ALL: &'static [Scope] = &[
            Scope::UiRender,
            Scope::ProjectsRead,
            Scope::MetricsWrite,
            Scope::AlertsWrite,
            Scope::AiTools,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Scope::UiRender => "ui:render",
                Scope::ProjectsRead => "projects:read",
                Scope::MetricsWrite => "metrics:write",
                Scope::AlertsWrite => "alerts:write",
                Scope::AiTools => "ai:tools",
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
    }
    impl SubscribedEvent {
        /// Every value, in manifest order.
        pub const ALL: &'static [SubscribedEvent] = &[SubscribedEvent::ReleaseShipped];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                SubscribedEvent::ReleaseShipped => "release.shipped",
            }
        }
    }
    /// A telemetry name the extension may report (`telemetry`).
    ///
    /// The manifest declares none.
    #[derive(
        ::core::fmt::Debug,
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
        ::core::hash::Hash
    )]
    pub enum Telemetry {}
    impl Telemetry {
        /// Every value, in manifest order (none).
        pub const ALL: &'static [Telemetry] = &[];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {}
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
        /// `crash_free_users`: Crash-free users (ratio, gauge); dimensions `app_version` (App version), `platform` (Platform).
        #[serde(rename = "crash_free_users")]
        CrashFreeUsers,
        /// `crash_count`: Crashes (count, counter); dimensions `app_version` (App version).
        #[serde(rename = "crash_count")]
        CrashCount,
    }
    impl Metric {
        /// Every declared metric, in manifest order.
        pub const ALL: &'static [Metric] = &[Metric::CrashFreeUsers, Metric::CrashCount];
        /// The key as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Metric::CrashFreeUsers => "crash_free_users",
                Metric::CrashCount => "crash_count",
            }
        }
        /// The dimension keys the metric declares.
        pub fn dimensions(self) -> &'static [&'static str] {
            match self {
                Metric::CrashFreeUsers => &["app_version", "platform"],
                Metric::CrashCount => &["app_version"],
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
    /// The OAuth token the host keeps for this install (`credentials.oauth`).
    pub oauth: ::host_runtime::OAuthToken,
}
#[allow(unreachable_pub)]
impl ::core::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str("Credentials(..)")
    }
}
/// Hosted storage documents: the manifest declares no storage and no settings panel.
#[allow(unreachable_pub)]
pub type Documents = ::host_runtime::NoDocuments;
/// Input types of the assistant tools (`contributes.ai.tools`), one module per tool.
#[allow(unreachable_pub)]
pub mod tools {
    /// Crash groups with the most affected users for one release.
    ///
    /// Types of the tool `top-crash-groups`, called as `POST /host/tools/top-crash-groups`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod top_crash_groups {
        /// The tool id.
        #[allow(dead_code)]
        pub const ID: &str = "top-crash-groups";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/tools/top-crash-groups";
        /// The input of the tool `top-crash-groups`, typed from the schema at `/contributes/ai/tools/0/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// Marketing version, such as 4.2.0.
            #[serde(rename = "appVersion")]
            pub app_version: InputAppVersion,
            /// Default: `10` (not filled in when absent).
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub limit: ::std::option::Option<::std::num::NonZeroU64>,
        }
        /// Marketing version, such as 4.2.0.
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
        pub struct InputAppVersion(::std::string::String);
        impl ::std::ops::Deref for InputAppVersion {
            type Target = ::std::string::String;
            fn deref(&self) -> &::std::string::String {
                &self.0
            }
        }
        impl ::std::convert::From<InputAppVersion> for ::std::string::String {
            fn from(value: InputAppVersion) -> Self {
                value.0
            }
        }
        impl ::std::str::FromStr for InputAppVersion {
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
        impl ::std::convert::TryFrom<&str> for InputAppVersion {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for InputAppVersion {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
        for InputAppVersion {
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
/// A call to an assistant tool, with its typed `input`.
#[allow(unreachable_pub)]
pub type ToolCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
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
    /// Crash groups with the most affected users for one release.
    ///
    /// Called by the host as `POST /host/tools/top-crash-groups`, never retried; answers within 30 s and 1 MB.
    ///
    /// Returns a list card: `{ items: [{ title, subtitle?, url?, value? }] }`. Cost: medium.
    ///
    /// The host may serve an identical call from cache for 5m.
    fn top_crash_groups(
        &self,
        call: ToolCall<tools::top_crash_groups::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::List,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Tools + ?::core::marker::Sized> Tools for ::std::sync::Arc<T> {
    fn top_crash_groups(
        &self,
        call: ToolCall<tools::top_crash_groups::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::answer::List,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Tools>::top_crash_groups(&**self, call)
    }
}
/// The connector's metrics sync (`contributes.connector`).
///
/// See [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes", for what a sync answer may hold.
#[allow(unreachable_pub)]
pub trait Connector: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Syncs metrics into the host's metrics store.
    ///
    /// Called by the host as `POST /host/metrics` (every 15m); answer points of the asked metrics only, with the metric's declared dimensions, and a `cursor` when more pages follow.
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
}
/// Payload types of the events the vendor server posts (`contributes.webhooks`).
#[allow(unreachable_pub)]
pub mod webhooks {
    /// The payload of `crash.spiked` (`as: "alert"`).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod crash_spiked {
        /// The event name.
        pub const EVENT: &str = "crash.spiked";
        /// The payload schema the manifest declares, checked before each event is signed.
        pub static SCHEMA: ::host_runtime::webhook::PayloadSchema = ::host_runtime::webhook::PayloadSchema::new(
            EVENT,
            "{\"additionalProperties\":false,\"properties\":{\"affectedUsers\":{\"minimum\":0,\"type\":\"integer\"},\"appVersion\":{\"type\":\"string\"},\"signature\":{\"type\":\"string\"},\"why\":{\"description\":\"One sentence shown to the owner.\",\"maxLength\":280,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"why\"],\"type\":\"object\"}",
            ::core::option::Option::None,
            true,
        );
        /// The payload of the event `crash.spiked`, typed from the schema at `/contributes/webhooks/0/payload` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Payload {
            /// `affectedUsers`.
            #[serde(
                rename = "affectedUsers",
                skip_serializing_if = "::std::option::Option::is_none"
            )]
            pub affected_users: ::std::option::Option<u64>,
            /// `appVersion`.
            #[serde(
                rename = "appVersion",
                skip_serializing_if = "::std::option::Option::is_none"
            )]
            pub app_version: ::std::option::Option<::std::string::String>,
            /// `signature`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub signature: ::std::option::Option<::std::string::String>,
            /// One sentence shown to the owner.
            pub why: PayloadWhy,
        }
        /// One sentence shown to the owner.
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
        impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
        for PayloadWhy {
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
    /// Signs `crash.spiked` for the install `source`: the host turns it into an inbox alert showing the payload's `why`.
    ///
    /// `dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`). The payload is first checked against the declared schema and for a `why` with words in it; a payload the host would refuse is `WebhookError::PayloadInvalid`, naming the pointer, and is not signed.
    pub fn crash_spiked(
        &self,
        source: &str,
        dedupe_key: &str,
        payload: &webhooks::crash_spiked::Payload,
    ) -> ::core::result::Result<
        ::host_runtime::webhook::OutboundEvent,
        ::host_runtime::webhook::WebhookError,
    > {
        self.sender.event(&webhooks::crash_spiked::SCHEMA, source, dedupe_key, payload)
    }
}
static __HOST_SPEC: ::host_runtime::__private_0_1_0::Spec = {
    use ::host_runtime::__private_0_1_0 as __rt;
    __rt::Spec {
        extension_id: "crash-lens",
        tools: &[
            __rt::Tool {
                id: "top-crash-groups",
                input: "{\"additionalProperties\":false,\"properties\":{\"appVersion\":{\"description\":\"Marketing version, such as 4.2.0.\",\"minLength\":1,\"type\":\"string\"},\"limit\":{\"default\":10,\"maximum\":50,\"minimum\":1,\"type\":\"integer\"}},\"required\":[\"appVersion\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
            },
        ],
        actions: &[],
        mentions: &[],
        context: &[],
        procedures: &[],
        metrics: &[
            __rt::Metric {
                key: "crash_free_users",
                dimensions: &["app_version", "platform"],
            },
            __rt::Metric {
                key: "crash_count",
                dimensions: &["app_version"],
            },
        ],
        work: ::core::option::Option::None,
        events: &["release.shipped"],
    }
};
struct __HostDispatch<S>(S);
#[allow(unreachable_pub)]
impl<S: Tools + Connector + Events> ::host_runtime::__private_0_1_0::Dispatch
for __HostDispatch<S> {
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
            __rt::Route::Tool("top-crash-groups") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ToolCall<tools::top_crash_groups::Input>| <S as Tools>::top_crash_groups(
                        &self.0,
                        call,
                    ),
                    __rt::tool_answer,
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
            route => {
                let _ = call;
                __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
            }
        }
    }
}
/// Builds the host handler of `crash-lens` from your server value.
///
/// The value must implement `Tools`, `Connector`, `Events`: exactly the traits this manifest needs.
#[allow(unreachable_pub)]
pub fn handler<S: Tools + Connector + Events>(server: S) -> ::host_runtime::Handler {
    ::host_runtime::__private_0_1_0::handler(&__HOST_SPEC, __HostDispatch(server))
}
::host_runtime::__private_0_1_0::validators_needed!();
