//! The manifest engine of the host extension SDK: reads `host.extension.json`, checks it completely and
//! hands back a typed, validated [`Manifest`].
//!
//! One pipeline serves every front door (the `host_extension!` macro, `cargo host`, build scripts):
//!
//! ```text
//! read file -> parse (strict JSON, positions kept) -> schema pass -> cross-field rules -> typed model
//! ```
//!
//! Every finding is a [`Diagnostic`] with a stable [`Rule`] name, an RFC 6901 JSON pointer and the
//! 1-based line and column in the file as written. All errors are collected before anything is
//! reported; warnings never fail validation.
//!
//! ```
//! let text = r#"{ "id": "x" }"#;
//! let report = host_manifest::validate_str(text, None);
//! assert!(!report.is_valid());
//! let id = report.errors().find(|d| d.pointer == "/id").unwrap();
//! assert_eq!(id.rule.name(), "schema.pattern");
//! assert_eq!((id.line, id.column), (1, 9));
//! println!("{}", id.display_with_file("host.extension.json"));
//! ```

pub use host_interface::catalogue;
mod diagnostic;
mod places;
pub use host_interface::limits;
pub mod diff;
pub mod files;
pub mod model;
pub mod names;
pub mod patterns;
mod rules;
mod schema;
mod schema_compat;
mod source;

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

pub use diagnostic::{Diagnostic, Rule, Severity, escape_token, pointer_tokens};
pub use model::Manifest;
pub use rules::files::ICON_LIMIT;
pub use rules::schemas::compact_len;
pub use schema::{SCHEMA_ID, SCHEMA_JSON, closest, schema};

use source::{Positions, Target};

/// The conventional manifest file name.
pub const MANIFEST_FILE: &str = "host.extension.json";

/// The largest manifest file the engine reads, in bytes (4 MiB). A manifest at every limit of the
/// interface is well under 1 MiB.
pub const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// The outcome of validating one manifest.
#[derive(Debug, Clone)]
pub struct Report {
    text: String,
    diagnostics: Vec<Diagnostic>,
    manifest: Option<Box<Manifest>>,
}

impl Report {
    /// Every finding, in the order they appear in the file.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    /// Whether the manifest has no error (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.manifest.is_some()
    }

    /// The typed manifest, when it is valid.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_deref()
    }

    /// The text that was validated (invalid UTF-8 replaced), for rendering snippets.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The typed manifest, or the report when it is invalid.
    pub fn into_manifest(self) -> Result<Manifest, Report> {
        match self.manifest {
            Some(m) => Ok(*m),
            None => Err(self),
        }
    }
}

/// A manifest file that could not be read at all (as opposed to one that was read and is invalid).
/// The I/O error behind it, when there is one, is its [`source`](std::error::Error::source), and
/// the message does not repeat it.
#[derive(Debug)]
pub struct ReadError {
    /// The path as the caller wrote it.
    pub path: PathBuf,
    /// What went wrong.
    pub kind: ReadErrorKind,
    /// The I/O error classified as `NotFound` or `PermissionDenied` (an `Io` kind holds its own).
    cause: Option<std::io::Error>,
}

/// Why a manifest file could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// Nothing exists at the path.
    NotFound,
    /// The path is a folder.
    IsDirectory,
    /// The file exists but may not be read.
    PermissionDenied,
    /// Any other I/O failure.
    Io(std::io::Error),
}

impl ReadError {
    /// A failure to read `path`, from the I/O error that says why.
    fn io(path: &Path, e: std::io::Error) -> ReadError {
        let (kind, cause) = match e.kind() {
            std::io::ErrorKind::NotFound => (ReadErrorKind::NotFound, Some(e)),
            std::io::ErrorKind::PermissionDenied => (ReadErrorKind::PermissionDenied, Some(e)),
            _ => (ReadErrorKind::Io(e), None),
        };
        ReadError {
            path: path.to_owned(),
            kind,
            cause,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.kind {
            ReadErrorKind::NotFound => write!(f, "cannot read `{path}`: no such file"),
            ReadErrorKind::IsDirectory => {
                write!(
                    f,
                    "cannot read `{path}`: it is a folder; name the manifest file inside it, such as `{}`",
                    self.path.join(MANIFEST_FILE).display()
                )
            }
            ReadErrorKind::PermissionDenied => write!(f, "cannot read `{path}`: permission denied"),
            // The I/O error is the source, which a chain prints next: not said twice.
            ReadErrorKind::Io(_) => write!(f, "cannot read `{path}`"),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ReadErrorKind::Io(e) => Some(e),
            _ => self.cause.as_ref().map(|e| e as _),
        }
    }
}

/// Reads a manifest file's bytes, at most [`MAX_MANIFEST_BYTES`] plus one (so an oversized file is
/// noticed without reading it whole).
pub fn read_manifest(path: &Path) -> Result<Vec<u8>, ReadError> {
    if path.is_dir() {
        return Err(ReadError {
            path: path.to_owned(),
            kind: ReadErrorKind::IsDirectory,
            cause: None,
        });
    }
    let file = std::fs::File::open(path).map_err(|e| ReadError::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::io(path, e))?;
    Ok(bytes)
}

/// Reads and validates a manifest file; file rules resolve against the file's folder.
pub fn validate_file(path: &Path) -> Result<Report, ReadError> {
    let bytes = read_manifest(path)?;
    Ok(validate_read(path, &bytes))
}

/// Validates the bytes [`read_manifest`] read from `path`; file rules resolve against its folder. For
/// callers that also use the bytes themselves (the macro types the schemas while this runs).
pub fn validate_read(path: &Path, bytes: &[u8]) -> Report {
    let base = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    });
    validate_bytes(bytes, base)
}

/// Validates a manifest given as bytes. `base_dir` is the manifest's folder, against which named files
/// resolve; `None` skips the file rules.
pub fn validate_bytes(bytes: &[u8], base_dir: Option<&Path>) -> Report {
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
        let message = format!(
            "the manifest is larger than {} MiB; a manifest at every limit of the interface is well under 1 MiB, so this is not a manifest",
            MAX_MANIFEST_BYTES / (1024 * 1024)
        );
        return single_error(text, Rule::ManifestSize, 1, 1, message);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => validate_str(text, base_dir),
        Err(e) => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let positions = Positions::new(&text);
            // The lossy text has the same bytes up to the first invalid one.
            let (line, column) = positions.line_col(e.valid_up_to());
            single_error(
                text,
                Rule::ManifestSize,
                line,
                column,
                "the manifest is not UTF-8 text; save it as UTF-8".to_owned(),
            )
        }
    }
}

fn single_error(text: String, rule: Rule, line: usize, column: usize, message: String) -> Report {
    let d = Diagnostic {
        severity: Severity::Error,
        rule,
        pointer: String::new(),
        line,
        column,
        message,
    };
    Report {
        text,
        diagnostics: vec![d],
        manifest: None,
    }
}

/// Validates a manifest given as text. `base_dir` is the manifest's folder, against which named files
/// resolve; `None` skips the file rules.
pub fn validate_str(text: &str, base_dir: Option<&Path>) -> Report {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let parsed = match source::parse(body) {
        Ok(p) => p,
        Err(e) => {
            let column = if e.line == 1 && bom > 0 {
                e.column + 1
            } else {
                e.column
            };
            return single_error(text.to_owned(), Rule::JsonSyntax, e.line, column, e.message);
        }
    };

    let mut found: Vec<(Finding, bool)> = Vec::new();
    for pointer in &parsed.duplicate_keys {
        let name = pointer_tokens(pointer).last().unwrap_or_default();
        let message = format!(
            "the member `{}` appears twice in {}; JSON keeps only the last one, so remove one",
            schema::clip(&name),
            schema::describe(pointer.rsplit_once('/').map_or("", |(p, _)| p))
        );
        found.push((
            Finding::error(Rule::DuplicateKey, pointer.clone(), Target::Key, message),
            false,
        ));
    }
    // The schema pass and the cross-field rules are independent and each costs tens of milliseconds
    // in a debug build (the macro's case), so they run side by side.
    let (schema_findings, rule_findings) = std::thread::scope(|scope| {
        let structural = scope.spawn(|| schema::check(&parsed.value));
        let mut cx = rules::Ctxt::new(&parsed.value, base_dir);
        rules::run(&mut cx);
        (structural.join(), cx.into_findings())
    });
    match schema_findings {
        Ok(findings) => {
            for f in findings {
                found.push((Finding::error(f.rule, f.pointer, f.target, f.message), true));
            }
        }
        Err(_) => found.push((
            Finding::error(
                Rule::Internal,
                String::new(),
                Target::Value,
                "the schema pass failed unexpectedly; this is a bug in the SDK, please report it"
                    .to_owned(),
            ),
            false,
        )),
    }
    for f in rule_findings {
        found.push((
            Finding {
                severity: f.severity,
                rule: f.rule,
                pointer: f.pointer,
                target: f.target,
                message: f.message,
            },
            false,
        ));
    }

    // A cross-field rule that names the same value as a structural error says it better (for example
    // an unknown event name, with a suggestion): keep only the rule's finding.
    let ruled: Vec<String> = found
        .iter()
        .filter(|(f, from_schema)| !from_schema && f.severity == Severity::Error)
        .map(|(f, _)| f.pointer.clone())
        .collect();
    found.retain(|(f, from_schema)| !(*from_schema && ruled.contains(&f.pointer)));

    let positions = Positions::new(body);
    let mut diagnostics: Vec<Diagnostic> = found
        .into_iter()
        .map(|(f, _)| {
            let (line, mut column) = positions.locate(&f.pointer, f.target);
            if line == 1 {
                column += usize::from(bom > 0);
            }
            Diagnostic {
                severity: f.severity,
                rule: f.rule,
                pointer: f.pointer,
                line,
                column,
                message: f.message,
            }
        })
        .collect();
    diagnostics.sort_by(|a, b| {
        (a.line, a.column, a.severity, a.rule).cmp(&(b.line, b.column, b.severity, b.rule))
    });
    diagnostics.dedup();

    let mut manifest = None;
    if !diagnostics.iter().any(Diagnostic::is_error) {
        match serde_json::from_value::<Manifest>(parsed.value) {
            Ok(m) => manifest = Some(Box::new(m)),
            Err(e) => diagnostics.push(Diagnostic {
                severity: Severity::Error,
                rule: Rule::Internal,
                pointer: String::new(),
                line: 1,
                column: 1,
                message: format!("the manifest passed every check but does not fit the typed model ({e}); this is a bug in the SDK, please report it"),
            }),
        }
    }
    Report {
        text: text.to_owned(),
        diagnostics,
        manifest,
    }
}

struct Finding {
    severity: Severity,
    rule: Rule,
    pointer: String,
    target: Target,
    message: String,
}

impl Finding {
    fn error(rule: Rule, pointer: String, target: Target, message: String) -> Self {
        Finding {
            severity: Severity::Error,
            rule,
            pointer,
            target,
            message,
        }
    }
}

/// The 1-based line and column of the value at each pointer in a manifest's text (or of its deepest
/// ancestor that exists), for findings made after validation, such as the code generator's. The text
/// is parsed once for all of them.
pub fn locate<'p>(text: &str, pointers: impl IntoIterator<Item = &'p str>) -> Vec<(usize, usize)> {
    let positions = source::Positions::new(text);
    pointers
        .into_iter()
        .map(|p| positions.locate(p, source::Target::Value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each part of a chain says something of its own: the path, then the I/O error once.
    #[test]
    fn a_chain_says_the_io_error_once() {
        let e = ReadError::io(
            Path::new("m.json"),
            std::io::Error::other("the disk said no"),
        );
        let mut chain = vec![e.to_string()];
        let mut next = std::error::Error::source(&e);
        while let Some(cause) = next {
            chain.push(cause.to_string());
            next = cause.source();
        }
        assert_eq!(chain, ["cannot read `m.json`", "the disk said no"]);
    }

    #[test]
    fn a_missing_file_keeps_the_io_error_as_its_source() {
        let e = read_manifest(Path::new("/nonexistent/host.extension.json"))
            .err()
            .map(|e| {
                (
                    e.to_string(),
                    std::error::Error::source(&e).map(|s| s.to_string()),
                )
            });
        let Some((text, source)) = e else {
            panic!("a missing file reads");
        };
        assert!(text.ends_with("no such file"), "{text}");
        assert!(source.is_some(), "{text}");
    }
}
