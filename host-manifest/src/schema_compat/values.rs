//! `enum` and `const`: the schema lists the values it accepts, compared value by value.

use serde_json::{Map, Value};

use super::{Effect, Node};

impl Node<'_> {
    /// `enum` and `const`, as one list of accepted values: gaining a list narrows, losing it
    /// widens, and between two lists each value removed narrows and each value added widens.
    /// The change is reported at `const` when either version has one.
    pub(super) fn compare_enum_and_const(&mut self) {
        let (old, new) = (self.old, self.new);
        if old.get("enum") == new.get("enum") && old.get("const") == new.get("const") {
            return;
        }
        let member = if new.contains_key("const") || old.contains_key("const") {
            "const"
        } else {
            "enum"
        };
        match (accepted_values(old), accepted_values(new)) {
            (None, Some(v)) => self.push(
                member,
                Effect::Narrows,
                format!("only {} accepted now", list_values(&v)),
            ),
            (Some(_), None) => self.push(
                member,
                Effect::Widens,
                "any value of the type is accepted now".to_owned(),
            ),
            (Some(was), Some(now)) => {
                let removed: Vec<Value> =
                    was.iter().filter(|v| !now.contains(v)).cloned().collect();
                let added: Vec<Value> = now.iter().filter(|v| !was.contains(v)).cloned().collect();
                if !removed.is_empty() {
                    self.push(
                        member,
                        Effect::Narrows,
                        format!("{} no longer accepted", list_values(&removed)),
                    );
                }
                if !added.is_empty() {
                    self.push(
                        member,
                        Effect::Widens,
                        format!("{} now accepted", list_values(&added)),
                    );
                }
            }
            (None, None) => {}
        }
    }
}

/// The values a schema's `enum` (or, without one, its `const`) allows; `None` when it lists none.
fn accepted_values(s: &Map<String, Value>) -> Option<Vec<Value>> {
    match (s.get("enum"), s.get("const")) {
        (Some(Value::Array(e)), _) => Some(e.clone()),
        (_, Some(c)) => Some(vec![c.clone()]),
        _ => None,
    }
}

/// Values for a sentence, as JSON, separated by commas.
fn list_values(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
