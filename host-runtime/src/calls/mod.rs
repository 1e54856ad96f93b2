//! Calls and answers: what a handler receives (calls, host events), what it answers (tool cards,
//! mention items, context blocks, sync pages, work items), the checks answers must pass, the
//! errors the host reads, and the routes calls arrive on.

pub mod answer;
pub(crate) mod call;
pub mod check;
pub(crate) mod error;
pub mod events;
pub mod metrics;
pub(crate) mod nullable;
pub mod route;
mod text;
pub mod work;
