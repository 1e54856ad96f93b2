//! Validators generated from the manifest's schemas when the vendor's crate compiles.
//!
//! With the macro's `compiled-validators` feature (host-runtime's feature of the same name, which the
//! Workers adapter turns on), each distinct schema becomes a module of `__host_validators` holding
//! jsonschema's generated validator and a `check` function the runtime calls
//! (`host_runtime::schema::Check`). The generator
//! is jsonschema's own compiler (`jsonschema-macros-core`), so a generated validator accepts what the
//! runtime's validator would. A schema it cannot generate (or panics on) gets no module: the runtime
//! compiles that schema's text on first use, and the generated code says so with
//! the runtime's `schema_compiler_needed!`, a compile error in builds without a schema compiler.

use std::collections::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use serde_json::Value;

/// The validators of one expansion, one module per distinct schema text.
#[derive(Default)]
pub(crate) struct Validators {
    /// Whether validators are generated at all (the macro's `compiled-validators` feature). Without,
    /// the runtime compiles every schema's text on first use.
    enabled: bool,
    /// Whether any schema was asked for.
    asked: bool,
    /// Schema text to its module's name, or to `None` when no validator could be generated.
    seen: HashMap<String, Option<Ident>>,
    modules: TokenStream,
    /// the runtime's `schema_compiler_needed!` for each schema without a validator.
    needed: TokenStream,
}

impl Validators {
    /// Validators generated when `enabled`; otherwise none, and the runtime compiles every schema.
    pub(crate) fn new(enabled: bool) -> Self {
        Validators {
            enabled,
            ..Validators::default()
        }
    }

    /// The `Option<Check>` expression for `schema`, declared at `pointer` of the manifest, for code
    /// `depth` modules below the one [`module`](Self::module) is placed in.
    pub(crate) fn check(&mut self, schema: &Value, pointer: &str, depth: usize) -> TokenStream {
        let rt = crate::runtime::path();
        self.asked = true;
        if !self.enabled {
            return quote!(::core::option::Option::None);
        }
        if let Some(why) = unbounded(schema, pointer) {
            let why = why.replace('"', "'");
            self.needed
                .extend(quote!(#rt::schema_compiler_needed!(#pointer, #why);));
            return quote!(::core::option::Option::None);
        }
        let text = schema.to_string();
        let next = self.seen.len();
        let name = match self.seen.get(&text) {
            Some(name) => name.clone(),
            None => {
                let name = match generate(schema) {
                    Ok(code) => {
                        let name = Ident::new(&format!("v{next}"), Span::call_site());
                        self.modules.extend(quote! {
                            pub mod #name {
                                use #rt::jsonschema;
                                /// The schema's validator.
                                pub struct Validator;
                                #code
                                /// The first place `instance` fails the schema, if any.
                                pub fn check(
                                    instance: &#rt::serde_json::Value,
                                ) -> ::core::option::Option<#rt::Violation> {
                                    Validator::iter_errors(instance)
                                        .next()
                                        .map(|e| #rt::Violation::from_error(&e))
                                }
                            }
                        });
                        Some(name)
                    }
                    Err(why) => {
                        let why = why.to_string().replace('"', "'");
                        self.needed
                            .extend(quote!(#rt::schema_compiler_needed!(#pointer, #why);));
                        None
                    }
                };
                self.seen.insert(text, name.clone());
                name
            }
        };
        let up = std::iter::repeat_n(quote!(super::), depth);
        match name {
            Some(name) => quote!(::core::option::Option::Some(
                #(#up)* __host_validators::#name::check as #rt::Check
            )),
            None => quote!(::core::option::Option::None),
        }
    }

    /// The `__host_validators` module, to be placed beside the items that name it.
    pub(crate) fn module(self) -> TokenStream {
        let rt = crate::runtime::path();
        if !self.enabled {
            // Nothing with a schema compiler in the build; a compile error without one.
            return match self.asked {
                true => quote!(#rt::validators_needed!();),
                false => TokenStream::new(),
            };
        }
        let (modules, needed) = (self.modules, self.needed);
        quote! {
            #needed
            /// Validators generated from the manifest's schemas when the crate compiled.
            #[doc(hidden)]
            #[allow(
                clippy::all,
                clippy::pedantic,
                clippy::nursery,
                clippy::restriction,
                unused,
                unused_comparisons,
                missing_docs,
                unreachable_pub
            )]
            mod __host_validators {
                #modules
            }
        }
    }
}

/// Why a schema checked per request gets no generated validator, if it gets none: a generated
/// validator cannot be stopped part-way, so a pattern that backtracks could hold the request past
/// its pattern budget. The runtime compiles such a schema itself, with the budget.
fn unbounded(schema: &Value, pointer: &str) -> Option<String> {
    if !host_manifest::patterns::checked_per_request(pointer) {
        return None;
    }
    let first = host_manifest::patterns::backtracking(schema).next()?;
    Some(format!(
        "its pattern `{}` at `{}` needs lookaround or a backreference, and a validator generated \
         at compile time cannot stop a request's check part-way to keep it within its pattern \
         budget",
        first.text, first.pointer
    ))
}

/// Why jsonschema's generator made no validator of a schema; its text goes into the generated
/// `schema_compiler_needed!` call.
#[derive(Debug, thiserror::Error)]
enum NoValidator {
    /// The generator panicked.
    #[cfg(feature = "compiled-validators")]
    #[error("{0}")]
    Panicked(String),
    /// The generator reported it does not support the schema.
    #[cfg(feature = "compiled-validators")]
    #[error("the validator generator does not support it")]
    Unsupported,
    /// host-codegen was built without the generator.
    #[cfg(not(feature = "compiled-validators"))]
    #[error(
        "the validator generator is not built: turn on the `compiled-validators` feature of \
         host-runtime (for `host_extension!`) or of host-runtime-build (for a build script)"
    )]
    NotBuilt,
}

/// Without this crate's `compiled-validators` feature there is no generator: every schema is left
/// to the runtime's compiler, and the generated code says why.
#[cfg(not(feature = "compiled-validators"))]
fn generate(_schema: &Value) -> Result<TokenStream, NoValidator> {
    Err(NoValidator::NotBuilt)
}

/// jsonschema's generated validator for `schema` (a `Validator` struct and its private module), or
/// why there is none.
#[cfg(feature = "compiled-validators")]
fn generate(schema: &Value) -> Result<TokenStream, NoValidator> {
    let schema = schema.clone();
    let generated = std::panic::catch_unwind(move || {
        let input = jsonschema_macros_core::bench::prepare(schema);
        jsonschema_macros_core::bench::generate(&input)
    })
    .map_err(|payload| {
        NoValidator::Panicked(crate::types::typing::panic_message(payload.as_ref()))
    })?;
    // The generator reports what it does not support (and a schema that is not one: the engine has
    // reported that already) as a `compile_error!` somewhere in its output.
    if calls_compile_error(generated.clone()) {
        return Err(NoValidator::Unsupported);
    }
    Ok(generated)
}

/// Whether `tokens` invoke `compile_error!` anywhere.
#[cfg(feature = "compiled-validators")]
fn calls_compile_error(tokens: TokenStream) -> bool {
    let mut tokens = tokens.into_iter().peekable();
    while let Some(tree) = tokens.next() {
        match tree {
            proc_macro2::TokenTree::Ident(i) if i == "compile_error" => {
                if matches!(tokens.peek(), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '!')
                {
                    return true;
                }
            }
            proc_macro2::TokenTree::Group(g) if calls_compile_error(g.stream()) => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    #[cfg(feature = "compiled-validators")]
    fn each_distinct_schema_gets_one_module_and_repeats_share_it() {
        let mut validators = Validators::new(true);
        let object = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let first = validators.check(&object, "/contributes/ai/tools/0/input", 0);
        let again = validators.check(&object, "/server/procedures/p/input", 0);
        let other = validators.check(
            &json!({"type": "integer"}),
            "/server/procedures/p/output",
            0,
        );
        let nested = validators.check(&object, "/contributes/webhooks/0/payload", 2);
        assert_eq!(first.to_string(), again.to_string());
        assert!(
            first
                .to_string()
                .contains("__host_validators :: v0 :: check")
        );
        assert!(
            other
                .to_string()
                .contains("__host_validators :: v1 :: check")
        );
        assert!(
            nested
                .to_string()
                .contains("super :: super :: __host_validators :: v0"),
            "{nested}"
        );
        let module = validators.module().to_string();
        assert_eq!(module.matches("pub struct Validator").count(), 2);
        assert!(!module.contains("schema_compiler_needed"));
        syn::parse2::<syn::File>(module.parse().expect("tokens")).expect("the module parses");
    }

    #[test]
    fn a_schema_the_generator_refuses_is_left_to_the_runtime_and_named() {
        let mut validators = Validators::new(true);
        // A `$ref` to a document that is not there: the generator refuses it.
        let remote = json!({"$ref": "https://schemas.example/missing.json"});
        let check = validators.check(&remote, "/server/procedures/p/input", 0);
        assert_eq!(
            check.to_string(),
            quote!(::core::option::Option::None).to_string()
        );
        let module = validators.module().to_string();
        assert!(module.contains("schema_compiler_needed"), "{module}");
        assert!(
            module.contains("\"/server/procedures/p/input\""),
            "{module}"
        );
        assert!(!module.contains("pub struct Validator"));
    }

    #[test]
    fn a_request_schema_whose_pattern_backtracks_is_left_to_the_runtime_and_named() {
        let costly =
            json!({"type": "array", "items": {"type": "string", "pattern": "^(?!(a|a)*\\1b).*$"}});
        let mut validators = Validators::new(true);
        let check = validators.check(&costly, "/contributes/ai/tools/0/input", 0);
        assert_eq!(
            check.to_string(),
            quote!(::core::option::Option::None).to_string()
        );
        // The vendor's own event is read to the end whatever it costs: it keeps its validator
        // (when the generator is built).
        let payload = validators.check(&costly, "/contributes/webhooks/0/payload", 0);
        assert_eq!(
            payload.to_string().contains("__host_validators"),
            cfg!(feature = "compiled-validators"),
            "{payload}"
        );
        let module = validators.module().to_string();
        assert!(
            module.contains("\"/contributes/ai/tools/0/input\""),
            "{module}"
        );
        assert!(module.contains("/items/pattern"), "{module}");
        assert!(module.contains("pattern budget"), "{module}");
    }

    #[test]
    fn a_schema_that_is_not_one_gets_no_validator() {
        // The engine reports it; the generator's own `compile_error!` (nested in its output) must
        // not be a second error.
        let mut validators = Validators::new(true);
        let check = validators.check(
            &json!({"type": "strnig"}),
            "/contributes/ai/tools/0/input",
            0,
        );
        assert_eq!(
            check.to_string(),
            quote!(::core::option::Option::None).to_string()
        );
        assert!(!validators.module().to_string().contains("compile_error"));
    }

    #[test]
    fn without_the_feature_no_validator_is_generated_and_the_build_is_told() {
        let mut validators = Validators::new(false);
        let check = validators.check(&json!({"type": "integer"}), "/server/procedures/p/input", 0);
        assert_eq!(
            check.to_string(),
            quote!(::core::option::Option::None).to_string()
        );
        assert_eq!(validators.module().to_string(), {
            let rt = crate::runtime::path();
            quote!(#rt::validators_needed!();).to_string()
        });
        assert!(
            Validators::new(false).module().is_empty(),
            "no schema, nothing to say"
        );
    }

    #[test]
    #[cfg(not(feature = "compiled-validators"))]
    fn built_without_the_generator_a_schema_is_left_to_the_runtime_with_the_reason() {
        let mut validators = Validators::new(true);
        let check = validators.check(&json!({"type": "integer"}), "/server/procedures/p/input", 0);
        assert_eq!(
            check.to_string(),
            quote!(::core::option::Option::None).to_string()
        );
        let module = validators.module().to_string();
        assert!(module.contains("schema_compiler_needed"), "{module}");
        assert!(module.contains("`compiled-validators` feature"), "{module}");
        assert!(!module.contains("pub struct Validator"));
    }

    #[test]
    #[cfg(feature = "compiled-validators")]
    fn compile_error_is_found_at_any_depth_and_only_as_a_call() {
        assert!(calls_compile_error(quote!(::core::compile_error!("x"))));
        assert!(calls_compile_error(quote!(
            fn f() {
                if a {
                    compile_error!("x")
                }
            }
        )));
        assert!(!calls_compile_error(quote!(
            fn compile_error() {}
        )));
        assert!(!calls_compile_error(quote!(
            const A: &str = "compile_error!";
        )));
    }
}
