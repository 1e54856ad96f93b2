//! Array keywords: `prefixItems`, typed as a tuple or as an array of one element type. `items`
//! alone is lowered as any keyword holding one schema is (see `Cx::lower_each`).

use serde_json::{Value, json};

use super::{Cx, Draft};

impl Cx<'_> {
    /// `prefixItems`: a tuple when the array holds exactly those items, else an array of JSON values.
    pub(super) fn lower_prefix_items(&mut self, draft: &mut Draft<'_>) {
        let (map, pointer, out) = (draft.map, draft.pointer, &mut draft.out);
        let Some(Value::Array(prefix)) = map.get("prefixItems") else {
            return;
        };
        let n = prefix.len() as u64;
        // `unevaluatedItems: false` closes the array too when nothing else in this node can
        // evaluate items.
        let in_place = [
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "if",
            "then",
            "else",
            "$ref",
            "$dynamicRef",
        ];
        let closed = map.get("items") == Some(&Value::Bool(false))
            || (!map.contains_key("items")
                && map.get("unevaluatedItems") == Some(&Value::Bool(false))
                && !in_place.iter().any(|k| map.contains_key(*k)));
        let exact = map.get("minItems").and_then(Value::as_u64) == Some(n);
        if closed && exact && n > 0 {
            let items = prefix
                .iter()
                .enumerate()
                .map(|(i, s)| self.node(s, &format!("{pointer}/prefixItems/{i}"), false))
                .collect();
            out.insert("items".to_owned(), Value::Array(items));
            out.insert("maxItems".to_owned(), json!(n));
            out.insert("minItems".to_owned(), json!(n));
            out.remove("additionalItems");
        } else {
            // One element type fits when every leading item and every later one (if any may follow)
            // has the same type; otherwise the elements are JSON values.
            let mut kinds: Vec<Value> = prefix
                .iter()
                .enumerate()
                .map(|(i, s)| self.node(s, &format!("{pointer}/prefixItems/{i}"), false))
                .collect();
            if !closed {
                kinds.push(match map.get("items") {
                    None | Some(Value::Bool(true)) => json!({}),
                    Some(rest) => self.node(rest, &format!("{pointer}/items"), false),
                });
            }
            match kinds.split_first() {
                Some((one, rest)) if rest.iter().all(|k| k == one) => {
                    out.insert("items".to_owned(), one.clone());
                }
                _ => {
                    out.insert("items".to_owned(), json!({}));
                    self.fallback(
                        &format!("{pointer}/prefixItems"),
                        "`prefixItems` of different types on an array that may hold more or fewer items: its items are typed as JSON"
                            .to_owned(),
                    );
                }
            }
        }
    }
}
