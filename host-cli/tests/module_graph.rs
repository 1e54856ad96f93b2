//! The local host's modules form a tree: no two of `host-cli/src/local/` import each other, even
//! through a third. Shared parts (`request`, `inbox`, `web`, ...) sit below the commands and the
//! console that use them; a module that needs something of a sibling that also needs it is the
//! sign that the shared part wants a module of its own.

#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The local host's modules (a folder is one module) and the siblings each one names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/local");
    let mut modules: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(&local).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "mod" {
            continue;
        }
        let mut texts = Vec::new();
        if path.is_dir() {
            for file in std::fs::read_dir(&path).unwrap() {
                texts.push(std::fs::read_to_string(file.unwrap().path()).unwrap());
            }
        } else {
            texts.push(std::fs::read_to_string(&path).unwrap());
        }
        modules.insert(name, texts);
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .into_iter()
        .map(|(name, texts)| {
            let mut uses = BTreeSet::new();
            for text in &texts {
                for other in &names {
                    let named = [
                        format!("super::{other}"),
                        format!("super::super::{other}"),
                        format!("crate::local::{other}"),
                    ];
                    // `use super::{a, b}` names siblings inside braces too.
                    let braced = text.split("use super::").skip(1).any(|rest| {
                        rest.starts_with('{')
                            && rest[1..rest.find('}').unwrap_or(1)]
                                .split(',')
                                .any(|item| item.trim().split("::").next() == Some(other.as_str()))
                    });
                    let inside_console = name == "console" && other == "console";
                    if other != &name
                        && !inside_console
                        && (braced
                            || named.iter().any(|n| {
                                text.match_indices(n.as_str()).any(|(i, _)| {
                                    !text[i + n.len()..]
                                        .starts_with(|c: char| c.is_alphanumeric() || c == '_')
                                })
                            }))
                    {
                        uses.insert(other.clone());
                    }
                }
            }
            (name, uses)
        })
        .collect()
}

#[test]
fn the_local_hosts_modules_form_a_tree() {
    let graph = graph();
    assert!(
        graph.contains_key("console") && graph.contains_key("request"),
        "{graph:?}"
    );
    // The console and the commands use the shared modules, never the other way round.
    for shared in [
        "request", "inbox", "web", "client", "install", "schema", "output",
    ] {
        for command in ["dev", "call", "trigger", "check", "console"] {
            assert!(
                !graph[shared].contains(command),
                "`{shared}` is shared, but it uses `{command}`"
            );
        }
    }
    // No cycle, however long: a depth-first walk never comes back to a module on its path.
    fn walk<'a>(
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        at: &'a str,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(start) = path.iter().position(|m| *m == at) {
            panic!(
                "the modules import each other: {} -> {at}",
                path[start..].join(" -> ")
            );
        }
        if !done.insert(at) {
            return;
        }
        path.push(at);
        for next in &graph[at] {
            walk(graph, next, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for name in graph.keys() {
        walk(&graph, name, &mut Vec::new(), &mut done);
    }
}
