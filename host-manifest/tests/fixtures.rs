//! The fixture corpus: every valid manifest validates with exactly its expected warnings, and every
//! invalid manifest breaks exactly the one rule, at the one pointer, that `invalid/EXPECTED.tsv` names.
//!
//! The corpus is written by `tests/fixtures/generate.py`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use host_manifest::{Rule, Severity, validate_file};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn expected_invalid() -> Vec<(String, String, String)> {
    let table = fs::read_to_string(fixtures().join("invalid/EXPECTED.tsv")).expect("EXPECTED.tsv");
    table
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.split('\t');
            let file = cols.next().unwrap_or_default().to_owned();
            let rule = cols.next().unwrap_or_default().to_owned();
            let pointer = cols.next().unwrap_or_default().to_owned();
            (file, rule, pointer)
        })
        .collect()
}

#[test]
fn valid_fixtures_validate_with_their_expected_warnings() {
    let mut count = 0;
    for dir in fs::read_dir(fixtures().join("valid")).expect("valid/") {
        let dir = dir.expect("entry").path();
        let report = validate_file(&dir.join("host.extension.json")).expect("readable");
        let errors: Vec<String> = report
            .errors()
            .map(|d| d.display_with_file("host.extension.json").to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{} should be valid:\n{}",
            dir.display(),
            errors.join("\n")
        );
        assert!(report.manifest().is_some());
        let expected: BTreeSet<String> = fs::read_to_string(dir.join("expected-warnings.txt"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        let got: BTreeSet<String> = report
            .warnings()
            .map(|d| format!("{} {}", d.rule, d.pointer))
            .collect();
        assert_eq!(got, expected, "warnings of {}", dir.display());
        count += 1;
    }
    assert!(count >= 10, "only {count} valid fixtures");
}

#[test]
fn each_invalid_fixture_breaks_exactly_its_rule() {
    let expected = expected_invalid();
    assert!(
        expected.len() >= 40,
        "only {} invalid fixtures",
        expected.len()
    );
    let mut failures = Vec::new();
    for (file, rule, pointer) in &expected {
        let report = validate_file(&fixtures().join("invalid").join(file)).expect("readable");
        let errors: Vec<_> = report.errors().collect();
        let got: Vec<(String, String)> = errors
            .iter()
            .map(|d| (d.rule.name().to_owned(), d.pointer.clone()))
            .collect();
        if got != [(rule.clone(), pointer.clone())] {
            let shown: Vec<String> = errors
                .iter()
                .map(|d| d.display_with_file(file).to_string())
                .collect();
            failures.push(format!(
                "{file}: expected {rule} at {pointer:?}, got:\n  {}",
                shown.join("\n  ")
            ));
        }
        assert!(!report.is_valid());
        for d in &errors {
            assert!(d.line >= 1 && d.column >= 1, "{file}: unlocated diagnostic");
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} invalid fixtures misreport:\n{}",
        failures.len(),
        expected.len(),
        failures.join("\n")
    );
}

#[test]
fn every_invalid_file_is_listed() {
    let listed: BTreeSet<String> = expected_invalid().into_iter().map(|(f, _, _)| f).collect();
    for entry in fs::read_dir(fixtures().join("invalid")).expect("invalid/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".json") {
            assert!(listed.contains(&name), "{name} is not in EXPECTED.tsv");
        }
    }
}

/// Every rule that a manifest can break has at least one invalid fixture, so removing a rule fails this
/// suite.
#[test]
fn the_corpus_covers_every_error_rule() {
    let covered: BTreeSet<String> = expected_invalid().into_iter().map(|(_, r, _)| r).collect();
    let uncoverable = [
        Rule::ManifestSize,
        Rule::SchemaFormat,
        Rule::SchemaOther,
        Rule::Internal,
    ];
    let warnings = [
        Rule::UnusedScope,
        Rule::EventScopeMissing,
        Rule::ReservedEvent,
        Rule::ScopeJustification,
    ];
    for rule in Rule::ALL {
        if uncoverable.contains(rule) || warnings.contains(rule) {
            continue;
        }
        assert!(
            covered.contains(rule.name()),
            "no invalid fixture for {rule}"
        );
    }
}

#[test]
fn the_warning_fixture_covers_every_warning_rule() {
    let dir = fixtures().join("valid/with-warnings");
    let report = validate_file(&dir.join("host.extension.json")).expect("readable");
    let got: BTreeSet<&str> = report.warnings().map(|d| d.rule.name()).collect();
    for rule in [
        "unused-scope",
        "event-scope-missing",
        "reserved-event",
        "scope-justification",
    ] {
        assert!(got.contains(rule), "with-warnings lacks {rule}");
    }
    assert!(
        report
            .diagnostics()
            .iter()
            .all(|d| d.severity == Severity::Warning)
    );
}

/// An editor that knows only the published schema (through `$schema`) agrees with the engine on
/// structure: it accepts every valid fixture and rejects every fixture whose error is structural.
#[test]
fn the_published_schema_alone_gives_the_same_structural_verdicts() {
    let schema: serde_json::Value =
        serde_json::from_str(host_manifest::SCHEMA_JSON).expect("schema");
    let editor = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles");
    for dir in fs::read_dir(fixtures().join("valid")).expect("valid/") {
        let file = dir.expect("entry").path().join("host.extension.json");
        let doc: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&file).expect("read")).expect("json");
        assert!(
            editor.is_valid(&doc),
            "the editor rejects {}",
            file.display()
        );
    }
    let structural = ["reserved-field", "unknown-event"];
    for (file, rule, _) in expected_invalid() {
        if !(rule.starts_with("schema.") || structural.contains(&rule.as_str())) {
            continue;
        }
        let text = fs::read_to_string(fixtures().join("invalid").join(&file)).expect("read");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert!(
            !editor.is_valid(&doc),
            "the editor accepts {file}, which breaks {rule}"
        );
    }
}

/// The typed model holds everything: serialising it gives back a manifest that validates to the same
/// model.
#[test]
fn the_typed_model_round_trips() {
    for dir in fs::read_dir(fixtures().join("valid")).expect("valid/") {
        let dir = dir.expect("entry").path();
        let report = validate_file(&dir.join("host.extension.json")).expect("readable");
        let model = report.manifest().expect("valid").clone();
        let text = serde_json::to_string_pretty(&model).expect("serialise");
        let again = host_manifest::validate_str(&text, Some(&dir));
        assert_eq!(again.manifest(), Some(&model), "{}", dir.display());
        // Nothing is dropped: the model's JSON equals the file's JSON.
        let original: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(dir.join("host.extension.json")).expect("read"),
        )
        .expect("json");
        let back: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            strip_empty(original),
            strip_empty(back),
            "{}",
            dir.display()
        );
    }
}

/// Removes empty arrays and objects outside embedded schemas, which the model writes only when
/// non-empty.
fn strip_empty(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !matches!(v, Value::Array(a) if a.is_empty()))
                .map(|(k, v)| {
                    if k == "input" || k == "output" || k == "payload" || k == "schema" {
                        (k, v)
                    } else {
                        (k, strip_empty(v))
                    }
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_empty).collect()),
        other => other,
    }
}
