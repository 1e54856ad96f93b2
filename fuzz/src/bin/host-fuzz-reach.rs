//! Reads a coverage report (`llvm-cov export -format=lcov`) of a replay and prints the SDK's own
//! functions that ran: those whose source file is inside the repository but not under `fuzz/` or a
//! `target/` folder, with an execution count above zero. One name a line, sorted, each once.
//!
//! ```text
//! host-fuzz-reach <report.lcov> <repository root>
//! ```
//!
//! Names are demangled without hashes or crate disambiguators, and without generic arguments
//! (`host_runtime::Handler::handle::<B>` and its other instantiations are one name), so that a
//! list stays the same from build to build and names functions, not instantiations. Closures and
//! async bodies keep their place in their function (`...::verify::{closure#0}`). The count of
//! functions reached and of the SDK's functions in the report goes to standard error.
//! `scripts/fuzz_reach.sh` runs it for each target.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead as _;
use std::path::{Component, Path, PathBuf};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [report, root] = args.as_slice() else {
        eprintln!("usage: host-fuzz-reach <report.lcov> <repository root>");
        std::process::exit(2);
    };
    let root = normal(Path::new(root));
    let file = std::fs::File::open(report).unwrap_or_else(|e| {
        eprintln!("host-fuzz-reach: {report}: {e}");
        std::process::exit(2);
    });
    // Each function's largest count over its instantiations and the files that define it.
    let mut functions: BTreeMap<String, u64> = BTreeMap::new();
    let mut ours = false;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.unwrap_or_else(|e| {
            eprintln!("host-fuzz-reach: {report}: {e}");
            std::process::exit(2);
        });
        if let Some(path) = line.strip_prefix("SF:") {
            ours = is_ours(&normal(Path::new(path)), &root);
        } else if let Some(record) = line.strip_prefix("FNDA:")
            && ours
            && let Some((count, symbol)) = record.split_once(',')
        {
            let count: u64 = count.parse().unwrap_or(0);
            let entry = functions.entry(name(symbol)).or_default();
            *entry = (*entry).max(count);
        }
    }
    let reached: BTreeSet<&String> = functions
        .iter()
        .filter(|(_, count)| **count > 0)
        .map(|(name, _)| name)
        .collect();
    for name in &reached {
        println!("{name}");
    }
    eprintln!(
        "host-fuzz-reach: {} of the {} SDK functions in the report ran",
        reached.len(),
        functions.len()
    );
}

/// `path` without `.` and `..` components (the report's paths may hold them; no link is followed).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether `path` is a source file of the SDK: inside `root`, not under `fuzz/` nor a `target/`.
fn is_ours(path: &Path, root: &Path) -> bool {
    let Ok(inside) = path.strip_prefix(root) else {
        return false;
    };
    let first = inside.components().next();
    first.is_some_and(|c| c.as_os_str() != "fuzz")
        && !inside.components().any(|c| c.as_os_str() == "target")
}

/// The stable name of a mangled symbol: demangled without hash, then without generic arguments.
/// A report may prefix a file-local function's symbol with its file and a `;` or `:`.
fn name(symbol: &str) -> String {
    // Mangled names hold neither character, in either scheme.
    let symbol = symbol.rsplit([';', ':']).next().unwrap_or(symbol);
    let demangled = format!("{:#}", rustc_demangle::demangle(symbol));
    without_generics(&demangled)
}

/// `name` without generic argument lists: `a::f::<T>` becomes `a::f`, `<a::S<T> as b::Tr<U>>::m`
/// becomes `<a::S as b::Tr>::m`. A `<` that opens a qualified path (at the start, or after
/// another `<`) is kept with its `>`. An arrow's `>` (`fn() -> T`) closes nothing.
fn without_generics(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        if c == '<' && prev.is_some_and(|p| p.is_alphanumeric() || p == '_' || p == ':' || p == '>')
        {
            // Generic arguments: skip to the matching `>`, with a turbofish's `::` before them.
            if out.ends_with("::") {
                out.truncate(out.len() - 2);
            }
            let mut depth = 1;
            let mut before = c;
            for inner in chars.by_ref() {
                match inner {
                    '<' => depth += 1,
                    '>' if before != '-' => depth -= 1,
                    _ => {}
                }
                before = inner;
                if depth == 0 {
                    break;
                }
            }
            prev = Some('>');
            continue;
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_arguments_go_and_qualified_paths_stay() {
        let cases = [
            ("a::f::<T>", "a::f"),
            (
                "a::f::<alloc::vec::Vec<u8>>::{closure#0}",
                "a::f::{closure#0}",
            ),
            ("<a::S<T> as b::Tr<U>>::m", "<a::S as b::Tr>::m"),
            ("<a::S>::new", "<a::S>::new"),
            (
                "<<a::S as b::Tr>::X as c::D>::e",
                "<<a::S as b::Tr>::X as c::D>::e",
            ),
            ("a::f::<fn() -> u8>", "a::f"),
            ("<&str as a::Tr>::m", "<&str as a::Tr>::m"),
        ];
        for (from, to) in cases {
            assert_eq!(without_generics(from), to, "{from}");
        }
    }

    #[test]
    fn paths_of_the_sdk_only() {
        let root = Path::new("/r");
        assert!(is_ours(Path::new("/r/host-runtime/src/lib.rs"), root));
        assert!(!is_ours(Path::new("/r/fuzz/src/lib.rs"), root));
        assert!(!is_ours(
            Path::new("/r/target/debug/build/x/out/a.rs"),
            root
        ));
        assert!(!is_ours(Path::new("/home/u/.cargo/registry/a.rs"), root));
        assert_eq!(
            normal(Path::new("/r/fuzz/../host-runtime/./src/lib.rs")),
            Path::new("/r/host-runtime/src/lib.rs")
        );
    }
}
