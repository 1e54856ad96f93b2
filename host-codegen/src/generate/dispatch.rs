//! The private dispatcher (one match arm per handler method) and the public `handler` entry point,
//! written from the method model.

use host_manifest::model::Manifest;
use proc_macro2::TokenStream;
use quote::quote;

use super::methods::{Decode, Method, Reply, needed};
use crate::docs::doc;
use crate::validators::Validators;

/// What the runtime needs of the manifest, as a `static` `Spec` of the runtime's hidden module: ids, scopes,
/// schemas as compact JSON text with their generated validators, metrics, the work destination and
/// the subscribed events. The runtime never parses the manifest.
fn spec(m: &Manifest, validators: &mut Validators) -> TokenStream {
    let text = |v: &serde_json::Value| serde_json::to_string(v).unwrap_or_default();
    let ai = &m.contributes.ai;
    let tools: Vec<_> = (ai.tools.iter().enumerate())
        .map(|(i, t)| {
            let (id, input) = (&t.id, text(&t.input));
            let check = validators.check(&t.input, &format!("/contributes/ai/tools/{i}/input"), 0);
            quote!(__rt::Tool { id: #id, input: #input, input_check: #check })
        })
        .collect();
    let actions: Vec<_> = (ai.actions.iter().enumerate())
        .map(|(i, a)| {
            let (id, scope, input) = (&a.id, &a.scope, text(&a.input));
            let check =
                validators.check(&a.input, &format!("/contributes/ai/actions/{i}/input"), 0);
            quote!(__rt::Action { id: #id, scope: #scope, input: #input, input_check: #check })
        })
        .collect();
    let mentions = ai.mentions.iter().map(|x| &x.id);
    let context = ai.context.iter().map(|x| &x.id);
    let procedures = m
        .server
        .iter()
        .flat_map(|s| &s.procedures)
        .map(|(name, p)| {
            let (input, output) = (text(&p.input), text(&p.output));
            let at = format!("/server/procedures/{}", host_manifest::escape_token(name));
            let input_check = validators.check(&p.input, &format!("{at}/input"), 0);
            let output_check = validators.check(&p.output, &format!("{at}/output"), 0);
            quote!(__rt::Procedure {
                name: #name,
                input: #input,
                output: #output,
                input_check: #input_check,
                output_check: #output_check,
            })
        })
        .collect::<Vec<_>>();
    let metrics = m
        .contributes
        .connector
        .iter()
        .flat_map(|c| &c.metrics)
        .map(|x| {
            let key = &x.key;
            let dimensions = x.dimensions.iter().map(|d| &d.key);
            quote!(__rt::Metric { key: #key, dimensions: &[#(#dimensions),*] })
        });
    let work = match &m.contributes.work {
        Some(w) => {
            let containers = &w.container.list;
            let creates = w.creates.iter().map(|k| match serde_json::to_value(k) {
                Ok(serde_json::Value::String(k)) => k,
                _ => String::new(),
            });
            let two_way = w.comments == host_manifest::model::CommentSync::TwoWay;
            quote!(::core::option::Option::Some(__rt::Work {
                containers: #containers,
                creates: &[#(#creates),*],
                two_way_comments: #two_way,
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    let events = m.subscribed_events();
    let id = &m.id;
    let rt = crate::runtime::path();
    quote! {
        static __HOST_SPEC: #rt::Spec = {
            use #rt as __rt;
            __rt::Spec {
                extension_id: #id,
                tools: &[#(#tools),*],
                actions: &[#(#actions),*],
                mentions: &[#(#mentions),*],
                context: &[#(#context),*],
                procedures: &[#(#procedures),*],
                metrics: &[#(#metrics),*],
                work: #work,
                events: &[#(#events),*],
            }
        };
    }
}

/// The dispatcher and `handler`, which serves the manifest's [`spec`].
pub(super) fn dispatcher(
    m: &Manifest,
    methods: &[Method],
    validators: &mut Validators,
) -> TokenStream {
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
        // `answer` hands the decoded call to the method and boxes the method's future alone.
        quote! {
            #route => __rt::answer(#decode, |call: #call| <S as #owner>::#name(&self.0, call), #reply),
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
    let spec = spec(m, validators);
    let rt = crate::runtime::path();
    quote! {
        #spec

        struct __HostDispatch<S>(S);

        impl<S: #bounds> #rt::Dispatch for __HostDispatch<S> {
            fn dispatch<'a>(
                &'a self,
                route: #rt::Route<'a>,
                call: #rt::RawCall,
            ) -> #rt::BoxFuture<'a, ::core::result::Result<#rt::Reply, ::host_runtime::HostError>> {
                use #rt as __rt;
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
            #rt::handler(&__HOST_SPEC, __HostDispatch(server))
        }
    }
}
