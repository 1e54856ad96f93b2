//! Which of a schema's regular expressions need the backtracking engine, and which schemas the
//! runtime checks per request.
//!
//! jsonschema runs a pattern on the `regex` crate's linear-time engine unless it needs lookaround or
//! a backreference; then `fancy-regex` backtracks, up to 1,000,000 steps a match. A request's
//! `pattern`s share a budget the runtime keeps (`host_runtime::check::PATTERN_BUDGET`); what cannot
//! spend that budget must not backtrack:
//!
//! - the patterns of `patternProperties` are matched against every key by jsonschema itself (also
//!   for `additionalProperties` and `unevaluatedProperties`), out of the budget's reach, so in a
//!   schema checked per request the manifest rule `key-pattern` refuses one that backtracks;
//! - a validator generated at compile time cannot be stopped part-way, so a schema checked per
//!   request whose patterns backtrack gets none, and the runtime compiles it with the budget.

use serde_json::Value;

use crate::diagnostic::escape_token;

/// One regular expression of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Where it is, relative to the schema's root: a `pattern` member's value, or a
    /// `patternProperties` member's name.
    pub pointer: String,
    /// The expression as written (ECMA-262 syntax).
    pub text: String,
    /// Whether it is matched against keys (a `patternProperties` name) rather than string values.
    pub on_keys: bool,
}

/// Whether `pattern` compiles only for the backtracking engine: it needs lookaround or a
/// backreference. A pattern that does not compile at all is not one (the `invalid-json-schema` rule
/// reports it).
pub fn needs_backtracking(pattern: &str) -> bool {
    let schema = serde_json::json!({ "pattern": pattern });
    let builds = |linear: bool| {
        let options = jsonschema::options().with_draft(jsonschema::Draft::Draft202012);
        let built = match linear {
            true => options
                .with_pattern_options(jsonschema::PatternOptions::regex())
                .build(&schema),
            false => options.build(&schema),
        };
        built.is_ok()
    };
    // The translation and both engines are third-party code fed with a manifest's text: a panic is
    // read as "does not compile", never passed on.
    std::panic::catch_unwind(|| !builds(true) && builds(false)).unwrap_or(false)
}

/// Every pattern of `schema` (`pattern` values and `patternProperties` names), whichever engine
/// runs it; [`needs_backtracking`] tells which.
pub fn patterns(schema: &Value) -> Vec<Pattern> {
    let mut found = Vec::new();
    walk(schema, String::new(), 0, &mut found);
    found
}

/// Every pattern of `schema` that needs the backtracking engine, in document order.
pub fn backtracking(schema: &Value) -> impl Iterator<Item = Pattern> {
    patterns(schema)
        .into_iter()
        .filter(|p| needs_backtracking(&p.text))
}

/// Keywords whose values are data, not schemas: a `pattern` inside them is no pattern.
const DATA_KEYWORDS: [&str; 4] = ["enum", "const", "default", "examples"];

fn walk(value: &Value, at: String, depth: usize, found: &mut Vec<Pattern>) {
    // The parser caps nesting at 128; the bound only keeps the walk obviously finite.
    if depth > 160 {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get("pattern") {
                found.push(Pattern {
                    pointer: format!("{at}/pattern"),
                    text: text.clone(),
                    on_keys: false,
                });
            }
            if let Some(Value::Object(keys)) = map.get("patternProperties") {
                for key in keys.keys() {
                    found.push(Pattern {
                        pointer: format!("{at}/patternProperties/{}", escape_token(key)),
                        text: key.clone(),
                        on_keys: true,
                    });
                }
            }
            for (key, v) in map {
                if !DATA_KEYWORDS.contains(&key.as_str()) {
                    walk(v, format!("{at}/{}", escape_token(key)), depth + 1, found);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(v, format!("{at}/{i}"), depth + 1, found);
            }
        }
        _ => {}
    }
}

/// Whether the schema at `pointer` of a manifest is checked against what a request brings (a tool's
/// or action's `input`, a procedure's `input`) or what the server answers it with (a procedure's
/// `output`), under the request's pattern budget. The other schemas describe the vendor's own
/// events, documents and settings.
pub fn checked_per_request(pointer: &str) -> bool {
    let tokens: Vec<&str> = pointer.split('/').collect();
    matches!(
        tokens.as_slice(),
        ["", "contributes", "ai", "tools" | "actions", _, "input"]
            | ["", "server", "procedures", _, "input" | "output"]
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lookaround_and_backreferences_backtrack_the_rest_does_not() {
        for linear in [
            "^[a-z]+$",
            "^\\d{3}-\\w+$",
            "(a|b)*c",
            "^https://",
            "\\p{L}+",
            "^\\/x$",
        ] {
            assert!(!needs_backtracking(linear), "{linear}");
        }
        for costly in [
            "^(?!(a|a)*\\1b).*$",
            "(?=a)a",
            "(a)\\1",
            "(?<=x)y",
            "(?<!x)y",
        ] {
            assert!(needs_backtracking(costly), "{costly}");
        }
        assert!(
            !needs_backtracking("("),
            "an invalid pattern is another rule's"
        );
    }

    #[test]
    fn patterns_are_found_with_their_place_and_data_is_skipped() {
        let schema = json!({
            "properties": {
                "tags": { "type": "array", "items": { "pattern": "(?=t)t" } },
                "plain": { "pattern": "^[a-z]+$" },
                "pattern": { "const": { "pattern": "(a)\\1" } }
            },
            "patternProperties": { "^(?!x)": {}, "^y": {} },
            "$defs": { "a/b": { "propertyNames": { "pattern": "(?<=a)b" } } },
            "examples": [{ "pattern": "(?=z)" }]
        });
        let found: Vec<Pattern> = backtracking(&schema).collect();
        let mut places: Vec<(&str, bool)> = found
            .iter()
            .map(|p| (p.pointer.as_str(), p.on_keys))
            .collect();
        places.sort();
        assert_eq!(
            places,
            [
                ("/$defs/a~1b/propertyNames/pattern", false),
                ("/patternProperties/^(?!x)", true),
                ("/properties/tags/items/pattern", false),
            ]
        );
    }

    #[test]
    fn request_schemas_are_inputs_and_procedure_outputs() {
        for yes in [
            "/contributes/ai/tools/0/input",
            "/contributes/ai/actions/12/input",
            "/server/procedures/rank~1history/input",
            "/server/procedures/p/output",
        ] {
            assert!(checked_per_request(yes), "{yes}");
        }
        for no in [
            "/contributes/ai/prompts/0/input",
            "/contributes/webhooks/0/payload",
            "/contributes/storage/notes/schema",
            "/contributes/settings/schema",
            "/contributes/ai/tools/0/input/properties",
        ] {
            assert!(!checked_per_request(no), "{no}");
        }
    }
}
