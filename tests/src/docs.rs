//! Finding what the docs hold by its anchor, for tests that run or check it: an HTML comment
//! `<!-- anchor: NAME -->` right before a code block or a table, in the README or any page of
//! host-runtime's docs. Tests key on the anchor, never on the prose around it, and each anchor must
//! be there exactly once.

// Test support: a missing page or anchor fails the test that asked, loudly and by name.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Markdown pages that hold anchors: the README and every page of host-runtime's docs.
pub fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut pages = vec![root().join("README.md")];
    walk(&root().join("host-runtime/docs"), &mut pages);
    pages
}

/// The lines after `<!-- anchor: NAME -->` on the one page that holds it, with that page.
///
/// # Panics
///
/// When no page or more than one holds the anchor, naming it.
pub fn after_anchor(anchor: &str) -> (PathBuf, Vec<String>) {
    let marker = format!("<!-- anchor: {anchor} -->");
    let mut found = Vec::new();
    for page in pages() {
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let lines: Vec<&str> = text.lines().collect();
        for (i, _) in lines.iter().enumerate().filter(|(_, l)| l.trim() == marker) {
            let rest = lines[i + 1..].iter().map(|l| (*l).to_owned()).collect();
            found.push((page.clone(), rest));
        }
    }
    assert_eq!(found.len(), 1, "the docs must hold `{marker}` exactly once");
    found.remove(0)
}

/// The code block right after `<!-- anchor: NAME -->`, each line ending in `\n`.
///
/// # Panics
///
/// When the anchor is not there exactly once, or no code block follows it.
pub fn code_block(anchor: &str) -> String {
    let (page, lines) = after_anchor(anchor);
    let mut lines = lines.into_iter();
    let fence = lines.next().unwrap_or_default();
    assert!(
        fence.starts_with("```"),
        "{}: `<!-- anchor: {anchor} -->` is not followed by a code block",
        page.display()
    );
    lines
        .take_while(|l| l.trim_end() != "```")
        .map(|l| format!("{l}\n"))
        .collect()
}
