//! The private dispatcher (one match arm per handler method) and the public `handler` entry point,
//! written from the method model.

use host_manifest::model::Manifest;
use proc_macro2::TokenStream;
use quote::quote;

use super::methods::{Decode, Method, Reply, needed};
use crate::docs::doc;

/// The dispatcher and `handler`; `json` is the manifest the runtime serves and checks against.
pub fn dispatcher(m: &Manifest, methods: &[Method], json: &str) -> TokenStream {
    let arms = methods.iter().map(|method| {
        let (route, call, name) = (&method.route, &method.call, &method.name);
        let owner = method.owner.ident();
        let decode = match method.decode {
            Decode::Call => quote!(__rt::call(call)),
            Decode::Approved => quote!(__rt::approved(call)),
            Decode::Mention => quote!(__rt::mention(call)),
            Decode::Context => quote!(__rt::context(call)),
            Decode::Event => quote!(__rt::event(call)),
            Decode::WorkComment => {
                quote!(__rt::work_comment(::std::string::String::from(item), call))
            }
        };
        let reply = match method.reply {
            Reply::Tool => quote!(__rt::tool_answer),
            Reply::Procedure => quote!(__rt::procedure_answer),
            Reply::Mention => quote!(__rt::mention_answer),
            Reply::Context => quote!(__rt::context_answer),
            Reply::Event => quote!(__rt::event_answer),
            Reply::Json => quote!(__rt::json_answer),
        };
        quote! {
            #route => ::std::boxed::Box::pin(async move {
                let call: #call = #decode?;
                #reply(<S as #owner>::#name(&self.0, call).await?)
            }),
        }
    });
    let traits: Vec<_> = needed(methods).into_iter().map(|t| t.ident()).collect();
    let bounds = if traits.is_empty() {
        quote!(::core::marker::Send + ::core::marker::Sync + 'static)
    } else {
        quote!(#(#traits)+*)
    };
    let required: Vec<String> = traits.iter().map(|t| format!("`{t}`")).collect();
    let entry_doc = doc(&format!(
        "Builds the host handler of `{}` from your server value.\n\nThe value must implement {}: exactly the traits this manifest needs.",
        m.id,
        if required.is_empty() {
            "no trait".to_owned()
        } else {
            required.join(", ")
        }
    ));
    quote! {
        struct __HostDispatch<S>(S);

        impl<S: #bounds> ::host_runtime::codegen::Dispatch for __HostDispatch<S> {
            fn dispatch<'a>(
                &'a self,
                route: ::host_runtime::codegen::Route<'a>,
                call: ::host_runtime::codegen::RawCall,
            ) -> ::host_runtime::codegen::BoxFuture<'a, ::core::result::Result<::host_runtime::codegen::Reply, ::host_runtime::HostError>> {
                use ::host_runtime::codegen as __rt;
                #[allow(unreachable_patterns)]
                match route {
                    #(#arms)*
                    route => {
                        let _ = call;
                        __rt::ready(::core::result::Result::Err(__rt::not_found(route)))
                    }
                }
            }
        }

        #entry_doc
        pub fn handler<S: #bounds>(server: S) -> ::host_runtime::Handler {
            ::host_runtime::codegen::handler(#json, __HostDispatch(server))
        }
    }
}
