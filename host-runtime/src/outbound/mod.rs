//! The vendor's own events: signed and posted to the host ([`webhook`]) through an outbox that keeps
//! them until the host takes them ([`outbox`]).

pub mod outbox;
pub mod webhook;
