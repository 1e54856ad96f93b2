//! `cargo host diff` as a process: exit codes, both formats, and OLD read from a git revision.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn case(name: &str) -> (String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../host-manifest/tests/fixtures/diff")
        .join(name);
    let p = |f: &str| dir.join(f).to_string_lossy().into_owned();
    (p("old.json"), p("new.json"))
}

fn run(dir: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-host"));
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command
        .arg("diff")
        .args(args)
        .args(["--color", "never"])
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn breaking_changes_exit_1_and_the_rest_exit_0() {
    let (old, new) = case("breaking-input-new-required");
    let o = run(None, &[&old, &new]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("breaking  /contributes/ai/tools/0/input/required"),
        "{out}"
    );
    assert!(out.contains("`days` becomes required"), "{out}");
    assert!(
        out.trim_end()
            .ends_with("1 change: 1 breaking, 0 risky, 0 safe"),
        "{out}"
    );

    let (old, new) = case("risky-scope-added");
    let o = run(None, &[&old, &new]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("new scope `projects:read`: owners must approve"));

    let (old, _) = case("safe-nothing-changed");
    let o = run(None, &[&old, &old]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).starts_with("no changes between"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn removals_point_into_the_old_manifest() {
    let (old, new) = case("breaking-tool-removed");
    let o = run(None, &[&old, &new]);
    assert!(
        stdout(&o).contains("breaking  old:/contributes/ai/tools/1  tool `top-movers` is removed"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn json_format_prints_one_object_per_change() {
    let (old, new) = case("safe-input-loosened");
    let o = run(None, &["--format", "json", &old, &new]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", stdout(&o));
    assert_eq!(lines[0]["class"], "safe");
    assert_eq!(lines[0]["in"], "new");
    assert_eq!(
        lines[0]["pointer"],
        "/contributes/ai/tools/0/input/properties/days/maximum"
    );
    assert!(
        lines[0]["message"]
            .as_str()
            .unwrap()
            .contains("from 90 to 365")
    );
}

#[test]
fn invalid_or_unreadable_manifests_exit_2() {
    let (old, _) = case("safe-nothing-changed");
    let bad = tempfile::tempdir().unwrap();
    let file = bad.path().join("host.extension.json");
    std::fs::write(&file, r#"{"id": "x"}"#).unwrap();
    let o = run(None, &[&old, &file.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is invalid, so it cannot be compared"),
        "{}",
        stderr(&o)
    );
    let o = run(None, &[&old, "/no/such/host.extension.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A git repository whose `ext/host.extension.json` is the fixture's old manifest at the first
/// commit, tagged `v1`, and its new one in the working tree.
fn repository(name: &str) -> (tempfile::TempDir, PathBuf) {
    let (old, new) = case(name);
    let repo = tempfile::tempdir().unwrap();
    let ext = repo.path().join("ext");
    std::fs::create_dir(&ext).unwrap();
    std::fs::copy(&old, ext.join("host.extension.json")).unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "v1"]);
    git(repo.path(), &["tag", "v1"]);
    std::fs::copy(&new, ext.join("host.extension.json")).unwrap();
    (repo, ext)
}

#[test]
fn old_can_be_a_git_revision() {
    let (_repo, ext) = repository("breaking-event-unsubscribed");
    // From the extension's folder: NEW defaults to ./host.extension.json, OLD is its copy at v1.
    let o = run(Some(&ext), &["v1"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o)
            .contains("old:/server/events/1  the server no longer subscribes to `install.created`"),
        "{}",
        stdout(&o)
    );
    // From the repository root, naming the path at the revision.
    let root = ext.parent().unwrap();
    let o = run(Some(root), &["HEAD:ext/host.extension.json", "ext"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    // An unknown revision.
    let o = run(Some(&ext), &["v9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`v9` is not a file, and git cannot read `v9:ext/host.extension.json`"),
        "{}",
        stderr(&o)
    );
}
