//! The code generator of the host extension SDK: from `host.extension.json` to the Rust items that
//! `host_extension!` emits. The proc-macro crate (`host-macros`), the build-script wiring
//! (`host-runtime-build`) and `cargo host expand` are thin shims over one entry point:
//!
//! ```no_run
//! # use std::path::Path;
//! let expansion = host_codegen::Settings::new().expand("host.extension.json", Some(Path::new(".")));
//! let tokens = expansion.tokens(proc_macro2::Span::call_site()); // what the macro emits
//! let text = expansion.pretty(); // what `cargo host expand` prints
//! ```
//!
//! The pipeline is the engine's (`host-manifest`: read, parse with positions, schema, cross-field
//! rules) followed by generation: typed inputs and outputs through `typify`, handler traits, the
//! dispatcher and the `handler` entry point. Findings stay typed ([`Messages`]) until
//! [`Messages::into_tokens`] turns each error into a `compile_error!` on the path literal reading
//! `host.extension.json:LINE:COL: /pointer: message` and each warning into a real compiler warning;
//! an invalid manifest still yields stub items so one mistake is not fifty errors.

pub mod build;
mod docs;
mod expansion;
mod generate;
mod lower;
mod manifest_path;
mod messages;
mod names;
mod runtime;
mod sentinels;
mod settings;
mod timing;
mod types;
mod validators;

pub use expansion::Expansion;
pub use generate::{StubsError, handler_stubs};
/// Whether a message fails the build (the engine's own type, which [`Messages::lines`] takes).
pub use host_manifest::Severity;
pub use messages::{Message, Messages, SchemaNote};
pub use settings::Settings;
