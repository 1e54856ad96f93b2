//! Structure-aware inputs: manifests that start as a valid fixture and change member by member, and
//! JSON values drawn from the words the manifest schema and JSON Schema use. Random bytes rarely
//! get past the engine's first checks; these reach the cross-field rules and the generator.

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value};

/// The valid fixture manifests every structured manifest starts from.
const BASES: &[&str] = &[
    include_str!("../../host-manifest/tests/fixtures/valid/minimal/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json"),
    include_str!(
        "../../host-manifest/tests/fixtures/valid/all-published-events/host.extension.json"
    ),
    include_str!("../../host-manifest/tests/fixtures/valid/crash-oauth/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/docs-assistant/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/org-install/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/procedures-only/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/public-listing/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/status-banner/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/widgets-every-slot/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/with-warnings/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/work-chat/host.extension.json"),
    include_str!("../../host-manifest/tests/fixtures/valid/work-tracker/host.extension.json"),
    include_str!(
        "../../host-manifest/tests/fixtures/valid/same-id-across-kinds/host.extension.json"
    ),
];

/// JSON Schema words the embedded schemas use, and values that have broken parsers before.
const SCHEMA_WORDS: &[&str] = &[
    "type",
    "object",
    "string",
    "integer",
    "number",
    "boolean",
    "array",
    "null",
    "properties",
    "required",
    "items",
    "prefixItems",
    "additionalProperties",
    "patternProperties",
    "enum",
    "const",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "definitions",
    "$id",
    "$schema",
    "default",
    "description",
    "title",
    "date-time",
    "uri",
    "#",
    "#/$defs/a",
    "#/definitions/a",
    "(a+)+$",
    "^[a-z]+$",
    "\\p{L}",
    "[",
    "",
    " ",
    "a",
    "é",
    "\u{0}",
    "\u{feff}",
    "\u{1F600}",
    "type",
    "Self",
    "r#type",
    "crate",
    "1abc",
    "a-b",
    "a_b",
    "A",
    "__",
];

/// Every member name and enum value of the manifest's own schema, then [`SCHEMA_WORDS`].
fn words() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut out: Vec<String> = SCHEMA_WORDS.iter().map(|w| (*w).to_owned()).collect();
        if let Ok(schema) = serde_json::from_str::<Value>(host_manifest::SCHEMA_JSON) {
            collect_words(&schema, &mut out);
        }
        for e in host_manifest::catalogue::EVENTS {
            out.push(e.name.to_owned());
        }
        out.sort();
        out.dedup();
        out
    })
}

fn collect_words(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "properties"
                    && let Value::Object(props) = v
                {
                    out.extend(props.keys().cloned());
                }
                if k == "enum" || k == "const" {
                    collect_strings(v, out);
                }
                collect_words(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_words(v, out)),
        _ => {}
    }
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// A string: a word of the manifest schema, a word of JSON Schema, or arbitrary text.
pub fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => u.choose(words())?.clone(),
        2 => {
            let word = u.choose(words())?.clone();
            let suffix: String = u.arbitrary()?;
            format!("{word}{suffix}")
        }
        _ => u.arbitrary()?,
    })
}

/// A number that sits at an edge: zero, one, signs, the integer limits, fractions, 2^53.
fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => Value::from(0),
        1 => Value::from(1),
        2 => Value::from(-1),
        3 => Value::from(i64::MAX),
        4 => Value::from(u64::MAX),
        5 => Value::from(i64::MIN),
        6 => Value::from(9_007_199_254_740_993u64),
        7 => serde_json::Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
        8 => Value::from(u.arbitrary::<i64>()?),
        _ => Value::from(u.int_in_range(0..=1000u32)?),
    })
}

/// A JSON value at most `depth` levels deep.
pub fn value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let last = if depth == 0 { 3 } else { 6 };
    Ok(match u.int_in_range(0..=last)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => number(u)?,
        3 => Value::String(string(u)?),
        4 => {
            let n = u.int_in_range(0..=4usize)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(value(u, depth - 1)?);
            }
            Value::Array(items)
        }
        5 => schema(u, depth - 1)?,
        _ => {
            let n = u.int_in_range(0..=4usize)?;
            let mut map = Map::new();
            for _ in 0..n {
                map.insert(string(u)?, value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

/// A small JSON Schema object: a type, and some keywords with values.
fn schema(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let mut map = Map::new();
    let ty = *u.choose(&[
        "object", "string", "integer", "number", "boolean", "array", "null",
    ])?;
    map.insert("type".into(), Value::from(ty));
    let n = u.int_in_range(0..=3usize)?;
    for _ in 0..n {
        let keyword = (*u.choose(&SCHEMA_WORDS[8..36])?).to_owned();
        let v = if depth == 0 {
            number(u)?
        } else {
            value(u, depth - 1)?
        };
        map.insert(keyword, v);
    }
    Ok(Value::Object(map))
}

/// Every JSON pointer of `v` (as token lists), the root first.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                at.push(k.clone());
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(i.to_string());
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'v>(v: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    let mut at = v;
    for token in path {
        at = match at {
            Value::Object(map) => map.get_mut(token)?,
            Value::Array(items) => items.get_mut(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

fn get<'v>(v: &'v Value, path: &[String]) -> Option<&'v Value> {
    let mut at = v;
    for token in path {
        at = match at {
            Value::Object(map) => map.get(token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// One change to `doc`: a member replaced, removed, added, copied from elsewhere in the document,
/// or a list item repeated.
fn mutate(u: &mut Unstructured<'_>, doc: &mut Value) -> Result<()> {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    let path = u.choose(&all)?.clone();
    match u.int_in_range(0..=6u8)? {
        // Replace the value.
        0 | 1 => {
            let new = value(u, 3)?;
            if let Some(slot) = get_mut(doc, &path) {
                *slot = new;
            }
        }
        // Remove it from its parent.
        2 => {
            if let Some((last, parent)) = path.split_last()
                && let Some(parent) = get_mut(doc, parent)
            {
                match parent {
                    Value::Object(map) => {
                        map.remove(last);
                    }
                    Value::Array(items) => {
                        if let Ok(i) = last.parse::<usize>()
                            && i < items.len()
                        {
                            items.remove(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        // Add a member or an item.
        3 => {
            let (key, new) = (string(u)?, value(u, 3)?);
            match get_mut(doc, &path) {
                Some(Value::Object(map)) => {
                    map.insert(key, new);
                }
                Some(Value::Array(items)) => items.push(new),
                _ => {}
            }
        }
        // Copy another part of the document here (a tool's schema into a webhook, ...).
        4 => {
            let from = u.choose(&all)?.clone();
            if let Some(copy) = get(doc, &from).cloned()
                && let Some(slot) = get_mut(doc, &path)
            {
                *slot = copy;
            }
        }
        // Repeat an item of a list (duplicate ids, keys, events).
        5 => {
            if let Some(Value::Array(items)) = get_mut(doc, &path)
                && !items.is_empty()
            {
                let i = u.choose_index(items.len())?;
                let copy = items[i].clone();
                items.push(copy);
            }
        }
        // Change a string a little: a word appended, or cut.
        _ => {
            if let Some(Value::String(s)) = get_mut(doc, &path) {
                if u.arbitrary()? {
                    let cut = s.char_indices().map(|(i, _)| i).nth(1).unwrap_or(0);
                    s.truncate(cut);
                } else {
                    let word = string(u)?;
                    s.push_str(&word);
                }
            }
        }
    }
    Ok(())
}

/// The fixture a structured manifest starts from, as JSON.
pub fn base(u: &mut Unstructured<'_>) -> Result<Value> {
    let text = *u.choose(BASES)?;
    Ok(serde_json::from_str(text).unwrap_or(Value::Null))
}

/// Up to eight changes to `doc`.
pub fn mutated(u: &mut Unstructured<'_>, mut doc: Value) -> Result<Value> {
    let n = u.int_in_range(0..=8u8)?;
    for _ in 0..n {
        mutate(u, &mut doc)?;
    }
    Ok(doc)
}

/// `doc` as manifest text: pretty (as vendors write it) or on one line.
pub fn text(u: &mut Unstructured<'_>, doc: &Value) -> Result<String> {
    Ok(if u.arbitrary()? {
        serde_json::to_string_pretty(doc).unwrap_or_default()
    } else {
        doc.to_string()
    })
}

/// A structured manifest: a fixture with up to eight changes, as text.
pub fn manifest(u: &mut Unstructured<'_>) -> Result<String> {
    let doc = base(u)?;
    let doc = mutated(u, doc)?;
    text(u, &doc)
}
