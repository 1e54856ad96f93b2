//! Reading a call's body: JSON only (`Content-Type`), and each object member named once, so that
//! no two readers of one body can see different calls.

use bytes::Bytes;
use http::HeaderValue;
use serde_json::{Map, Value as Json};

use crate::calls::error::HostError;

pub(crate) fn parse_body(bytes: &Bytes) -> Result<Map<String, Json>, HostError> {
    if bytes.is_empty() {
        return Err(HostError::bad_request(
            "the request has no body; the host sends the call body as JSON",
        ));
    }
    // serde_json's own wording says what is wrong ("trailing comma", "number out of range",
    // "EOF while parsing an object") and where; it never quotes the input.
    match serde_json::from_slice::<StrictJson>(bytes) {
        Ok(StrictJson(Json::Object(map))) => Ok(map),
        Ok(_) => Err(HostError::bad_request(
            "the body must be a JSON object (the call body)",
        )),
        Err(e) => Err(HostError::bad_request(format!("the body is not JSON: {e}"))),
    }
}

/// A JSON value whose objects name each member once. JSON keeps only the last of two members of
/// the same name, so a body such as `{"input": {...}, "input": {...}}` could be read one way here
/// and another way by whatever checked it before; such a body is refused, as the manifest parser
/// refuses such a manifest.
struct StrictJson(Json);

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(StrictJson)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(StrictVisitor)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictJson(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            let StrictJson(value) = map.next_value()?;
            if members.contains_key(&name) {
                let shown: String = name.chars().take(64).collect();
                return Err(serde::de::Error::custom(format!(
                    "the member `{shown}` appears twice in one object"
                )));
            }
            members.insert(name, value);
        }
        Ok(Json::Object(members))
    }
}

/// Whether a `Content-Type` names JSON: `application/json`, or a `+json` type, with any parameters.
pub(super) fn is_json(kind: &HeaderValue) -> bool {
    let Ok(kind) = kind.to_str() else {
        return false;
    };
    let essence = kind
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> Bytes {
        let mut text = String::from("{\"input\": ");
        text.push_str(&"[".repeat(depth));
        text.push_str(&"]".repeat(depth));
        text.push('}');
        Bytes::from(text)
    }

    #[test]
    fn nesting_is_bounded_by_the_json_reader_not_the_stack() {
        // serde_json refuses the 128th level; the body's own object is the first.
        assert!(parse_body(&nested(126)).is_ok());
        let e = parse_body(&nested(127)).expect_err("too deep");
        assert!(e.message().contains("recursion limit exceeded"), "{e}");
        // A body of the default limit (1 MiB) that is nothing but nesting is refused as fast.
        let started = std::time::Instant::now();
        assert!(parse_body(&nested(500_000)).is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn a_member_named_twice_is_refused_and_named_clipped() {
        let name = "n".repeat(1000);
        let body = Bytes::from(format!("{{\"{name}\": 1, \"{name}\": 2}}"));
        let e = parse_body(&body).expect_err("a duplicate");
        assert!(e.message().len() < 200, "{e}");
    }
}
