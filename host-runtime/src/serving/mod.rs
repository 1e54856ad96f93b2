//! Serving a handler: the [`Handler`](handler::Handler) and its request pipeline, on hyper and
//! tokio, as a tower service, or on AWS Lambda.

pub(crate) mod handler;
#[cfg(feature = "lambda")]
pub mod lambda;
pub(crate) mod pipeline;
pub(crate) mod probes;
#[cfg(feature = "server")]
pub(crate) mod server;
