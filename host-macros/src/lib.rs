//! `host_extension!`: reads `host.extension.json` at compile time, reports every manifest mistake as a
//! compiler error and generates the typed API. A thin shim over `host-codegen`; use it through
//! `host_runtime::host_extension!`, which is the only crate a vendor adds.

use std::str::FromStr;

use host_codegen::{Messages, Settings, build};
use proc_macro::TokenStream;

/// Generates the typed API of the extension described by a manifest.
///
/// ```ignore
/// host_runtime::host_extension!("host.extension.json");
/// ```
///
/// The path is relative to the crate's folder (`CARGO_MANIFEST_DIR`). See `host_runtime` for what is
/// generated.
#[proc_macro]
pub fn host_extension(input: TokenStream) -> TokenStream {
    let start = std::time::Instant::now();
    let lit = match syn::parse::<syn::LitStr>(input) {
        Ok(lit) => lit,
        Err(e) => {
            let message = "expected the manifest's path as a string literal, such as host_extension!(\"host.extension.json\")";
            return syn::Error::new(e.span(), message).to_compile_error().into();
        }
    };
    let out = included(&lit).unwrap_or_else(|| expanded(&lit));
    // `HOST_EXTENSION_TIMING=1 cargo check` reports how long the expansion took, for the benchmarks.
    if std::env::var_os("HOST_EXTENSION_TIMING").is_some() {
        let ms = start.elapsed().as_secs_f64() * 1e3;
        eprintln!("host_extension!({:?}): expanded in {ms:.1} ms", lit.value());
    }
    out
}

/// The generator's expansion, made here.
fn expanded(lit: &syn::LitStr) -> TokenStream {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    let expansion = Settings::new()
        .validators(cfg!(feature = "compiled-validators"))
        .expand(&lit.value(), dir.as_deref());
    let mut out = TokenStream::from(expansion.messages.into_tokens(lit.span()));
    // The generated text comes from proc-macro2's own printer, so it lexes; the compiler reads it
    // directly (proc-macro2's `parse` would first re-lex it with its own, far slower, lexer).
    match std::panic::catch_unwind(|| TokenStream::from_str(&expansion.items)) {
        Ok(Ok(items)) => out.extend(respan(items, lit.span().unwrap())),
        _ => out.extend(TokenStream::from(
            syn::Error::new(
                lit.span(),
                "the generated code does not parse; this is a bug in the SDK, please report it",
            )
            .to_compile_error(),
        )),
    }
    out
}

/// Every token of `stream` spanned at `span` (the manifest's path literal). Tokens parsed from text
/// carry spans that point into that text, which editors cannot map back to a file: rust-analyzer's go
/// to definition fails on them. Spanned at the literal, every generated item leads to the macro call.
fn respan(stream: TokenStream, span: proc_macro::Span) -> TokenStream {
    use proc_macro::{Group, TokenTree};
    stream
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// With the build-script wiring (`host_runtime_build::generate` in `build.rs`), the expansion the build
/// script wrote for this manifest: its messages on the path literal, then `include!` of the generated
/// file. `None` when the crate has no such build script (or it did not generate this path), and the
/// macro generates the code itself.
fn included(lit: &syn::LitStr) -> Option<TokenStream> {
    let dir = std::path::PathBuf::from(std::env::var_os(build::OUT_DIR_ENV)?);
    let written = lit.value();
    let items = dir.join(build::items_file(&written));
    let diagnostics = std::fs::read_to_string(dir.join(build::diagnostics_file(&written))).ok()?;
    let messages: Messages = build::read_diagnostics(&diagnostics)?;
    if !items.is_file() {
        return None;
    }
    let mut out = messages.into_tokens(lit.span());
    let path = syn::LitStr::new(&items.display().to_string(), lit.span());
    out.extend(quote::quote_spanned! {lit.span()=> ::core::include!(#path); });
    Some(out.into())
}
