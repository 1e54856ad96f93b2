//! Golden expansions: fixture manifests -> formatted generated code, compared with the committed files
//! in `tests/golden/`. Bless new output with `BLESS=1 cargo test -p host-sdk-tests --test golden`.

use std::path::{Path, PathBuf};

/// Fixtures whose expansion is committed: a spread of features, one invalid manifest that still
/// generates (cross-field error only) and one that gets stubs (structural error).
const CASES: [(&str, &str); 8] = [
    (
        "minimal",
        "host-manifest/tests/fixtures/valid/minimal/host.extension.json",
    ),
    (
        "keyword-tracker",
        "host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json",
    ),
    (
        "crash-oauth",
        "host-manifest/tests/fixtures/valid/crash-oauth/host.extension.json",
    ),
    (
        "work-tracker",
        "host-manifest/tests/fixtures/valid/work-tracker/host.extension.json",
    ),
    (
        "org-install",
        "host-manifest/tests/fixtures/valid/org-install/host.extension.json",
    ),
    (
        "procedures-only",
        "host-manifest/tests/fixtures/valid/procedures-only/host.extension.json",
    ),
    (
        "invalid-widget-slot",
        "host-manifest/tests/fixtures/invalid/widget-slot.json",
    ),
    (
        "invalid-structure",
        "host-manifest/tests/fixtures/invalid/schema-type-scopes.json",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn expansions_match_the_committed_files() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut stale = Vec::new();
    for (name, manifest) in CASES {
        let path = root().join(manifest);
        let dir = path
            .parent()
            .expect("a folder")
            .canonicalize()
            .expect("exists");
        let file = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        let expanded = host_codegen::Settings::new()
            .expand(&file, Some(&dir))
            .pretty();
        let golden = root().join("tests/golden").join(format!("{name}.rs"));
        if bless {
            std::fs::create_dir_all(golden.parent().expect("folder")).expect("mkdir");
            std::fs::write(&golden, &expanded).expect("write");
            continue;
        }
        let committed = std::fs::read_to_string(&golden).unwrap_or_default();
        if committed != expanded {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "expansions changed for {stale:?}; review with `cargo host expand` and bless with BLESS=1"
    );
}

#[test]
fn expansion_is_deterministic() {
    let path = root().join(CASES[1].1);
    let dir = path
        .parent()
        .expect("a folder")
        .canonicalize()
        .expect("exists");
    let a = host_codegen::Settings::new()
        .expand("host.extension.json", Some(&dir))
        .pretty();
    let b = host_codegen::Settings::new()
        .expand("host.extension.json", Some(&dir))
        .pretty();
    assert_eq!(a, b);
    assert!(
        !a.contains(&dir.display().to_string()),
        "no absolute path of this machine in the expansion"
    );
}
