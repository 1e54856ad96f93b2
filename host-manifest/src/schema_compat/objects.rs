//! Object keywords: `required`, `additionalProperties` and `properties`, whose subschemas are
//! compared in turn.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Effect, Node};
use crate::escape_token;

impl Node<'_> {
    /// `required`: each name that becomes required narrows, each that stops being required widens.
    pub(super) fn compare_required(&mut self) {
        let (old, new) = (required(self.old), required(self.new));
        for name in new.difference(&old) {
            self.push(
                "required",
                Effect::Narrows,
                format!("`{name}` becomes required"),
            );
        }
        for name in old.difference(&new) {
            self.push(
                "required",
                Effect::Widens,
                format!("`{name}` is no longer required"),
            );
        }
    }

    /// `additionalProperties`: two schemas are compared as the schema of every member not named;
    /// otherwise only closing (`false`) or opening the object has a known direction.
    pub(super) fn compare_additional_properties(&mut self) {
        let key = "additionalProperties";
        match (self.old.get(key), self.new.get(key)) {
            (x, y) if x == y => {}
            (Some(x @ Value::Object(_)), Some(y @ Value::Object(_))) => {
                let at = format!("{}/*", self.at);
                self.descend(key, x, y, &at);
            }
            _ if !closed(self.old) && closed(self.new) => self.push(
                key,
                Effect::Narrows,
                "members it does not name are no longer accepted".to_owned(),
            ),
            _ if closed(self.old) && !closed(self.new) => self.push(
                key,
                Effect::Widens,
                "members it does not name are now accepted".to_owned(),
            ),
            _ => self.push(
                key,
                Effect::Unknown,
                "`additionalProperties` changes".to_owned(),
            ),
        }
    }

    /// `properties`: a property in both versions is compared as a schema of its own. One that goes
    /// is refused from then on if the object is closed, and accepted with any value if not; one
    /// that comes is an addition (even when the old object was open and accepted it already).
    pub(super) fn compare_properties(&mut self) {
        let none = Map::new();
        let (old, new) = (properties(self.old, &none), properties(self.new, &none));
        let new_closed = closed(self.new);
        for (name, x) in old {
            let token = escape_token(name);
            match new.get(name) {
                Some(y) => {
                    let at = format!("{}/{token}", self.at);
                    self.descend(&format!("properties/{token}"), x, y, &at);
                }
                None if new_closed => self.push(
                    "properties",
                    Effect::Narrows,
                    format!("`{name}` is removed and no longer accepted"),
                ),
                None => self.push(
                    "properties",
                    Effect::Widens,
                    format!("`{name}` is no longer described, so any value is accepted"),
                ),
            }
        }
        let now_required = required(self.new);
        for name in new.keys().filter(|n| !old.contains_key(*n)) {
            let sentence = if now_required.contains(name) {
                format!("new property `{name}`")
            } else {
                format!("new optional property `{name}`")
            };
            self.push(
                &format!("properties/{}", escape_token(name)),
                Effect::Widens,
                sentence,
            );
        }
    }
}

/// The names a schema's `required` lists.
fn required(s: &Map<String, Value>) -> BTreeSet<String> {
    s.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// Whether a schema refuses the members its `properties` do not name.
fn closed(s: &Map<String, Value>) -> bool {
    s.get("additionalProperties") == Some(&Value::Bool(false))
}

/// A schema's `properties`, or `none` when it has none.
fn properties<'a>(
    s: &'a Map<String, Value>,
    none: &'a Map<String, Value>,
) -> &'a Map<String, Value> {
    s.get("properties")
        .and_then(Value::as_object)
        .unwrap_or(none)
}
