//! `cargo host validate` and `cargo host schema`: exit codes, both output formats, help and errors.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-manifest/tests/fixtures")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn path(p: PathBuf) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn a_valid_manifest_exits_0() {
    let o = run(&[
        "validate",
        &path(fixtures().join("valid/minimal/host.extension.json")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).trim_end().ends_with("is valid"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn warnings_are_shown_and_still_exit_0() {
    let o = run(&[
        "validate",
        "--color",
        "never",
        &path(fixtures().join("valid/with-warnings/host.extension.json")),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("warning[unused-scope]"), "{out}");
    assert!(out.contains("is valid, with"), "{out}");
}

#[test]
fn an_invalid_manifest_exits_1_with_a_caret_under_the_value() {
    let file = path(fixtures().join("invalid/widget-slot.json"));
    let o = run(&["validate", "--color", "never", &file]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("error[widget-slot]: slot `kpi-row` is not on page `ai_chat`"),
        "{out}"
    );
    assert!(out.contains(&format!("--> {file}:79:17")), "{out}");
    assert!(out.contains(r#"79 |         "slot": "kpi-row","#), "{out}");
    assert!(
        out.contains("^^^^^^^^^ /contributes/widgets/1/slot"),
        "{out}"
    );
    assert!(out.contains("is invalid: 1 error, 0 warnings"), "{out}");
    assert!(!out.contains('\u{1b}'), "no color when asked for none");
}

#[test]
fn json_format_prints_one_object_per_diagnostic() {
    let o = run(&[
        "validate",
        "--format",
        "json",
        &path(fixtures().join("invalid/widget-slot.json")),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert_eq!(
        lines[0],
        r#"{"severity":"error","rule":"widget-slot","pointer":"/contributes/widgets/1/slot","line":79,"column":17,"message":"slot `kpi-row` is not on page `ai_chat`; that page has only `sidebar`"}"#
    );
}

#[test]
fn json_format_lists_warnings_of_a_valid_manifest() {
    let o = run(&[
        "validate",
        "--format",
        "json",
        &path(fixtures().join("valid/with-warnings/host.extension.json")),
    ]);
    assert_eq!(o.status.code(), Some(0));
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON object per line");
        assert_eq!(v["severity"], "warning");
        let keys: Vec<&str> = v
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(keys.len(), 6, "{line}");
    }
}

#[test]
fn malformed_json_exits_1() {
    let o = run(&[
        "validate",
        "--format",
        "json",
        &path(fixtures().join("invalid/json-syntax-trailing-comma.json")),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains(r#""rule":"json-syntax""#),
        "{}",
        stdout(&o)
    );
}

#[test]
fn an_unreadable_path_exits_2_with_one_line() {
    let o = run(&["validate", "no/such/host.extension.json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: cannot read `no/such/host.extension.json`: no such file"),
        "{err}"
    );
}

#[test]
fn a_folder_means_the_manifest_inside_it() {
    let o = run(&["validate", &path(fixtures().join("valid/minimal"))]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn wrong_arguments_exit_2_with_one_line() {
    for args in [
        &["validate", "--format", "yaml", "x.json"][..],
        &["frobnicate"],
        &["validate", "a", "b"],
        &[],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error:"), "{err}");
    }
}

#[test]
fn help_works_on_every_command() {
    for args in [
        &["--help"][..],
        &["validate", "--help"],
        &["schema", "--help"],
        &["diff", "--help"],
        &["call", "--help"],
        &["check", "--help"],
        &["help", "validate"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(
            stdout(&o).contains("Usage: cargo host"),
            "{args:?}: {}",
            stdout(&o)
        );
    }
}

#[test]
fn run_by_cargo_the_host_argument_is_skipped() {
    let o = run(&[
        "host",
        "validate",
        &path(fixtures().join("valid/minimal/host.extension.json")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn schema_prints_the_published_schema() {
    let o = run(&["schema"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["$id"], "https://host.example/schemas/extension/v2.json");
    assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
}

#[test]
fn postgres_schema_prints_every_migration_recorded() {
    let o = run(&["postgres-schema"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), host_runtime::postgres::schema());
    assert!(stdout(&o).contains("CREATE TABLE host_outbox"));
    assert!(stdout(&o).contains("INSERT INTO host_migrations"));
}

#[test]
fn color_is_used_when_asked() {
    let o = run(&[
        "validate",
        "--color",
        "always",
        &path(fixtures().join("invalid/widget-slot.json")),
    ]);
    assert!(stdout(&o).contains('\u{1b}'));
}

#[test]
fn expand_prints_the_generated_code() {
    let o = run(&[
        "expand",
        &path(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/keyword-tracker")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("pub trait Tools: ::core::marker::Send"),
        "formatted trait expected"
    );
    assert!(out.contains("Called by the host as `POST /host/tools/keyword-ranks`"));
    assert!(out.contains("pub fn handler<"));
    assert!(
        out.contains("$CARGO_MANIFEST_DIR/host.extension.json"),
        "no absolute paths"
    );
}

#[test]
fn expand_of_an_invalid_manifest_shows_the_errors_and_exits_1() {
    let o = run(&["expand", &path(fixtures().join("invalid/widget-slot.json"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("::core::compile_error!"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("widget-slot.json:79:17: /contributes/widgets/1/slot"));
}
