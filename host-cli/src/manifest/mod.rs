//! The manifest a command names: found from the path the user gave (a file, or a folder holding
//! `host.extension.json`), read and validated, and its diagnostics shown to people ([`render`]).
//!
//! Shared by `validate`, `expand`, `stubs`, `diff` and the local host; it names none of them.

pub(crate) mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The manifest file `path` names: the file itself, or `host.extension.json` in a folder.
pub(crate) fn file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(host_manifest::MANIFEST_FILE)
    } else {
        path.to_owned()
    }
}

/// Reads and validates the manifest at `path` (a file, or a folder holding `host.extension.json`); a
/// file that cannot be read is reported on stderr and exits 2.
pub(crate) fn load(path: &Path) -> Result<(PathBuf, host_manifest::Report), ExitCode> {
    let file = file(path);
    match host_manifest::validate_file(&file) {
        Ok(report) => Ok((file, report)),
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}
