//! Stores: where event deliveries are remembered ([`dedupe`]), the error every store fails with
//! ([`store`]), a handler's transaction in a database that holds its writes, its events and its
//! delivery's record together ([`transaction`]), and that database when it is PostgreSQL
//! ([`postgres`]). The outbox's stores live with the outbox.

pub mod dedupe;
pub mod postgres;
pub mod store;
pub mod transaction;
