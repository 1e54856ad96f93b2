//! The schema corpora the generator's tests run on, shared by `json_schema_suite.rs` and
//! `closed_structs.rs` so that both mean the same by "every corpus": the JSON Schema Test Suite's
//! draft 2020-12 groups, where it is (beside the repository, or where `JSON_SCHEMA_TEST_SUITE`
//! points), and the corpora in `tests/schemas`. `SCHEMA_CORPUS` names one corpus to run alone.

// Each test binary reads the parts of a group it needs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the repository root")
}

/// The corpora in the repository: (name, which is also their folder under `tests/schemas`, what the
/// report calls them).
pub(crate) const CORPORA: [(&str, &str); 2] = [
    (
        "real-world",
        "Published real-world schemas (tests/schemas/real-world)",
    ),
    (
        "webhooks",
        "Published webhook payload schemas (tests/schemas/webhooks)",
    ),
];

/// Whether the corpus `name` runs (`SCHEMA_CORPUS` names one, or all run).
fn wanted(name: &str) -> bool {
    std::env::var("SCHEMA_CORPUS").map_or(true, |c| c.is_empty() || c == name)
}

/// The suite's draft 2020-12 folder, where the suite is.
pub(crate) fn suite_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("JSON_SCHEMA_TEST_SUITE") {
        Some(dir) => PathBuf::from(dir),
        None => root().join("../shared/corpora/json-schema-test-suite"),
    };
    let tests = dir.join("tests/draft2020-12");
    tests.is_dir().then_some(tests)
}

/// One test group of the suite.
pub(crate) struct Group {
    /// `suite`, or the name of one of [`CORPORA`].
    pub(crate) corpus: &'static str,
    pub(crate) file: String,
    pub(crate) index: usize,
    pub(crate) description: String,
    pub(crate) schema: Value,
    pub(crate) tests: Vec<(String, Value, bool)>,
}

fn read_groups(dir: &Path, corpus: &'static str) -> Vec<Group> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the suite folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut groups = Vec::new();
    for file in files {
        let stem = file
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&file).expect("a suite file");
        let parsed: Vec<Value> = serde_json::from_str(&text).expect("the suite's JSON");
        for (index, group) in parsed.into_iter().enumerate() {
            let tests = group["tests"]
                .as_array()
                .expect("tests")
                .iter()
                .map(|t| {
                    (
                        t["description"].as_str().unwrap_or_default().to_owned(),
                        t["data"].clone(),
                        t["valid"].as_bool().expect("valid"),
                    )
                })
                .collect();
            groups.push(Group {
                corpus,
                file: stem.clone(),
                index,
                description: group["description"].as_str().unwrap_or_default().to_owned(),
                schema: group["schema"].clone(),
                tests,
            });
        }
    }
    groups
}

/// Every group of every corpus [`wanted`], the suite's first.
pub(crate) fn groups() -> Vec<Group> {
    let mut groups = Vec::new();
    match suite_dir() {
        Some(dir) if wanted("suite") => groups.extend(read_groups(&dir, "suite")),
        Some(_) => {}
        None => println!(
            "the JSON Schema Test Suite is not at ../shared/corpora/json-schema-test-suite \
             (set JSON_SCHEMA_TEST_SUITE to its folder to run it too): the corpora in the \
             repository only"
        ),
    }
    for (name, _) in CORPORA {
        if wanted(name) {
            groups.extend(read_groups(&root().join("tests/schemas").join(name), name));
        }
    }
    groups
}
