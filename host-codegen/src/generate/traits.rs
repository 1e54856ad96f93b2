//! The handler traits (`Tools`, `Actions`, ... `Events`), each followed by its implementation for
//! `Arc<T>`, written from the method model.

use proc_macro2::TokenStream;
use quote::quote;

use super::methods::{Method, needed};
use crate::docs::doc;

/// `impl Future<Output = Result<answer, HostError>> + Send`: what every handler method returns.
pub(super) fn future_of(answer: &TokenStream) -> TokenStream {
    quote! {
        impl ::core::future::Future<Output = ::core::result::Result<#answer, ::host_runtime::HostError>> + ::core::marker::Send
    }
}

/// Every trait `methods` needs, each with its `Arc` impl right after it.
pub(super) fn traits(methods: &[Method]) -> TokenStream {
    let mut out = TokenStream::new();
    for owner in needed(methods) {
        let own: Vec<&Method> = methods.iter().filter(|m| m.owner == owner).collect();
        let name = owner.ident();
        let trait_doc = doc(owner.doc());
        let declared = own.iter().map(|m| {
            let (d, method, call) = (&m.doc, &m.name, &m.call);
            let fut = future_of(&m.answer);
            if m.reserved {
                quote! {
                    #d
                    fn #method(&self, call: #call) -> #fut {
                        let _ = call;
                        async { ::core::result::Result::Ok(()) }
                    }
                }
            } else {
                quote! { #d fn #method(&self, call: #call) -> #fut; }
            }
        });
        let forwarded = own.iter().map(|m| {
            let (method, call) = (&m.name, &m.call);
            let fut = future_of(&m.answer);
            quote! {
                fn #method(&self, call: #call) -> #fut {
                    <T as #name>::#method(&**self, call)
                }
            }
        });
        out.extend(quote! {
            #trait_doc
            pub trait #name: ::core::marker::Send + ::core::marker::Sync + 'static {
                #(#declared)*
            }

            // Forwards to the shared `T`, so `handler` can take an `Arc` of state the server shares.
            impl<T: #name + ?::core::marker::Sized> #name for ::std::sync::Arc<T> {
                #(#forwarded)*
            }
        });
    }
    out
}
