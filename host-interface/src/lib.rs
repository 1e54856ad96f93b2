//! The extension host interface's fixed facts, as data and nothing else: the scope keys and what each
//! kind of contribution needs ([`catalogue`], [`Contribution`]), the event catalogue (each event's
//! name, scope and deduplication key), the widget slots of each host page, the numeric limits
//! ([`limits`]) and the interface version.
//!
//! Both the manifest engine (`host-manifest`, at compile time) and the runtime (`host-runtime`, in the
//! vendor's server) read these tables, so each list exists once. The crate has no dependencies.

pub mod catalogue;
pub mod limits;

pub use catalogue::Contribution;
