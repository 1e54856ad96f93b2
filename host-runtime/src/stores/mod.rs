//! Stores: where the runtime keeps what must outlive a call. Two roles, each a trait with its
//! types: [`dedupe`] (which event deliveries ran) and `outbox` (the vendor's own events until the
//! host takes them); the error every store fails with ([`store`]); a handler's transaction in a
//! database that holds its writes, its events and its delivery's record together
//! ([`transaction`]). Then one room per backend, holding both of its roles and its connection:
//! `memory`, `file` (redb), `redis`, [`postgres`] (also the pool, the migrations and the
//! transaction) and `dynamodb`.
//!
//! Nothing here names the dispatcher (`outbound::outbox`), which sits a layer above and drains
//! these stores; vendors reach the stores at `host_runtime::dedupe` and `host_runtime::outbox`.

pub(crate) mod dedupe;
#[cfg(feature = "dynamodb")]
pub(crate) mod dynamodb;
#[cfg(feature = "redb")]
pub(crate) mod file;
pub(crate) mod memory;
pub(crate) mod outbox;
pub mod postgres;
#[cfg(feature = "redis")]
pub(crate) mod redis;
pub mod store;
pub mod transaction;
