//! What the runtime needs of the platform it runs on: timers and tasks, and an HTTP client.

pub mod client;
pub(crate) mod rt;
pub(crate) mod scope;
