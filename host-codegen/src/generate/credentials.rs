//! `Credentials`, typed from the connector's auth fields.

use host_manifest::model::{AuthMethod, Manifest};
use proc_macro2::TokenStream;
use quote::quote;

use crate::docs::doc;
use crate::names::{ident, snake};

/// `Credentials`, typed from `connector.auth.fields`.
pub(super) fn credentials(m: &Manifest) -> TokenStream {
    let Some(auth) = m
        .contributes
        .connector
        .as_ref()
        .and_then(|c| c.auth.as_ref())
    else {
        return quote! {
            /// Connector credentials: the manifest declares no connector auth, so there are none.
            pub type Credentials = ::host_runtime::NoCredentials;
        };
    };
    let mut fields = Vec::new();
    for f in &auth.fields {
        let name = ident(&snake(&f.name));
        let json = &f.name;
        let mut text = format!("{} (`{json}`, a {} input).", f.label, f.kind);
        if let Some(help) = &f.help {
            text.push_str(&format!("\n\n{help}"));
        }
        if !f.required {
            text.push_str("\n\nOptional: `None` when the owner left it empty.");
        }
        let d = doc(&text);
        fields.push(if f.required {
            quote! { #d #[serde(rename = #json)] pub #name: ::std::string::String, }
        } else {
            quote! { #d #[serde(rename = #json, default)] pub #name: ::core::option::Option<::std::string::String>, }
        });
    }
    if auth.method == AuthMethod::Oauth {
        fields.push(quote! {
            /// The OAuth token the host keeps for this install (`credentials.oauth`).
            pub oauth: ::host_runtime::OAuthToken,
        });
    }
    let (rt, serde) = (crate::runtime::path(), crate::runtime::SERDE);
    quote! {
        /// Connector credentials the owner entered at install (`contributes.connector.auth`), sent on
        /// every call with a body.
        #[derive(::core::clone::Clone, #rt::serde::Deserialize)]
        #[serde(crate = #serde)]
        pub struct Credentials {
            #(#fields)*
        }

        impl ::core::fmt::Debug for Credentials {
            // Credentials are secrets: never print them.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str("Credentials(..)")
            }
        }
    }
}
