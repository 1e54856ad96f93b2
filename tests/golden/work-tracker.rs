const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/host.extension.json"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/assets/icon.png"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/ui/IssueFromReview.tsx"
);
/// What `host.extension.json` declares for `issue-bridge` (Issue Bridge), as constants and enums.
///
/// Turns reviews and alerts into tracker issues and keeps their status in sync.
#[allow(dead_code)]
#[allow(unreachable_pub)]
pub mod manifest {
    /// The extension id.
    pub const EXTENSION_ID: &str = "issue-bridge";
    /// The name shown to owners.
    pub const NAME: &str = "Issue Bridge";
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
        /// `work:create`: Creates issues in your tracker from alerts, reviews and assistant answers when you ask for one.
        WorkCreate,
        /// `work:sync`
        WorkSync,
    }
    impl Scope {
        /// Every value, in manifest order.
        pub const ALL: &'static [Scope] = &[
            Scope::UiRender,
            Scope::WorkCreate,
            Scope::WorkSync,
        ];
        /// The value as written in the manifest.
        pub fn as_str(self) -> &'static str {
            match self {
                Scope::UiRender => "ui:render",
                Scope::WorkCreate => "work:create",
                Scope::WorkSync => "work:sync",
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
/// Hosted storage documents: the manifest declares no storage and no settings panel.
#[allow(unreachable_pub)]
pub type Documents = ::host_runtime::NoDocuments;
/// A work destination call, with its typed body as `input`.
#[allow(unreachable_pub)]
pub type WorkCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
/// The container list call (`GET`): its query as `input`. A GET carries no body, so it
/// has no credentials or documents; its install comes from the verified token.
#[allow(unreachable_pub)]
pub type ContainersCall = ::host_runtime::Call<
    ::host_runtime::work::ContainerQuery,
    ::host_runtime::NoCredentials,
    ::host_runtime::NoDocuments,
>;
/// The work destination (`contributes.work`).
///
/// See [`host_runtime::interface`](::host_runtime::interface#answer-shapes), "Answer shapes", for the checks on items and links.
#[allow(unreachable_pub)]
pub trait Work: ::core::marker::Send + ::core::marker::Sync + 'static {
    /// Lists the selectable Project (`work.container`).
    ///
    /// Called by the host as `GET /work/projects?q=<text>`.
    fn containers(
        &self,
        call: ContainersCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::work::Containers,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// Creates an item (`issue`) in the tracker destination, as the user.
    ///
    /// Called by the host as `POST /host/work/items`.
    fn create_item(
        &self,
        call: WorkCall<::host_runtime::work::NewItem>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::work::CreatedItem,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
    /// Adds a comment to an item; the item id is `call.input.0`.
    ///
    /// Called by the host as `POST /host/work/items/<id>/comments` (`comments: "two-way"`).
    fn create_comment(
        &self,
        call: WorkCall<(::std::string::String, ::host_runtime::work::NewComment)>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::work::CreatedComment,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send;
}
#[allow(unreachable_pub)]
impl<T: Work + ?::core::marker::Sized> Work for ::std::sync::Arc<T> {
    fn containers(
        &self,
        call: ContainersCall,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::work::Containers,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Work>::containers(&**self, call)
    }
    fn create_item(
        &self,
        call: WorkCall<::host_runtime::work::NewItem>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::work::CreatedItem,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Work>::create_item(&**self, call)
    }
    fn create_comment(
        &self,
        call: WorkCall<(::std::string::String, ::host_runtime::work::NewComment)>,
    ) -> impl ::core::future::Future<
        Output = ::core::result::Result<
            ::host_runtime::work::CreatedComment,
            ::host_runtime::HostError,
        >,
    > + ::core::marker::Send {
        <T as Work>::create_comment(&**self, call)
    }
}
/// Payload types of the events the vendor server posts (`contributes.webhooks`).
#[allow(unreachable_pub)]
pub mod webhooks {
    /// The payload of `issue.status_changed` (`as: "event"`).
    #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
    pub mod issue_status_changed {
        /// The event name.
        pub const EVENT: &str = "issue.status_changed";
        /// The payload schema the manifest declares, checked before each event is signed.
        pub static SCHEMA: ::host_runtime::webhook::PayloadSchema = ::host_runtime::webhook::PayloadSchema::new(
            EVENT,
            "{\"additionalProperties\":false,\"properties\":{\"changedAt\":{\"format\":\"date-time\",\"type\":\"string\"},\"issueId\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"}},\"required\":[\"issueId\"],\"type\":\"object\"}",
            ::core::option::Option::None,
            false,
        );
        /// The payload of the event `issue.status_changed`, typed from the schema at `/contributes/webhooks/0/payload` in the manifest.
        #[derive(
            ::host_runtime::__private_0_1_0::serde::Deserialize,
            ::host_runtime::__private_0_1_0::serde::Serialize,
            Clone,
            Debug
        )]
        #[serde(crate = "::host_runtime::__private_0_1_0::serde")]
        #[serde(deny_unknown_fields)]
        pub struct Payload {
            /// `changedAt`.
            #[serde(
                rename = "changedAt",
                skip_serializing_if = "::std::option::Option::is_none"
            )]
            pub changed_at: ::std::option::Option<::std::string::String>,
            /// `issueId`.
            #[serde(rename = "issueId")]
            pub issue_id: ::std::string::String,
            /// `status`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub status: ::std::option::Option<::std::string::String>,
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
    /// Signs `issue.status_changed` for the install `source`: the host turns it into an event for chart markers and client subscriptions.
    ///
    /// `dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`). The payload is first checked against the declared schema; a payload the host would refuse is `WebhookError::PayloadInvalid`, naming the pointer, and is not signed.
    pub fn issue_status_changed(
        &self,
        source: &str,
        dedupe_key: &str,
        payload: &webhooks::issue_status_changed::Payload,
    ) -> ::core::result::Result<
        ::host_runtime::webhook::OutboundEvent,
        ::host_runtime::webhook::WebhookError,
    > {
        self.sender
            .event(&webhooks::issue_status_changed::SCHEMA, source, dedupe_key, payload)
    }
}
static __HOST_SPEC: ::host_runtime::__private_0_1_0::Spec = {
    use ::host_runtime::__private_0_1_0 as __rt;
    __rt::Spec {
        extension_id: "issue-bridge",
        tools: &[],
        actions: &[],
        mentions: &[],
        context: &[],
        procedures: &[],
        metrics: &[],
        work: ::core::option::Option::Some(__rt::Work {
            containers: "/work/projects",
            creates: &["issue"],
            two_way_comments: true,
        }),
        events: &[],
    }
};
struct __HostDispatch<S>(S);
#[allow(unreachable_pub)]
impl<S: Work> ::host_runtime::__private_0_1_0::Dispatch for __HostDispatch<S> {
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
            __rt::Route::WorkContainers => {
                __rt::answer(
                    __rt::call(call),
                    |call: ContainersCall| <S as Work>::containers(&self.0, call),
                    __rt::json_answer,
                )
            }
            __rt::Route::WorkItems => {
                __rt::answer(
                    __rt::call(call),
                    |call: WorkCall<::host_runtime::work::NewItem>| <S as Work>::create_item(
                        &self.0,
                        call,
                    ),
                    __rt::json_answer,
                )
            }
            __rt::Route::WorkComment(item) => {
                __rt::answer(
                    __rt::work_comment(::std::string::String::from(item), call),
                    |
                        call: WorkCall<
                            (::std::string::String, ::host_runtime::work::NewComment),
                        >|
                    <S as Work>::create_comment(&self.0, call),
                    __rt::json_answer,
                )
            }
            route => {
                let _ = call;
                __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
            }
        }
    }
}
/// Builds the host handler of `issue-bridge` from your server value.
///
/// The value must implement `Work`: exactly the traits this manifest needs.
#[allow(unreachable_pub)]
pub fn handler<S: Work>(server: S) -> ::host_runtime::Handler {
    ::host_runtime::__private_0_1_0::handler(&__HOST_SPEC, __HostDispatch(server))
}
::host_runtime::__private_0_1_0::validators_needed!();
