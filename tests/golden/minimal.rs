const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/host.extension.json"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/icon.png"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/Settings.tsx"
);
/// What `host.extension.json` declares for `hello-panel` (Hello Panel), as constants and enums.
///
/// Keeps a greeting for the project in a settings panel.
#[allow(dead_code)]
#[allow(unreachable_pub)]
pub mod manifest {
    /// The extension id.
    pub const EXTENSION_ID: &str = "hello-panel";
    /// The name shown to owners.
    pub const NAME: &str = "Hello Panel";
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
    }
    impl Scope {
        /// Every value, in manifest order.
        pub const ALL: &'static [Scope] = &[Scope::UiRender];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Scope::UiRender => "ui:render",
            }
        }
    }
    /// A host event the vendor server subscribes to under `server.events`.
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
    pub enum SubscribedEvent {}
    impl SubscribedEvent {
        /// Every value, in manifest order (none).
        pub const ALL: &'static [SubscribedEvent] = &[];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {}
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
/// Connector credentials: the manifest declares no connector auth, so there are none.
#[allow(unreachable_pub)]
pub type Credentials = ::host_runtime::NoCredentials;
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
        /// `greeting`.
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub greeting: ::std::option::Option<SettingsGreeting>,
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
    pub struct SettingsGreeting(::std::string::String);
    impl ::std::ops::Deref for SettingsGreeting {
        type Target = ::std::string::String;
        fn deref(&self) -> &::std::string::String {
            &self.0
        }
    }
    impl ::std::convert::From<SettingsGreeting> for ::std::string::String {
        fn from(value: SettingsGreeting) -> Self {
            value.0
        }
    }
    impl ::std::str::FromStr for SettingsGreeting {
        type Err = ::host_runtime::ConversionError;
        fn from_str(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            if value.chars().count() > 80usize {
                return Err("longer than 80 characters".into());
            }
            Ok(Self(value.to_string()))
        }
    }
    impl ::std::convert::TryFrom<&str> for SettingsGreeting {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl ::std::convert::TryFrom<::std::string::String> for SettingsGreeting {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: ::std::string::String,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de>
    for SettingsGreeting {
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
    /// The settings panel's values (the reserved `settings` collection); `None` until saved.
    #[serde(default)]
    pub settings: ::core::option::Option<settings::Settings>,
}
static __HOST_SPEC: ::host_runtime::__private_0_1_0::Spec = {
    use ::host_runtime::__private_0_1_0 as __rt;
    __rt::Spec {
        extension_id: "hello-panel",
        tools: &[],
        actions: &[],
        mentions: &[],
        context: &[],
        procedures: &[],
        metrics: &[],
        work: ::core::option::Option::None,
        events: &[],
    }
};
struct __HostDispatch<S>(S);
#[allow(unreachable_pub)]
impl<
    S: ::core::marker::Send + ::core::marker::Sync + 'static,
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
            route => {
                let _ = call;
                __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
            }
        }
    }
}
/// Builds the host handler of `hello-panel` from your server value.
///
/// The value must implement no trait: exactly the traits this manifest needs.
#[allow(unreachable_pub)]
pub fn handler<S: ::core::marker::Send + ::core::marker::Sync + 'static>(
    server: S,
) -> ::host_runtime::Handler {
    ::host_runtime::__private_0_1_0::handler(&__HOST_SPEC, __HostDispatch(server))
}
