//! [`Expansion`]: what expanding one macro call yields, and its two renderings: tokens for the
//! compiler and formatted Rust for people (`cargo host expand`, the build script's file, goldens).

use std::path::{Path, PathBuf};

use host_manifest::Manifest;
use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::messages::{Message, Messages};

/// The expansion of `host_extension!(<path>)`, before it meets the compiler: the messages to report
/// on the path literal and the generated items as Rust source text.
#[derive(Debug)]
pub struct Expansion {
    /// Errors and warnings, typed; [`Messages::into_tokens`] reports them.
    pub messages: Messages,
    /// The generated items (or stubs when the manifest could not be read as a model).
    pub items: String,
    /// The manifest and every file it names that exists: what a build must be redone after.
    pub files: Vec<PathBuf>,
    /// Whether `items` were generated from the manifest (`false`: stubs, the manifest could not be
    /// read as a model).
    pub typed: bool,
    /// The crate folder the path was resolved against, left out of [`Expansion::pretty`].
    crate_dir: Option<PathBuf>,
}

impl Expansion {
    /// Nothing yet for the macro call naming `written`.
    pub(crate) fn new(written: &str, crate_dir: Option<&Path>) -> Expansion {
        Expansion {
            messages: Messages::new(written),
            items: String::new(),
            files: Vec::new(),
            typed: false,
            crate_dir: crate_dir.map(Path::to_path_buf),
        }
    }

    /// The expansion as tokens, with errors and warnings spanned on `span` (the path literal). The
    /// macro builds the same with the compiler's own lexer for the items.
    pub fn tokens(&self, span: Span) -> TokenStream {
        let mut out = self.messages.into_tokens(span);
        match self.items.parse::<TokenStream>() {
            Ok(items) => out.extend(items),
            Err(err) => {
                let mut bug = Messages::new(self.messages.file());
                bug.push(Message::Unreadable {
                    message: format!(
                        "the generated code does not parse ({err}); this is a bug in the SDK"
                    ),
                });
                out.extend(bug.into_tokens(span));
            }
        }
        out
    }

    /// The expansion as formatted Rust, for `cargo host expand`, the build script and golden tests.
    /// The crate folder in `include_bytes!` paths is written `$CARGO_MANIFEST_DIR`, so the text does
    /// not depend on the machine.
    ///
    /// The validators generated from the schemas are left out (each keeps its `check` function and a
    /// line saying what was left out): they are jsonschema's code, thousands of lines for a large
    /// schema, and say nothing the schema does not.
    pub fn pretty(&self) -> String {
        let tokens = self.tokens(Span::call_site());
        let text = match syn::parse2::<syn::File>(tokens.clone()) {
            Ok(mut file) => {
                elide_validators(&mut file);
                prettyplease::unparse(&file)
            }
            Err(_) => tokens.to_string(),
        };
        match self.crate_dir.as_ref().map(|d| d.display().to_string()) {
            Some(dir) if !dir.is_empty() => text.replace(&dir, "$CARGO_MANIFEST_DIR"),
            _ => text,
        }
    }
}

/// Rust source text formatted as `rustfmt` would roughly lay it out, or as it is when it does not
/// parse.
pub(crate) fn pretty(items: &str) -> String {
    match syn::parse_file(items) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => items.to_owned(),
    }
}

/// Empties each module of `__host_validators` but for its `check` function and a doc line.
fn elide_validators(file: &mut syn::File) {
    let validators = file.items.iter_mut().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == "__host_validators" => m.content.as_mut(),
        _ => None,
    });
    let Some((_, modules)) = validators else {
        return;
    };
    for module in modules {
        let syn::Item::Mod(module) = module else {
            continue;
        };
        let Some((_, items)) = module.content.as_mut() else {
            continue;
        };
        let left_out = items.len().saturating_sub(1);
        items.retain(|item| matches!(item, syn::Item::Fn(f) if f.sig.ident == "check"));
        let note = format!(
            " The validator jsonschema generated from the schema ({left_out} items, left out of this listing)."
        );
        module.attrs.push(syn::parse_quote!(#[doc = #note]));
    }
}

/// The manifest and every file it names that exists.
pub(crate) fn tracked_files(manifest: &Path, model: Option<&Manifest>) -> Vec<PathBuf> {
    let mut files = vec![manifest.to_path_buf()];
    if let (Some(m), Some(dir)) = (model, manifest.parent()) {
        files.extend(m.named_files().into_iter().map(|f| dir.join(f)));
    }
    files.retain(|f| f.is_file());
    files
}

/// `include_bytes!` of each file, so cargo rebuilds the crate when any of them changes.
pub(crate) fn track(files: &[PathBuf]) -> String {
    let files = files.iter().map(|f| f.display().to_string());
    quote! {
        #( const _: &[u8] = ::core::include_bytes!(#files); )*
    }
    .to_string()
}
