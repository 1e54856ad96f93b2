//! The `manifest` module: what the manifest declares as constants (`EXTENSION_ID`, `NAME`, `SDK`) and
//! enums (`Scope`, `SubscribedEvent`, `Telemetry`, `Metric`).

use host_manifest::catalogue;
use host_manifest::model::Manifest;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::docs::doc;
use crate::names::{camel, ident};

fn str_list(items: impl IntoIterator<Item = String>) -> TokenStream {
    let items: Vec<String> = items.into_iter().collect();
    quote! { &[ #(#items),* ] }
}

/// `manifest`: constants and enums for what the manifest declares.
pub(super) fn module(m: &Manifest) -> TokenStream {
    let id = &m.id;
    let name = &m.name;
    let sdk = &m.sdk;
    let module_doc = doc(&format!(
        "What `host.extension.json` declares for `{id}` ({name}), as constants and enums.\n\n{}",
        m.description
    ));
    let scopes = string_enum(
        "Scope",
        "A scope the manifest declares under `scopes`.",
        m.scopes.iter().map(|s| {
            let mut text = format!("`{}`", s.key);
            if let Some(j) = &s.justification {
                text.push_str(&format!(": {j}"));
            }
            (s.key.clone(), text)
        }),
    );
    let events = string_enum(
        "SubscribedEvent",
        "A host event the vendor server subscribes to under `server.events`.",
        m.subscribed_events().iter().map(|e| {
            let published = catalogue::event(e).is_some_and(|ev| ev.published);
            let note = if published {
                "delivered to `POST /host/events`"
            } else {
                "reserved: not delivered yet"
            };
            (e.clone(), format!("`{e}`: {note}."))
        }),
    );
    let telemetry = string_enum(
        "Telemetry",
        "A telemetry name the extension may report (`telemetry`).",
        m.telemetry.iter().map(|t| (t.clone(), format!("`{t}`."))),
    );
    let metrics: Vec<_> = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| c.metrics.iter())
        .collect();
    let metric_enum = if metrics.is_empty() {
        TokenStream::new()
    } else {
        let variants: Vec<Ident> = metrics.iter().map(|x| ident(&camel(&x.key))).collect();
        let keys: Vec<&str> = metrics.iter().map(|x| x.key.as_str()).collect();
        let docs: Vec<TokenStream> = metrics
            .iter()
            .map(|x| {
                let dims: Vec<String> = x
                    .dimensions
                    .iter()
                    .map(|d| format!("`{}` ({})", d.key, d.label))
                    .collect();
                let dims = if dims.is_empty() {
                    "no dimensions".to_owned()
                } else {
                    format!("dimensions {}", dims.join(", "))
                };
                doc(&format!(
                    "`{}`: {} ({}, {}); {dims}.",
                    x.key, x.label, x.unit, x.kind
                ))
            })
            .collect();
        let dims: Vec<TokenStream> = metrics
            .iter()
            .map(|x| str_list(x.dimensions.iter().map(|d| d.key.clone())))
            .collect();
        let (rt, serde) = (crate::runtime::path(), crate::runtime::SERDE);
        quote! {
            /// A metric key the connector declares under `contributes.connector.metrics`.
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash, #rt::serde::Serialize, #rt::serde::Deserialize)]
            #[serde(crate = #serde)]
            pub enum Metric {
                #( #docs #[serde(rename = #keys)] #variants, )*
            }

            impl Metric {
                /// Every declared metric, in manifest order.
                pub const ALL: &'static [Metric] = &[ #(Metric::#variants),* ];

                /// The key as written in the manifest.
                pub fn as_str(self) -> &'static str {
                    match self { #( Metric::#variants => #keys, )* }
                }

                /// The dimension keys the metric declares.
                pub fn dimensions(self) -> &'static [&'static str] {
                    match self { #( Metric::#variants => #dims, )* }
                }
            }
        }
    };
    quote! {
        #module_doc
        // Facts of the manifest for the vendor's own use; in a binary crate, unused ones must not warn.
        #[allow(dead_code)]
        pub mod manifest {
            /// The extension id.
            pub const EXTENSION_ID: &str = #id;
            /// The name shown to owners.
            pub const NAME: &str = #name;
            /// The SDK range the manifest targets.
            pub const SDK: &str = #sdk;
            #scopes
            #events
            #telemetry
            #metric_enum
        }
    }
}

/// A fieldless enum of manifest strings with `as_str` and `ALL`.
fn string_enum(
    name: &str,
    what: &str,
    values: impl Iterator<Item = (String, String)>,
) -> TokenStream {
    let values: Vec<(String, String)> = values.collect();
    let name = format_ident!("{name}");
    if values.is_empty() {
        let doc = doc(&format!("{what}\n\nThe manifest declares none."));
        return quote! {
            #doc
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
            pub enum #name {}
            impl #name {
                /// Every value, in manifest order (none).
                pub const ALL: &'static [#name] = &[];
                /// The value as written in the manifest.
                pub fn as_str(self) -> &'static str { match self {} }
            }
        };
    }
    let enum_doc = doc(what);
    let variants: Vec<Ident> = values.iter().map(|(v, _)| ident(&camel(v))).collect();
    let texts: Vec<&str> = values.iter().map(|(v, _)| v.as_str()).collect();
    let docs: Vec<TokenStream> = values.iter().map(|(_, d)| doc(d)).collect();
    quote! {
        #enum_doc
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
        pub enum #name {
            #( #docs #variants, )*
        }
        impl #name {
            /// Every value, in manifest order.
            pub const ALL: &'static [#name] = &[ #(#name::#variants),* ];
            /// The value as written in the manifest.
            pub fn as_str(self) -> &'static str {
                match self { #( #name::#variants => #texts, )* }
            }
        }
    }
}
