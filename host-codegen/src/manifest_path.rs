//! From the path literal of `host_extension!("...")` to the manifest file: relative to the crate's
//! folder, never absolute, so a crate builds the same on every machine.

use std::path::{Component, Path, PathBuf};

use host_manifest::{ReadError, ReadErrorKind};

/// Why the manifest a macro call names could not be read. Its text is what the vendor sees on the
/// path literal; the I/O error behind a read failure is its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ManifestError {
    /// The literal is an absolute path.
    #[error(
        "`{written}` is an absolute path; write the manifest's path relative to the crate's folder, such as \"host.extension.json\""
    )]
    Absolute {
        /// The literal as written.
        written: String,
    },
    /// Not built by cargo: there is no crate folder to resolve against.
    #[error("CARGO_MANIFEST_DIR is not set; build the crate with cargo")]
    NoCrateFolder,
    /// The file could not be read.
    #[error("{}", unreadable(written, source))]
    Unreadable {
        /// The literal as written.
        written: String,
        /// What the engine's reader found.
        #[source]
        source: ReadError,
    },
}

/// The message of a manifest that could not be read, naming it as the vendor wrote it (the
/// engine's own message names the resolved, absolute path).
fn unreadable(written: &str, e: &ReadError) -> String {
    match e.kind {
        ReadErrorKind::NotFound => format!(
            "cannot find `{written}`; the path is relative to the crate's folder (the one with Cargo.toml)"
        ),
        ReadErrorKind::IsDirectory => format!(
            "`{written}` is a folder; name the manifest file inside it, such as `{written}/host.extension.json`"
        ),
        ReadErrorKind::PermissionDenied => format!("cannot read `{written}`: permission denied"),
        _ => format!("cannot read `{written}`"),
    }
}

/// Resolves the literal against the crate folder; absolute paths are refused.
pub(crate) fn resolve(written: &str, crate_dir: Option<&Path>) -> Result<PathBuf, ManifestError> {
    let rel = Path::new(written);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
    {
        return Err(ManifestError::Absolute {
            written: written.to_owned(),
        });
    }
    let dir = crate_dir.ok_or(ManifestError::NoCrateFolder)?;
    Ok(dir.join(rel))
}

/// Reads the manifest the literal names.
pub(crate) fn read(
    written: &str,
    crate_dir: Option<&Path>,
) -> Result<(PathBuf, Vec<u8>), ManifestError> {
    let path = resolve(written, crate_dir)?;
    match host_manifest::read_manifest(&path) {
        Ok(bytes) => Ok((path, bytes)),
        Err(source) => Err(ManifestError::Unreadable {
            written: written.to_owned(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn absolute_paths_and_a_missing_folder_are_refused() {
        let e = resolve("/etc/host.extension.json", Some(Path::new("/tmp")));
        assert!(matches!(e, Err(ManifestError::Absolute { .. })));
        assert!(matches!(
            resolve("host.extension.json", None),
            Err(ManifestError::NoCrateFolder)
        ));
    }

    #[test]
    fn a_missing_file_names_the_literal_and_keeps_the_cause() {
        let Err(e) = read("nope.json", Some(Path::new("/tmp"))) else {
            panic!("a missing file reads");
        };
        let text = e.to_string();
        assert!(text.contains("relative to the crate's folder"), "{text}");
        assert!(
            !text.contains("/tmp"),
            "no absolute path in the message: {text}"
        );
        let read_error = e.source().map(ToString::to_string).unwrap_or_default();
        assert!(read_error.contains("/tmp/nope.json"), "{read_error}");
        assert!(
            e.source().and_then(|s| s.source()).is_some(),
            "the I/O error is chained"
        );
    }
}
