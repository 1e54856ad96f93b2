//! Rules about files the manifest names (`icon`, `entry`, knowledge and skill `file`, listing
//! `screenshots`): they must exist next to the manifest, inside its folder; the icon must be a square
//! png or svg of at most 512 KB, and each screenshot a png of 1600 by 1000 pixels.
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
/// The size of every listing screenshot, in pixels (width, height).
pub(crate) const SCREENSHOT_SIZE: (usize, usize) = (1600, 1000);

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
    for (pointer, rel) in crate::files::named_in(cx.root) {
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
    problem
        .or_else(|| {
            (size > ICON_LIMIT).then(|| {
                format!(
                    "is {} KB; an icon may be at most 512 KB",
                    size.div_ceil(1024)
                )
            })
        })
        .or_else(|| match ext.as_deref() {
            Some("png") => png_square_problem(path),
            _ => svg_square_problem(path),
        })
}

/// Why a png icon is not square, if it is not.
fn png_square_problem(path: &Path) -> Option<String> {
    match imagesize::size(path) {
        Ok(size) if size.width == size.height => None,
        Ok(size) => Some(format!(
            "is {} by {} pixels; the icon must be square (the same width and height)",
            size.width, size.height
        )),
        Err(_) => Some("is a PNG whose size cannot be read (a damaged header)".to_owned()),
    }
}

/// Why an svg icon is not square, if it is not. Its shape is that of its root element: the
/// `width` and `height` when both are lengths in pixels, or else its `viewBox`. An svg with neither
/// has no shape of its own (a browser draws it 300 by 150), so it is not square either.
fn svg_square_problem(path: &Path) -> Option<String> {
    const FIX: &str = r#"give the root element a square `viewBox="0 0 64 64"`"#;
    let Ok(text) = fs::read_to_string(path) else {
        return Some("is not UTF-8 text, so not an svg the host can read".to_owned());
    };
    let document = match roxmltree::Document::parse(&text) {
        Ok(d) => d,
        Err(e) => return Some(format!("is not well-formed XML ({e})")),
    };
    let svg = document.root_element();
    if svg.tag_name().name() != "svg" {
        return Some(format!(
            "has a root element `<{}>`, not `<svg>`",
            svg.tag_name().name()
        ));
    }
    let view_box = match svg.attribute("viewBox") {
        None => None,
        Some(text) => {
            let numbers: Vec<f64> = text
                .split([' ', ',', '\t', '\n', '\r'])
                .filter(|n| !n.is_empty())
                .filter_map(|n| n.parse().ok())
                .collect();
            match numbers[..] {
                [_, _, w, h] if w > 0.0 && h > 0.0 => Some((w, h)),
                _ => {
                    return Some(format!(
                        "has the viewBox `{text}`, which is not four numbers with a positive width and height; {FIX}"
                    ));
                }
            }
        }
    };
    // A length in pixels (`48`, `48px`); percentages and other units give no shape of their own.
    let pixels = |name: &str| {
        let value = svg.attribute(name)?.trim();
        let number = value.strip_suffix("px").unwrap_or(value).trim();
        number.parse::<f64>().ok().filter(|n| *n > 0.0)
    };
    let (shape, from) = match (pixels("width"), pixels("height"), view_box) {
        (Some(w), Some(h), _) => ((w, h), "width and height"),
        (_, _, Some(wh)) => (wh, "viewBox"),
        _ => {
            return Some(format!(
                "has no viewBox and no width and height in pixels, so no shape of its own; {FIX}"
            ));
        }
    };
    let (w, h) = shape;
    (w != h).then(|| format!("is {w} by {h} (its {from}): the icon must be square; {FIX}"))
}

/// Every listing screenshot is a png of 1600 by 1000 pixels. (Only checked when the file resolves;
/// `check_files` reports the rest.)
pub(crate) fn check_screenshots(cx: &mut Ctxt<'_>) {
    let Some(base) = cx.base_dir else { return };
    let (want_w, want_h) = SCREENSHOT_SIZE;
    let mut found = Vec::new();
    for (i, shot) in cx.items("/listing/screenshots") {
        let Some(rel) = shot.as_str().filter(|r| !r.is_empty()) else {
            continue;
        };
        let Ok(path) = resolve(base, rel) else {
            continue;
        };
        let mut head = [0u8; 8];
        let is_png = fs::File::open(&path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
            && head == *b"\x89PNG\r\n\x1a\n";
        let shown = crate::schema::clip(rel);
        let problem = if !is_png {
            Some(format!(
                "`{shown}` is not a PNG image; screenshots are png files of {want_w} by {want_h} pixels"
            ))
        } else {
            match imagesize::size(&path) {
                Ok(s) if (s.width, s.height) == SCREENSHOT_SIZE => None,
                Ok(s) => Some(format!(
                    "`{shown}` is {} by {} pixels; screenshots are {want_w} by {want_h} (landscape)",
                    s.width, s.height
                )),
                Err(_) => Some(format!(
                    "`{shown}` is a PNG whose size cannot be read (a damaged header)"
                )),
            }
        };
        if let Some(message) = problem {
            found.push((format!("/listing/screenshots/{i}"), message));
        }
    }
    for (pointer, message) in found {
        cx.error(Rule::ScreenshotFormat, pointer, message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, set};
    use serde_json::json;

    /// The start of a png of `width` by `height` pixels: the signature and its `IHDR` chunk, which
    /// is all a size reader looks at.
    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        bytes.extend(width.to_be_bytes());
        bytes.extend(height.to_be_bytes());
        bytes.extend([8, 6, 0, 0, 0]);
        bytes.extend([0; 4]);
        bytes
    }

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let write = |p: &str, b: &[u8]| {
            let path = dir.path().join(p);
            fs::create_dir_all(path.parent().unwrap_or(dir.path())).ok();
            fs::write(path, b).unwrap_or_else(|e| panic!("write {p}: {e}"));
        };
        write("icon.png", &png(64, 64));
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
        let svg = |attributes: &str| {
            format!(
                "<!-- <svg viewBox=\"0 0 9 9\"> --><svg xmlns=\"http://www.w3.org/2000/svg\" {attributes}><rect width=\"1\" height=\"2\"/></svg>"
            )
        };
        for (name, text) in [
            ("icon.svg", svg(r#"viewBox="0 0 64 64""#)),
            (
                "commas.svg",
                svg(r#"viewBox="-8,-8,16,16" width="20" height="20""#),
            ),
            (
                "mismatch.svg",
                svg(r#"viewBox="0 0 16 16" width="10" height="20""#),
            ),
            (
                "half-sized.svg",
                svg(r#"viewBox="0 0 16 16" width="100%" height="20""#),
            ),
            ("sized.svg", svg(r#"width="48px" height="48""#)),
            ("wide.svg", svg(r#"viewBox="0 0 64 32""#)),
            ("tall.svg", svg(r#"width="16" height="32""#)),
            ("shapeless.svg", svg("")),
            ("bad-box.svg", svg(r#"viewBox="0 0 none""#)),
            ("percent.svg", svg(r#"width="100%" height="100%""#)),
            ("broken.svg", "<svg viewBox=\"0 0 1 1\">".to_owned()),
            (
                "not-svg.svg",
                "<html><svg viewBox=\"0 0 1 1\"/></html>".to_owned(),
            ),
        ] {
            fs::write(dir.path().join(name), text).ok();
        }
        let mut big = png(64, 64);
        big.resize(ICON_LIMIT as usize + 1, 7);
        fs::write(dir.path().join("big.png"), big).ok();
        fs::write(dir.path().join("wide.png"), png(64, 48)).ok();
        fs::write(dir.path().join("cut.png"), &png(64, 64)[..12]).ok();
        let mut doc = base();
        for (icon, ok) in [
            ("icon.png", true),
            ("icon.svg", true),
            ("commas.svg", true),
            ("sized.svg", true),
            ("icon.gif", false),
            ("fake.png", false),
            ("big.png", false),
            ("wide.png", false),
            ("cut.png", false),
            ("half-sized.svg", true),
            ("wide.svg", false),
            ("tall.svg", false),
            ("mismatch.svg", false),
            ("shapeless.svg", false),
            ("bad-box.svg", false),
            ("percent.svg", false),
            ("broken.svg", false),
            ("not-svg.svg", false),
        ] {
            set(&mut doc, "/icon", json!(icon));
            let found = run(&doc, dir.path(), check_icon);
            assert_eq!(found.is_empty(), ok, "{icon}: {found:?}");
        }
    }

    #[test]
    fn screenshots_are_pngs_of_1600_by_1000() {
        let dir = folder();
        fs::create_dir_all(dir.path().join("listing")).ok();
        for (name, bytes) in [
            ("listing/ok.png", png(1600, 1000)),
            ("listing/portrait.png", png(1000, 1600)),
            ("listing/small.png", png(800, 500)),
            ("listing/fake.png", b"GIF89a, named png".to_vec()),
            ("listing/cut.png", png(1600, 1000)[..20].to_vec()),
        ] {
            fs::write(dir.path().join(name), bytes).ok();
        }
        let mut doc = base();
        set(
            &mut doc,
            "/listing",
            json!({ "screenshots": [
                "listing/ok.png", "listing/portrait.png", "listing/small.png",
                "listing/fake.png", "listing/cut.png", "listing/missing.png"
            ] }),
        );
        // The missing one is `check_files`' to report.
        let found = run(&doc, dir.path(), check_screenshots);
        let expected: Vec<(Rule, String)> = (1..=4)
            .map(|i| (Rule::ScreenshotFormat, format!("/listing/screenshots/{i}")))
            .collect();
        assert_eq!(found, expected);
    }
}
