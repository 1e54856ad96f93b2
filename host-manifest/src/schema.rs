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

/// Turns one validation error into findings a person can act on: one for most errors, one per
/// unknown member for `additionalProperties`. Each family of error kinds has a function of its own.
fn explain(error: &ValidationError<'_>, out: &mut Vec<SchemaFinding>) {
    let place = Place::of(error);
    let instance = place.instance;
    match error.kind() {
        ValidationErrorKind::Required { property } => out.push(missing_member(place, property)),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            out.extend(unknown_members(&place, unexpected));
        }
        ValidationErrorKind::FalseSchema => out.push(forbidden_member(place)),
        ValidationErrorKind::Type { kind } => out.push(wrong_type(place, kind)),
        ValidationErrorKind::Enum { options } => out.push(not_an_option(place, options)),
        ValidationErrorKind::Constant { expected_value } => {
            out.push(not_the_constant(place, expected_value));
        }
        ValidationErrorKind::Pattern { pattern } => out.push(pattern_mismatch(place, pattern)),
        ValidationErrorKind::MinLength { .. } | ValidationErrorKind::MaxLength { .. } => {
            out.push(wrong_length(place));
        }
        ValidationErrorKind::MinItems { .. } | ValidationErrorKind::MaxItems { .. } => {
            let n = instance.as_array().map_or(0, Vec::len);
            out.push(wrong_count(place, n, ("minItems", "maxItems")));
        }
        ValidationErrorKind::MinProperties { .. } | ValidationErrorKind::MaxProperties { .. } => {
            let n = instance.as_object().map_or(0, serde_json::Map::len);
            out.push(wrong_count(place, n, ("minProperties", "maxProperties")));
        }
        ValidationErrorKind::Minimum { .. }
        | ValidationErrorKind::Maximum { .. }
        | ValidationErrorKind::ExclusiveMinimum { .. }
        | ValidationErrorKind::ExclusiveMaximum { .. } => out.push(out_of_range(place)),
        ValidationErrorKind::Format { format } => out.push(not_the_format(place, format)),
        ValidationErrorKind::PropertyNames { error } => out.push(bad_member_name(place, error)),
        ValidationErrorKind::UniqueItems => {
            let message = format!("{} holds the same entry twice", place.here);
            out.push(place.finding(Rule::SchemaOther, Target::Value, message));
        }
        _ => {
            let message = format!("{}: {error}", place.here);
            out.push(place.finding(Rule::SchemaOther, Target::Value, message));
        }
    }
}

/// Where a validation error is: its pointer, the value there, and the name a message gives it.
struct Place<'e> {
    pointer: String,
    instance: &'e Value,
    /// [`describe`] of the pointer: "`contributes.widgets[0].slot`", "the manifest".
    here: String,
}

impl<'e> Place<'e> {
    fn of(error: &'e ValidationError<'_>) -> Self {
        let pointer = error.instance_path().as_str().to_owned();
        let here = describe(&pointer);
        Place {
            pointer,
            instance: error.instance(),
            here,
        }
    }

    /// The manifest schema's rules for the value here (its bounds, its known members).
    fn schema(&self) -> Option<&'static Value> {
        local_schema(&self.pointer)
    }

    /// The pointer of member `name` of the value here.
    fn member(&self, name: &str) -> String {
        format!("{}/{}", self.pointer, escape_token(name))
    }

    /// A finding about the value (or the key) here.
    fn finding(self, rule: Rule, target: Target, message: String) -> SchemaFinding {
        SchemaFinding {
            rule,
            pointer: self.pointer,
            target,
            message,
        }
    }
}

/// `required`: the finding points at the missing member, so it is located where it should be.
fn missing_member(place: Place<'_>, property: &Value) -> SchemaFinding {
    let name = property.as_str().unwrap_or_default();
    let message = if place.pointer.is_empty() {
        format!("the manifest lacks the required member `{name}`")
    } else {
        format!("{} lacks the required member `{name}`", place.here)
    };
    SchemaFinding {
        rule: Rule::SchemaRequired,
        pointer: place.member(name),
        target: Target::Value,
        message,
    }
}

/// `additionalProperties: false`: one finding per member the schema does not name, on its key,
/// with the likely intended name, or else the names the object accepts.
fn unknown_members(place: &Place<'_>, unexpected: &[String]) -> Vec<SchemaFinding> {
    let known: Vec<&str> = place
        .schema()
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    unexpected
        .iter()
        .map(|name| {
            let mut message = format!("{} has no member `{name}`", place.here);
            if let Some(near) = closest(name, known.iter().copied()) {
                message.push_str(&format!("; did you mean `{near}`?"));
            } else if !known.is_empty() {
                message.push_str(&format!("; it accepts {}", list(&known)));
            }
            SchemaFinding {
                rule: Rule::SchemaUnknownField,
                pointer: place.member(name),
                target: Target::Key,
                message,
            }
        })
        .collect()
}

/// A `false` schema: a member that may not appear. The reserved top-level members get a rule and
/// a message of their own, since vendors add them on purpose.
fn forbidden_member(place: Place<'_>) -> SchemaFinding {
    let name = pointer_tokens(&place.pointer).last().unwrap_or_default();
    let (rule, message) = if place.pointer == "/pricing" || place.pointer == "/score" {
        (
            Rule::ReservedField,
            format!("`{name}` is reserved and not allowed in a manifest; remove it"),
        )
    } else {
        (
            Rule::SchemaOther,
            format!("{} is not allowed here", place.here),
        )
    };
    place.finding(rule, Target::Key, message)
}

/// `type`: the type (or types) wanted, and what the value is instead.
fn wrong_type(place: Place<'_>, kind: &TypeKind) -> SchemaFinding {
    let expected = match kind {
        TypeKind::Single(t) => article(&t.to_string()),
        TypeKind::Multiple(set) => {
            let names: Vec<String> = set.iter().map(|t| t.to_string()).collect();
            names.join(" or ")
        }
    };
    let message = format!(
        "{} must be {expected}; it is {}",
        place.here,
        json_kind(place.instance)
    );
    place.finding(Rule::SchemaType, Target::Value, message)
}

/// `enum`: the options, and the one a mistyped string most likely meant.
fn not_an_option(place: Place<'_>, options: &Value) -> SchemaFinding {
    let shown: Vec<String> = options
        .as_array()
        .map(|a| a.iter().map(short).collect())
        .unwrap_or_default();
    let mut message = format!(
        "{} is {}, which is not one of {}",
        place.here,
        short(place.instance),
        shown.join(", ")
    );
    if let Some(s) = place.instance.as_str() {
        let names: Vec<&str> = options
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(near) = closest(s, names.iter().copied()) {
            message.push_str(&format!("; did you mean `{near}`?"));
        }
    }
    place.finding(Rule::SchemaEnum, Target::Value, message)
}

/// `const`: the one value allowed. An action's `approval` is fixed by design, and says why.
fn not_the_constant(place: Place<'_>, expected: &Value) -> SchemaFinding {
    let mut message = format!("{} must be {}", place.here, short(expected));
    if place.pointer.ends_with("/approval") {
        message.push_str("; an action always runs after the owner's approval and cannot opt out");
    }
    place.finding(Rule::SchemaEnum, Target::Value, message)
}

/// `pattern`: the text, and what the pattern means in words (see [`pattern_meaning`]).
fn pattern_mismatch(place: Place<'_>, pattern: &str) -> SchemaFinding {
    let text = place.instance.as_str().unwrap_or_default();
    let message = format!(
        "{} is `{}`, which is not {}",
        place.here,
        clip(text),
        pattern_meaning(pattern)
    );
    place.finding(Rule::SchemaPattern, Target::Value, message)
}

/// `minLength`, `maxLength`: the allowed length in characters, and the length found.
fn wrong_length(place: Place<'_>) -> SchemaFinding {
    let n = place.instance.as_str().map_or(0, |s| s.chars().count());
    let message = format!(
        "{} must be {}; it has {n}",
        place.here,
        bounds(place.schema(), "minLength", "maxLength", "character")
    );
    place.finding(Rule::SchemaLength, Target::Value, message)
}

/// `minItems`/`maxItems` or `minProperties`/`maxProperties` (the `keys` of the pair): the allowed
/// number of entries, and the `n` found.
fn wrong_count(place: Place<'_>, n: usize, keys: (&str, &str)) -> SchemaFinding {
    let message = format!(
        "{} must hold {}; it has {n}",
        place.here,
        bounds(place.schema(), keys.0, keys.1, "entry")
    );
    place.finding(Rule::SchemaCount, Target::Value, message)
}

/// `minimum`, `maximum` and their exclusive forms: the range the schema states, and the value.
fn out_of_range(place: Place<'_>) -> SchemaFinding {
    let local = place.schema();
    let lo = local.and_then(|s| s.get("minimum")).map(short);
    let hi = local.and_then(|s| s.get("maximum")).map(short);
    let range = match (lo, hi) {
        (Some(lo), Some(hi)) => format!("from {lo} to {hi}"),
        (Some(lo), None) => format!("at least {lo}"),
        (None, Some(hi)) => format!("at most {hi}"),
        (None, None) => "in range".to_owned(),
    };
    let message = format!(
        "{} must be {range}; it is {}",
        place.here,
        short(place.instance)
    );
    place.finding(Rule::SchemaRange, Target::Value, message)
}

/// `format`: the text, and the format it fails.
fn not_the_format(place: Place<'_>, format: &str) -> SchemaFinding {
    let message = format!(
        "{} is `{}`, which is not a valid {format}",
        place.here,
        clip(place.instance.as_str().unwrap_or(""))
    );
    place.finding(Rule::SchemaFormat, Target::Value, message)
}

/// `propertyNames`: the finding is on the offending key, with the name's rule in words.
fn bad_member_name(place: Place<'_>, error: &ValidationError<'_>) -> SchemaFinding {
    let name = error.instance().as_str().unwrap_or_default().to_owned();
    let rule_text = match error.kind() {
        ValidationErrorKind::Pattern { pattern } => pattern_meaning(pattern),
        other => other.keyword().to_owned(),
    };
    let message = format!(
        "the name `{}` in {} is not {rule_text}",
        clip(&name),
        place.here
    );
    SchemaFinding {
        rule: Rule::SchemaPattern,
        pointer: place.member(&name),
        target: Target::Key,
        message,
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
