//! `cargo host watch`: keeps the generated API in step with the manifest while you edit it.
//!
//! With the build-script wiring (`host_runtime_build::generate` in `build.rs`), `host_extension!`
//! includes the expansion the build script wrote into `OUT_DIR`, and rust-analyzer re-reads that file
//! whenever it changes. Editors do not tell rust-analyzer about a saved JSON file reliably, so nothing
//! would rewrite it until the next build. This command does: it finds the crate's build output once
//! (one `cargo check`), then rewrites the expansion with the same generator each time the manifest or a
//! file it names is saved, and prints whether the manifest is valid.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::output::Term;

/// Arguments of `cargo host watch`.
#[derive(Debug, clap::Args)]
pub(crate) struct WatchArgs {
    /// The manifest's path as the `host_extension!` call and `build.rs` write it, relative to the
    /// crate's folder.
    #[arg(default_value = host_manifest::MANIFEST_FILE)]
    pub manifest: String,
    /// The crate's folder (the one with `Cargo.toml` and `build.rs`).
    #[arg(long, default_value = ".")]
    pub crate_dir: PathBuf,
    /// How often to look at the files, in milliseconds.
    #[arg(long, default_value_t = 200)]
    pub interval_ms: u64,
}

/// The `OUT_DIR` folders holding this manifest's expansion, from one `cargo check` of the crate.
fn generated_dirs(crate_dir: &Path, manifest: &str) -> Result<Vec<PathBuf>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["check", "--message-format=json", "--quiet"])
        .current_dir(crate_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let items = host_codegen::build::items_file(manifest);
    let mut dirs = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if message["reason"] != "build-script-executed" {
                continue;
            }
            let Some(out) = message["out_dir"].as_str() else {
                continue;
            };
            let dir = Path::new(out).join("host-extension");
            if dir.join(&items).is_file() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    // A failing check (the crate does not compile yet) still ran the build script.
    let _ = child.wait();
    if dirs.is_empty() {
        return Err(format!(
            "no build script of the crate in {} generates `{manifest}`; add `host-runtime-build` as a build dependency and `host_runtime_build::generate(\"{manifest}\");` to build.rs (see \"Editors\" in the guide, host_runtime::guide::manifest)",
            crate_dir.display()
        ));
    }
    Ok(dirs)
}

fn stamps(files: &[PathBuf]) -> HashMap<PathBuf, Option<SystemTime>> {
    files
        .iter()
        .map(|f| {
            let modified = std::fs::metadata(f).and_then(|m| m.modified()).ok();
            (f.clone(), modified)
        })
        .collect()
}

/// Rewrites the expansion into every folder; the files to watch next. Prints a one-line verdict
/// and the manifest's errors, which the generator found while writing.
fn regenerate(args: &WatchArgs, dirs: &[PathBuf], term: &Term) -> Vec<PathBuf> {
    let started = Instant::now();
    let mut files = vec![args.crate_dir.join(&args.manifest)];
    let mut errors = None;
    for dir in dirs {
        match host_runtime_build::write(&args.manifest, &args.crate_dir, dir) {
            Ok(written) => {
                files.extend(written.files);
                errors = Some(written.messages.lines(host_codegen::Severity::Error));
            }
            Err(e) => term.error(&e.to_string()),
        }
    }
    let took = started.elapsed().as_millis();
    match errors {
        Some(errors) if errors.is_empty() => {
            println!(
                "{} regenerated in {took} ms: the manifest is valid",
                term.ok()
            );
        }
        Some(errors) => {
            println!(
                "{} regenerated in {took} ms: {} error(s) in the manifest; the build fails until they are fixed",
                term.bad(),
                errors.len()
            );
            for e in errors {
                println!("  {e}");
            }
        }
        None => println!("{} nothing could be written", term.bad()),
    }
    files.sort();
    files.dedup();
    files
}

/// Runs `cargo host watch` until interrupted.
pub(crate) fn run(args: WatchArgs, term: Term) -> ExitCode {
    println!("checking the crate once to find where its build script writes the generated API ...");
    let dirs = match generated_dirs(&args.crate_dir, &args.manifest) {
        Ok(dirs) => dirs,
        Err(message) => {
            term.error(&message);
            return ExitCode::from(2);
        }
    };
    let mut files = regenerate(&args, &dirs, &term);
    println!(
        "watching {} and the files it names; the generated API is in {}",
        args.manifest,
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut seen = stamps(&files);
    loop {
        std::thread::sleep(Duration::from_millis(args.interval_ms.max(20)));
        let now = stamps(&files);
        if now != seen {
            files = regenerate(&args, &dirs, &term);
            seen = stamps(&files);
        }
    }
}
