//! [`Settings`]: the one configured entry point of the generator, from a macro call's path literal
//! to an [`Expansion`].

use std::path::Path;

use host_manifest::{Manifest, Severity};

use crate::expansion::{Expansion, track, tracked_files};
use crate::generate::{self, Notes};
use crate::messages::{Message, Messages, SchemaNote};
use crate::timing::Phase;

/// How to expand a manifest; build one, set what differs from the default, then
/// [`expand`](Settings::expand).
///
/// ```no_run
/// let expansion = host_codegen::Settings::new()
///     .validators(true)
///     .expand("host.extension.json", Some(std::path::Path::new(".")));
/// assert!(!expansion.messages.has_errors());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Settings {
    validators: bool,
}

impl Settings {
    /// The defaults: no validators generated.
    pub fn new() -> Settings {
        Settings::default()
    }

    /// Whether each schema's validator is generated as Rust (the macro's `compiled-validators`
    /// feature; `host-runtime-build` turns it on for wasm32): the runtime then compiles no schema,
    /// and a build without a schema compiler can check calls. Off, the expansion is smaller and
    /// faster to check, and the runtime compiles each schema on its first use. The generator is
    /// built with this crate's `compiled-validators` feature only: without it, a schema asked for
    /// is left to the runtime, and the generated code says which feature to turn on.
    pub fn validators(mut self, on: bool) -> Settings {
        self.validators = on;
        self
    }

    /// Expands `host_extension!(<written>)`: `written` is the path literal as the vendor wrote it,
    /// resolved against `crate_dir` (the crate's `CARGO_MANIFEST_DIR`).
    ///
    /// Generation runs on proc-macro2's own token implementation and hands back text: inside a proc
    /// macro, every token made through the compiler's API is a round trip to the compiler, and
    /// reading the final text once with the compiler's lexer is much cheaper.
    pub fn expand(&self, written: &str, crate_dir: Option<&Path>) -> Expansion {
        struct Fallback;
        impl Drop for Fallback {
            fn drop(&mut self) {
                proc_macro2::fallback::unforce();
            }
        }
        proc_macro2::fallback::force();
        let _fallback = Fallback;
        self.expand_forced(written, crate_dir)
    }

    fn expand_forced(&self, written: &str, crate_dir: Option<&Path>) -> Expansion {
        let mut out = Expansion::new(written, crate_dir);
        let (path, bytes) = match crate::manifest_path::read(written, crate_dir) {
            Ok(read) => read,
            Err(e) => {
                out.messages.push(Message::Unreadable {
                    message: e.to_string(),
                });
                return out;
            }
        };
        let phase = Phase::start();
        // The text read as a model without the engine's checks: typing its schemas takes longest, so
        // that starts at once, beside validation. (An oversized file is only reported.)
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
            out.messages.push(Message::Manifest(d.clone()));
        }
        // A manifest with only cross-field errors still reads as the typed model (the lenient one):
        // generate everything so the vendor sees the manifest's errors and nothing else. The schemas
        // already typed are used when they are the validated model's.
        let model = match (report.manifest(), lenient) {
            (Some(valid), Some((typed, types))) if *valid == typed => Some((typed, Some(types))),
            (Some(valid), _) => Some((valid.clone(), None)),
            (None, lenient) => lenient.map(|(typed, types)| (typed, Some(types))),
        };
        match model {
            Some((m, types)) => {
                let mut notes = Notes::default();
                items.push_str(&generate::generate(&m, types, &mut notes, self.validators));
                // A schema the engine already found wrong needs no second message from the generator.
                let reported: Vec<&str> = report.errors().map(|d| d.pointer.as_str()).collect();
                let text = String::from_utf8_lossy(&bytes);
                for (severity, found) in [
                    (Severity::Error, notes.errors),
                    (Severity::Warning, notes.warnings),
                ] {
                    let new: Vec<(String, String)> = found
                        .into_iter()
                        .filter(|(at, _)| !reported.iter().any(|r| within(r, at) || within(at, r)))
                        .collect();
                    located(&mut out.messages, &text, severity, new);
                }
                out.typed = true;
            }
            None => items.push_str(&generate::stubs()),
        }
        phase.done("generate");
        out.items = items;
        out
    }
}

/// The generator's notes `(pointer, message)` as messages located in the manifest's `text`.
fn located(into: &mut Messages, text: &str, severity: Severity, notes: Vec<(String, String)>) {
    let places = host_manifest::locate(text, notes.iter().map(|(p, _)| p.as_str()));
    for ((pointer, message), (line, column)) in notes.into_iter().zip(places) {
        into.push(Message::Schema(SchemaNote {
            severity,
            pointer,
            line,
            column,
            message,
        }));
    }
}

/// Whether the JSON pointer `inner` is `outer` or inside it.
fn within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_crate_rebuilds_when_the_manifest_or_a_named_file_changes() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/keyword-tracker");
        let dir = dir.canonicalize().unwrap_or(dir);
        let items = Settings::new()
            .expand("host.extension.json", Some(&dir))
            .items;
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
        let e = Settings::new().expand("valid/with-warnings/host.extension.json", Some(&dir));
        let (errors, warnings) = (
            e.messages.lines(Severity::Error),
            e.messages.lines(Severity::Warning),
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!warnings.is_empty());
        assert!(
            warnings
                .iter()
                .all(|w| w.starts_with("valid/with-warnings/host.extension.json:")),
            "{warnings:?}"
        );
        let e = Settings::new().expand("invalid/widget-slot.json", Some(&dir));
        let errors = e.messages.lines(Severity::Error);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with("invalid/widget-slot.json:79:17: /contributes/widgets/1/slot: "),
            "{errors:?}"
        );
        assert!(
            e.items.contains("pub trait Tools"),
            "a cross-field error still generates everything"
        );
    }

    #[test]
    fn an_unreadable_manifest_is_one_error_on_the_literal() {
        let out = Settings::new()
            .expand("nope.json", Some(Path::new("/tmp")))
            .tokens(proc_macro2::Span::call_site())
            .to_string();
        assert!(out.contains("relative to the crate's folder"), "{out}");
        let out = Settings::new()
            .expand("/etc/host.extension.json", Some(Path::new("/tmp")))
            .tokens(proc_macro2::Span::call_site())
            .to_string();
        assert!(out.contains("is an absolute path"), "{out}");
    }
}
