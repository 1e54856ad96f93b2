//! Reading a manifest's text into a JSON value while keeping the way back to lines and columns.
//!
//! `serde_json` is the judge of well-formedness (strict JSON, nesting capped at 128 levels, precise error
//! positions). Positions of values are only needed when something is reported, so the position index
//! (a `jsonc-parser` syntax tree over the same text) is built lazily, on the first diagnostic.

use std::cell::OnceCell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::diagnostic::{escape_token, pointer_tokens};

/// The parsed document plus what parsing noticed beyond syntax.
pub(crate) struct Parsed {
    pub value: Value,
    /// Pointers of members written a second time in the same object (the later one wins in `value`).
    pub duplicate_keys: Vec<String>,
}

/// A syntax error at a 1-based line and character column.
pub(crate) struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses strict JSON, recording duplicate member names.
pub(crate) fn parse(text: &str) -> Result<Parsed, SyntaxError> {
    let mut duplicate_keys = Vec::new();
    let mut path = String::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = ValueSeed {
        path: &mut path,
        duplicate_keys: &mut duplicate_keys,
    };
    let value = seed
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| syntax_error(text, &e))?;
    Ok(Parsed {
        value,
        duplicate_keys,
    })
}

fn syntax_error(text: &str, e: &serde_json::Error) -> SyntaxError {
    let line = e.line().max(1);
    // serde_json counts the column in bytes; editors count characters.
    let line_text = text.split('\n').nth(line - 1).unwrap_or("");
    let mut byte_col = e.column().min(line_text.len());
    while !line_text.is_char_boundary(byte_col) {
        byte_col -= 1;
    }
    let column = line_text[..byte_col].chars().count().max(1);
    let message = match e.classify() {
        serde_json::error::Category::Eof => {
            "the file ends before the JSON document is complete; check for a missing `}` or `]`"
                .to_owned()
        }
        _ => {
            // serde_json's Display appends " at line L column C", which we report ourselves.
            let full = e.to_string();
            let cut = full.rfind(" at line ").unwrap_or(full.len());
            let mut msg = full[..cut].to_owned();
            if msg.contains("trailing comma") {
                msg.push_str("; JSON allows no comma after the last entry");
            } else if msg.contains("recursion limit") {
                msg = "values are nested more than 128 levels deep".to_owned();
            } else if msg.contains("key must be a string") {
                msg.push_str("; member names need double quotes");
            }
            format!("malformed JSON: {msg}")
        }
    };
    SyntaxError {
        line,
        column,
        message,
    }
}

/// Builds a `serde_json::Value` like its own `Deserialize` impl, keeping the JSON pointer of the value
/// being read so that a repeated member name can be reported where it is.
struct ValueSeed<'p> {
    path: &'p mut String,
    duplicate_keys: &'p mut Vec<String>,
}

impl ValueSeed<'_> {
    fn child(&mut self) -> ValueSeed<'_> {
        ValueSeed {
            path: self.path,
            duplicate_keys: self.duplicate_keys,
        }
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        let len = self.path.len();
        loop {
            self.path.truncate(len);
            self.path.push('/');
            self.path.push_str(&out.len().to_string());
            match seq.next_element_seed(self.child())? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        self.path.truncate(len);
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let len = self.path.len();
        while let Some(key) = map.next_key::<String>()? {
            self.path.truncate(len);
            self.path.push('/');
            self.path.push_str(&escape_token(&key));
            let value = map.next_value_seed(self.child())?;
            if out.insert(key, value).is_some() {
                self.duplicate_keys.push(self.path.clone());
            }
        }
        self.path.truncate(len);
        Ok(Value::Object(out))
    }
}

/// Which part of an object member a position should point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The value (for a missing member: the object that should hold it).
    Value,
    /// The member's name, for findings about the name itself (unknown or repeated members).
    Key,
}

/// Maps JSON pointers and byte offsets of one text to 1-based lines and character columns.
pub(crate) struct Positions<'t> {
    text: &'t str,
    line_starts: OnceCell<Vec<usize>>,
    tree: OnceCell<Option<jsonc_parser::ast::Value<'t>>>,
}

impl<'t> Positions<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Positions {
            text,
            line_starts: OnceCell::new(),
            tree: OnceCell::new(),
        }
    }

    /// The line and column of `pointer`, or of its deepest ancestor that exists.
    pub(crate) fn locate(&self, pointer: &str, target: Target) -> (usize, usize) {
        let offset = self
            .tree()
            .map_or(0, |root| offset_of(root, pointer, target));
        self.line_col(offset)
    }

    fn tree(&self) -> Option<&jsonc_parser::ast::Value<'t>> {
        self.tree
            .get_or_init(|| {
                let strict = jsonc_parser::ParseOptions {
                    allow_comments: false,
                    allow_loose_object_property_names: false,
                    allow_trailing_commas: false,
                    allow_missing_commas: false,
                    allow_single_quoted_strings: false,
                    allow_hexadecimal_numbers: false,
                    allow_unary_plus_numbers: false,
                    ..Default::default()
                };
                let collect = jsonc_parser::CollectOptions::default();
                jsonc_parser::parse_to_ast(self.text, &collect, &strict)
                    .ok()
                    .and_then(|r| r.value)
            })
            .as_ref()
    }

    /// 1-based line and character column of a byte offset.
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let offset = offset.min(self.text.len());
        let line = starts.partition_point(|&s| s <= offset).max(1);
        let start = starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count())
            + 1;
        (line, column)
    }
}

fn offset_of(root: &jsonc_parser::ast::Value<'_>, pointer: &str, target: Target) -> usize {
    use jsonc_parser::ast::Value as V;
    use jsonc_parser::common::Ranged;

    let mut node = root;
    let tokens: Vec<String> = pointer_tokens(pointer).collect();
    for (i, token) in tokens.iter().enumerate() {
        let last = i + 1 == tokens.len();
        let next = match node {
            V::Object(obj) => match obj
                .properties
                .iter()
                .rev()
                .find(|p| p.name.as_str() == token)
            {
                Some(prop) if last && target == Target::Key => return prop.name.start(),
                Some(prop) => Some(&prop.value),
                None => None,
            },
            V::Array(arr) => token
                .parse::<usize>()
                .ok()
                .and_then(|i| arr.elements.get(i)),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    node.start()
}
