//! Diagnostics point at the line and character column of the file as written.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_manifest::{Rule, validate_str};

const DOC: &str = r#"{
  "id": "rank-tracker",
  "name": "Ränk Tracker ✓",
  "description": "Tracks keyword ranks.",
  "icon": "icon.png",
  "category": "market_data",
  "sdk": "^2.0.0",
  "visibility": "unlisted",
  "installScope": "project",
  "scopes": [ { "key": "ui:render" } ],
  "contributes": {
    "widgets": [
      { "id": "wr", "title": "Ränks", "entry": "w.tsx", "page": "ai_chat", "slot": "kpi-row", "size": "1x1" }
    ]
  }
}"#;

#[test]
fn a_cross_field_error_points_at_the_value() {
    let report = validate_str(DOC, None);
    let d = report.errors().next().expect("an error");
    assert_eq!(d.rule, Rule::WidgetSlot);
    assert_eq!(d.pointer, "/contributes/widgets/0/slot");
    // Columns count characters: `ä` is one column, not two bytes.
    assert_eq!((d.line, d.column), (13, 84));
    assert_eq!(
        d.display_with_file("host.extension.json").to_string(),
        "host.extension.json:13:84: /contributes/widgets/0/slot: slot `kpi-row` is not on page `ai_chat`; that page has only `sidebar` [widget-slot]"
    );
}

#[test]
fn an_unknown_member_points_at_its_name_and_a_missing_one_at_its_object() {
    let doc = DOC.replace(r#""size": "1x1""#, r#""sise": "1x1""#);
    let report = validate_str(&doc, None);
    let found: Vec<(Rule, &str, usize, usize)> = report
        .errors()
        .map(|d| (d.rule, d.pointer.as_str(), d.line, d.column))
        .collect();
    assert!(
        found.contains(&(Rule::SchemaRequired, "/contributes/widgets/0/size", 13, 7)),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            Rule::SchemaUnknownField,
            "/contributes/widgets/0/sise",
            13,
            95
        )),
        "{found:?}"
    );
}

#[test]
fn all_errors_are_reported_at_once_in_file_order() {
    let doc = DOC
        .replace(r#""id": "rank-tracker""#, r#""id": "R""#)
        .replace("^2.0.0", "^1.0.0");
    let report = validate_str(&doc, None);
    let rules: Vec<Rule> = report.errors().map(|d| d.rule).collect();
    assert_eq!(
        rules,
        vec![Rule::SchemaPattern, Rule::SdkRange, Rule::WidgetSlot]
    );
}

#[test]
fn a_syntax_error_is_located_in_characters() {
    let report = validate_str("{\n  \"name\": \"ä\" \"x\"\n}", None);
    let d = report.errors().next().expect("an error");
    assert_eq!(d.rule, Rule::JsonSyntax);
    assert_eq!((d.line, d.column), (2, 15));
}

#[test]
fn a_byte_order_mark_is_accepted_and_counted() {
    let report = validate_str(&format!("\u{feff}{DOC}"), None);
    let d = report.errors().next().expect("an error");
    assert_eq!((d.rule, d.line), (Rule::WidgetSlot, 13));
}

#[test]
fn a_duplicate_member_points_at_the_second() {
    let doc = DOC.replace(
        r#"  "icon": "icon.png","#,
        "  \"icon\": \"icon.png\",\n  \"icon\": \"icon.svg\",",
    );
    let report = validate_str(&doc, None);
    let d = report
        .errors()
        .find(|d| d.rule == Rule::DuplicateKey)
        .expect("duplicate");
    assert_eq!((d.pointer.as_str(), d.line, d.column), ("/icon", 6, 3));
}

#[test]
fn a_schema_error_that_a_rule_explains_better_is_reported_once() {
    let doc = DOC.replace(
        r#""contributes": {"#,
        r#""server": { "baseUrl": "https://a.example", "events": ["release.shiped"] },
  "contributes": {"#,
    );
    let report = validate_str(&doc, None);
    let at_event: Vec<Rule> = report
        .errors()
        .filter(|d| d.pointer == "/server/events/0")
        .map(|d| d.rule)
        .collect();
    assert_eq!(at_event, vec![Rule::UnknownEvent]);
}
