//! The manifest JSON Schema (v2, draft 2020-12): the embedded document, its compiled validator, and the
//! translation of raw validation errors into messages a person understands.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::diagnostic::{Rule, escape_token, pointer_tokens};
use crate::source::Target;

/// The `$id` of the manifest schema, also the value vendors put in `$schema`.
pub const SCHEMA_ID: &str = "https://host.example/schemas/extension/v2.json";

/// The manifest JSON Schema, as published.
pub const SCHEMA_JSON: &str = include_str!("../schema/extension.v2.json");

/// The schema as a JSON value (parsed once).
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    // The schema is a constant of this crate, checked by its tests; failing to parse it is a build defect.
    #[allow(clippy::expect_used)]
    SCHEMA.get_or_init(|| serde_json::from_str(SCHEMA_JSON).expect("embedded schema is valid JSON"))
}

/// The manifest schema's validator (built once), or why the embedded schema did not compile.
fn validator() -> Result<&'static Validator, &'static jsonschema::ValidationError<'static>> {
    static VALIDATOR: OnceLock<Result<Validator, jsonschema::ValidationError<'static>>> =
        OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .build(schema())
        })
        .as_ref()
}

/// One structural finding, before it is located in the text.
pub(crate) struct SchemaFinding {
    pub rule: Rule,
    pub pointer: String,
    pub target: Target,
    pub message: String,
}

/// Validates `doc` against the manifest schema and explains every failure.
pub(crate) fn check(doc: &Value) -> Vec<SchemaFinding> {
    let validator = match validator() {
        Ok(v) => v,
        Err(e) => {
            return vec![SchemaFinding {
                rule: Rule::Internal,
                pointer: String::new(),
                target: Target::Value,
                message: format!("the embedded manifest schema failed to compile: {e}"),
            }];
        }
    };
    let mut out = Vec::new();
    for error in validator.iter_errors(doc) {
        explain(&error, &mut out);
    }
    out
}

fn explain(error: &ValidationError<'_>, out: &mut Vec<SchemaFinding>) {
    let pointer = error.instance_path().as_str().to_owned();
    let instance = error.instance();
    let here = describe(&pointer);
    let local = local_schema(&pointer);
    let mut push = |rule, pointer: String, target, message: String| {
        out.push(SchemaFinding {
            rule,
            pointer,
            target,
            message,
        });
    };
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let child = format!("{pointer}/{}", escape_token(name));
            let msg = if pointer.is_empty() {
                format!("the manifest lacks the required member `{name}`")
            } else {
                format!("{here} lacks the required member `{name}`")
            };
            push(Rule::SchemaRequired, child, Target::Value, msg);
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let known: Vec<&str> = local
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            for name in unexpected {
                let child = format!("{pointer}/{}", escape_token(name));
                let mut msg = format!("{here} has no member `{name}`");
                if let Some(near) = closest(name, known.iter().copied()) {
                    msg.push_str(&format!("; did you mean `{near}`?"));
                } else if !known.is_empty() {
                    msg.push_str(&format!("; it accepts {}", list(&known)));
                }
                push(Rule::SchemaUnknownField, child, Target::Key, msg);
            }
        }
        ValidationErrorKind::FalseSchema => {
            let name = pointer_tokens(&pointer).last().unwrap_or_default();
            let (rule, msg) = if pointer == "/pricing" || pointer == "/score" {
                (
                    Rule::ReservedField,
                    format!("`{name}` is reserved and not allowed in a manifest; remove it"),
                )
            } else {
                (Rule::SchemaOther, format!("{here} is not allowed here"))
            };
            push(rule, pointer, Target::Key, msg);
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => article(&t.to_string()),
                TypeKind::Multiple(set) => {
                    let names: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                    names.join(" or ")
                }
            };
            let msg = format!("{here} must be {expected}; it is {}", json_kind(instance));
            push(Rule::SchemaType, pointer, Target::Value, msg);
        }
        ValidationErrorKind::Enum { options } => {
            let opts: Vec<String> = options
                .as_array()
                .map(|a| a.iter().map(short).collect())
                .unwrap_or_default();
            let mut msg = format!(
                "{here} is {}, which is not one of {}",
                short(instance),
                opts.join(", ")
            );
            if let Some(s) = instance.as_str() {
                let names: Vec<&str> = options
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(near) = closest(s, names.iter().copied()) {
                    msg.push_str(&format!("; did you mean `{near}`?"));
                }
            }
            push(Rule::SchemaEnum, pointer, Target::Value, msg);
        }
        ValidationErrorKind::Constant { expected_value } => {
            let mut msg = format!("{here} must be {}", short(expected_value));
            if pointer.ends_with("/approval") {
                msg.push_str(
                    "; an action always runs after the owner's approval and cannot opt out",
                );
            }
            push(Rule::SchemaEnum, pointer, Target::Value, msg);
        }
        ValidationErrorKind::Pattern { pattern } => {
            let text = instance.as_str().unwrap_or_default();
            let msg = format!(
                "{here} is `{}`, which is not {}",
                clip(text),
                pattern_meaning(pattern)
            );
            push(Rule::SchemaPattern, pointer, Target::Value, msg);
        }
        ValidationErrorKind::MinLength { .. } | ValidationErrorKind::MaxLength { .. } => {
            let n = instance.as_str().map_or(0, |s| s.chars().count());
            let msg = format!(
                "{here} must be {}; it has {n}",
                bounds(local, "minLength", "maxLength", "character")
            );
            push(Rule::SchemaLength, pointer, Target::Value, msg);
        }
        ValidationErrorKind::MinItems { .. } | ValidationErrorKind::MaxItems { .. } => {
            let n = instance.as_array().map_or(0, Vec::len);
            let msg = format!(
                "{here} must hold {}; it has {n}",
                bounds(local, "minItems", "maxItems", "entry")
            );
            push(Rule::SchemaCount, pointer, Target::Value, msg);
        }
        ValidationErrorKind::MinProperties { .. } | ValidationErrorKind::MaxProperties { .. } => {
            let n = instance.as_object().map_or(0, serde_json::Map::len);
            let msg = format!(
                "{here} must hold {}; it has {n}",
                bounds(local, "minProperties", "maxProperties", "entry")
            );
            push(Rule::SchemaCount, pointer, Target::Value, msg);
        }
        ValidationErrorKind::Minimum { .. }
        | ValidationErrorKind::Maximum { .. }
        | ValidationErrorKind::ExclusiveMinimum { .. }
        | ValidationErrorKind::ExclusiveMaximum { .. } => {
            let lo = local.and_then(|s| s.get("minimum")).map(short);
            let hi = local.and_then(|s| s.get("maximum")).map(short);
            let range = match (lo, hi) {
                (Some(lo), Some(hi)) => format!("from {lo} to {hi}"),
                (Some(lo), None) => format!("at least {lo}"),
                (None, Some(hi)) => format!("at most {hi}"),
                (None, None) => "in range".to_owned(),
            };
            let msg = format!("{here} must be {range}; it is {}", short(instance));
            push(Rule::SchemaRange, pointer, Target::Value, msg);
        }
        ValidationErrorKind::Format { format } => {
            let msg = format!(
                "{here} is `{}`, which is not a valid {format}",
                clip(instance.as_str().unwrap_or(""))
            );
            push(Rule::SchemaFormat, pointer, Target::Value, msg);
        }
        ValidationErrorKind::PropertyNames { error } => {
            let name = error.instance().as_str().unwrap_or_default().to_owned();
            let child = format!("{pointer}/{}", escape_token(&name));
            let rule_text = match error.kind() {
                ValidationErrorKind::Pattern { pattern } => pattern_meaning(pattern),
                other => other.keyword().to_owned(),
            };
            let msg = format!("the name `{}` in {here} is not {rule_text}", clip(&name));
            push(Rule::SchemaPattern, child, Target::Key, msg);
        }
        ValidationErrorKind::UniqueItems => {
            push(
                Rule::SchemaOther,
                pointer,
                Target::Value,
                format!("{here} holds the same entry twice"),
            );
        }
        _ => {
            push(
                Rule::SchemaOther,
                pointer,
                Target::Value,
                format!("{here}: {error}"),
            );
        }
    }
}

/// The schema that applies at an instance pointer, following `$ref`, `properties`,
/// `additionalProperties` and `items`. The manifest schema uses no combinators, so this walk is exact.
fn local_schema(pointer: &str) -> Option<&'static Value> {
    let root = schema();
    let mut node = resolve(root, root)?;
    for token in pointer_tokens(pointer) {
        let next = if let Some(items) = node.get("items") {
            items
        } else if let Some(p) = node.get("properties").and_then(|p| p.get(token.as_str())) {
            p
        } else {
            node.get("additionalProperties").filter(|a| a.is_object())?
        };
        node = resolve(root, next)?;
    }
    Some(node)
}

fn resolve<'s>(root: &'s Value, mut node: &'s Value) -> Option<&'s Value> {
    // Local references only, and a bounded number of hops.
    for _ in 0..8 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => node = root.pointer(r.strip_prefix('#')?)?,
            None => return Some(node),
        }
    }
    None
}

/// A human name for a pointer: `/contributes/widgets/0/slot` -> "`contributes.widgets[0].slot`".
pub(crate) fn describe(pointer: &str) -> String {
    if pointer.is_empty() {
        return "the manifest".to_owned();
    }
    let mut out = String::new();
    for token in pointer_tokens(pointer) {
        if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{token}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&token);
        }
    }
    format!("`{out}`")
}

fn bounds(local: Option<&Value>, min_key: &str, max_key: &str, unit: &str) -> String {
    let get = |k: &str| local.and_then(|s| s.get(k)).and_then(Value::as_u64);
    let plural = |n: u64| {
        if n == 1 {
            unit.to_owned()
        } else if let Some(stem) = unit.strip_suffix('y') {
            format!("{stem}ies")
        } else {
            format!("{unit}s")
        }
    };
    match (get(min_key), get(max_key)) {
        (Some(lo), Some(hi)) => format!("{lo} to {hi} {}", plural(hi)),
        (Some(lo), None) => format!("at least {lo} {}", plural(lo)),
        (None, Some(hi)) => format!("at most {hi} {}", plural(hi)),
        (None, None) => format!("a valid number of {}", plural(2)),
    }
}

/// Plain-language meanings of the patterns the schema uses.
fn pattern_meaning(pattern: &str) -> String {
    match pattern {
        "^[a-z][a-z0-9-]{2,39}$" => {
            "an extension id: 3 to 40 lowercase letters, digits or `-`, starting with a letter"
                .to_owned()
        }
        "^[a-z][a-z0-9-]{1,39}$" => {
            "a contribution id: 2 to 40 lowercase letters, digits or `-`, starting with a letter"
                .to_owned()
        }
        "^[a-z][a-z0-9_]*$" => {
            "a key: lowercase letters, digits or `_`, starting with a letter".to_owned()
        }
        "^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$" => {
            "an event name of the form `domain.thing` (lowercase, digits and `_`)".to_owned()
        }
        "^https:\\/\\/.*" => "an https URL (it must start with `https://`)".to_owned(),
        "^[a-zA-Z][a-zA-Z0-9_-]{1,59}$" => {
            "a procedure name: 2 to 60 letters, digits, `_` or `-`, starting with a letter"
                .to_owned()
        }
        other => format!("matching the pattern `{other}`"),
    }
}

fn article(t: &str) -> String {
    match t {
        "array" | "object" | "integer" => format!("an {t}"),
        "null" => "null".to_owned(),
        _ => format!("a {t}"),
    }
}

fn json_kind(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string \"{}\"", clip(s)),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// A short rendering of a value for messages.
fn short(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{}`", clip(s)),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
        other => format!("`{other}`"),
    }
}

/// Cuts long user text so a message stays readable.
pub(crate) fn clip(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut}...")
    }
}

pub(crate) fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The candidate nearest to `word` by edit distance, when it is near enough to be a likely typo (at
/// most a third of its characters off, at least one); words over 64 characters get no suggestion.
/// Used for every "did you mean" of the engine and of `cargo host`.
pub fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    if word.chars().count() > 64 {
        return None;
    }
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_compiles_and_has_the_published_id() {
        assert!(validator().is_ok());
        assert_eq!(schema()["$id"], SCHEMA_ID);
    }

    #[test]
    fn the_schema_enums_match_the_catalogue() {
        let events: Vec<&str> = schema()
            .pointer("/$defs/server/properties/events/items/enum")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let catalogue: Vec<&str> = crate::catalogue::EVENTS.iter().map(|e| e.name).collect();
        assert_eq!(events, catalogue);

        let scopes: Vec<&str> = schema()
            .pointer("/$defs/scopeKey/enum")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let keys: Vec<&str> = crate::catalogue::SCOPES.iter().map(|s| s.key).collect();
        assert_eq!(scopes, keys);

        let pages: Vec<&str> = schema()
            .pointer("/$defs/hostPage/enum")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let slot_pages: Vec<&str> = crate::catalogue::PAGE_SLOTS
            .iter()
            .map(|(p, _)| *p)
            .collect();
        assert_eq!(pages, slot_pages);
    }

    #[test]
    fn describe_reads_like_a_path() {
        assert_eq!(
            describe("/contributes/widgets/0/slot"),
            "`contributes.widgets[0].slot`"
        );
        assert_eq!(describe(""), "the manifest");
        assert_eq!(describe("/a~1b"), "`a/b`");
    }

    #[test]
    fn closest_finds_typos_only() {
        assert_eq!(closest("widget", ["widgets", "pages"]), Some("widgets"));
        assert_eq!(closest("zzzzzz", ["widgets", "pages"]), None);
        assert_eq!(closest(&"x".repeat(100), ["widgets"]), None);
    }

    #[test]
    fn local_schema_follows_refs_items_and_records() {
        let s = local_schema("/contributes/widgets/3/slot");
        assert!(s.and_then(|s| s.get("enum")).is_some());
        let s = local_schema("/contributes/storage/notes/scope");
        assert!(s.and_then(|s| s.get("enum")).is_some());
        let s = local_schema("/name");
        assert_eq!(
            s.and_then(|s| s.get("maxLength")).and_then(Value::as_u64),
            Some(40)
        );
    }
}
