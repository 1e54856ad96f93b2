//! The names typify gives the types it makes for nested schemas, foreseen before it runs.
//!
//! typify names a nested type after the type around it: the object at member `user` of `Input` is
//! `InputUser`, the items of an array `InputUserTagsItem`, the inside of a type that may be `null`
//! `UserInner`, a union's variants `...Variant0`. It gives the definitions it is handed the names
//! they come with, and a nested type whose name is already a definition's silently becomes that
//! definition (or, for some shapes, a second item of that name). So the lowering pass must name no
//! definition as typify will name a nested type: [`clashing`] finds the definitions that would be,
//! and the module is lowered again with those names reserved.
//!
//! The names are foreseen generously (every name typify might give, a few it will not): a name
//! reserved in vain only costs a definition a number after its name.

use std::collections::{BTreeSet, HashSet};

use heck::ToUpperCamelCase;
use serde_json::Value;

/// The definitions of lowered roots, `(schema, root type name)`, whose names typify would also give
/// to a nested type.
pub(super) fn clashing<'a>(roots: impl IntoIterator<Item = (&'a Value, &'a str)>) -> Vec<String> {
    let mut named: Vec<(&str, &Value)> = Vec::new();
    let mut definitions: BTreeSet<&str> = BTreeSet::new();
    for (schema, root) in roots {
        named.push((root, schema));
        for (name, definition) in schema
            .get("definitions")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            named.push((name, definition));
            definitions.insert(name);
        }
    }
    let mut nested = HashSet::new();
    for (name, schema) in named {
        foresee(name, schema, &mut nested, 0);
    }
    definitions
        .into_iter()
        .filter(|d| nested.contains(*d))
        .map(str::to_owned)
        .collect()
}

/// typify's spelling of a name made of a type's name and a member's: `Input` and `user_id` make
/// `InputUserId`.
fn joined(parent: &str, member: &str) -> String {
    format!("{parent}_{member}")
        .replace('\'', "")
        .replace(|c: char| !unicode_ident::is_xid_continue(c), "-")
        .to_upper_camel_case()
}

/// Adds to `out` the names of the types typify may make inside `schema`, a type named `name`.
fn foresee(name: &str, schema: &Value, out: &mut HashSet<String>, depth: usize) {
    let Value::Object(map) = schema else { return };
    if depth > 64 {
        return;
    }
    // A definition's own name is no nested type's; what typify makes inside it is.
    let child = |child_name: String, child: Option<&Value>, out: &mut HashSet<String>| {
        out.insert(format!("{child_name}Inner"));
        if let Some(child) = child {
            foresee(&child_name, child, out, depth + 1);
        }
        out.insert(child_name);
    };
    child(format!("{name}Inner"), None, out);
    for (member, schema) in map
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        child(joined(name, member), Some(schema), out);
    }
    if let Some(items) = map.get("items") {
        match items {
            Value::Array(items) => {
                for item in items {
                    child(format!("{name}Item"), Some(item), out);
                }
            }
            item => child(format!("{name}Item"), Some(item), out),
        }
    }
    if let Some(value) = map.get("additionalProperties") {
        child(format!("{name}Key"), None, out);
        child(format!("{name}Value"), Some(value), out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, branch) in map
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            child(format!("{name}Variant{i}"), Some(branch), out);
            child(format!("{name}Subtype{i}"), Some(branch), out);
            // A variant told apart by a constant member is named after that constant.
            for constant in branch
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|p| p.values())
                .filter_map(|p| p.get("const").or_else(|| p.get("enum")?.get(0)))
                .filter_map(Value::as_str)
            {
                child(joined(name, constant), Some(branch), out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_definition_named_like_a_member_type_or_items_clashes() {
        let input = json!({
            "type": "object",
            "properties": {
                "foo": { "type": "object" },
                "tags": { "type": "array", "items": { "type": "string" } }
            },
            "definitions": {
                "InputFoo": { "type": "object" },
                "InputTagsItem": { "type": "string" },
                "User": { "type": "object", "properties": { "id": { "type": "integer" } } },
                "UserId": { "type": "integer" },
                "Elsewhere": { "type": "string" }
            }
        });
        assert_eq!(
            clashing([(&input, "Input")]),
            ["InputFoo", "InputTagsItem", "UserId"]
        );
    }

    #[test]
    fn names_are_joined_as_typify_joins_them() {
        assert_eq!(joined("Input", "user_id"), "InputUserId");
        assert_eq!(joined("Input", "update-types"), "InputUpdateTypes");
        assert_eq!(joined("User2", "login"), "User2Login");
    }
}
