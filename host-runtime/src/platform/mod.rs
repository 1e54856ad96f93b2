//! What the runtime needs of the platform it runs on: timers and tasks, and an HTTP client.

pub mod client;
pub(crate) mod rt;
pub(crate) mod scope;

/// A boxed error that can cross threads: what a vendor's health check, a store's backend or an HTTP
/// client may fail with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A boxed, sendable future: what [`DedupeStore`](crate::dedupe::DedupeStore) methods and health
/// checks return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
