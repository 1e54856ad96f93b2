//! Stand-ins for a manifest whose model could not be read, so that the vendor sees the manifest's
//! errors and not a cascade of unresolved names.

use quote::quote;

use super::methods::Trait;

/// Empty modules, `Credentials`, `Documents` and traits, as Rust source text.
pub(crate) fn stubs() -> String {
    let traits = Trait::ALL.map(Trait::ident);
    let items = quote! {
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
        #(
            /// Unavailable: the manifest is invalid (see the errors above).
            pub trait #traits {}
        )*
    };
    super::reachable_or_not(items).to_string()
}
