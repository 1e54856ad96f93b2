//! Events the vendor server posts to the host: the signed envelope and the Standard Webhooks `v1`
//! signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
//!
//! [`sign_webhook`] and [`verify_webhook`] are the primitives; [`EventSender`] builds the signed request
//! for one declared event. The generated `Webhooks` type wraps an `EventSender` with one typed method
//! per webhook the manifest declares, so an undeclared event or a payload of the wrong type does not
//! compile, and each payload is checked against the webhook's declared schema (and, for alerts and
//! banners, for a non-empty `why`) before it is signed: the host would refuse it with a 4xx after the
//! fact, and a 4xx is final. See [`crate::interface`], section "Events and deduplication"
//! ([link](crate::interface#events-and-deduplication)).

pub(crate) mod development;
mod event;
mod payload;
mod sender;
mod signature;

pub use crate::outbound::outbox::{Receipt, RetryPolicy, SendError};
pub use event::OutboundEvent;
pub use payload::PayloadSchema;
pub use sender::EventSender;
#[doc(hidden)]
pub use sender::OutboxIsAnArgumentOfNew;
pub use signature::{
    PayloadEncodingError, PayloadError, Secret, TIMESTAMP_TOLERANCE, WebhookError, sign_webhook,
    verify_webhook, verify_webhook_any,
};

#[cfg(test)]
mod tests;
