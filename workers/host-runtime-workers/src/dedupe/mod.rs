//! Event deduplication on Durable Objects: [`DurableDedupe`] is the handler's store, and
//! [`HostDedupe`] the Durable Object class that holds each key. (A store from
//! [`DurableOutbox::dedupe_store`](crate::DurableOutbox::dedupe_store) keeps the same records, by
//! the same rules, in the outbox's own object instead.)
//!
//! Every deduplication key has a Durable Object of its own (`id_from_name(key)`): Cloudflare runs
//! one instance of it in the world at a time, and its storage is transactional, so two deliveries
//! of the same event (in two isolates, two locations, or before and after an isolate was evicted)
//! ask the same object and only one of them is told to run. The object keeps one record:
//!
//! - `inflight`: claimed by one delivery attempt (its `owner`) until its lease ends. The attempt
//!   renews the lease every third of it while its handler runs; a claim whose attempt died (the
//!   isolate was evicted mid-handler) is free again when the lease ends.
//! - `done`: the handler succeeded. Kept for [`host_runtime::dedupe::WINDOW`] (20 minutes, longer
//!   than the host's 12.5 minutes of retries), then erased by the object's alarm.
//!
//! The requests, answers and record are the types of [`wire`](crate::wire). A record this version
//! cannot read refuses its key's requests (the object answers 500, the store
//! [`Unavailable`](host_runtime::dedupe::StoreErrorKind::Unavailable)) until the alarm erases it:
//! counting it as absent would let a delivery run again.
//!
//! Each claim, completion, release or renewal is one request to the object, which reads and writes
//! its storage without awaiting anything else in between: the Workers runtime delivers no other
//! request to the object meanwhile (its input gate) and commits the writes together, so each step
//! is atomic.
//!
//! By role, one file each, as the outbox's:
//!
//! - `client.rs`: [`DurableDedupe`], the store the handler uses, which asks the object.
//! - `object.rs`: [`HostDedupe`], the Durable Object class: it reads each request, decides it on
//!   its one record, and erases the record on its alarm.
//! - `rules.rs`: what a step does to a record, wherever the record is kept (a `HostDedupe`
//!   object, or a `HostOutbox` object for a store from `DurableOutbox::dedupe_store`).
//!
//! Time is read from [`crate::clock`], as the outbox reads it.

mod client;
mod object;
pub(crate) mod rules;

pub use client::DurableDedupe;
pub use object::HostDedupe;
