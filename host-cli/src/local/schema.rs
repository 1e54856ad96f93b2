//! JSON Schema helpers of the local host: the errors of an instance, named by their JSON pointers
//! (as the runtime words `INPUT_INVALID`), the `format` values the runtime lets through, and a
//! small best-effort sample input built from a schema for `cargo host check`.
//!
//! Schemas are compiled by the runtime's own [`compile_schema`](host_runtime::check::compile_schema).

use serde::Serialize;
use serde_json::{Map, Value, json};

/// One way an input fails, or may fail, the host's checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Problem {
    /// The JSON pointer in the input, `/` for the input itself.
    pub at: String,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at `{}`: {}", self.at, self.message)
    }
}

/// The most problems of one kind reported for one instance; a page of them is enough to act on.
pub(crate) const MAX_PROBLEMS: usize = 50;

/// Compiles `schema` as the runtime does.
pub(crate) fn compile(
    schema: &Value,
) -> Result<jsonschema::Validator, host_runtime::check::SchemaError> {
    host_runtime::check::compile_schema(schema)
}

/// The first way `instance` fails `validator`: "at `/keyword`: ..." (the root is `/`), in the
/// runtime's words.
pub(crate) fn first_error(validator: &jsonschema::Validator, instance: &Value) -> Option<String> {
    host_runtime::check::first_violation(validator, instance)
        .map(|v| format!("at `{}`: {}", v.at(), v.message))
}

/// Every way `instance` fails `schema` as the runtime checks it (errors), and every `format` value
/// that the runtime, which takes `format` as an annotation, lets through although it is not one
/// (warnings). A schema that does not compile gives neither.
pub(crate) fn problems(schema: &Value, instance: &Value) -> (Vec<Problem>, Vec<Problem>) {
    let Ok(validator) = compile(schema) else {
        return (Vec::new(), Vec::new());
    };
    let problem = |e: &jsonschema::ValidationError<'_>| {
        let v = host_runtime::check::Violation::from_error(e);
        Problem {
            at: v.at().to_owned(),
            message: v.message,
        }
    };
    let errors: Vec<Problem> = validator
        .iter_errors(instance)
        .take(MAX_PROBLEMS)
        .map(|e| problem(&e))
        .collect();
    let asserting = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema);
    let warnings = asserting
        .iter()
        .flat_map(|v| v.iter_errors(instance))
        .filter(|e| {
            matches!(
                e.kind(),
                jsonschema::error::ValidationErrorKind::Format { .. }
            )
        })
        .take(MAX_PROBLEMS)
        .map(|e| {
            let mut p = problem(&e);
            p.message = format!(
                "{}; the runtime does not check `format`, so your handler receives it as written",
                p.message
            );
            p
        })
        .collect();
    (errors, warnings)
}

/// A small instance of `schema`: required properties only, each its `default`, else its first
/// `const`/`enum` value, else a value of its type (strings: the first of a few candidates that
/// validates; numbers: the minimum or 1; booleans: false; arrays: `minItems` samples). Best effort:
/// `$ref` is not followed, and the result may still fail the schema.
pub(crate) fn sample(schema: &Value) -> Value {
    sample_at(schema, 0)
}

const STRING_CANDIDATES: [&str; 5] = ["US", "example", "notes", "en-US", "2026-01-01"];

fn sample_at(schema: &Value, depth: usize) -> Value {
    let Some(s) = schema.as_object() else {
        return json!({});
    };
    if depth > 8 {
        return Value::Null;
    }
    if let Some(v) = s.get("default") {
        return v.clone();
    }
    if let Some(v) = s.get("const") {
        return v.clone();
    }
    if let Some(v) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return v.clone();
    }
    match type_of(s) {
        "object" => {
            let properties = s.get("properties").and_then(Value::as_object);
            let mut out = Map::new();
            for name in s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let property = properties
                    .and_then(|p| p.get(name))
                    .unwrap_or(&Value::Bool(true));
                out.insert(name.to_owned(), sample_at(property, depth + 1));
            }
            Value::Object(out)
        }
        "array" => {
            let n = s
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(10);
            let items = s.get("items").unwrap_or(&Value::Bool(true));
            let one = sample_at(items, depth + 1);
            Value::Array(vec![one; n as usize])
        }
        "integer" => {
            let low = bound(s, "minimum", "exclusiveMinimum", 1.0).ceil();
            let high = s.get("maximum").and_then(Value::as_f64);
            let v = match high {
                Some(h) if h < low => h.floor(),
                _ => low,
            };
            json!(v as i64)
        }
        "number" => {
            let low = bound(s, "minimum", "exclusiveMinimum", 1.0);
            match s.get("maximum").and_then(Value::as_f64) {
                Some(h) if h < low => json!(h),
                _ => json!(low),
            }
        }
        "boolean" => json!(false),
        "null" => Value::Null,
        _ => sample_string(schema, s),
    }
}

/// The lower bound of a number: `minimum`, or 1 above `exclusiveMinimum`, else `fallback`.
fn bound(s: &Map<String, Value>, min: &str, exclusive: &str, fallback: f64) -> f64 {
    if let Some(m) = s.get(min).and_then(Value::as_f64) {
        return m;
    }
    if let Some(m) = s.get(exclusive).and_then(Value::as_f64) {
        return m + 1.0;
    }
    fallback
}

/// The schema's type: `type` (the first that is not `null` when it is a list), else guessed from
/// the keywords present; `string` when nothing says.
fn type_of(s: &Map<String, Value>) -> &str {
    match s.get("type") {
        Some(Value::String(t)) => return t,
        Some(Value::Array(ts)) => {
            if let Some(t) = ts.iter().filter_map(Value::as_str).find(|t| *t != "null") {
                return t;
            }
        }
        _ => {}
    }
    if s.contains_key("properties") || s.contains_key("required") {
        "object"
    } else if s.contains_key("items") || s.contains_key("minItems") {
        "array"
    } else if s.contains_key("minimum") || s.contains_key("maximum") {
        "number"
    } else {
        "string"
    }
}

fn sample_string(schema: &Value, s: &Map<String, Value>) -> Value {
    let now = chrono::Utc::now();
    let by_format = match s.get("format").and_then(Value::as_str) {
        Some("date-time") => Some(now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        Some("date") => Some(now.format("%Y-%m-%d").to_string()),
        Some("uri" | "url" | "iri") => Some("https://example.com".to_owned()),
        Some("email") => Some("dev@example.com".to_owned()),
        Some("uuid") => Some("00000000-0000-4000-8000-000000000000".to_owned()),
        _ => None,
    };
    let validator = compile(schema).ok();
    let fits = |text: &str| {
        validator
            .as_ref()
            .is_none_or(|v| v.is_valid(&Value::String(text.to_owned())))
    };
    if let Some(text) = by_format.filter(|t| fits(t)) {
        return Value::String(text);
    }
    if let Some(text) = STRING_CANDIDATES.iter().find(|t| fits(t)) {
        return json!(text);
    }
    let min = s
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(1000);
    let padded = "x".repeat(min.max(1) as usize);
    Value::String(padded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_fill_required_properties_only() {
        let schema = json!({
            "type": "object",
            "properties": {
                "keyword": { "type": "string", "minLength": 1 },
                "country": { "type": "string", "pattern": "^[A-Z]{2}$" },
                "days": { "type": "integer", "minimum": 1, "default": 30 },
                "limit": { "type": "integer", "minimum": 5, "maximum": 9 },
                "ratio": { "type": "number", "exclusiveMinimum": 0 },
                "direction": { "enum": ["up", "down"] },
                "keywords": { "type": "array", "items": { "type": "string" }, "minItems": 2 },
                "strict": { "type": "boolean" },
                "locale": { "type": "string", "pattern": "^[a-z]{2}-[A-Z]{2}$" },
                "seen": { "type": "string", "format": "date-time" },
                "code": { "type": "string", "minLength": 12, "pattern": "^x+$" },
                "optional": { "type": "string" }
            },
            "required": ["keyword", "country", "days", "limit", "ratio", "direction", "keywords",
                         "strict", "locale", "seen", "code"]
        });
        let s = sample(&schema);
        assert_eq!(s["keyword"], "US");
        assert_eq!(s["country"], "US");
        assert_eq!(s["days"], 30);
        assert_eq!(s["limit"], 5);
        assert_eq!(s["ratio"], 1.0);
        assert_eq!(s["direction"], "up");
        assert_eq!(s["keywords"], json!(["US", "US"]));
        assert_eq!(s["strict"], false);
        assert_eq!(s["locale"], "en-US");
        assert!(s["seen"].as_str().is_some_and(|t| t.ends_with('Z')));
        assert_eq!(s["code"], "x".repeat(12));
        assert!(s.get("optional").is_none());
        assert_eq!(problems(&schema, &s), (Vec::new(), Vec::new()));
    }

    #[test]
    fn errors_name_the_pointer() {
        let schema = json!({ "type": "object", "properties": { "n": { "type": "integer" } } });
        let (errors, _) = problems(&schema, &json!({ "n": "x" }));
        assert_eq!(
            errors[0].to_string(),
            format!("at `/n`: {}", errors[0].message)
        );
        let (errors, _) = problems(&schema, &json!(3));
        assert_eq!(errors[0].at, "/");
        assert_eq!(sample(&json!(true)), json!({}));
        assert_eq!(
            sample(&json!({ "type": ["null", "integer"], "maximum": 0 })),
            json!(0)
        );
    }
}
