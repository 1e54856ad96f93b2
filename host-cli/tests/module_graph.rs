//! The crate's modules form a tree, in every folder and between the folders: a module that needs
//! something of a module that also needs it is the sign that the shared part wants a module of its
//! own, below both.
//!
//! The rules, read from the source text of `src/`:
//!
//! 1. **No circle in any folder.** The modules a folder declares (`src/`, `src/local/`,
//!    `src/local/console/`, `src/manifest/`, and any folder added later) never name each other in
//!    a circle, however long. A folder's own file (`main.rs`, `mod.rs`) is the folder itself: its
//!    children may use what it declares (`super::Fail`), and it uses them.
//! 2. **`main.rs` is the top.** It parses the command line and dispatches; no module names an item
//!    it defines (`crate::load`), only the modules it declares.
//! 3. **The local host depends only downward.** A file of `src/local/` names, outside
//!    `crate::local`, only the shared modules listed in [`SHARED`]; and a shared module names
//!    nothing of the crate but shared modules, so it sits below every command and cannot lead back
//!    to one.
//! 4. **Inside the local host, shared parts stay shared.** `request`, `inbox`, `web`, ... name no
//!    command (`dev`, `call`, ...) and not the console.
//!
//! A path counts wherever it is written (a `use`, an expression, a doc link): `crate::a::b`,
//! `super::super::a`, and each item of `use super::{a, b::{c, d}}`. A file's inline module (its
//! `mod tests { ... }`, last in the file, as everywhere in this crate) is one level deeper, as the
//! compiler reads it, so a test's `super::` is the file's module.

#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules below every command: the local host may name these outside `crate::local`.
const SHARED: [&str; 3] = ["manifest", "output", "outbox_store"];

/// Inside `local`: the parts the commands and the console share, and the commands.
const LOCAL_SHARED: [&str; 6] = ["request", "inbox", "web", "client", "install", "schema"];
const LOCAL_COMMANDS: [&str; 5] = ["dev", "call", "trigger", "check", "console"];

/// A module path inside the crate: `["local", "console", "actions"]`; the crate root is empty.
type ModPath = Vec<String>;

/// One source file: the module its code is in, the file's text, and where its inline module
/// starts (the code after it is one module deeper).
struct Source {
    /// `src/`-relative, for messages.
    file: String,
    module: ModPath,
    text: String,
}

/// Every `.rs` file under `src/`, with its module: `main.rs` is the root, `a/mod.rs` is `a`,
/// `a/b.rs` is `a::b`.
fn sources(src: &Path) -> Vec<Source> {
    fn walk(dir: &Path, src: &Path, out: &mut Vec<Source>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, src, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap();
            let mut module: ModPath = relative
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "main" | "lib")
            ) {
                module.pop();
            }
            out.push(Source {
                file: relative.display().to_string(),
                module,
                text: std::fs::read_to_string(&path).unwrap(),
            });
        }
    }
    let mut out = Vec::new();
    walk(src, src, &mut out);
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Reads the path at `text[at..]` (its segments so far in `prefix`), pushing each full path it
/// spells to `out` (a `{...}` group spells several); gives where it ends.
fn read_path(
    text: &str,
    mut at: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let b = text.as_bytes();
    let skip_space = |mut at: usize| {
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        at
    };
    loop {
        at = skip_space(at);
        if at < b.len() && b[at] == b'{' {
            at += 1;
            loop {
                at = skip_space(at);
                if at >= b.len() || b[at] == b'}' {
                    return at + 1;
                }
                at = read_path(text, at, prefix.clone(), out);
                // `Kind as CallKind`, then the comma.
                while at < b.len() && b[at] != b',' && b[at] != b'}' {
                    at += 1;
                }
                if at < b.len() && b[at] == b',' {
                    at += 1;
                }
            }
        }
        let start = at;
        while at < b.len() && is_ident(b[at]) {
            at += 1;
        }
        if start < at {
            prefix.push(text[start..at].to_owned());
        }
        if start < at && text[at..].starts_with("::") {
            at += 2;
            continue;
        }
        // The end of the path, or a glob (`super::*`), which names the module itself.
        out.push(prefix);
        return at;
    }
}

/// Every path `text` writes from `crate` or `super`, as written.
fn written_paths(text: &str) -> Vec<Vec<String>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        for (at, _) in text.match_indices(start) {
            // The start of a path, not `a::super::` or `$crate::` or `pub(in crate::x)`'s middle.
            let before = at.checked_sub(1).map(|i| b[i]);
            if before.is_some_and(|c| is_ident(c) || c == b':' || c == b'$') {
                continue;
            }
            read_path(text, at, Vec::new(), &mut out);
        }
    }
    out
}

/// `path` as written in module `scope`, made absolute; `None` when it climbs above the crate.
fn resolve(scope: &[String], path: &[String]) -> Option<ModPath> {
    let (base, rest) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("super") => {
            let up = path.iter().take_while(|s| *s == "super").count();
            (scope[..scope.len().checked_sub(up)?].to_vec(), &path[up..])
        }
        _ => return None,
    };
    Some(
        base.into_iter()
            .chain(rest.iter().filter(|s| *s != "self").cloned())
            .collect(),
    )
}

/// Every path a source names, made absolute, each with the module it is written in.
fn named(source: &Source) -> Vec<ModPath> {
    // The code after the first inline `mod NAME {` line is in that module.
    let mut split = source.text.len();
    let mut inner = None;
    let mut offset = 0;
    for line in source.text.split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(i) = words.iter().position(|w| *w == "mod")
            && words.get(i + 2) == Some(&"{")
            && words[..i].iter().all(|w| w.starts_with("pub"))
        {
            split = offset;
            inner = Some(words[i + 1].to_owned());
            break;
        }
        offset += line.len();
    }
    let mut deeper = source.module.clone();
    deeper.extend(inner);
    let mut out = Vec::new();
    for (text, scope) in [
        (&source.text[..split], &source.module),
        (&source.text[split..], &deeper),
    ] {
        out.extend(
            written_paths(text)
                .iter()
                .filter_map(|p| resolve(scope, p))
                .filter(|p| !p.is_empty()),
        );
    }
    out
}

/// For each folder module, the graph of the modules it declares: which of its children each one
/// names.
fn folder_graphs(sources: &[Source]) -> BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> {
    let modules: BTreeSet<&ModPath> = sources.iter().map(|s| &s.module).collect();
    let mut graphs: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for module in &modules {
        if let Some((child, folder)) = module.split_last() {
            graphs
                .entry(folder.to_vec())
                .or_default()
                .entry(child.clone())
                .or_default();
        }
    }
    for source in sources {
        for path in named(source) {
            for (folder, graph) in graphs.iter_mut() {
                let (Some(from), Some(to)) =
                    (child_of(folder, &source.module), child_of(folder, &path))
                else {
                    continue;
                };
                if from != to && graph.contains_key(&to) {
                    graph.entry(from).or_default().insert(to);
                }
            }
        }
    }
    graphs
}

/// The child of `folder` that `path` lies in, if it lies in one.
fn child_of(folder: &[String], path: &[String]) -> Option<String> {
    (path.len() > folder.len() && path.starts_with(folder)).then(|| path[folder.len()].clone())
}

/// A circle in `graph`, as the modules on it, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk<'a>(
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        at: &'a str,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| *m == at) {
            let mut found: Vec<String> = path[start..].iter().map(|m| (*m).to_owned()).collect();
            found.push(at.to_owned());
            return Some(found);
        }
        if !done.insert(at) {
            return None;
        }
        path.push(at);
        for next in &graph[at] {
            if let Some(found) = walk(graph, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|name| walk(graph, name, &mut Vec::new(), &mut done))
}

/// Every break of the rules in the module doc, in words.
fn violations(sources: &[Source]) -> Vec<String> {
    let mut found = Vec::new();
    let graphs = folder_graphs(sources);
    let top: BTreeSet<&String> = graphs
        .get(&Vec::new())
        .into_iter()
        .flat_map(|g| g.keys())
        .collect();
    // 1. No circle in any folder.
    for (folder, graph) in &graphs {
        if let Some(circle) = circle(graph) {
            found.push(format!(
                "the modules of `src/{}` import each other: {}",
                folder.join("/"),
                circle.join(" -> ")
            ));
        }
    }
    for source in sources {
        let in_local = source.module.first().is_some_and(|m| m == "local");
        let in_shared = source
            .module
            .first()
            .is_some_and(|m| SHARED.contains(&m.as_str()));
        for path in named(source) {
            let first = &path[0];
            let shown = format!("crate::{}", path.join("::"));
            // 2. Nothing names what main.rs defines (main.rs itself aside).
            if !top.contains(first) && !source.module.is_empty() {
                found.push(format!(
                    "{} names `{shown}`, an item of main.rs: move it to a module below both",
                    source.file
                ));
            } else if in_local && first != "local" && !SHARED.contains(&first.as_str()) {
                // 3. The local host names only itself and the shared modules.
                found.push(format!(
                    "{} names `{shown}`, outside the local host and not a shared module ({})",
                    source.file,
                    SHARED.join(", ")
                ));
            } else if in_shared && !SHARED.contains(&first.as_str()) {
                found.push(format!(
                    "{} is shared, so it sits below every command, but it names `{shown}`",
                    source.file
                ));
            }
        }
    }
    // 4. Inside the local host, the shared parts use no command and not the console.
    if let Some(local) = graphs.get(&vec!["local".to_owned()]) {
        for shared in LOCAL_SHARED.iter().filter(|s| local.contains_key(**s)) {
            for command in LOCAL_COMMANDS {
                if local[*shared].contains(command) {
                    found.push(format!(
                        "`local::{shared}` is shared, but it uses `{command}`"
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn the_crates_modules_form_a_tree() {
    let sources = sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let found = violations(&sources);
    assert!(found.is_empty(), "{}", found.join("\n"));
    let graphs = folder_graphs(&sources);
    // The walk sees every folder, the console's own included, and the edges in it.
    for folder in [&[][..], &["local"], &["local", "console"], &["manifest"]] {
        let folder: ModPath = folder.iter().map(|s| (*s).to_owned()).collect();
        assert!(graphs.contains_key(&folder), "{folder:?}: {graphs:?}");
    }
    let console = &graphs[&vec!["local".to_owned(), "console".to_owned()]];
    assert!(console["actions"].contains("timeline"), "{console:?}");
    assert!(console["timeline"].contains("forms"), "{console:?}");
    assert!(graphs[&vec!["local".to_owned()]]["dev"].contains("console"));
}

/// The rules catch what they forbid, on a small crate written here: a circle two folders down,
/// the local host naming main.rs's item and a command, and a shared module naming the local host.
#[test]
fn a_circle_or_an_upward_name_is_caught() {
    let source = |file: &str, module: &[&str], text: &str| Source {
        file: file.to_owned(),
        module: module.iter().map(|s| (*s).to_owned()).collect(),
        text: text.to_owned(),
    };
    let clean = || {
        vec![
            source("main.rs", &[], "mod local; mod output; mod outbox;"),
            source("outbox.rs", &["outbox"], "use crate::output::Term;"),
            source("output.rs", &["output"], "pub(crate) struct Term;"),
            source("local/mod.rs", &["local"], "pub(crate) mod console;"),
            source(
                "local/console/mod.rs",
                &["local", "console"],
                "mod actions; mod forms; mod timeline;",
            ),
            source(
                "local/console/actions.rs",
                &["local", "console", "actions"],
                "use super::super::super::output::Term;\nuse super::{forms::Replay, timeline};\n\
                 #[cfg(test)]\nmod tests {\n    use super::super::timeline::Reaction;\n}\n",
            ),
            source(
                "local/console/timeline.rs",
                &["local", "console", "timeline"],
                "use super::forms::Replay;",
            ),
            source("local/console/forms.rs", &["local", "console", "forms"], ""),
        ]
    };
    assert_eq!(violations(&clean()), Vec::<String>::new());

    let mut circle = clean();
    circle[6]
        .text
        .push_str("\nfn f() { super::actions::call(); }");
    assert_eq!(
        violations(&circle),
        ["the modules of `src/local/console` import each other: actions -> timeline -> actions"]
    );

    let mut upward = clean();
    upward[6]
        .text
        .push_str("\nuse crate::{Format, outbox::open};");
    upward[2]
        .text
        .push_str("\nuse crate::local::console::timeline::Entry;");
    let found = violations(&upward);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(
        found[0].contains("src/` import each other: local -> outbox -> output -> local"),
        "{found:#?}"
    );
    assert!(
        found[1].contains("`crate::local::console::timeline::Entry`"),
        "{found:#?}"
    );
    assert!(
        found[2].contains("`crate::Format`, an item of main.rs"),
        "{found:#?}"
    );
    assert!(
        found[3].contains("`crate::outbox::open`, outside the local host"),
        "{found:#?}"
    );
}
