//! The code generator of the host extension SDK: from `host.extension.json` to the Rust items that
//! `host_extension!` emits. The proc-macro crate (`host-macros`) and `cargo host expand` are thin shims
//! over [`expand`].
//!
//! The pipeline is the engine's (`host-manifest`: read, parse with positions, schema, cross-field
//! rules) followed by generation: typed inputs and outputs through `typify`, handler traits, the
//! dispatcher and the `handler` entry point. Every engine error becomes a `compile_error!` on the path
//! literal reading `host.extension.json:LINE:COL: /pointer: message`; warnings become real compiler
//! warnings; an invalid manifest still yields stub items so one mistake is not fifty errors.

pub mod build;
mod docs;
mod generate;
mod lower;
mod names;
mod runtime;
mod types;
mod validators;

use std::path::{Component, Path, PathBuf};

use host_manifest::{Manifest, Severity};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

pub use generate::{Notes, handler_stubs};

/// The expansion of `host_extension!(<path>)`, before it meets the compiler: the messages to report on
/// the path literal and the generated items as Rust source text.
#[derive(Debug, Default)]
pub struct Expansion {
    /// Errors, each reading `host.extension.json:LINE:COL: /pointer: message [rule]`.
    pub errors: Vec<String>,
    /// Warnings, in the same form.
    pub warnings: Vec<String>,
    /// The generated items (or stubs when the manifest could not be read as a model).
    pub items: String,
    /// The manifest and every file it names that exists: what a build must be redone after.
    pub files: Vec<PathBuf>,
    /// Whether `items` were generated from the manifest (`false`: stubs, the manifest could not be
    /// read as a model).
    pub typed: bool,
}

/// Expands `host_extension!(<path>)`: `written` is the path literal as the vendor wrote it, resolved
/// against `manifest_dir` (the crate's `CARGO_MANIFEST_DIR`).
///
/// Generation runs on proc-macro2's own token implementation and hands back text: inside a proc macro,
/// every token made through the compiler's API is a round trip to the compiler, and reading the final
/// text once with the compiler's lexer is much cheaper.
pub fn expansion(written: &str, manifest_dir: Option<&Path>) -> Expansion {
    expansion_with(written, manifest_dir, false)
}

/// [`expansion`], with each schema's validator generated as Rust when `validators` is set (the
/// macro's `compiled-validators` feature): the runtime then compiles no schema, and a build without a
/// schema compiler (wasm32) can check calls. Off, the expansion is smaller and faster to check, and
/// the runtime compiles each schema on its first use.
pub fn expansion_with(written: &str, manifest_dir: Option<&Path>, validators: bool) -> Expansion {
    struct Fallback;
    impl Drop for Fallback {
        fn drop(&mut self) {
            proc_macro2::fallback::unforce();
        }
    }
    proc_macro2::fallback::force();
    let _fallback = Fallback;

    let mut out = Expansion::default();
    let path = match resolve(written, manifest_dir) {
        Ok(p) => p,
        Err(message) => {
            out.errors.push(message);
            return out;
        }
    };
    let bytes = match host_manifest::read_manifest(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            out.errors.push(match e.kind {
                host_manifest::ReadErrorKind::NotFound => format!(
                    "cannot find `{written}`; the path is relative to the crate's folder (the one with Cargo.toml)"
                ),
                host_manifest::ReadErrorKind::IsDirectory => {
                    format!("`{written}` is a folder; name the manifest file inside it, such as `{written}/host.extension.json`")
                }
                host_manifest::ReadErrorKind::PermissionDenied => format!("cannot read `{written}`: permission denied"),
                _ => format!("cannot read `{written}`"),
            });
            return out;
        }
    };
    let phase = Phase::start();
    // The text read as a model without the engine's checks: typing its schemas takes longest, so that
    // starts at once, beside validation. (An oversized file is only reported.)
    let (report, lenient) = std::thread::scope(|scope| {
        let lenient = scope.spawn(|| {
            if bytes.len() as u64 > host_manifest::MAX_MANIFEST_BYTES {
                return None;
            }
            let text = String::from_utf8_lossy(&bytes);
            let m: Manifest = serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
            let types = generate::schema_types(&m);
            Some((m, types))
        });
        let report = host_manifest::validate_read(&path, &bytes);
        (report, lenient.join().ok().flatten())
    });
    phase.done("validate");
    out.files = tracked_files(&path, report.manifest());
    let mut items = track(&out.files);
    for d in report.diagnostics() {
        let text = d.display_with_file(written).to_string();
        match d.severity {
            Severity::Error => out.errors.push(text),
            Severity::Warning => out.warnings.push(text),
        }
    }
    // A manifest with only cross-field errors still reads as the typed model (the lenient one): generate
    // everything so the vendor sees the manifest's errors and nothing else. The schemas already typed
    // are used when they are the validated model's.
    let model = match (report.manifest(), lenient) {
        (Some(valid), Some((typed, types))) if *valid == typed => Some((typed, Some(types))),
        (Some(valid), _) => Some((valid.clone(), None)),
        (None, lenient) => lenient.map(|(typed, types)| (typed, Some(types))),
    };
    match model {
        Some((m, types)) => {
            let mut notes = Notes::default();
            items.push_str(&generate::generate(&m, types, &mut notes, validators));
            let text = String::from_utf8_lossy(&bytes);
            let located = |notes: &[(String, String)], into: &mut Vec<String>| {
                let places = host_manifest::locate(&text, notes.iter().map(|(p, _)| p.as_str()));
                into.extend(notes.iter().zip(places).map(
                    |((pointer, message), (line, column))| {
                        format!("{written}:{line}:{column}: {pointer}: {message}")
                    },
                ));
            };
            // A schema the engine already found wrong needs no second message from the generator.
            let reported: Vec<&str> = report.errors().map(|d| d.pointer.as_str()).collect();
            let new = |notes: Vec<(String, String)>| -> Vec<(String, String)> {
                notes
                    .into_iter()
                    .filter(|(at, _)| !reported.iter().any(|r| within(r, at) || within(at, r)))
                    .collect()
            };
            located(&new(notes.errors), &mut out.errors);
            located(&new(notes.warnings), &mut out.warnings);
            out.typed = true;
        }
        None => items.push_str(&generate::stubs()),
    }
    phase.done("generate");
    out.items = items;
    out
}

/// Phase timings on stderr when `HOST_EXTENSION_TIMING` is set, for the benchmarks.
pub struct Phase(Option<std::time::Instant>);

impl Phase {
    /// Starts timing (a no-op unless `HOST_EXTENSION_TIMING` is set).
    pub fn start() -> Phase {
        Phase(std::env::var_os("HOST_EXTENSION_TIMING").map(|_| std::time::Instant::now()))
    }

    /// Reports the time since [`Phase::start`].
    pub fn done(&self, what: &str) {
        if let Some(start) = self.0 {
            eprintln!(
                "host_extension!: {what} done after {:.1} ms",
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

/// Whether the JSON pointer `inner` is `outer` or inside it.
fn within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The expansion as tokens, with errors and warnings spanned on `span` (the path literal). The macro
/// builds the same from [`expansion`] with the compiler's API directly.
pub fn expand(written: &str, manifest_dir: Option<&Path>, span: Span) -> TokenStream {
    let e = expansion(written, manifest_dir);
    let mut out = TokenStream::new();
    for message in &e.errors {
        out.extend(error_at(span, message));
    }
    for message in &e.warnings {
        out.extend(warning_at(span, message));
    }
    match e.items.parse::<TokenStream>() {
        Ok(items) => out.extend(items),
        Err(err) => out.extend(error_at(
            span,
            &format!("the generated code does not parse ({err}); this is a bug in the SDK"),
        )),
    }
    out
}

/// Rust source text formatted as `rustfmt` would roughly lay it out, or as it is when it does not parse.
pub fn pretty(items: &str) -> String {
    match syn::parse_file(items) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => items.to_owned(),
    }
}

/// The expansion of a manifest file as formatted Rust, for `cargo host expand` and golden tests. Paths
/// in `include_bytes!` are replaced by `$CARGO_MANIFEST_DIR`, so the text does not depend on the machine.
///
/// The validators generated from the schemas are left out (each keeps its `check` function and a
/// line saying what was left out): they are jsonschema's code, thousands of lines for a large schema,
/// and say nothing the schema does not.
pub fn expand_pretty(written: &str, manifest_dir: Option<&Path>) -> String {
    let tokens = expand(written, manifest_dir, Span::call_site());
    let text = match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(mut file) => {
            elide_validators(&mut file);
            prettyplease::unparse(&file)
        }
        Err(_) => tokens.to_string(),
    };
    match manifest_dir.map(|d| d.display().to_string()) {
        Some(dir) if !dir.is_empty() => text.replace(&dir, "$CARGO_MANIFEST_DIR"),
        _ => text,
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

/// Resolves the literal against the crate folder; absolute paths are refused so that a crate builds the
/// same on every machine.
fn resolve(written: &str, manifest_dir: Option<&Path>) -> Result<PathBuf, String> {
    let rel = Path::new(written);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
    {
        return Err(format!(
            "`{written}` is an absolute path; write the manifest's path relative to the crate's folder, such as \"host.extension.json\""
        ));
    }
    let Some(dir) = manifest_dir else {
        return Err("CARGO_MANIFEST_DIR is not set; build the crate with cargo".to_owned());
    };
    Ok(dir.join(rel))
}

/// The manifest and every file it names that exists.
fn tracked_files(manifest: &Path, model: Option<&Manifest>) -> Vec<PathBuf> {
    let mut files = vec![manifest.to_path_buf()];
    if let (Some(m), Some(dir)) = (model, manifest.parent()) {
        files.extend(m.named_files().into_iter().map(|f| dir.join(f)));
    }
    files.retain(|f| f.is_file());
    files
}

/// `include_bytes!` of each file, so cargo rebuilds the crate when any of them changes.
fn track(files: &[PathBuf]) -> String {
    let files = files.iter().map(|f| f.display().to_string());
    quote! {
        #( const _: &[u8] = ::core::include_bytes!(#files); )*
    }
    .to_string()
}

/// `compile_error!(message)` on `span`.
pub fn error_at(span: Span, message: &str) -> TokenStream {
    quote_spanned! {span=> ::core::compile_error!(#message); }
}

/// A real compiler warning on stable Rust: the use of a deprecated item whose note is the message.
pub fn warning_at(span: Span, message: &str) -> TokenStream {
    let name = quote::format_ident!("host_extension_warning", span = span);
    quote_spanned! {span=>
        const _: () = {
            #[deprecated(note = #message)]
            #[allow(non_upper_case_globals)]
            const #name: () = ();
            #name
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_refused() {
        let out = expand(
            "/etc/host.extension.json",
            Some(Path::new("/tmp")),
            Span::call_site(),
        )
        .to_string();
        assert!(out.contains("is an absolute path"), "{out}");
    }

    #[test]
    fn the_crate_rebuilds_when_the_manifest_or_a_named_file_changes() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/keyword-tracker");
        let dir = dir.canonicalize().unwrap_or(dir);
        let items = expansion("host.extension.json", Some(&dir)).items;
        for file in [
            "host.extension.json",
            "assets/icon.png",
            "ui/RankingsPage.tsx",
            "docs/rank-definitions.md",
        ] {
            let tracked = format!("include_bytes ! (\"{}\")", dir.join(file).display());
            assert!(items.contains(&tracked), "{file} is not tracked");
        }
    }

    #[test]
    fn warnings_and_errors_keep_the_path_as_written() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-manifest/tests/fixtures");
        let e = expansion("valid/with-warnings/host.extension.json", Some(&dir));
        assert!(e.errors.is_empty(), "{:?}", e.errors);
        assert!(!e.warnings.is_empty());
        assert!(
            e.warnings
                .iter()
                .all(|w| w.starts_with("valid/with-warnings/host.extension.json:")),
            "{:?}",
            e.warnings
        );
        let e = expansion("invalid/widget-slot.json", Some(&dir));
        assert_eq!(e.errors.len(), 1);
        assert!(
            e.errors[0]
                .starts_with("invalid/widget-slot.json:79:17: /contributes/widgets/1/slot: "),
            "{:?}",
            e.errors
        );
        assert!(
            e.items.contains("pub trait Tools"),
            "a cross-field error still generates everything"
        );
    }

    #[test]
    fn a_missing_file_says_where_paths_start() {
        let out = expand("nope.json", Some(Path::new("/tmp")), Span::call_site()).to_string();
        assert!(out.contains("relative to the crate's folder"), "{out}");
        assert!(
            !out.contains("/tmp"),
            "no absolute path in the message: {out}"
        );
    }
}
