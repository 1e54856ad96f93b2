//! The crate's modules and groups form no cycle, and the private support module of generated code
//! only re-exports: read from the
//! sources, so a new `use` that closes a loop fails here before it tangles the crate.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The folders that group modules by concept; every other top-level file or folder is one module.
const GROUPS: [&str; 6] = [
    "calls",
    "generated",
    "outbound",
    "platform",
    "serving",
    "stores",
];

/// The module a source file belongs to: `calls::answer` for `calls/answer.rs`, `stores::postgres`
/// for `stores/postgres/outbox.rs`, `auth` for `auth/keys.rs`, `testing` for `testing/mod.rs`.
fn module_of(relative: &Path) -> String {
    let parts: Vec<String> = relative
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    match parts.as_slice() {
        [group, module, ..] if GROUPS.contains(&group.as_str()) && module != "mod" => {
            format!("{group}::{module}")
        }
        [first, ..] => first.clone(),
        [] => String::new(),
    }
}

/// The group a module is in (the module itself when it is in none).
fn group_of(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// Every module, with the modules its code (not its unit tests) names through `crate::`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || path == src.join("lib.rs") {
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        // A folder or file of unit tests (`outbox/tests.rs`) is tests, as a `#[cfg(test)]` module is.
        if relative
            .components()
            .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "tests.rs")
        {
            continue;
        }
        let module = module_of(relative);
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
        let edges = graph.entry(module.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let path: Vec<String> = code[i + 7..]
                .split("::")
                .take(2)
                .map(|segment| {
                    segment
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect()
                })
                .collect();
            let named = match path.as_slice() {
                // An item of the group's own `mod.rs` (`crate::platform::BoxFuture`).
                [group, inner, ..]
                    if GROUPS.contains(&group.as_str())
                        && inner.starts_with(|c: char| c.is_ascii_uppercase()) =>
                {
                    group.clone()
                }
                [group, inner, ..] if GROUPS.contains(&group.as_str()) => {
                    let exists = src.join(group).join(format!("{inner}.rs")).exists()
                        || src.join(group).join(inner).is_dir();
                    assert!(
                        exists,
                        "{}: `crate::{group}::{inner}` is no module",
                        relative.display()
                    );
                    format!("{group}::{inner}")
                }
                [first, ..]
                    if !first.is_empty()
                        && (src.join(format!("{first}.rs")).exists()
                            || src.join(first).is_dir()) =>
                {
                    first.clone()
                }
                _ => continue,
            };
            if named != module {
                edges.insert(named);
            }
        }
    }
    graph
}

/// The groups' graph: an edge wherever a module of one group names a module of another.
fn group_graph(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, edges) in graph {
        let from = group_of(module);
        let entry = groups.entry(from.to_owned()).or_default();
        for to in edges {
            if group_of(to) != from {
                entry.insert(group_of(to).to_owned());
            }
        }
    }
    groups
}

/// Panics naming a cycle of `graph`, if it has one.
fn assert_acyclic(graph: &BTreeMap<String, BTreeSet<String>>, what: &str) {
    // Depth-first search with the path so far; a node met again on the path is a cycle.
    fn visit(
        graph: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        what: &str,
    ) {
        if let Some(at) = path.iter().position(|m| m == node) {
            panic!(
                "{what} import each other: {} -> {node}",
                path[at..].join(" -> ")
            );
        }
        if !done.insert(node.to_owned()) {
            return;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            visit(graph, next, path, done, what);
        }
        path.pop();
    }
    // `done` only after a full visit would miss nothing here: a node reached again off the path
    // was already explored with all its edges.
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(graph, node, &mut Vec::new(), &mut done, what);
    }
}

#[test]
fn modules_form_no_cycle() {
    assert_acyclic(&graph(), "modules");
}

#[test]
fn groups_depend_on_each_other_in_one_direction() {
    let graph = graph();
    let groups = group_graph(&graph);
    assert_acyclic(&groups, "groups");
    // The layers, bottom up: a group names only groups of lower layers.
    let layers: [&[&str]; 7] = [
        &["cause"],
        &["platform"],
        &["calls", "telemetry"],
        &["auth", "stores", "generated"],
        &["outbound"],
        &["serving"],
        &["private", "testing", "interface_doc", "fuzzing"],
    ];
    let layer_of = |group: &str| {
        layers
            .iter()
            .position(|layer| layer.contains(&group))
            .unwrap_or_else(|| panic!("the group `{group}` is in no layer; add it to this test"))
    };
    for (group, edges) in &groups {
        for to in edges {
            assert!(
                layer_of(to) < layer_of(group),
                "`{group}` names `{to}`, which is not below it"
            );
        }
    }
    // The pipeline's direction, spelled out.
    assert!(graph["serving::handler"].contains("serving::pipeline"));
    assert!(graph["serving::pipeline"].contains("calls::route"));
    assert!(!graph["serving::pipeline"].contains("serving::handler"));
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
