//! Rules about files the manifest names (`icon`, `entry`, knowledge and skill `file`, listing
//! `screenshots`): they must exist next to the manifest, inside its folder, and the icon must be a png or
//! svg of at most 512 KB.
//!
//! Paths resolve against the manifest's folder, never the current directory. These rules are skipped
//! when the manifest was given as text without a folder.

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;

/// The largest icon, in bytes (512 KB).
pub const ICON_LIMIT: u64 = 512 * 1024;

/// Every pointer at which the manifest names a file, in document order.
pub(crate) fn file_pointers(cx: &Ctxt<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if cx.get("/icon").is_some() {
        out.push("/icon".to_owned());
    }
    for kind in ["pages", "tabs", "widgets", "rowActions"] {
        for (i, item) in cx.items(&format!("/contributes/{kind}")) {
            if item.get("entry").is_some() {
                out.push(format!("/contributes/{kind}/{i}/entry"));
            }
        }
    }
    if cx.get("/contributes/settings/entry").is_some() {
        out.push("/contributes/settings/entry".to_owned());
    }
    for kind in ["knowledge", "skills"] {
        for (i, item) in cx.items(&format!("/contributes/ai/{kind}")) {
            if item.get("file").is_some() {
                out.push(format!("/contributes/ai/{kind}/{i}/file"));
            }
        }
    }
    for (i, _) in cx.items("/listing/screenshots") {
        out.push(format!("/listing/screenshots/{i}"));
    }
    out
}

/// Why a named file cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FileProblem {
    Absolute,
    Escapes,
    EscapesThroughLink,
    Missing,
    NotAFile,
}

/// Resolves `rel` inside `base`, refusing absolute paths and paths that leave the folder.
pub(crate) fn resolve(base: &Path, rel: &str) -> Result<PathBuf, FileProblem> {
    let windows_drive =
        rel.len() >= 2 && rel.as_bytes()[1] == b':' && rel.as_bytes()[0].is_ascii_alphabetic();
    if rel.starts_with(['/', '\\']) || windows_drive || Path::new(rel).is_absolute() {
        return Err(FileProblem::Absolute);
    }
    // Backslashes are separators for manifests written on Windows.
    if rel.split(['/', '\\']).any(|seg| seg == "..")
        || Path::new(rel)
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(FileProblem::Escapes);
    }
    let path = base.join(rel);
    let meta = fs::metadata(&path).map_err(|_| FileProblem::Missing)?;
    if !meta.is_file() {
        return Err(FileProblem::NotAFile);
    }
    // A symbolic link inside the folder may still point outside it.
    if let (Ok(real_base), Ok(real)) = (base.canonicalize(), path.canonicalize())
        && !real.starts_with(&real_base)
    {
        return Err(FileProblem::EscapesThroughLink);
    }
    Ok(path)
}

/// Every file the manifest names exists in the manifest's folder.
pub(crate) fn check_files(cx: &mut Ctxt<'_>) {
    let Some(base) = cx.base_dir else { return };
    let mut found = Vec::new();
    for pointer in file_pointers(cx) {
        let Some(rel) = cx.str(&pointer) else {
            continue;
        };
        if rel.is_empty() {
            continue;
        }
        let shown = crate::schema::clip(rel);
        let (rule, message) = match resolve(base, rel) {
            Ok(_) => continue,
            Err(FileProblem::Absolute) => (
                Rule::FilePath,
                format!(
                    "`{shown}` is an absolute path; name files relative to the manifest's folder"
                ),
            ),
            Err(FileProblem::Escapes) => (
                Rule::FilePath,
                format!(
                    "`{shown}` leaves the manifest's folder; files must live in the bundle, next to the manifest"
                ),
            ),
            Err(FileProblem::EscapesThroughLink) => (
                Rule::FilePath,
                format!(
                    "`{shown}` is a symbolic link to a file outside the manifest's folder; copy the file into the bundle"
                ),
            ),
            Err(FileProblem::Missing) => (
                Rule::FileMissing,
                format!(
                    "`{shown}` does not exist next to the manifest; paths are relative to the manifest's folder"
                ),
            ),
            Err(FileProblem::NotAFile) => (
                Rule::FileMissing,
                format!("`{shown}` is a folder, not a file"),
            ),
        };
        found.push((rule, pointer, message));
    }
    for (rule, pointer, message) in found {
        cx.error(rule, pointer, message);
    }
}

/// The icon is a png or svg of at most 512 KB. (Only checked when the file resolves; `check_files`
/// reports the rest.)
pub(crate) fn check_icon(cx: &mut Ctxt<'_>) {
    let (Some(base), Some(rel)) = (cx.base_dir, cx.get("/icon").and_then(Value::as_str)) else {
        return;
    };
    let Ok(path) = resolve(base, rel) else { return };
    if let Some(problem) = icon_problem(&path) {
        cx.error(
            Rule::IconFormat,
            "/icon",
            format!("`{}` {problem}", crate::schema::clip(rel)),
        );
    }
}

fn icon_problem(path: &Path) -> Option<String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let Ok(mut file) = fs::File::open(path) else {
        return Some("cannot be read".to_owned());
    };
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut head = Vec::with_capacity(1024);
    if file.by_ref().take(1024).read_to_end(&mut head).is_err() {
        return Some("cannot be read".to_owned());
    }
    let is_png = head.starts_with(b"\x89PNG\r\n\x1a\n");
    let is_svg = String::from_utf8_lossy(&head).contains("<svg");
    let problem = match ext.as_deref() {
        Some("png") if !is_png => Some("is named .png but is not a PNG image".to_owned()),
        Some("svg") if !is_svg => {
            Some("is named .svg but does not contain an <svg> element".to_owned())
        }
        Some("png" | "svg") => None,
        _ => Some("must be a .png or .svg image".to_owned()),
    };
    problem.or_else(|| {
        (size > ICON_LIMIT).then(|| {
            format!(
                "is {} KB; an icon may be at most 512 KB",
                size.div_ceil(1024)
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, set};
    use serde_json::json;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let write = |p: &str, b: &[u8]| {
            let path = dir.path().join(p);
            fs::create_dir_all(path.parent().unwrap_or(dir.path())).ok();
            fs::write(path, b).unwrap_or_else(|e| panic!("write {p}: {e}"));
        };
        write("icon.png", PNG);
        write("ui/ranks.tsx", b"export default 1;");
        dir
    }

    fn run(doc: &Value, dir: &Path, rule: fn(&mut Ctxt<'_>)) -> Vec<(Rule, String)> {
        let mut cx = Ctxt::new(doc, Some(dir));
        rule(&mut cx);
        cx.into_findings()
            .into_iter()
            .map(|f| (f.rule, f.pointer))
            .collect()
    }

    #[test]
    fn existing_files_pass() {
        let dir = folder();
        assert!(run(&base(), dir.path(), check_files).is_empty());
        assert!(run(&base(), dir.path(), check_icon).is_empty());
    }

    #[test]
    fn missing_files_fail_where_named() {
        let dir = folder();
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/widgets/0/entry",
            json!("ui/gone.tsx"),
        );
        assert_eq!(
            run(&doc, dir.path(), check_files),
            vec![(Rule::FileMissing, "/contributes/widgets/0/entry".into())]
        );
    }

    #[test]
    fn escaping_and_absolute_paths_fail() {
        let dir = folder();
        for bad in [
            "../icon.png",
            "ui/../../icon.png",
            "/etc/hostname",
            "..\\icon.png",
            "C:\\icon.png",
        ] {
            let mut doc = base();
            set(&mut doc, "/contributes/widgets/0/entry", json!(bad));
            assert_eq!(
                run(&doc, dir.path(), check_files),
                vec![(Rule::FilePath, "/contributes/widgets/0/entry".into())],
                "{bad}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_folder_fails() {
        let outside = folder();
        let dir = folder();
        std::os::unix::fs::symlink(
            outside.path().join("icon.png"),
            dir.path().join("linked.png"),
        )
        .unwrap_or_else(|e| panic!("symlink: {e}"));
        let mut doc = base();
        set(&mut doc, "/icon", json!("linked.png"));
        assert_eq!(
            run(&doc, dir.path(), check_files),
            vec![(Rule::FilePath, "/icon".into())]
        );
    }

    #[test]
    fn paths_resolve_against_the_folder_not_the_current_directory() {
        let dir = folder();
        // `Cargo.toml` exists in the current directory of this test, not in the folder.
        let mut doc = base();
        set(&mut doc, "/icon", json!("Cargo.toml"));
        assert_eq!(
            run(&doc, dir.path(), check_files),
            vec![(Rule::FileMissing, "/icon".into())]
        );
    }

    #[test]
    fn icons_must_be_small_pngs_or_svgs() {
        let dir = folder();
        fs::write(dir.path().join("icon.gif"), b"GIF89a").ok();
        fs::write(dir.path().join("fake.png"), b"not a png").ok();
        fs::write(
            dir.path().join("icon.svg"),
            b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        )
        .ok();
        let mut big = PNG.to_vec();
        big.resize(ICON_LIMIT as usize + 1, 7);
        fs::write(dir.path().join("big.png"), big).ok();
        let mut doc = base();
        for (icon, ok) in [
            ("icon.svg", true),
            ("icon.gif", false),
            ("fake.png", false),
            ("big.png", false),
        ] {
            set(&mut doc, "/icon", json!(icon));
            let found = run(&doc, dir.path(), check_icon);
            assert_eq!(found.is_empty(), ok, "{icon}: {found:?}");
        }
    }
}
