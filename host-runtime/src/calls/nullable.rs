//! [`Nullable`]: an optional member whose schema also allows `null`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The value of an optional object member whose schema allows `null`, where leaving the member
/// out and sending `null` are different things (`{"query": {"type": ["string", "null"]}}`, not
/// required): `Absent` (the member is not there), `Null` (it is `null`) or `Value` (anything
/// else).
///
/// Generated types use it for such members, so a value sent as `null` comes back as `null` and
/// an absent one stays absent. Serialized, `Null` is `null` and `Value(v)` is `v`; `Absent` is left
/// out by the generated `skip_serializing_if` (written on its own, it reads `null`).
///
/// ```
/// use host_runtime::Nullable;
///
/// let sent: Nullable<String> = Nullable::Null;
/// assert!(sent.is_null());
/// assert_eq!(sent.as_option(), None);
/// assert_eq!(Nullable::Value(3).as_option(), Some(&3));
/// assert_eq!(Nullable::<u8>::default(), Nullable::Absent);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Nullable<T> {
    /// The member is not there.
    #[default]
    Absent,
    /// The member is `null`.
    Null,
    /// The member holds this value.
    Value(T),
}

impl<T> Nullable<T> {
    /// Whether the member is not there (what generated types skip when serializing).
    pub fn is_absent(&self) -> bool {
        matches!(self, Nullable::Absent)
    }

    /// Whether the member is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Nullable::Null)
    }

    /// The value, if the member holds one (neither absent nor `null`).
    pub fn as_option(&self) -> Option<&T> {
        match self {
            Nullable::Value(v) => Some(v),
            Nullable::Absent | Nullable::Null => None,
        }
    }

    /// The value, if the member holds one, by value.
    pub fn into_option(self) -> Option<T> {
        match self {
            Nullable::Value(v) => Some(v),
            Nullable::Absent | Nullable::Null => None,
        }
    }
}

impl<T> From<T> for Nullable<T> {
    fn from(value: T) -> Self {
        Nullable::Value(value)
    }
}

impl<T: Serialize> Serialize for Nullable<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Nullable::Value(v) => v.serialize(serializer),
            Nullable::Absent | Nullable::Null => serializer.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Nullable<T> {
    /// A member that is there: `null` is [`Nullable::Null`], anything else the value. (An absent
    /// member never reaches this: the generated `#[serde(default)]` makes it [`Nullable::Absent`].)
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(v) => Nullable::Value(v),
            None => Nullable::Null,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Query {
        #[serde(default, skip_serializing_if = "Nullable::is_absent")]
        q: Nullable<String>,
    }

    #[test]
    fn absent_null_and_a_value_round_trip_apart() {
        for text in [r#"{}"#, r#"{"q":null}"#, r#"{"q":"x"}"#] {
            let query: Query = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&query).unwrap(), text);
        }
        let absent: Query = serde_json::from_str("{}").unwrap();
        assert_eq!(absent.q, Nullable::Absent);
        let null: Query = serde_json::from_str(r#"{"q":null}"#).unwrap();
        assert_eq!(null.q, Nullable::Null);
    }

    #[test]
    fn a_value_that_may_itself_be_null_keeps_null_as_null() {
        #[derive(Serialize, Deserialize)]
        struct Any {
            #[serde(default, skip_serializing_if = "Nullable::is_absent")]
            v: Nullable<serde_json::Value>,
        }
        let any: Any = serde_json::from_str(r#"{"v":null}"#).unwrap();
        assert!(any.v.is_null());
        assert_eq!(serde_json::to_string(&any).unwrap(), r#"{"v":null}"#);
    }
}
