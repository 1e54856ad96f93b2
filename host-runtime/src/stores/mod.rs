//! Stores: where event deliveries are remembered ([`dedupe`]), and the error every store fails
//! with ([`store`]). The outbox's stores live with the outbox.

pub mod dedupe;
pub mod store;
