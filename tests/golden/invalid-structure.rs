::core::compile_error!(
    "schema-type-scopes.json:11:13: /scopes: `scopes` must be an array; it is the string \"ui:render\" [schema.type]"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/schema-type-scopes.json"
);
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub mod manifest {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub mod tools {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub mod actions {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub mod procedures {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub mod prompts {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub mod storage {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub mod webhooks {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub type Credentials = ::host_runtime::NoCredentials;
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub type Documents = ::host_runtime::NoDocuments;
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait Tools {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait Actions {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait Mentions {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait ContextProviders {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait Procedures {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait Connector {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait Work {}
/// Unavailable: the manifest is invalid (see the errors above).
#[allow(unreachable_pub)]
pub trait Events {}
