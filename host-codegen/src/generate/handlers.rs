//! Handler stubs a vendor starts from: one `impl` per trait the manifest needs, one `async fn` per
//! method with a `todo!()` body, written from the method model. `cargo host stubs` prints them.
//!
//! Editors' "implement missing members" cannot write these: the traits declare their methods as
//! `fn .. -> impl Future<Output = ..> + Send` (so every handler future is `Send`), and rust-analyzer
//! copies that signature with a `todo!()` body, which is no future. An `async fn` in the `impl` is
//! what the trait accepts.

use host_manifest::model::Manifest;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::methods::{self, Method, needed};

/// A type's path as a person writes it: `host_runtime::answer::Value`, not `::host_runtime::...`.
fn plain(tokens: &TokenStream) -> TokenStream {
    let text = tokens
        .to_string()
        .replace(":: host_runtime", "host_runtime");
    text.trim_start_matches(":: ")
        .parse()
        .unwrap_or_else(|_| tokens.clone())
}

/// Why no stubs could be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StubsError {
    /// The server's name is no Rust type name.
    #[error("`{name}` is not a Rust type name")]
    NotATypeName {
        /// The name as given.
        name: String,
        /// Why the Rust parser refused it.
        #[source]
        source: syn::Error,
    },
}

/// The stubs for the server type named `server`, as formatted Rust; an error when `server` is no
/// Rust type name.
pub fn handler_stubs(m: &Manifest, server: &str) -> Result<String, StubsError> {
    let server: Ident = syn::parse_str(server).map_err(|source| StubsError::NotATypeName {
        name: server.to_owned(),
        source,
    })?;
    let all = methods::methods(m);
    let impls: Vec<String> = needed(&all).into_iter().map(|owner| {
        let name = owner.ident();
        let own = all.iter().filter(|m| m.owner == owner).map(|method: &Method| {
            let (method_name, call) = (&method.name, plain(&method.call));
            let answer = plain(&method.answer);
            if method.reserved {
                quote! {}
            } else {
                quote! {
                    async fn #method_name(&self, _call: #call) -> Result<#answer, host_runtime::HostError> {
                        todo!()
                    }
                }
            }
        });
        let block = quote! {
            impl #name for #server {
                #(#own)*
            }
        };
        crate::expansion::pretty(&block.to_string())
    }).collect();
    Ok(impls.join("\n"))
}
