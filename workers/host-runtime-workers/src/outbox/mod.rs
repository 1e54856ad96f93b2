//! The outbox on a Durable Object: [`DurableOutbox`] is the sender's store, [`HostOutbox`] the
//! Durable Object class that keeps the events and drains them on its alarm.
//!
//! A Worker's tasks end with its request, so its sender runs on demand: a send stores the event and
//! makes one attempt before the handler answers. An event the host did not take then waits in the
//! `HostOutbox` object, whose alarm is always set to when the earliest waiting event is due. When
//! it rings, the object builds the sender with the function given to [`drain_with`], points it at
//! its own storage and drains what is due (up to [`ALARM_BUDGET`]), then sets the alarm for what is
//! left. So an event refused with a 5xx, a 429 or a timeout is posted again on the retry policy's
//! schedule with no request to the Worker, and survives the isolate that sent it.
//!
//! By role, one file each:
//!
//! - `client.rs`: [`DurableOutbox`], the store the Worker's sender uses, which asks the object.
//! - `object.rs`: [`HostOutbox`], the Durable Object class: it reads each request, answers it from
//!   its storage, and drains on its alarm.
//! - `storage.rs`: the store on the object's own storage, what the object serves and its alarm
//!   drains, with the storage layout.
//!
//! What the two sides exchange, and what the object stores, are the types of `crate::wire`.

mod client;
mod object;
mod storage;

pub use client::DurableOutbox;
pub use object::{ALARM_BUDGET, HostOutbox, SenderFactory, drain_with};
