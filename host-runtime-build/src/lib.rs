//! The build-script wiring of `host.extension.json`, for vendors who want their editor to follow the
//! manifest.
//!
//! `host_runtime::host_extension!("host.extension.json")` alone generates the typed API inside the
//! compiler, and `cargo check` follows every manifest change. Editors do not: rust-analyzer keeps a
//! macro's expansion until the macro call itself changes, so completions stay stale after a manifest
//! edit. With this crate as a build dependency and one line in `build.rs`,
//!
//! ```text
//! // build.rs
//! fn main() {
//!     host_runtime_build::generate("host.extension.json");
//! }
//! ```
//!
//! the same generator writes the expansion into `OUT_DIR` whenever the manifest (or a file it names)
//! changes, and the unchanged `host_extension!` call includes that file. rust-analyzer watches
//! `OUT_DIR`: saving the manifest runs its `cargo check`, which reruns the build script, and the
//! editor's completions, hovers and go-to-definition follow within seconds, on readable generated
//! code. Manifest errors are still compiler errors on the path literal of the macro call.

use std::path::{Path, PathBuf};

/// The environment variable, set for the crate by [`generate`], that tells `host_extension!` where the
/// generated files are.
pub use host_codegen::build::OUT_DIR_ENV;

/// Generates the typed API of the manifest at `path` (relative to the crate's folder, as in the
/// `host_extension!` call) for `host_extension!(path)` to include, and tells cargo to run the build
/// script again when the manifest or a file it names changes.
///
/// Manifest mistakes do not fail the build script: they become compiler errors at the macro call,
/// located in the manifest as usual. Only a broken build environment does (no `OUT_DIR`, a target
/// folder that cannot be written), with the reason as cargo's error.
pub fn generate(path: &str) {
    if let Err(e) = try_generate(path) {
        println!("cargo::error={e}");
    }
}

fn try_generate(path: &str) -> Result<(), Error> {
    let crate_dir = env_path("CARGO_MANIFEST_DIR")?;
    let out_dir = env_path("OUT_DIR")?.join("host-extension");
    std::fs::create_dir_all(&out_dir).map_err(|e| Error::io("create", &out_dir, e))?;
    let written = write(path, &crate_dir, &out_dir)?;
    // A manifest that does not exist yet is watched too, so creating it reruns the build script.
    println!("cargo::rerun-if-changed={}", crate_dir.join(path).display());
    for file in &written.files {
        println!("cargo::rerun-if-changed={}", file.display());
    }
    println!("cargo::rustc-env={OUT_DIR_ENV}={}", out_dir.display());
    // The generated file repeats manifest errors for rust-analyzer under `cfg(rust_analyzer)`.
    println!("cargo::rustc-check-cfg=cfg(rust_analyzer)");
    Ok(())
}

/// Why the build script could not do its part: the build environment, never the manifest. Its text
/// is whole (cargo shows one line); the I/O error is also its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A folder or file of `OUT_DIR` could not be created or written.
    #[error("host_runtime_build: cannot {what} {}: {source}", path.display())]
    Io {
        /// `create` or `write`.
        what: &'static str,
        /// The folder or file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not run by cargo as a build script: the variable is missing.
    #[error(
        "host_runtime_build::generate must run in a build script (build.rs), where cargo sets {name}"
    )]
    NotABuildScript {
        /// The environment variable cargo sets for build scripts.
        name: &'static str,
    },
}

impl Error {
    fn io(what: &'static str, path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            what,
            path: path.to_owned(),
            source,
        }
    }
}

/// What [`write()`] generated: the files the build must be redone after, and the manifest's errors.
#[derive(Debug)]
pub struct Written {
    /// The manifest and every file it names that exists.
    pub files: Vec<PathBuf>,
    /// The manifest's errors and warnings, typed ([`Messages::lines`](host_codegen::Messages::lines)
    /// renders them as the compiler shows them).
    pub messages: host_codegen::Messages,
}

/// Writes the expansion of `path` (relative to `crate_dir`) into `out_dir`, as [`generate`] does but
/// without talking to cargo. Files whose content is unchanged are left alone, so their time stamps do
/// not make an editor re-read them; when the manifest cannot be read as a model at all, the items
/// written last stay (its errors still fail the build), so the editor keeps completing while the
/// manifest is being fixed.
pub fn write(path: &str, crate_dir: &Path, out_dir: &Path) -> Result<Written, Error> {
    // A wasm32 build (Workers) has no schema compiler: its validators are generated here, with this
    // crate's `compiled-validators` feature (without it, the build's error names the feature). A build
    // script sees its target; elsewhere the runtime compiles each schema on first use.
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    let expansion = host_codegen::Settings::new()
        .validators(wasm)
        .expand(path, Some(crate_dir));
    let generated = host_codegen::build::generated(path, &expansion);
    let items = out_dir.join(host_codegen::build::items_file(path));
    // A manifest that cannot be read as a model yields only stubs. Its errors fail the build all the
    // same, but the editor keeps the last types it had while the vendor fixes the manifest.
    let keep_items = !expansion.typed && items.is_file();
    let mut files = vec![(
        out_dir.join(host_codegen::build::diagnostics_file(path)),
        generated.diagnostics,
    )];
    if !keep_items {
        files.push((items, generated.items));
    }
    for (target, text) in files {
        if std::fs::read_to_string(&target).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&target, text).map_err(|e| Error::io("write", &target, e))?;
        }
    }
    Ok(Written {
        files: expansion.files,
        messages: expansion.messages,
    })
}

fn env_path(name: &'static str) -> Result<PathBuf, Error> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .ok_or(Error::NotABuildScript { name })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const MANIFEST: &str = r#"{
  "id": "hello-panel",
  "name": "Hello Panel",
  "description": "Keeps a greeting.",
  "icon": "icon.svg",
  "category": "design",
  "sdk": "^2.0.0",
  "visibility": "private",
  "installScope": "project",
  "scopes": [{ "key": "storage:write", "justification": "Keeps the greeting of each install." }],
  "contributes": { "storage": { "greetings": { "scope": "install", "schema": { "type": "object", "properties": { "text": { "type": "string" } } } } } }
}"#;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let krate = dir.path().join("crate");
        let out = dir.path().join("out");
        std::fs::create_dir_all(&krate).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(krate.join("icon.svg"), r#"<svg viewBox="0 0 16 16"/>"#).unwrap();
        std::fs::write(krate.join("host.extension.json"), MANIFEST).unwrap();
        (dir, krate, out)
    }

    fn read(out: &Path, name: String) -> String {
        std::fs::read_to_string(out.join(name)).unwrap()
    }

    #[test]
    fn writes_the_expansion_and_names_the_files_to_watch() {
        let (_dir, krate, out) = setup();
        let written = write("host.extension.json", &krate, &out).unwrap();
        let items = read(&out, host_codegen::build::items_file("host.extension.json"));
        assert!(items.contains("pub mod greetings"), "{items}");
        assert!(items.starts_with("// Generated by host_runtime_build"));
        let diagnostics = read(
            &out,
            host_codegen::build::diagnostics_file("host.extension.json"),
        );
        let messages = host_codegen::build::read_diagnostics(&diagnostics).unwrap();
        assert_eq!(messages.iter().count(), 0);
        assert_eq!(
            written.files,
            vec![krate.join("host.extension.json"), krate.join("icon.svg")]
        );
    }

    #[test]
    fn an_unchanged_manifest_leaves_the_files_alone() {
        let (_dir, krate, out) = setup();
        write("host.extension.json", &krate, &out).unwrap();
        let items = out.join(host_codegen::build::items_file("host.extension.json"));
        let before = std::fs::metadata(&items).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        write("host.extension.json", &krate, &out).unwrap();
        assert_eq!(
            std::fs::metadata(&items).unwrap().modified().unwrap(),
            before
        );
    }

    #[test]
    fn a_manifest_that_cannot_be_read_keeps_the_last_types_and_reports_its_errors() {
        let (_dir, krate, out) = setup();
        write("host.extension.json", &krate, &out).unwrap();
        std::fs::write(krate.join("host.extension.json"), "{ \"id\": ").unwrap();
        write("host.extension.json", &krate, &out).unwrap();
        let items = read(&out, host_codegen::build::items_file("host.extension.json"));
        assert!(items.contains("pub mod greetings"), "the last types stay");
        let diagnostics = read(
            &out,
            host_codegen::build::diagnostics_file("host.extension.json"),
        );
        let messages = host_codegen::build::read_diagnostics(&diagnostics).unwrap();
        let errors = messages.lines(host_codegen::Severity::Error);
        assert!(
            errors.iter().any(|e| e.contains("[json-syntax]")),
            "{errors:?}"
        );
    }

    #[test]
    fn without_earlier_types_an_unreadable_manifest_gets_stubs() {
        let (_dir, krate, out) = setup();
        std::fs::write(krate.join("host.extension.json"), "[]").unwrap();
        write("host.extension.json", &krate, &out).unwrap();
        let items = read(&out, host_codegen::build::items_file("host.extension.json"));
        assert!(
            items.contains("Unavailable: the manifest is invalid"),
            "{items}"
        );
    }

    #[test]
    fn outside_a_build_script_the_reason_is_named() {
        let e = env_path("HOST_RUNTIME_BUILD_TEST_UNSET").unwrap_err();
        assert!(
            e.to_string()
                .contains("must run in a build script (build.rs)"),
            "{e}"
        );
    }

    #[test]
    fn the_build_script_writes_what_cargo_host_expand_prints() {
        let (_dir, krate, out) = setup();
        write("host.extension.json", &krate, &out).unwrap();
        let items = read(&out, host_codegen::build::items_file("host.extension.json"));
        let body = items.split_once("\n\n").map_or("", |(_, body)| body);
        let expanded = host_codegen::Settings::new()
            .expand("host.extension.json", Some(&krate))
            .pretty();
        let dir = krate.display().to_string();
        assert_eq!(body.replace(&dir, "$CARGO_MANIFEST_DIR"), expanded);
    }
}
