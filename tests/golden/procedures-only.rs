const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/host.extension.json"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/assets/icon.png"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/Settings.tsx"
);
/// What `host.extension.json` declares for `pricing-lab` (Pricing Lab), as constants and enums.
///
/// Price experiments configured in a settings panel and run by the vendor server.
#[allow(dead_code)]
#[allow(unreachable_pub)]
pub mod manifest {
    /// The extension id.
    pub const EXTENSION_ID: &str = "pricing-lab";
    /// The name shown to owners.
    pub const NAME: &str = "Pricing Lab";
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
        /// `territories`.
        #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
        pub territories: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
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
/// Input and output types of the procedures (`server.procedures`), one module per procedure.
#[allow(unreachable_pub)]
pub mod procedures {
    /// Types of the procedure `get-result`, called as `POST /host/procedures/get-result`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod get_result {
        /// The procedure name.
        #[allow(dead_code)]
        pub const NAME: &str = "get-result";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/procedures/get-result";
        /// The input of the procedure `get-result`, typed from the schema at `/server/procedures/get-result/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `id`.
            pub id: InputId,
        }
        /// The output of the procedure `get-result`, typed from the schema at `/server/procedures/get-result/output` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Default
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Output {
            /// `significant`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub significant: ::std::option::Option<bool>,
            /// `uplift`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub uplift: ::std::option::Option<f64>,
        }
        #[doc(inline)]
        pub use super::super::shared::InputId;
    }
    /// Types of the procedure `listExperiments`, called as `POST /host/procedures/listExperiments`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod list_experiments {
        /// The procedure name.
        #[allow(dead_code)]
        pub const NAME: &str = "listExperiments";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/procedures/listExperiments";
        /// The input of the procedure `listExperiments`, typed from the schema at `/server/procedures/listExperiments/input` in the manifest.
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
            /// The member `status`, at `/server/procedures/listExperiments/input/properties/status`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub status: ::std::option::Option<InputStatus>,
        }
        /// The member `status`, at `/server/procedures/listExperiments/input/properties/status`.
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
        pub enum InputStatus {
            /// `draft`.
            #[serde(rename = "draft")]
            Draft,
            /// `running`.
            #[serde(rename = "running")]
            Running,
            /// `ended`.
            #[serde(rename = "ended")]
            Ended,
        }
        impl ::std::fmt::Display for InputStatus {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match *self {
                    Self::Draft => f.write_str("draft"),
                    Self::Running => f.write_str("running"),
                    Self::Ended => f.write_str("ended"),
                }
            }
        }
        impl ::std::str::FromStr for InputStatus {
            type Err = ::host_runtime::ConversionError;
            fn from_str(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                match value {
                    "draft" => Ok(Self::Draft),
                    "running" => Ok(Self::Running),
                    "ended" => Ok(Self::Ended),
                    _ => Err("invalid value".into()),
                }
            }
        }
        impl ::std::convert::TryFrom<&str> for InputStatus {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: &str,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for InputStatus {
            type Error = ::host_runtime::ConversionError;
            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
                value.parse()
            }
        }
        /// The output of the procedure `listExperiments`, typed from the schema at `/server/procedures/listExperiments/output` in the manifest.
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
        /// An item of the array at `/server/procedures/listExperiments/output/properties/items`.
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
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub name: ::std::option::Option<::std::string::String>,
        }
    }
    /// Types of the procedure `start_experiment`, called as `POST /host/procedures/start_experiment`.
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod start_experiment {
        /// The procedure name.
        #[allow(dead_code)]
        pub const NAME: &str = "start_experiment";
        /// The route the host calls.
        #[allow(dead_code)]
        pub const ROUTE: &str = "/host/procedures/start_experiment";
        /// The input of the procedure `start_experiment`, typed from the schema at `/server/procedures/start_experiment/input` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Input {
            /// `id`.
            pub id: InputId,
        }
        /// The output of the procedure `start_experiment`, typed from the schema at `/server/procedures/start_experiment/output` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug,
            Default
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Output {
            /// `startedAt`.
            #[serde(
                rename = "startedAt",
                skip_serializing_if = "::std::option::Option::is_none"
            )]
            pub started_at: ::std::option::Option<::std::string::String>,
        }
        #[doc(inline)]
        pub use super::super::shared::InputId;
    }
}
/// Types that several of the manifest's schemas define alike, each written once. Every module whose schema has one names it with a `pub use`, at the path it would have on its own, so one function can take the type from each of them.
#[allow(clippy::all, clippy::pedantic, clippy::nursery, unreachable_pub)]
pub mod shared {
    /// Typed from a part of the schema without a `description`; add one in the manifest to document it here.
    ///
    /// The same type in `procedures::get_result` and `procedures::start_experiment`: their schemas define it alike, so it is written once here and each of those modules names it.
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
    pub struct InputId(::std::string::String);
    impl ::std::ops::Deref for InputId {
        type Target = ::std::string::String;
        fn deref(&self) -> &::std::string::String {
            &self.0
        }
    }
    impl ::std::convert::From<InputId> for ::std::string::String {
        fn from(value: InputId) -> Self {
            value.0
        }
    }
    impl ::std::str::FromStr for InputId {
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
    impl ::std::convert::TryFrom<&str> for InputId {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: &str,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl ::std::convert::TryFrom<::std::string::String> for InputId {
        type Error = ::host_runtime::ConversionError;
        fn try_from(
            value: ::std::string::String,
        ) -> ::std::result::Result<Self, ::host_runtime::ConversionError> {
            value.parse()
        }
    }
    impl<'de> ::host_runtime::__private_0_1_0::serde::Deserialize<'de> for InputId {
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
/// A call to a procedure, with its typed `input`.
#[allow(unreachable_pub)]
pub type ProcedureCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
/// The procedures the host may call (`server.procedures`): one method per procedure.
///
/// Answers are checked against each procedure's `output` schema; see [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes".
#[allow(unreachable_pub)]
pub trait Procedures: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// The procedure `get-result`.
    ///
    /// Called by the host as `POST /host/procedures/get-result`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema.
    fn get_result(
        &self,
        call: ProcedureCall<procedures::get_result::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::get_result::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// The procedure `listExperiments`.
    ///
    /// Called by the host as `POST /host/procedures/listExperiments`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema.
    ///
    /// Kind: read.
    ///
    /// Identical calls may be served from cache for 5m.
    fn list_experiments(
        &self,
        call: ProcedureCall<procedures::list_experiments::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::list_experiments::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// The procedure `start_experiment`.
    ///
    /// Called by the host as `POST /host/procedures/start_experiment`; the host validates the argument against the `input` schema first and the answer must be valid against the `output` schema.
    ///
    /// Kind: write.
    fn start_experiment(
        &self,
        call: ProcedureCall<procedures::start_experiment::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::start_experiment::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Procedures + ?::core::marker::Sized> Procedures for ::std::sync::Arc<T> {
    fn get_result(
        &self,
        call: ProcedureCall<procedures::get_result::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::get_result::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Procedures>::get_result(&**self, call)
    }
    fn list_experiments(
        &self,
        call: ProcedureCall<procedures::list_experiments::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::list_experiments::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Procedures>::list_experiments(&**self, call)
    }
    fn start_experiment(
        &self,
        call: ProcedureCall<procedures::start_experiment::Input>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            procedures::start_experiment::Output,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Procedures>::start_experiment(&**self, call)
    }
}
static __HOST_SPEC: ::host_runtime::__private_0_1_0::Spec = {
    use ::host_runtime::__private_0_1_0 as __rt;
    __rt::Spec {
        extension_id: "pricing-lab",
        tools: &[],
        actions: &[],
        mentions: &[],
        context: &[],
        procedures: &[
            __rt::Procedure {
                name: "get-result",
                input: "{\"additionalProperties\":false,\"properties\":{\"id\":{\"minLength\":1,\"type\":\"string\"}},\"required\":[\"id\"],\"type\":\"object\"}",
                output: "{\"additionalProperties\":false,\"properties\":{\"significant\":{\"type\":\"boolean\"},\"uplift\":{\"type\":\"number\"}},\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
                output_check: ::core::option::Option::None,
            },
            __rt::Procedure {
                name: "listExperiments",
                input: "{\"additionalProperties\":false,\"properties\":{\"status\":{\"enum\":[\"draft\",\"running\",\"ended\"]}},\"type\":\"object\"}",
                output: "{\"additionalProperties\":false,\"properties\":{\"items\":{\"items\":{\"additionalProperties\":false,\"properties\":{\"id\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"}},\"required\":[\"id\"],\"type\":\"object\"},\"type\":\"array\"}},\"required\":[\"items\"],\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
                output_check: ::core::option::Option::None,
            },
            __rt::Procedure {
                name: "start_experiment",
                input: "{\"additionalProperties\":false,\"properties\":{\"id\":{\"minLength\":1,\"type\":\"string\"}},\"required\":[\"id\"],\"type\":\"object\"}",
                output: "{\"additionalProperties\":false,\"properties\":{\"startedAt\":{\"format\":\"date-time\",\"type\":\"string\"}},\"type\":\"object\"}",
                input_check: ::core::option::Option::None,
                output_check: ::core::option::Option::None,
            },
        ],
        metrics: &[],
        work: ::core::option::Option::None,
        events: &[],
    }
};
struct __HostDispatch<S>(S);
#[allow(unreachable_pub)]
impl<S: Procedures> ::host_runtime::__private_0_1_0::Dispatch for __HostDispatch<S> {
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
            __rt::Route::Procedure("get-result") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ProcedureCall<procedures::get_result::Input>| <S as Procedures>::get_result(
                        &self.0,
                        call,
                    ),
                    __rt::procedure_answer,
                )
            }
            __rt::Route::Procedure("listExperiments") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ProcedureCall<procedures::list_experiments::Input>| <S as Procedures>::list_experiments(
                        &self.0,
                        call,
                    ),
                    __rt::procedure_answer,
                )
            }
            __rt::Route::Procedure("start_experiment") => {
                __rt::answer(
                    __rt::call(call),
                    |call: ProcedureCall<procedures::start_experiment::Input>| <S as Procedures>::start_experiment(
                        &self.0,
                        call,
                    ),
                    __rt::procedure_answer,
                )
            }
            route => {
                let _ = call;
                __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
            }
        }
    }
}
/// Builds the host handler of `pricing-lab` from your server value.
///
/// The value must implement `Procedures`: exactly the traits this manifest needs.
#[allow(unreachable_pub)]
pub fn handler<S: Procedures>(server: S) -> ::host_runtime::Handler {
    ::host_runtime::__private_0_1_0::handler(&__HOST_SPEC, __HostDispatch(server))
}
::host_runtime::__private_0_1_0::validators_needed!();
