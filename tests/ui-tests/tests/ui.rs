//! trybuild UI tests: manifest mistakes become located compiler errors (committed `.stderr`), a missing
//! handler, a wrong answer kind or an undeclared webhook does not compile, and crates implementing the
//! generated traits do.
//!
//! trybuild compiles each case in a scratch crate, `<target dir>/tests/trybuild/host-sdk-ui-tests`, and the
//! macro reads manifest paths relative to that crate. The target folder can be anywhere
//! (`CARGO_TARGET_DIR`), so before the cases run a link named `repo` is made in the scratch crate,
//! pointing at the repository root: cases name their manifests `repo/host-manifest/tests/fixtures/...`,
//! which reads the same on every machine and for every target folder. Bless new output with
//! `TRYBUILD=overwrite cargo test -p host-sdk-ui-tests --test ui`.

#![allow(clippy::expect_used)] // Tests fail loudly on purpose.

use std::path::Path;

#[test]
fn ui() {
    link_repository();
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}

/// Makes `<target dir>/tests/trybuild/host-sdk-ui-tests/repo` point at the repository root.
fn link_repository() {
    // Cargo gives integration tests `<target dir>/tmp`, wherever the target folder is.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR has a parent: the target folder");
    let scratch = target.join("tests/trybuild/host-sdk-ui-tests");
    std::fs::create_dir_all(&scratch).expect("create trybuild's scratch crate folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists");
    let link = scratch.join("repo");
    if std::fs::read_link(&link).is_ok_and(|to| to == root) {
        return;
    }
    // A stale link (the repository moved) or an old folder in its place.
    let _ = std::fs::remove_file(&link);
    symlink(&root, &link).expect("link the repository root into trybuild's scratch crate");
}

#[cfg(unix)]
fn symlink(to: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(to, link)
}

#[cfg(windows)]
fn symlink(to: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(to, link)
}
