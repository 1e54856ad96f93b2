//! `cargo host diff OLD [NEW]`: what publishing NEW means for the installs of OLD.
//!
//! OLD is a manifest file, a folder holding one, or a git revision (`v1.4.0`, `HEAD~1`,
//! `origin/main`, or `REV:path/to/host.extension.json`); a bare revision reads NEW's own path at
//! that revision. Both manifests must be valid. Every change is printed as
//! `breaking|risky|safe  POINTER  sentence` (`--format json`: one object per line with `class`,
//! `pointer`, `in` (`old` or `new`) and `message`), then a count.
//!
//! Exit codes: 0 when nothing is breaking, 1 when something is, 2 when the manifests cannot be
//! read or are invalid, or the revision is unknown.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use host_manifest::Manifest;
use host_manifest::diff::{Change, Class};
use serde_json::json;

use crate::output::{Format, Term};

/// Arguments of `cargo host diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// The published manifest: a file, a folder holding `host.extension.json`, or a git revision
    /// (`v1.4.0`, `HEAD~1`, `REV:path`).
    pub old: String,
    /// The manifest to publish: a file or a folder holding `host.extension.json`.
    #[arg(default_value = host_manifest::MANIFEST_FILE)]
    pub new: PathBuf,
    /// `human` prints one aligned line per change; `json` one JSON object per change per line.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// One manifest to compare: the typed model of it and how to name it in messages.
struct Side {
    manifest: Manifest,
    shown: String,
}

/// Runs `cargo host diff`.
pub(crate) fn run(args: DiffArgs, term: &Term) -> ExitCode {
    let new_file = crate::manifest::file(&args.new);
    let new = match read_path(&new_file, term) {
        Ok(side) => side,
        Err(code) => return code,
    };
    let old = if Path::new(&args.old).exists() {
        read_path(&crate::manifest::file(Path::new(&args.old)), term)
    } else {
        read_revision(&args.old, &new_file, term)
    };
    let old = match old {
        Ok(side) => side,
        Err(code) => return code,
    };
    let changes = host_manifest::diff::diff(&old.manifest, &new.manifest);
    let written = match args.format {
        Format::Json => print_json(&changes),
        Format::Human => print_human(&changes, &old.shown, &new.shown, term),
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot write the report: {e}");
        return ExitCode::from(2);
    }
    if changes.iter().any(|c| c.class == Class::Breaking) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads and validates a manifest file.
fn read_path(file: &Path, term: &Term) -> Result<Side, ExitCode> {
    let shown = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| {
        term.error(&format!("cannot read {shown}: {}", e.kind()));
        ExitCode::from(2)
    })?;
    // Files the manifest names (icon, pages) are not compared, so their presence is not checked.
    checked(host_manifest::validate_bytes(&bytes, None), shown, term)
}

/// Reads a manifest at a git revision: `REV:path`, or `REV` for NEW's own path.
fn read_revision(spec: &str, new_file: &Path, term: &Term) -> Result<Side, ExitCode> {
    let usage = |message: String| {
        term.error(&message);
        ExitCode::from(2)
    };
    let dir = new_file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let object = match spec.split_once(':') {
        Some((rev, path)) if !rev.is_empty() && !path.is_empty() => format!("{rev}:{path}"),
        Some(_) => {
            return Err(usage(format!(
                "`{spec}` is neither a file nor a git revision such as `HEAD~1` or `v1.4.0:host.extension.json`"
            )));
        }
        None => {
            // NEW's path from the repository root, so the revision's copy of the same file is read.
            let prefix = git(dir, &["rev-parse", "--show-prefix"]).map_err(|why| {
                usage(format!(
                    "`{spec}` is not a file, and it cannot be read as a git revision: {why}"
                ))
            })?;
            let name = new_file
                .file_name()
                .map_or(host_manifest::MANIFEST_FILE.into(), |n| {
                    n.to_string_lossy().into_owned()
                });
            format!("{spec}:{}{name}", prefix.trim())
        }
    };
    let text = git(dir, &["show", &object]).map_err(|why| {
        usage(format!(
            "`{spec}` is not a file, and git cannot read `{object}`: {why}"
        ))
    })?;
    checked(
        host_manifest::validate_bytes(text.as_bytes(), None),
        object,
        term,
    )
}

/// Runs git in `dir`; its first error line when it fails.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("git cannot be run ({})", e.kind()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("git failed")
            .trim()
            .to_owned())
    }
}

/// A valid manifest's typed model, or its diagnostics printed and exit code 2.
fn checked(report: host_manifest::Report, shown: String, term: &Term) -> Result<Side, ExitCode> {
    match report.into_manifest() {
        Ok(manifest) => Ok(Side { manifest, shown }),
        Err(report) => {
            eprint!(
                "{}",
                crate::manifest::render::human(&report, &shown, term.err)
            );
            term.error(&format!(
                "{shown} is invalid, so it cannot be compared; fix it first (`cargo host validate`)"
            ));
            Err(ExitCode::from(2))
        }
    }
}

fn print_json(changes: &[Change]) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for c in changes {
        let line = json!({
            "class": c.class.as_str(),
            "pointer": c.pointer,
            "in": c.side.as_str(),
            "message": c.message,
        });
        writeln!(out, "{line}")?;
    }
    out.flush()
}

fn print_human(changes: &[Change], old: &str, new: &str, term: &Term) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if changes.is_empty() {
        writeln!(out, "no changes between {old} and {new}")?;
        return out.flush();
    }
    let width = changes
        .iter()
        .map(|c| c.pointer.len() + 4)
        .max()
        .unwrap_or(0)
        .min(60);
    for c in changes {
        let class = match c.class {
            Class::Breaking => term.paint("31", "breaking"),
            Class::Risky => term.paint("33", "risky   "),
            Class::Safe => term.paint("32", "safe    "),
        };
        let pointer = match c.side {
            host_manifest::diff::Side::Old => format!("old:{}", c.pointer),
            host_manifest::diff::Side::New => c.pointer.clone(),
        };
        writeln!(out, "{class}  {pointer:<width$}  {}", c.message)?;
    }
    let count = |class| changes.iter().filter(|c| c.class == class).count();
    writeln!(
        out,
        "{} change{}: {} breaking, {} risky, {} safe",
        changes.len(),
        if changes.len() == 1 { "" } else { "s" },
        count(Class::Breaking),
        count(Class::Risky),
        count(Class::Safe)
    )?;
    out.flush()
}
