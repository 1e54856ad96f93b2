//! The events the vendor server posts (`contributes.webhooks`): one payload module per event and the
//! typed `Webhooks` sender with one method per event.

use host_manifest::model::{Manifest, WebhookKind};
use proc_macro2::TokenStream;
use quote::quote;

use super::Notes;
use crate::docs::doc;
use crate::names::{ident, snake};
use crate::types::Types;
use crate::validators::Validators;

/// `webhooks::<event>` payload modules and the `Webhooks` sender.
pub(super) fn webhooks(
    m: &Manifest,
    types: &Types,
    notes: &mut Notes,
    validators: &mut Validators,
) -> TokenStream {
    let hooks = &m.contributes.webhooks;
    if hooks.is_empty() {
        return TokenStream::new();
    }
    let mut modules = Vec::new();
    let mut methods = Vec::new();
    for (i, w) in hooks.iter().enumerate() {
        let name = ident(&snake(&w.event));
        let event = &w.event;
        let items = notes.take(types.items(&format!("webhooks/{event}"), &["Payload"]));
        let what = match w.kind {
            WebhookKind::Alert => "an inbox alert showing the payload's `why`",
            WebhookKind::Banner => "a page banner showing the payload's `why`",
            WebhookKind::Event => "an event for chart markers and client subscriptions",
        };
        let module_doc = doc(&format!("The payload of `{event}` (`as: \"{}\"`).", w.kind));
        let schema = serde_json::to_string(&w.payload).unwrap_or_default();
        let check = validators.check(&w.payload, &format!("/contributes/webhooks/{i}/payload"), 2);
        let shows_why = matches!(w.kind, WebhookKind::Alert | WebhookKind::Banner);
        modules.push(quote! {
            #module_doc
            #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
            pub mod #name {
                /// The event name.
                pub const EVENT: &str = #event;
                /// The payload schema the manifest declares, checked before each event is signed.
                pub static SCHEMA: ::host_runtime::webhook::PayloadSchema =
                    ::host_runtime::webhook::PayloadSchema::new(EVENT, #schema, #check, #shows_why);
                #items
            }
        });
        let d = doc(&format!(
            "Signs `{event}` for the install `source`: the host turns it into {what}.\n\n`dedupe_key` is your idempotency key for this event, kept across retries (it becomes `webhook-id`). The payload is first checked against the declared schema{}; a payload the host would refuse is `WebhookError::PayloadInvalid`, naming the pointer, and is not signed.",
            if matches!(w.kind, WebhookKind::Alert | WebhookKind::Banner) {
                " and for a `why` with words in it"
            } else {
                ""
            }
        ));
        methods.push(quote! {
            #d
            pub fn #name(
                &self,
                source: &str,
                dedupe_key: &str,
                payload: &webhooks::#name::Payload,
            ) -> ::core::result::Result<::host_runtime::webhook::OutboundEvent, ::host_runtime::webhook::WebhookError> {
                self.sender.event(&webhooks::#name::SCHEMA, source, dedupe_key, payload)
            }
        });
    }
    quote! {
        /// Payload types of the events the vendor server posts (`contributes.webhooks`).
        pub mod webhooks { #(#modules)* }

        /// Typed sender for the events this extension declares under `contributes.webhooks`: one method
        /// per event, taking that event's payload type.
        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        pub struct Webhooks {
            sender: ::host_runtime::EventSender,
        }

        impl Webhooks {
            /// Wraps a configured event sender.
            pub fn new(sender: ::host_runtime::EventSender) -> Self {
                Webhooks { sender }
            }

            #(#methods)*
        }
    }
}
