const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/host.extension.json"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/assets/icon.png"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/ExportRelease.tsx"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/Settings.tsx"
);
/// What `host.extension.json` declares for `warehouse-export` (Warehouse Export), as constants and enums.
///
/// Exports the organization's metrics to your data warehouse every night.
#[allow(dead_code)]
#[allow(unreachable_pub)]
pub mod manifest {
    /// The extension id.
    pub const EXTENSION_ID: &str = "warehouse-export";
    /// The name shown to owners.
    pub const NAME: &str = "Warehouse Export";
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
        /// `alerts:write`: Raises inbox alerts and page banners when the vendor detects a change that needs your attention.
        AlertsWrite,
        /// `storage:write`: Keeps your watchlists and saved views in hosted storage that belongs to this install.
        StorageWrite,
    }
    impl Scope {
        /// Every value, in manifest order.
        pub const ALL: &'static [Scope] = &[
            Scope::UiRender,
            Scope::AlertsWrite,
            Scope::StorageWrite,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Scope::UiRender => "ui:render",
                Scope::AlertsWrite => "alerts:write",
                Scope::StorageWrite => "storage:write",
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
        /// `install.created`: delivered to `POST /host/events`.
        InstallCreated,
        /// `scopes.changed`: delivered to `POST /host/events`.
        ScopesChanged,
    }
    impl SubscribedEvent {
        /// Every value, in manifest order.
        pub const ALL: &'static [SubscribedEvent] = &[
            SubscribedEvent::InstallCreated,
            SubscribedEvent::ScopesChanged,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                SubscribedEvent::InstallCreated => "install.created",
                SubscribedEvent::ScopesChanged => "scopes.changed",
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
}
/// Connector credentials the owner entered at install (`contributes.connector.auth`), sent on
/// every call with a body.
#[derive(::core::clone::Clone, ::host_runtime::__private_0_1_0::serde::Deserialize)]
#[serde(crate = "::host_runtime::__private_0_1_0::serde")]
#[allow(unreachable_pub)]
pub struct Credentials {
    /// Service account JSON (`service_account`, a file input).
    #[serde(rename = "service_account")]
    pub service_account: ::std::string::String,
    /// Region (`region`, a select input).
    #[serde(rename = "region")]
    pub region: ::std::string::String,
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
    /// Documents of the storage collection `export_runs` (owned per organization).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod export_runs {
        /// One document of the storage collection `export_runs`, typed from the schema at `/contributes/storage/export_runs/schema` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Document {
            /// `rows`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub rows: ::std::option::Option<u64>,
            /// `startedAt`.
            #[serde(rename = "startedAt")]
            pub started_at: ::std::string::String,
            /// The member `status`, at `/contributes/storage/export_runs/schema/properties/status`.
            pub status: DocumentStatus,
        }
        /// The member `status`, at `/contributes/storage/export_runs/schema/properties/status`.
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
        pub enum DocumentStatus {
            /// `running`.
            #[serde(rename = "running")]
            Running,
            /// `succeeded`.
            #[serde(rename = "succeeded")]
            Succeeded,
            /// `failed`.
            #[serde(rename = "failed")]
            Failed,
        }
        impl ::std::fmt::Display for DocumentStatus {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match *self {
                    Self::Running => f.write_str("running"),
                    Self::Succeeded => f.write_str("succeeded"),
                    Self::Failed => f.write_str("failed"),
                }
            }
        }
        impl ::std::str::FromStr for DocumentStatus {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                match value {
                    "running" => Ok(Self::Running),
                    "succeeded" => Ok(Self::Succeeded),
                    "failed" => Ok(Self::Failed),
                    _ => Err("invalid value".into()),
                }
            }
        }
        impl ::std::convert::TryFrom<&str> for DocumentStatus {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for DocumentStatus {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
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
        Debug
    )]
    #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
    #[serde(deny_unknown_fields)]
    pub struct Settings {
        /// Destination dataset.
        pub dataset: SettingsDataset,
        /// UTC hour of the nightly export.
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub hour: ::std::option::Option<i64>,
    }
    /// Destination dataset.
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
    pub struct SettingsDataset(::std::string::String);
    impl ::std::ops::Deref for SettingsDataset {
        type Target = ::std::string::String;
        fn deref(&self) -> &::std::string::String {
            &self.0
        }
    }
    impl ::std::convert::From<SettingsDataset> for ::std::string::String {
        fn from(value: SettingsDataset) -> Self {
            value.0
        }
    }
    impl ::std::str::FromStr for SettingsDataset {
        type Err = ::host_runtime::ConversionError;
        fn from_str(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            if value.chars().count() > 128usize {
                return Err("longer than 128 characters".into());
            }
            if value.chars().count() < 1usize {
                return Err("shorter than 1 characters".into());
            }
            Ok(Self(value.to_string()))
        }
    }
    impl ::std::convert::TryFrom<&str> for SettingsDataset {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl ::std::convert::TryFrom<::std::string::String> for SettingsDataset {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: ::std::string::String,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
    for SettingsDataset {
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
/// Hosted storage documents, sent with every call that has a body.
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::host_runtime::__private_0_1_0::serde::Deserialize
)]
#[serde(crate = "::host_runtime::__private_0_1_0::serde")]
#[allow(unreachable_pub)]
pub struct Documents {
    /// The `export_runs` collection.
    #[serde(rename = "export_runs", default)]
    pub export_runs: ::std::vec::Vec<
        ::host_runtime::Document<storage::export_runs::Document>,
    >,
    /// The settings panel's values (the reserved `settings` collection); `None` until saved.
    #[serde(default)]
    pub settings: ::core::option::Option<settings::Settings>,
}
/// A host event delivery, with its typed payload as `input`.
#[allow(unreachable_pub)]
pub type EventCall<P> = ::host_runtime::Call<P, Credentials, Documents>;
/// The host events the vendor server subscribes to (`server.events`): one method per event.
///
/// What a 4xx and a 5xx mean to the host, retries and deduplication: [`host_runtime::interface`](::host_runtime::interface#events-and-deduplication), "Events and deduplication".
#[allow(unreachable_pub)]
pub trait Events: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Handles `install.created`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn install_created(
        &self,
        call: EventCall<::host_runtime::events::InstallCreated>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
    /// Handles `scopes.changed`.
    ///
    /// Delivered as `POST /host/events` to installs granted no scope; answer `Ok(())` for 204. An error with a 4xx status is recorded and not retried; a 5xx is retried after 30 s, 2 min and 10 min. The same content may arrive again with a new event id.
    fn scopes_changed(
        &self,
        call: EventCall<::host_runtime::events::ScopesChanged>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Events + ?::core::marker::Sized> Events for ::std::sync::Arc<T> {
    fn install_created(
        &self,
        call: EventCall<::host_runtime::events::InstallCreated>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::install_created(&**self, call)
    }
    fn scopes_changed(
        &self,
        call: EventCall<::host_runtime::events::ScopesChanged>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<(), ::host_runtime::HostError>,
    > + ::core::marker::Send {
        <T as Events>::scopes_changed(&**self, call)
    }
}
/// Payload types of the events the vendor server posts (`contributes.webhooks`).
#[allow(unreachable_pub)]
pub mod webhooks {
    /// The payload of `export.failed` (`as: "banner"`).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod export_failed {
        /// The event name.
        pub const EVENT: &str = "export.failed";
        /// The payload schema the manifest declares, checked before each event is signed.
        pub static SCHEMA: ::host_runtime::webhook::PayloadSchema = ::host_runtime::webhook::PayloadSchema::new(
            EVENT,
            "{\"additionalProperties\":false,\"properties\":{\"error\":{\"type\":\"string\"},\"runId\":{\"type\":\"string\"},\"why\":{\"description\":\"One sentence shown to the owner.\",\"maxLength\":280,\"minLength\":1,\"type\":\"string\"}},\"required\":[\"why\"],\"type\":\"object\"}",
            ::core::option::Option::None,
            true,
        );
        /// The payload of the event `export.failed`, typed from the schema at `/contributes/webhooks/0/payload` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Payload {
            /// `error`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub error: ::std::option::Option<::std::string::String>,
            /// `runId`.
            #[serde(
                rename = "runId",
                skip_serializing_if = "::std::option::Option::is_none"
            )]
            pub run_id: ::std::option::Option<::std::string::String>,
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
    /// Signs `export.failed` for the install `source`: the host turns it into a page banner showing the payload's `why`.
    ///
    /// `dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`). The payload is first checked against the declared schema and for a `why` with words in it; a payload the host would refuse is `WebhookError::PayloadInvalid`, naming the pointer, and is not signed.
    pub fn export_failed(
        &self,
        source: &str,
        dedupe_key: &str,
        payload: &webhooks::export_failed::Payload,
    ) -> ::core::result::Result<
        ::host_runtime::webhook::OutboundEvent,
        ::host_runtime::webhook::WebhookError,
    > {
        self.sender.event(&webhooks::export_failed::SCHEMA, source, dedupe_key, payload)
    }
}
static __HOST_SPEC: ::host_runtime::__private_0_1_0::Spec = {
    use ::host_runtime::__private_0_1_0 as __rt;
    __rt::Spec {
        extension_id: "warehouse-export",
        tools: &[],
        actions: &[],
        mentions: &[],
        context: &[],
        procedures: &[],
        metrics: &[],
        work: ::core::option::Option::None,
        events: &["install.created", "scopes.changed"],
    }
};
struct __HostDispatch<S>(S);
#[allow(unreachable_pub)]
impl<S: Events> ::host_runtime::__private_0_1_0::Dispatch for __HostDispatch<S> {
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
            __rt::Route::Event(::core::option::Option::Some("scopes.changed")) => {
                __rt::answer(
                    __rt::event(call),
                    |call: EventCall<::host_runtime::events::ScopesChanged>| <S as Events>::scopes_changed(
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
/// Builds the host handler of `warehouse-export` from your server value.
///
/// The value must implement `Events`: exactly the traits this manifest needs.
#[allow(unreachable_pub)]
pub fn handler<S: Events>(server: S) -> ::host_runtime::Handler {
    ::host_runtime::__private_0_1_0::handler(&__HOST_SPEC, __HostDispatch(server))
}
::host_runtime::__private_0_1_0::validators_needed!();
