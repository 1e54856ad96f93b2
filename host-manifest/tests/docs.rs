//! The guide's rule table (the table after `<!-- anchor: manifest-rules -->` in host-runtime's docs)
//! lists every rule and only rules, so the documentation cannot fall behind the engine.

use std::path::{Path, PathBuf};

use host_manifest::Rule;

/// The Markdown files that may hold the table: the README and host-runtime's docs.
fn doc_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    walk(&root.join("host-runtime/docs"), &mut files);
    files
}

/// The rule names in the first column of the table after the anchor.
fn documented_rules() -> Vec<String> {
    let marker = "<!-- anchor: manifest-rules -->";
    let mut tables = Vec::new();
    for file in doc_files() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim() != marker {
                continue;
            }
            let names: Vec<String> = lines
                .by_ref()
                .take_while(|l| l.trim_start().starts_with('|'))
                .skip(2) // the header and its rule
                .filter_map(|row| row.split('|').nth(1).map(str::to_owned))
                .flat_map(|cell| {
                    cell.split('`')
                        .skip(1)
                        .step_by(2)
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect();
            tables.push(names);
        }
    }
    assert_eq!(
        tables.len(),
        1,
        "the docs must hold `{marker}` exactly once"
    );
    tables.remove(0)
}

#[test]
fn the_guide_names_every_rule_and_only_rules() {
    let documented = documented_rules();
    for rule in Rule::ALL {
        assert!(
            documented.iter().any(|name| name == rule.name()),
            "the guide's rule table does not list `{rule}`"
        );
    }
    for name in &documented {
        assert!(
            Rule::ALL.iter().any(|rule| rule.name() == name),
            "the guide's rule table lists `{name}`, which is no rule"
        );
    }
}
