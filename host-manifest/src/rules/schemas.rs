//! Rules about the JSON Schemas embedded in a manifest: the 16 KB bound on tool and action inputs, and
//! that every embedded schema is itself a valid, self-contained JSON Schema.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;

use host_interface::limits::INPUT_SCHEMA_BYTES;

/// Tool and action `input` schemas are bounded at 16,384 bytes of compact JSON.
pub(crate) fn check_input_schema_size(cx: &mut Ctxt<'_>) {
    let mut over = Vec::new();
    for kind in ["tools", "actions"] {
        for (i, item) in cx.items(&format!("/contributes/ai/{kind}")) {
            let Some(input) = item.get("input").filter(|v| v.is_object()) else {
                continue;
            };
            let size = compact_len(input);
            if size > INPUT_SCHEMA_BYTES {
                over.push((format!("/contributes/ai/{kind}/{i}/input"), size));
            }
        }
    }
    for (pointer, size) in over {
        cx.error(
            Rule::InputSchemaSize,
            pointer,
            format!("this input schema is {size} bytes of compact JSON; the limit is {INPUT_SCHEMA_BYTES} bytes, so shorten descriptions or move shared parts into `$defs`"),
        );
    }
}

/// The length in bytes of a value's compact JSON serialisation (how the interface sizes a schema),
/// without building the string.
pub fn compact_len(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing a `Value` to an infallible sink cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// The pointers of every JSON Schema a manifest embeds.
pub(crate) fn embedded_schemas(cx: &Ctxt<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for (kind, member) in [
        ("tools", "input"),
        ("actions", "input"),
        ("prompts", "input"),
    ] {
        for (i, item) in cx.items(&format!("/contributes/ai/{kind}")) {
            if item.get(member).is_some() {
                out.push(format!("/contributes/ai/{kind}/{i}/{member}"));
            }
        }
    }
    for (name, proc_) in cx.members("/server/procedures") {
        for member in ["input", "output"] {
            if proc_.get(member).is_some() {
                out.push(format!(
                    "/server/procedures/{}/{member}",
                    crate::diagnostic::escape_token(name)
                ));
            }
        }
    }
    for (i, hook) in cx.items("/contributes/webhooks") {
        if hook.get("payload").is_some() {
            out.push(format!("/contributes/webhooks/{i}/payload"));
        }
    }
    for (name, coll) in cx.members("/contributes/storage") {
        if coll.get("schema").is_some() {
            out.push(format!(
                "/contributes/storage/{}/schema",
                crate::diagnostic::escape_token(name)
            ));
        }
    }
    if cx.get("/contributes/settings/schema").is_some() {
        out.push("/contributes/settings/schema".to_owned());
    }
    out
}

/// Every embedded schema must compile as a JSON Schema (draft 2020-12 unless it names another draft
/// through `$schema`) without fetching anything.
pub(crate) fn check_embedded_schemas(cx: &mut Ctxt<'_>) {
    let mut bad = Vec::new();
    // Manifests repeat schemas (many procedures take `{}`): each distinct one is checked once.
    let mut verdicts: Vec<(&Value, Result<(), SchemaError>)> = Vec::new();
    for pointer in embedded_schemas(cx) {
        let Some(schema) = cx.get(&pointer).filter(|v| v.is_object()) else {
            continue;
        };
        let verdict = match verdicts.iter().find(|(seen, _)| *seen == schema) {
            Some((_, verdict)) => verdict.clone(),
            None => {
                let verdict = compile(schema);
                verdicts.push((schema, verdict.clone()));
                verdict
            }
        };
        if let Err(reason) = verdict {
            bad.push((pointer, reason));
        }
    }
    for (pointer, reason) in bad {
        cx.error(
            Rule::InvalidJsonSchema,
            pointer,
            format!("this is not a valid JSON Schema: {reason}"),
        );
    }
}

/// In a schema checked per request (tool and action inputs, procedure inputs and outputs), no
/// `patternProperties` name needs the backtracking engine: jsonschema matches it against every key
/// of the instance, where the request's pattern budget cannot stop it.
pub(crate) fn check_key_patterns(cx: &mut Ctxt<'_>) {
    let mut bad = Vec::new();
    for pointer in embedded_schemas(cx) {
        if !crate::patterns::checked_per_request(&pointer) {
            continue;
        }
        let Some(schema) = cx.get(&pointer) else {
            continue;
        };
        // Only key patterns are classified: a value's `pattern` spends the budget.
        for pattern in crate::patterns::patterns(schema) {
            if pattern.on_keys && crate::patterns::needs_backtracking(&pattern.text) {
                bad.push((format!("{pointer}{}", pattern.pointer), pattern.text));
            }
        }
    }
    for (pointer, text) in bad {
        cx.error_at_key(
            Rule::KeyPattern,
            pointer,
            format!(
                "the key pattern `{text}` needs lookaround or a backreference, which only the \
                 backtracking engine runs; matched against every key of every request, its time \
                 cannot be bounded, so write it without them (or check the keys with \
                 `propertyNames` and a `pattern`, which the request's pattern budget bounds)"
            ),
        );
    }
}

/// Why an embedded schema is not a usable JSON Schema; its text is the end of the `invalid-json-schema`
/// message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SchemaError {
    /// `$schema` names a meta-schema that would have to be fetched.
    #[error(
        "{place}`$schema` names `{uri}`, a meta-schema the SDK cannot fetch (nothing is fetched while \
         building); use `https://json-schema.org/draft/2020-12/schema` or leave `$schema` out"
    )]
    UnknownMetaschema {
        /// `at `/pointer` inside it: ` or nothing, for the schema's root.
        place: String,
        /// The meta-schema named.
        uri: String,
    },
    /// The validator crate refused it; the explanation names the place inside the schema.
    #[error("{0}")]
    Refused(String),
    /// The validator crate panicked on it.
    #[error("the schema could not be compiled")]
    Panicked,
}

/// Checks a user's schema, turning both errors and any panic inside the validator crate into a
/// [`SchemaError`].
///
/// Checking against the meta-schema finds most mistakes and is cheap; building a validator also finds
/// bad regular expressions and unresolvable references but costs several times more (in debug
/// builds, where the macro runs, it was most of the validation time), so it is done only for schemas
/// that use a keyword whose mistakes only a build reveals.
pub(crate) fn compile(schema: &Value) -> Result<(), SchemaError> {
    if let Some((at, uri)) = unknown_metaschema(schema, "", 0) {
        let place = if at.is_empty() {
            String::new()
        } else {
            format!("at `{at}` inside it: ")
        };
        return Err(SchemaError::UnknownMetaschema { place, uri });
    }
    let checked = catch_unwind(AssertUnwindSafe(|| {
        if needs_build(schema, 0) {
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(schema)
                .map(drop)
                .map_err(|e| SchemaError::Refused(explain(&e)))
        } else {
            jsonschema::draft202012::meta::validate(schema)
                .map_err(|e| SchemaError::Refused(explain(&e)))
        }
    }));
    checked.unwrap_or(Err(SchemaError::Panicked))
}

/// Keywords whose mistakes only building a validator reveals: regular expressions, references,
/// identifiers, another draft.
const BUILD_KEYWORDS: [&str; 9] = [
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "pattern",
    "patternProperties",
];

/// The meta-schemas of the drafts the validator knows, with and without the empty fragment.
const KNOWN_METASCHEMAS: [&str; 5] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];

/// The first `$schema` naming a meta-schema other than a known draft's, with its pointer: a custom
/// meta-schema lives elsewhere (it could change which keywords validate), and nothing is fetched.
fn unknown_metaschema(value: &Value, at: &str, depth: usize) -> Option<(String, String)> {
    if depth > 160 {
        return None;
    }
    match value {
        Value::Object(map) => {
            if let Some(Value::String(uri)) = map.get("$schema")
                && !KNOWN_METASCHEMAS.contains(&uri.trim_end_matches('#'))
            {
                return Some((at.to_owned(), uri.clone()));
            }
            map.iter().find_map(|(k, v)| {
                if matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    return None;
                }
                unknown_metaschema(
                    v,
                    &format!("{at}/{}", crate::diagnostic::escape_token(k)),
                    depth + 1,
                )
            })
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| unknown_metaschema(v, &format!("{at}/{i}"), depth + 1)),
        _ => None,
    }
}

fn needs_build(value: &Value, depth: usize) -> bool {
    // The parser caps nesting at 128; the bound only keeps this walk obviously finite.
    depth < 160
        && match value {
            Value::Object(map) => {
                map.keys().any(|k| BUILD_KEYWORDS.contains(&k.as_str()))
                    || map.values().any(|v| needs_build(v, depth + 1))
            }
            Value::Array(items) => items.iter().any(|v| needs_build(v, depth + 1)),
            _ => false,
        }
}

fn explain(e: &jsonschema::ValidationError<'_>) -> String {
    let at = e.instance_path().as_str();
    let text = if at.ends_with("/type") {
        // The meta-schema's `anyOf` for `type` explains nothing; say what is allowed.
        format!(
            "{} is not a JSON Schema type; use `string`, `number`, `integer`, `boolean`, `array`, \
             `object` or `null`",
            e.instance()
        )
    } else {
        e.to_string()
    };
    if at.is_empty() {
        text
    } else {
        format!("at `{at}` inside it: {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    fn schema_of_size(n: usize) -> Value {
        // `{"type":"object","description":""}` is 34 bytes before the description's text.
        json!({ "type": "object", "description": "x".repeat(n - 34) })
    }

    #[test]
    fn a_custom_meta_schema_is_refused_by_name() {
        let err = compile(&json!({
            "$schema": "http://localhost:1234/draft2020-12/metaschema-no-validation.json",
            "type": "object"
        }))
        .expect_err("refused")
        .to_string();
        assert!(err.contains("metaschema-no-validation.json"), "{err}");
        let err =
            compile(&json!({ "properties": { "a": { "$schema": "https://example.com/x" } } }))
                .expect_err("refused")
                .to_string();
        assert!(err.starts_with("at `/properties/a` inside it:"), "{err}");
        assert_eq!(
            compile(&json!({ "$schema": "https://json-schema.org/draft/2020-12/schema#" })),
            Ok(())
        );
        assert_eq!(
            compile(&json!({ "$schema": "http://json-schema.org/draft-07/schema#" })),
            Ok(())
        );
    }

    #[test]
    fn compact_len_matches_serde_json() {
        let v = json!({ "a": [1, 2, { "b": "c\"d" }] });
        assert_eq!(
            compact_len(&v),
            serde_json::to_string(&v).map(|s| s.len()).unwrap_or(0)
        );
    }

    #[test]
    fn input_schemas_up_to_16384_bytes_pass() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/ai/tools/0/input",
            schema_of_size(INPUT_SCHEMA_BYTES),
        );
        assert_eq!(
            compact_len(&schema_of_size(INPUT_SCHEMA_BYTES)),
            INPUT_SCHEMA_BYTES
        );
        assert!(run_rule(&doc, check_input_schema_size).is_empty());
        set(
            &mut doc,
            "/contributes/ai/tools/0/input",
            schema_of_size(INPUT_SCHEMA_BYTES + 1),
        );
        assert_eq!(
            run_rule(&doc, check_input_schema_size),
            vec![(
                Rule::InputSchemaSize,
                "/contributes/ai/tools/0/input".into()
            )]
        );
    }

    #[test]
    fn embedded_schemas_must_be_valid() {
        assert!(run_rule(&base(), check_embedded_schemas).is_empty());
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/ai/tools/0/input",
            json!({ "type": "strnig" }),
        );
        assert_eq!(
            run_rule(&doc, check_embedded_schemas),
            vec![(
                Rule::InvalidJsonSchema,
                "/contributes/ai/tools/0/input".into()
            )]
        );
    }

    #[test]
    fn procedure_outputs_and_payloads_are_checked_too() {
        let mut doc = base();
        set(
            &mut doc,
            "/server/procedures",
            json!({ "rank/history": { "input": {}, "output": { "minLength": -1 } } }),
        );
        set(
            &mut doc,
            "/contributes/webhooks/1/payload",
            json!({ "properties": { "a": { "pattern": "(" } } }),
        );
        assert_eq!(
            run_rule(&doc, check_embedded_schemas),
            vec![
                (
                    Rule::InvalidJsonSchema,
                    "/server/procedures/rank~1history/output".into()
                ),
                (
                    Rule::InvalidJsonSchema,
                    "/contributes/webhooks/1/payload".into()
                )
            ]
        );
    }

    #[test]
    fn a_repeated_invalid_schema_is_reported_at_each_place() {
        let mut doc = base();
        let bad = json!({ "type": "strnig" });
        set(
            &mut doc,
            "/server/procedures",
            json!({ "a": { "input": bad, "output": bad } }),
        );
        assert_eq!(
            run_rule(&doc, check_embedded_schemas),
            vec![
                (Rule::InvalidJsonSchema, "/server/procedures/a/input".into()),
                (
                    Rule::InvalidJsonSchema,
                    "/server/procedures/a/output".into()
                )
            ]
        );
    }

    #[test]
    fn key_patterns_that_backtrack_are_refused_where_requests_are_checked() {
        let costly = json!({ "patternProperties": { "^(?!x)": { "type": "string" }, "^y": {} } });
        let mut doc = base();
        set(&mut doc, "/contributes/ai/tools/0/input", costly.clone());
        assert_eq!(
            run_rule(&doc, check_key_patterns),
            vec![(
                Rule::KeyPattern,
                "/contributes/ai/tools/0/input/patternProperties/^(?!x)".into()
            )]
        );
        // A value pattern spends the budget, and a webhook's payload is the vendor's own event.
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/ai/tools/0/input",
            json!({ "properties": { "a": { "pattern": "(?=a)a" } } }),
        );
        set(&mut doc, "/contributes/webhooks/1/payload", costly);
        assert!(run_rule(&doc, check_key_patterns).is_empty());
    }

    #[test]
    fn remote_references_are_refused_not_fetched() {
        let schema = json!({ "$ref": "https://schemas.example/thing.json" });
        assert!(compile(&schema).is_err());
    }
}
