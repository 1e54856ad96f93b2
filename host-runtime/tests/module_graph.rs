//! The crate's modules form no cycle, and the private support module of generated code only
//! re-exports: read from the
//! sources, so a new `use` that closes a loop fails here before it tangles the crate.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module of every `crate::<module>` a source file names, by module.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("lib.rs") {
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        let module = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        // Unit tests may reach anywhere; only the code they test counts.
        let text = std::fs::read_to_string(&path).unwrap();
        let code: String = text
            .split("#[cfg(test)]")
            .next()
            .unwrap()
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        if relative.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let edges = graph.entry(module.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let name: String = code[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let is_module = src.join(format!("{name}.rs")).exists() || src.join(&name).is_dir();
            if is_module && name != module {
                edges.insert(name);
            }
        }
    }
    graph
}

#[test]
fn modules_form_no_cycle() {
    let graph = graph();
    // Depth-first search with the path so far; a module met again on the path is a cycle.
    fn visit(
        graph: &BTreeMap<String, BTreeSet<String>>,
        module: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if let Some(at) = path.iter().position(|m| m == module) {
            panic!(
                "modules import each other: {} -> {module}",
                path[at..].join(" -> ")
            );
        }
        if !done.insert(module.to_owned()) {
            return;
        }
        path.push(module.to_owned());
        for next in graph.get(module).into_iter().flatten() {
            visit(graph, next, path, done);
        }
        path.pop();
    }
    // `done` only after a full visit would miss nothing here: a module reached again off the path
    // was already explored with all its edges.
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        visit(&graph, module, &mut Vec::new(), &mut done);
    }
    // The pipeline's direction, spelled out.
    assert!(graph["handler"].contains("service"));
    assert!(graph["service"].contains("route"));
    assert!(!graph["service"].contains("handler"));
}

#[test]
fn the_support_module_is_only_a_facade() {
    let graph = graph();
    for (module, edges) in &graph {
        assert!(
            !edges.contains("private") && !edges.contains("__private_0_1_0"),
            "`{module}` uses the support module, which exists for generated code only"
        );
    }
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/private.rs"))
            .unwrap();
    for line in text.lines() {
        let line = line.trim();
        assert!(
            line.is_empty()
                || line.starts_with("//")
                || line.starts_with("pub use ")
                || !line.contains(|c: char| c.is_alphabetic())
                || line.ends_with(',')
                || line.ends_with("};"),
            "private.rs defines something: {line}"
        );
    }
}

/// The support module's name is this release's: a release bumps the version, this test fails, and
/// the module is renamed here, in lib.rs and in host-codegen (whose own test checks its side) in
/// the same change. Code expanded by another release's macro then fails to build at once.
#[test]
fn the_support_module_is_named_after_this_release() {
    let name = format!(
        "__private_{}",
        env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_")
    );
    assert_eq!(name, "__private_0_1_0");
    // And the crate has the module under that name (this does not compile otherwise).
    #[allow(unused_imports)]
    use host_runtime::__private_0_1_0 as _;
}
