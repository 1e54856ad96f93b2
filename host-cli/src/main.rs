//! `cargo host`: the command-line front door to the manifest engine.
//!
//! Installed as `cargo-host`, so `cargo host validate ...` works; from the repository,
//! `cargo run -p host-cli -- validate ...` does the same.
//!
//! Exit codes: 0 when the manifest has no error (warnings allowed), 1 when it is invalid (malformed
//! JSON included), 2 when the file cannot be read or the arguments are wrong.

mod render;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Build, check and exercise extensions for the host.
#[derive(Debug, Parser)]
#[command(name = "cargo host", bin_name = "cargo host", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a manifest: the JSON Schema v2 and every cross-field rule.
    ///
    /// Exits 0 when the manifest has no error (warnings allowed), 1 when it is invalid, 2 when the file
    /// cannot be read or the arguments are wrong.
    Validate {
        /// How to print diagnostics: `human` shows the offending line with a caret; `json` prints one
        /// JSON object per diagnostic per line.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// When to color human output.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// The manifest file, or a folder holding `host.extension.json`.
        #[arg(default_value = host_manifest::MANIFEST_FILE)]
        path: PathBuf,
    },
    /// Print the manifest JSON Schema (draft 2020-12), for editors and other tools.
    Schema,
    /// Print the Rust code `host_extension!` generates for a manifest, formatted.
    ///
    /// Manifest errors appear as `compile_error!` lines, as the compiler would report them. Exits 1 when
    /// the manifest is invalid.
    Expand {
        /// The manifest file, or a folder holding `host.extension.json`.
        #[arg(default_value = host_manifest::MANIFEST_FILE)]
        path: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    // Run as `cargo host ...`, cargo passes `host` as the first argument; run directly, it does not.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "host") {
        args.remove(1);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let rendered = e.render().to_string();
            let first = match e.kind() {
                clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                | clap::error::ErrorKind::MissingSubcommand => {
                    "error: name a command, such as `validate` or `schema`"
                }
                _ => rendered
                    .lines()
                    .find(|l| l.starts_with("error:"))
                    .unwrap_or("error: invalid arguments"),
            };
            eprintln!("{first}; run `cargo host --help` for usage");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Validate {
            format,
            color,
            path,
        } => validate(&path, format, color),
        Command::Expand { path } => expand(&path),
        Command::Schema => {
            println!("{}", host_manifest::SCHEMA_JSON.trim_end());
            ExitCode::SUCCESS
        }
    }
}

/// Reads and validates the manifest at `path` (a file, or a folder holding `host.extension.json`); a
/// file that cannot be read is reported on stderr and exits 2.
fn load(path: &std::path::Path) -> Result<(PathBuf, host_manifest::Report), ExitCode> {
    let file = if path.is_dir() {
        path.join(host_manifest::MANIFEST_FILE)
    } else {
        path.to_owned()
    };
    match host_manifest::validate_file(&file) {
        Ok(report) => Ok((file, report)),
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

fn expand(path: &std::path::Path) -> ExitCode {
    let (file, report) = match load(path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    // The macro resolves the literal against the crate folder; here the folder is the manifest's own.
    let (dir, name) = match (file.parent(), file.file_name()) {
        (Some(d), Some(n)) => (
            if d.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                d
            },
            n,
        ),
        _ => {
            eprintln!("error: `{}` does not name a file", file.display());
            return ExitCode::from(2);
        }
    };
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    print!(
        "{}",
        host_codegen::expand_pretty(&name.to_string_lossy(), Some(&dir))
    );
    if report.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn validate(path: &std::path::Path, format: Format, color: ColorChoice) -> ExitCode {
    let (file, report) = match load(path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let shown = file.display().to_string();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = match format {
        Format::Json => report.diagnostics().iter().try_for_each(|d| {
            let line = serde_json::to_string(d).map_err(std::io::Error::other)?;
            writeln!(out, "{line}")
        }),
        Format::Human => {
            let styled = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            write!(out, "{}", render::human(&report, &shown, styled))
        }
    };
    // A closed pipe (`| head`) is not a failure of validation.
    if let Err(e) = written.and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot write the report: {e}");
        return ExitCode::from(2);
    }
    if report.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
