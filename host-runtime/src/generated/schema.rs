//! How an instance is checked against one of the manifest's JSON Schemas.
//!
//! With the `compiled-validators` feature, `host_extension!` turns each schema into a Rust validator
//! when the vendor's crate compiles (with jsonschema's own compiler, run by the macro) and hands it
//! to the runtime as a [`Check`] beside the schema's JSON text. The runtime uses that validator:
//! nothing is compiled at run time, and a build without the `schema-compiler` feature carries no
//! validator compiler (the Workers adapter's choice: 1.1 MB less wasm). Without
//! `compiled-validators` (the default: the vendor's crate expands and checks faster), or for a schema
//! the macro could not turn into Rust, the `schema-compiler` feature (a default) compiles the
//! schema's text on its first use instead; without that feature the vendor's crate does not compile
//! (the generated code invokes `__schema_compiler_needed!` or `__validators_needed!`, which are then
//! a `compile_error!` naming the schema or the feature to enable).
//!
//! Built by generated code only, through the private support module.

#[cfg(feature = "schema-compiler")]
use std::sync::OnceLock;

use serde_json::Value;

/// A validator generated from one schema: the first place `instance` fails it, if any.
pub type Check = fn(&Value) -> Option<Violation>;

pub use crate::calls::check::Violation;
use crate::calls::check::{Budget, Verdict};

/// One schema: its JSON text and, when the macro generated one, its validator.
pub(crate) struct Lazy {
    #[cfg_attr(not(feature = "schema-compiler"), allow(dead_code))]
    text: &'static str,
    check: Option<Check>,
    /// The text compiled on first use, for a schema without a generated validator.
    #[cfg(feature = "schema-compiler")]
    compiled: OnceLock<Option<jsonschema::Validator>>,
}

/// A schema no validator can be had for (the text does not compile, or there is no generated
/// validator and no compiler in this build): instances are not checked against it.
#[derive(Debug)]
pub(crate) struct Unchecked;

impl Lazy {
    pub(crate) const fn new(text: &'static str, check: Option<Check>) -> Self {
        Lazy {
            text,
            check,
            #[cfg(feature = "schema-compiler")]
            compiled: OnceLock::new(),
        }
    }

    /// The first violation of `instance`, if any, read to the end (the vendor's own instances).
    pub(crate) fn violation(&self, instance: &Value) -> Result<Option<Violation>, Unchecked> {
        if let Some(check) = self.check {
            return Ok(check(instance));
        }
        #[cfg(feature = "schema-compiler")]
        if let Some(validator) = self.compiled() {
            return Ok(crate::calls::check::first_violation(validator, instance));
        }
        Err(Unchecked)
    }

    /// What a check of `instance` finds, its patterns spending `budget` (a request's instances).
    /// A generated validator cannot be stopped part-way: it always reads the instance to the end.
    #[cfg_attr(not(feature = "schema-compiler"), allow(unused_variables))]
    pub(crate) fn verdict(
        &self,
        instance: &Value,
        budget: &mut Budget,
    ) -> Result<Verdict, Unchecked> {
        if let Some(check) = self.check {
            return Ok(check(instance).map_or(Verdict::Valid, Verdict::Invalid));
        }
        #[cfg(feature = "schema-compiler")]
        if let Some(validator) = self.compiled() {
            return Ok(crate::calls::check::verdict(validator, instance, budget));
        }
        Err(Unchecked)
    }

    /// The schema's text compiled on its first use, unless it does not compile.
    #[cfg(feature = "schema-compiler")]
    fn compiled(&self) -> Option<&jsonschema::Validator> {
        self.compiled
            .get_or_init(|| {
                let schema: Value = serde_json::from_str(self.text).ok()?;
                crate::calls::check::compile_schema(&schema).ok()
            })
            .as_ref()
    }

    /// Whether this schema has been compiled at run time (for tests).
    #[cfg(all(test, feature = "schema-compiler"))]
    pub(crate) fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }
}

/// Used by generated code for a schema the macro could not turn into Rust: nothing with the
/// `schema-compiler` feature, which compiles it on first use; without the feature, a compile error
/// naming the schema.
#[cfg(feature = "schema-compiler")]
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_compiler_needed {
    ($where:literal, $why:literal) => {};
}

/// Used by generated code for a schema the macro could not turn into Rust: nothing with the
/// `schema-compiler` feature, which compiles it on first use; without the feature, a compile error
/// naming the schema.
#[cfg(not(feature = "schema-compiler"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_compiler_needed {
    ($where:literal, $why:literal) => {
        ::core::compile_error!(::core::concat!(
            "the schema at ",
            $where,
            " could not be turned into Rust when the crate compiled (",
            $why,
            "), and this build of host-runtime has no schema compiler: enable host-runtime's \
             `schema-compiler` feature, or simplify the schema"
        ));
    };
}

/// Used by generated code expanded without validators: nothing with the `schema-compiler` feature,
/// which compiles each schema on first use; without the feature, a compile error saying what to turn
/// on.
#[cfg(feature = "schema-compiler")]
#[doc(hidden)]
#[macro_export]
macro_rules! __validators_needed {
    () => {};
}

/// Used by generated code expanded without validators: nothing with the `schema-compiler` feature,
/// which compiles each schema on first use; without the feature, a compile error saying what to turn
/// on.
#[cfg(not(feature = "schema-compiler"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __validators_needed {
    () => {
        ::core::compile_error!(
            "host-runtime is built without its `schema-compiler` feature, so the manifest's schemas \
             need validators generated when the crate compiles: enable host-runtime's \
             `compiled-validators` feature (the Workers adapter does), or its `schema-compiler` feature"
        );
    };
}
