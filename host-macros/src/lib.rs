//! `host_extension!`: reads `host.extension.json` at compile time, reports every manifest mistake as a
//! compiler error and generates the typed API. A thin shim over `host-codegen`; use it through
//! `host_runtime::host_extension!`, which is the only crate a vendor adds.

use proc_macro::TokenStream;

/// Generates the typed API of the extension described by a manifest.
///
/// ```ignore
/// host_runtime::host_extension!("host.extension.json");
/// ```
///
/// The path is relative to the crate's folder (`CARGO_MANIFEST_DIR`). See `host_runtime` for what is
/// generated.
#[proc_macro]
pub fn host_extension(input: TokenStream) -> TokenStream {
    let lit = match syn::parse::<syn::LitStr>(input) {
        Ok(lit) => lit,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                "expected the manifest's path as a string literal, such as host_extension!(\"host.extension.json\")",
            );
            return e.to_compile_error().into();
        }
    };
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    host_codegen::expand(&lit.value(), dir.as_deref(), lit.span()).into()
}
