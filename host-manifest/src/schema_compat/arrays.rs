//! Array keywords: `items`, whose schema is compared in turn, and `uniqueItems`.

use serde_json::Value;

use super::{Effect, Node};

impl Node<'_> {
    /// `items`: two schemas are compared as the schema of every item; gaining a schema narrows
    /// and losing it widens.
    pub(super) fn compare_items(&mut self) {
        match (self.old.get("items"), self.new.get("items")) {
            (Some(x), Some(y)) => {
                let at = format!("{}/*", self.at);
                self.descend("items", x, y, &at);
            }
            (None, Some(_)) => self.push(
                "items",
                Effect::Narrows,
                "array items gain a schema".to_owned(),
            ),
            (Some(_), None) => self.push(
                "items",
                Effect::Widens,
                "array items lose their schema".to_owned(),
            ),
            (None, None) => {}
        }
    }

    /// `uniqueItems`: turning it on narrows, turning it off widens.
    pub(super) fn compare_unique_items(&mut self) {
        match (self.old.get("uniqueItems"), self.new.get("uniqueItems")) {
            (x, y) if x == y => {}
            (_, Some(Value::Bool(true))) => self.push(
                "uniqueItems",
                Effect::Narrows,
                "repeated items are no longer accepted".to_owned(),
            ),
            (Some(Value::Bool(true)), _) => self.push(
                "uniqueItems",
                Effect::Widens,
                "repeated items are now accepted".to_owned(),
            ),
            _ => {}
        }
    }
}
