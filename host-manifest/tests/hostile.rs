//! No input, however broken, makes the engine panic or hang: binary data, deep nesting, huge strings,
//! wrong types everywhere, pathological embedded schemas.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use host_manifest::{
    MAX_MANIFEST_BYTES, Report, Rule, validate_bytes, validate_file, validate_str,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name)
        .join("host.extension.json")
}

fn fixture_value(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name)).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

/// Validates and checks the report is coherent: located, bounded messages, invalid iff errors.
fn check(text: &str, base: Option<&Path>) -> Report {
    let start = Instant::now();
    let report = validate_str(text, base);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "validation took {:?}",
        start.elapsed()
    );
    coherent(&report);
    report
}

fn coherent(report: &Report) {
    assert_eq!(report.is_valid(), report.errors().next().is_none());
    for d in report.diagnostics() {
        assert!(d.line >= 1 && d.column >= 1);
        assert!(
            d.message.len() < 4_000,
            "unbounded message for {}: {} bytes",
            d.rule,
            d.message.len()
        );
    }
}

fn only_rule(report: &Report) -> Rule {
    let rules: Vec<Rule> = report.errors().map(|d| d.rule).collect();
    assert_eq!(rules.len(), 1, "{rules:?}");
    rules[0]
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    for text in [
        "[".repeat(200_000),
        "{\"a\":".repeat(200_000),
        format!("{}1{}", "[".repeat(129), "]".repeat(129)),
    ] {
        let report = check(&text, None);
        assert_eq!(only_rule(&report), Rule::JsonSyntax);
        assert!(
            report
                .errors()
                .next()
                .is_some_and(|d| d.message.contains("nested")),
            "{:?}",
            report.diagnostics()
        );
    }
}

#[test]
fn nesting_just_under_the_cap_inside_a_schema_validates() {
    let mut doc = fixture_value("keyword-tracker");
    let mut deep = json!({ "type": "string" });
    for _ in 0..55 {
        deep = json!({ "type": "object", "properties": { "a": deep } });
    }
    doc["contributes"]["ai"]["tools"][0]["input"] = deep;
    let base = fixture("keyword-tracker");
    let report = check(&serde_json::to_string(&doc).expect("json"), base.parent());
    assert!(report.is_valid(), "{:?}", report.diagnostics());
}

#[test]
fn huge_strings_give_short_messages() {
    let mut doc = fixture_value("minimal");
    doc["name"] = json!("n".repeat(3_000_000));
    doc["category"] = json!("c".repeat(100_000));
    let report = check(&serde_json::to_string(&doc).expect("json"), None);
    let rules: Vec<Rule> = report.errors().map(|d| d.rule).collect();
    assert!(
        rules.contains(&Rule::SchemaLength) && rules.contains(&Rule::SchemaEnum),
        "{rules:?}"
    );
}

#[test]
fn oversized_files_are_refused_before_parsing() {
    let big = vec![b' '; MAX_MANIFEST_BYTES as usize + 10];
    let report = validate_bytes(&big, None);
    coherent(&report);
    assert_eq!(only_rule(&report), Rule::ManifestSize);
}

#[test]
fn binary_and_non_utf8_files_are_invalid_manifests() {
    let report = validate_bytes(b"{\n  \"id\": \"a\xff\xfe\"\n}", None);
    assert_eq!(only_rule(&report), Rule::ManifestSize);
    let d = report.errors().next().expect("error");
    assert_eq!((d.line, d.column), (2, 11));
    let png = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/invalid/assets/icon.png"),
    )
    .expect("png");
    coherent(&validate_bytes(&png, None));
    assert!(!validate_bytes(&png, None).is_valid());
}

#[test]
fn every_member_of_the_wrong_type_is_reported_not_panicked() {
    // Replace every value of a realistic manifest, one at a time, with each JSON type.
    let doc = fixture_value("keyword-tracker");
    let mut pointers = Vec::new();
    collect_pointers(&doc, String::new(), 0, &mut pointers);
    let wrong = [
        json!(null),
        json!(7),
        json!(-1.5),
        json!("x"),
        json!([]),
        json!({}),
        json!(true),
    ];
    let mut checked = 0;
    for (i, pointer) in pointers.iter().enumerate() {
        let replacement = &wrong[i % wrong.len()];
        let mut mutated = doc.clone();
        if let Some(slot) = mutated.pointer_mut(pointer) {
            *slot = replacement.clone();
        }
        check(
            &serde_json::to_string(&mutated).expect("json"),
            fixture("keyword-tracker").parent(),
        );
        checked += 1;
    }
    assert!(checked > 100, "only {checked} pointers");
}

/// Pointers of every value down to depth 5 (deeper values are inside embedded schemas).
fn collect_pointers(v: &Value, at: String, depth: usize, out: &mut Vec<String>) {
    if depth > 5 {
        return;
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let p = format!("{at}/{}", host_manifest::escape_token(k));
                out.push(p.clone());
                collect_pointers(child, p, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                collect_pointers(child, p, depth + 1, out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_whole_document_of_each_wrong_type_is_reported() {
    for text in [
        "null",
        "1",
        "\"manifest\"",
        "[]",
        "true",
        "{}",
        "",
        "   ",
        "\u{feff}{}",
    ] {
        let report = check(text, None);
        assert!(!report.is_valid(), "{text:?}");
    }
}

#[test]
fn pathological_embedded_schemas_are_errors_not_crashes() {
    let base = fixture("keyword-tracker");
    let hostile = [
        json!({ "type": "string", "pattern": "(a+)+$" }),
        json!({ "type": "string", "pattern": "a{1000}{1000}{1000}" }),
        json!({ "type": "string", "pattern": "(?<=a" }),
        json!({ "$ref": "#/definitions/nowhere" }),
        json!({ "$ref": "file:///etc/passwd" }),
        json!({ "$ref": "https://schemas.example/remote.json" }),
        json!({ "$schema": "https://unknown.example/meta", "type": "object" }),
        json!({ "$ref": "#" }),
        json!({ "type": "object", "properties": { "a": { "$ref": "#/properties/a" } } }),
        json!({ "minLength": 1e300, "multipleOf": 0 }),
    ];
    for schema in hostile {
        let mut doc = fixture_value("keyword-tracker");
        doc["contributes"]["ai"]["tools"][0]["input"] = schema.clone();
        check(&serde_json::to_string(&doc).expect("json"), base.parent());
    }
}

#[test]
fn hostile_file_paths_are_refused() {
    let base = fixture("keyword-tracker");
    for path in [
        "../../../../etc/passwd",
        "/etc/passwd",
        "C:\\Windows\\win.ini",
        "\\\\server\\share\\x",
        "a/../../b",
        "\0",
        "ui/\u{202e}gnp.exe",
    ] {
        let mut doc = fixture_value("keyword-tracker");
        doc["icon"] = json!(path);
        let report = check(&serde_json::to_string(&doc).expect("json"), base.parent());
        assert!(!report.is_valid(), "{path:?} was accepted");
    }
}

#[test]
fn a_missing_or_folder_path_is_a_read_error() {
    assert!(validate_file(Path::new("/definitely/not/here.json")).is_err());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let err = validate_file(dir).expect_err("a folder");
    assert!(err.to_string().contains("folder"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        coherent(&validate_bytes(&bytes, None));
    }

    #[test]
    fn arbitrary_text_never_panics(text in "[\\[\\]{}:,\"a-z0-9\\\\ \\n.-]{0,400}") {
        coherent(&validate_str(&text, None));
    }

    #[test]
    fn truncating_a_valid_manifest_anywhere_is_a_located_syntax_error(cut in 0usize..4000) {
        let text = std::fs::read_to_string(fixture("minimal")).expect("fixture");
        // Anything shorter than the text up to its closing brace is incomplete.
        let cut = cut.min(text.trim_end().len() - 1);
        if text.is_char_boundary(cut) {
            let report = check(&text[..cut], None);
            prop_assert!(!report.is_valid());
        }
    }

    #[test]
    fn random_values_at_random_places_never_panic(seed in any::<u64>(), value in arb_json()) {
        let mut doc = fixture_value("keyword-tracker");
        let mut pointers = Vec::new();
        collect_pointers(&doc, String::new(), 0, &mut pointers);
        let pointer = &pointers[(seed as usize) % pointers.len()];
        if let Some(slot) = doc.pointer_mut(pointer) {
            *slot = value;
        }
        check(&serde_json::to_string(&doc).expect("json"), fixture("keyword-tracker").parent());
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("[a-zA-Z$]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
