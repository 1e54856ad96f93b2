//! Where a kind of value sits in the raw manifest, for the tables that both a rule (reading raw JSON)
//! and a later stage (reading the typed model) iterate: [`crate::names::NameKind`] and
//! [`crate::files::FileKind`].

use serde_json::Value;

use crate::diagnostic::escape_token;

/// Where the values of one kind are written in the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// One string at a pointer.
    Value(&'static str),
    /// A member of each element of an array: `(array pointer, member)`.
    Items(&'static str, &'static str),
    /// The strings of an array.
    Strings(&'static str),
    /// The member names of an object.
    Keys(&'static str),
}

impl Place {
    /// Each string written at this place in `root`, with its pointer, in document order. Values of
    /// another JSON type are skipped (the schema pass reports them).
    pub(crate) fn strings(self, root: &Value) -> Vec<(String, &str)> {
        let array = |at: &str| {
            root.pointer(at)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        };
        match self {
            Place::Value(at) => root
                .pointer(at)
                .and_then(Value::as_str)
                .map(|s| (at.to_owned(), s))
                .into_iter()
                .collect(),
            Place::Items(at, member) => array(at)
                .enumerate()
                .filter_map(|(i, v)| {
                    let name = v.get(member).and_then(Value::as_str)?;
                    Some((format!("{at}/{i}/{member}"), name))
                })
                .collect(),
            Place::Strings(at) => array(at)
                .enumerate()
                .filter_map(|(i, v)| Some((format!("{at}/{i}"), v.as_str()?)))
                .collect(),
            Place::Keys(at) => root
                .pointer(at)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(k, _)| (format!("{at}/{}", escape_token(k)), k.as_str()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_place_finds_its_strings_and_skips_other_types() {
        let doc = json!({
            "icon": "i.png",
            "list": [{ "id": "a" }, { "id": 3 }, { "id": "c" }],
            "names": ["x", 1, "z"],
            "map": { "a/b": {}, "c": {} }
        });
        assert_eq!(
            Place::Value("/icon").strings(&doc),
            [("/icon".to_owned(), "i.png")]
        );
        assert_eq!(Place::Value("/nope").strings(&doc), []);
        assert_eq!(
            Place::Items("/list", "id").strings(&doc),
            [
                ("/list/0/id".to_owned(), "a"),
                ("/list/2/id".to_owned(), "c")
            ]
        );
        assert_eq!(
            Place::Strings("/names").strings(&doc),
            [("/names/0".to_owned(), "x"), ("/names/2".to_owned(), "z")]
        );
        assert_eq!(
            Place::Keys("/map").strings(&doc),
            [("/map/a~1b".to_owned(), "a/b"), ("/map/c".to_owned(), "c")]
        );
    }
}
