::core::compile_error!(
    "schema-type-scopes.json:11:13: /scopes: `scopes` must be an array; it is the string \"ui:render\" [schema.type]"
);
const _: &[u8] = ::core::include_bytes!(
    "$CARGO_MANIFEST_DIR/schema-type-scopes.json"
);
/// Unavailable: the manifest is invalid (see the errors above).
pub mod manifest {}
/// Unavailable: the manifest is invalid (see the errors above).
pub mod tools {}
/// Unavailable: the manifest is invalid (see the errors above).
pub mod actions {}
/// Unavailable: the manifest is invalid (see the errors above).
pub mod procedures {}
/// Unavailable: the manifest is invalid (see the errors above).
pub mod prompts {}
/// Unavailable: the manifest is invalid (see the errors above).
pub mod storage {}
/// Unavailable: the manifest is invalid (see the errors above).
pub mod webhooks {}
/// Unavailable: the manifest is invalid (see the errors above).
pub type Credentials = ::host_runtime::NoCredentials;
/// Unavailable: the manifest is invalid (see the errors above).
pub type Documents = ::host_runtime::NoDocuments;
/// Unavailable: the manifest is invalid (see the errors above).
pub trait Tools {}
/// Unavailable: the manifest is invalid (see the errors above).
pub trait Actions {}
/// Unavailable: the manifest is invalid (see the errors above).
pub trait Mentions {}
/// Unavailable: the manifest is invalid (see the errors above).
pub trait ContextProviders {}
/// Unavailable: the manifest is invalid (see the errors above).
pub trait Procedures {}
/// Unavailable: the manifest is invalid (see the errors above).
pub trait Connector {}
/// Unavailable: the manifest is invalid (see the errors above).
pub trait Work {}
/// Unavailable: the manifest is invalid (see the errors above).
pub trait Events {}
