//! `Documents`, typed from the storage collections and the settings panel, with the schema modules
//! `storage::*` and `settings`.

use host_manifest::model::Manifest;
use proc_macro2::TokenStream;
use quote::quote;

use super::Notes;
use crate::docs::doc;
use crate::names::{ident, snake};
use crate::types::Types;

/// `Documents`, typed from storage collections and the settings panel, with their schema modules.
pub(super) fn documents(m: &Manifest, types: &Types, notes: &mut Notes) -> TokenStream {
    let mut modules = Vec::new();
    let mut fields = Vec::new();
    for (name, coll) in &m.contributes.storage {
        let module = ident(&snake(name));
        let typed = types.items(&format!("storage/{name}"), &["Document"]);
        let items = notes.take(typed);
        let module_doc = doc(&format!(
            "Documents of the storage collection `{name}` (owned per {}).",
            coll.scope
        ));
        modules.push(quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #module { #items }
        });
        let singleton = coll.singleton == Some(true);
        let d = doc(&format!(
            "The `{name}` collection{}.",
            if singleton {
                ", which holds one document (`None` until it is written)"
            } else {
                ""
            }
        ));
        fields.push(if singleton {
            quote! { #d #[serde(rename = #name, default)] pub #module: ::core::option::Option<storage::#module::Document>, }
        } else {
            quote! { #d #[serde(rename = #name, default)] pub #module: ::std::vec::Vec<::host_runtime::Document<storage::#module::Document>>, }
        });
    }
    let mut settings_module = TokenStream::new();
    if m.contributes.settings.is_some() {
        let items = notes.take(types.items("settings", &["Settings"]));
        settings_module = quote! {
            /// The values owners fill in on the settings panel (`contributes.settings.schema`).
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod settings { #items }
        };
        fields.push(quote! {
            /// The settings panel's values (the reserved `settings` collection); `None` until saved.
            #[serde(default)]
            pub settings: ::core::option::Option<settings::Settings>,
        });
    }
    if fields.is_empty() {
        return quote! {
            /// Hosted storage documents: the manifest declares no storage and no settings panel.
            pub type Documents = ::host_runtime::NoDocuments;
        };
    }
    let storage_module = if modules.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            /// Types of the hosted storage collections (`contributes.storage`).
            pub mod storage { #(#modules)* }
        }
    };
    let (rt, serde) = (crate::runtime::path(), crate::runtime::SERDE);
    quote! {
        #storage_module
        #settings_module

        /// Hosted storage documents, sent with every call that has a body.
        #[derive(::core::fmt::Debug, ::core::clone::Clone, #rt::serde::Deserialize)]
        #[serde(crate = #serde)]
        pub struct Documents {
            #(#fields)*
        }
    }
}
