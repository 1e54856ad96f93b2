//! The checks a vendor's answers must pass, as functions over the JSON the host receives.
//!
//! The runtime applies them to every answer before it leaves the server, and `cargo host check`
//! applies the same functions to what a running server answered, so the two judge every answer
//! alike: an answer that passes `check` is one the runtime sends, and an answer the runtime refuses
//! fails `check` with the same message. Each function returns the [`HostError`] the runtime answers
//! with (its [`ErrorCode`] says which rule was broken).
//!
//! Typed answers ([`SyncAnswer`](crate::calls::metrics::SyncAnswer), the tool cards, ...) already hold most
//! of these rules in their types; the checks cover what types cannot say (declared keys, UTC times,
//! https links, sizes) and every rule a hand-built JSON answer could break.

use serde::Deserialize;
use serde_json::Value as Json;

use crate::calls::answer::{ContextBlock, MentionItems, ToolAnswer, invalid_tool_answer};
use crate::calls::error::{ErrorCode, HostError};
pub use crate::calls::text::{is_https, is_utc_timestamp};
use crate::calls::work::{Containers, CreatedComment, CreatedItem};
use host_interface::limits;

/// Where an instance first fails its schema, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The JSON pointer of the failing value in the instance (`""` for the instance itself).
    pub pointer: String,
    /// What is wrong with it, in the validator's words.
    pub message: String,
}

impl Violation {
    /// The violation a validation error reports.
    ///
    /// The validator's message quotes the failing value whole; one longer than 200 characters as
    /// JSON is quoted clipped, with its length.
    pub fn from_error(error: &jsonschema::ValidationError<'_>) -> Self {
        let shown = error.instance().to_string();
        let clipped = crate::calls::error::clip(&shown);
        let message = match clipped {
            std::borrow::Cow::Borrowed(_) => error.to_string(),
            std::borrow::Cow::Owned(clipped) => error.masked_with(clipped).to_string(),
        };
        Violation {
            pointer: error.instance_path().as_str().to_owned(),
            message: crate::calls::error::clip_message(message),
        }
    }

    /// The pointer as messages show it: `/` for the instance itself.
    pub fn at(&self) -> &str {
        if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        }
    }
}

/// A connector metric as the manifest declares it: its key and dimension keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredMetric<'a> {
    /// The metric key.
    pub key: &'a str,
    /// Its dimension keys.
    pub dimensions: &'a [&'a str],
}

/// A tool's answer against the card shape of its `returns` kind (`value`, `list`, `table`,
/// `series` or `comparison`) and the size limit. `TOOL_RESPONSE_INVALID` or
/// `TOOL_RESPONSE_TOO_LARGE`.
pub fn tool_answer(kind: &str, answer: &Json) -> Result<(), HostError> {
    fn as_card<T: ToolAnswer + serde::de::DeserializeOwned>(
        kind: &str,
        answer: &Json,
    ) -> Result<(), HostError> {
        T::deserialize(answer)
            .map_err(|e| invalid_tool_answer(format!("it is not a `{kind}` card: {e}")))?
            .check()
    }
    match kind {
        "value" => as_card::<crate::calls::answer::Value>(kind, answer)?,
        "list" => as_card::<crate::calls::answer::List>(kind, answer)?,
        "table" => as_card::<crate::calls::answer::Table>(kind, answer)?,
        "series" => as_card::<crate::calls::answer::Series>(kind, answer)?,
        "comparison" => as_card::<crate::calls::answer::Comparison>(kind, answer)?,
        _ => {
            return Err(invalid_tool_answer(format!(
                "`{kind}` is not a `returns` kind; expected `value`, `list`, `table`, `series` or `comparison`"
            )));
        }
    }
    tool_answer_size(compact_len(answer))
}

/// A tool answer of `bytes` bytes: `TOOL_RESPONSE_TOO_LARGE` over the limit.
pub(crate) fn tool_answer_size(bytes: usize) -> Result<(), HostError> {
    if bytes > limits::TOOL_ANSWER_BYTES {
        return Err(HostError::from_code(
            ErrorCode::ToolResponseTooLarge,
            format!(
                "the tool's answer is {bytes} bytes; the limit is {}",
                limits::TOOL_ANSWER_BYTES
            ),
        ));
    }
    Ok(())
}

/// A mention picker's answer: mention items, each with an `id` to insert and a `label` to show,
/// among the first 20 (the host drops the rest). `MENTION_RESPONSE_INVALID`. `Ok` holds the number
/// of items.
pub fn mention_answer(answer: &Json) -> Result<usize, HostError> {
    let items = MentionItems::deserialize(answer).map_err(|e| {
        HostError::from_code(
            ErrorCode::MentionResponseInvalid,
            format!("the mention's answer is not mention items {{items:[{{id,label}}]}}: {e}"),
        )
    })?;
    mention_items(&items)?;
    Ok(items.items.len())
}

/// The items the host keeps, each with a non-empty `id` and `label`.
pub(crate) fn mention_items(items: &MentionItems) -> Result<(), HostError> {
    for (i, item) in items
        .items
        .iter()
        .take(limits::MENTION_ITEMS_KEPT)
        .enumerate()
    {
        let empty = if item.id.trim().is_empty() {
            "id"
        } else if item.label.trim().is_empty() {
            "label"
        } else {
            continue;
        };
        return Err(HostError::from_code(
            ErrorCode::MentionResponseInvalid,
            format!(
                "the mention's answer is invalid: `items[{i}].{empty}` is empty; every item needs an id to insert and a label to show"
            ),
        ));
    }
    Ok(())
}

/// A context provider's answer: a context block `{summary, data?}` of at most 2,048 bytes of compact
/// JSON. `CONTEXT_TOO_LARGE` (or `INTERNAL` for a value that is no context block). `Ok` holds its
/// size in bytes.
pub fn context_answer(answer: &Json) -> Result<usize, HostError> {
    ContextBlock::deserialize(answer).map_err(|e| {
        HostError::internal(format!(
            "the context provider's answer is not a context block {{summary, data?}}: {e}"
        ))
    })?;
    let bytes = compact_len(answer);
    context_size(bytes)?;
    Ok(bytes)
}

/// A context block of `bytes` bytes once rendered: `CONTEXT_TOO_LARGE` over the limit.
pub(crate) fn context_size(bytes: usize) -> Result<(), HostError> {
    if bytes > limits::CONTEXT_BYTES {
        return Err(HostError::from_code(
            ErrorCode::ContextTooLarge,
            format!(
                "the context block is {bytes} bytes once rendered; the limit is {}",
                limits::CONTEXT_BYTES
            ),
        ));
    }
    Ok(())
}

/// One page of a connector sync: `{points: [{metric, t, v, dimensions?}], cursor?}` where every
/// point names a declared metric, has a UTC timestamp `t` and a finite number `v`, and its
/// dimensions are ones its metric declares, each a string; `cursor` is a string or null.
/// `METRICS_RESPONSE_INVALID`. `Ok` holds the number of points.
pub fn metrics_page(declared: &[DeclaredMetric<'_>], answer: &Json) -> Result<usize, HostError> {
    let invalid = |why: String| {
        HostError::from_code(
            ErrorCode::MetricsResponseInvalid,
            format!("the sync answer{why}"),
        )
    };
    let points = answer
        .get("points")
        .and_then(Json::as_array)
        .ok_or_else(|| {
            invalid(" has no `points` list; a sync answer is {points:[...], cursor?}".to_owned())
        })?;
    match answer.get("cursor") {
        None | Some(Json::Null | Json::String(_)) => {}
        Some(other) => {
            return Err(invalid(format!(
                " has `cursor` {other}, not a string or null"
            )));
        }
    }
    for (i, point) in points.iter().enumerate() {
        let at = |why: String| invalid(format!("'s `points[{i}]` {why}"));
        let key = point.get("metric").and_then(Json::as_str).unwrap_or("");
        let Some(metric) = declared.iter().find(|m| m.key == key) else {
            return Err(at(format!(
                "names the undeclared metric `{key}`; the connector declares {}",
                listed(declared.iter().map(|m| m.key))
            )));
        };
        match point.get("t").and_then(Json::as_str) {
            Some(t) if is_utc_timestamp(t) => {}
            Some(t) => {
                return Err(at(format!(
                    "has `t` `{t}`, not an ISO 8601 UTC timestamp (write it as `2026-11-02T14:03:11Z`)"
                )));
            }
            None => return Err(at("has no timestamp `t`".to_owned())),
        }
        // serde_json holds no NaN or infinity: a number here is finite.
        if !point.get("v").is_some_and(Json::is_number) {
            return Err(at("has no number `v`".to_owned()));
        }
        match point.get("dimensions") {
            None | Some(Json::Null) => {}
            Some(Json::Object(dimensions)) => {
                for (dim, value) in dimensions {
                    if !metric.dimensions.contains(&dim.as_str()) {
                        return Err(at(format!(
                            "has the dimension `{dim}`, which `{key}` does not declare"
                        )));
                    }
                    if !value.is_string() {
                        return Err(at(format!(
                            "has the dimension `{dim}` = {value}, not a string"
                        )));
                    }
                }
            }
            Some(other) => return Err(at(format!("has `dimensions` {other}, not an object"))),
        }
    }
    Ok(points.len())
}

/// The work destination's container list `{items: [{id, label}]}`. `WORK_RESPONSE_INVALID`. `Ok`
/// holds the number of containers.
pub fn containers_answer(answer: &Json) -> Result<usize, HostError> {
    let list = Containers::deserialize(answer).map_err(|e| {
        work_invalid(format!(
            "the answer is not a container list {{items:[{{id,label}}]}}: {e}"
        ))
    })?;
    Ok(list.items.len())
}

/// A created work item `{id, url, status}` whose `url` is https. `WORK_RESPONSE_INVALID`. `Ok` holds
/// the item.
pub fn created_item_answer(answer: &Json) -> Result<CreatedItem, HostError> {
    let item = CreatedItem::deserialize(answer).map_err(|e| {
        work_invalid(format!(
            "the answer is not a created item {{id, url, status}}: {e}"
        ))
    })?;
    https_link(&item.url, "item")?;
    Ok(item)
}

/// A created comment `{id}`, with an https `url` if it has one. `WORK_RESPONSE_INVALID`. `Ok` holds
/// the comment.
pub fn created_comment_answer(answer: &Json) -> Result<CreatedComment, HostError> {
    let comment = CreatedComment::deserialize(answer)
        .map_err(|e| work_invalid(format!("the answer is not a created comment {{id}}: {e}")))?;
    if let Some(url) = answer.get("url").and_then(Json::as_str) {
        https_link(url, "comment")?;
    }
    Ok(comment)
}

/// A created item's or comment's `url` is https: `WORK_RESPONSE_INVALID`.
pub(crate) fn https_link(url: &str, what: &str) -> Result<(), HostError> {
    if is_https(url) {
        return Ok(());
    }
    Err(work_invalid(format!(
        "the created {what}'s `url` must be an https URL, not `{url}`"
    )))
}

fn work_invalid(message: String) -> HostError {
    HostError::from_code(ErrorCode::WorkResponseInvalid, message)
}

/// A procedure's answer that fails its `output` schema: `PROCEDURE_RESPONSE_INVALID`, naming where.
pub fn procedure_output_invalid(violation: &Violation) -> HostError {
    HostError::from_code(
        ErrorCode::ProcedureResponseInvalid,
        format!(
            "the procedure's answer fails its `output` schema at `{}`: {}",
            violation.at(),
            violation.message
        ),
    )
}

/// An `input` that fails its contribution's schema: `INPUT_INVALID`, naming where.
pub fn input_invalid(violation: &Violation) -> HostError {
    HostError::input_invalid(format!(
        "`input` at `{}`: {}",
        violation.at(),
        violation.message
    ))
}

/// Compiles one of the manifest's JSON Schemas as the runtime does (draft 2020-12; `format` is an
/// annotation only).
#[cfg(feature = "schema-compiler")]
pub fn compile_schema(schema: &Json) -> Result<jsonschema::Validator, SchemaError> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .map_err(SchemaError)
}

/// The first place `instance` fails `validator`, if any.
#[cfg(feature = "schema-compiler")]
pub fn first_violation(validator: &jsonschema::Validator, instance: &Json) -> Option<Violation> {
    validator
        .iter_errors(instance)
        .next()
        .map(|e| Violation::from_error(&e))
}

/// A JSON Schema that does not compile; the compiler's error, which says where and why, is the
/// [`source`](std::error::Error::source).
#[cfg(feature = "schema-compiler")]
#[derive(Debug, thiserror::Error)]
#[error("the schema does not compile")]
pub struct SchemaError(#[source] jsonschema::ValidationError<'static>);

/// The length of `value` as compact JSON.
fn compact_len(value: &Json) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// The names as a list of code spans (`` `a`, `b` ``), or `no metrics`.
fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        "no metrics".to_owned()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DECLARED: [DeclaredMetric<'static>; 1] = [DeclaredMetric {
        key: "installs",
        dimensions: &["country"],
    }];

    fn page(point: Json) -> Json {
        json!({ "points": [point] })
    }

    #[test]
    fn a_metrics_page_needs_utc_times_declared_keys_and_string_dimensions() {
        let good = json!({"metric": "installs", "t": "2026-11-02T14:03:11Z", "v": 3, "dimensions": {"country": "DE"}});
        assert_eq!(metrics_page(&DECLARED, &page(good)), Ok(1));
        for (bad, says) in [
            (
                json!({"metric": "installs", "t": "2026-11-02T14:03:11+02:00", "v": 3}),
                "not an ISO 8601 UTC timestamp",
            ),
            (
                json!({"metric": "crashes", "t": "2026-11-02T14:03:11Z", "v": 3}),
                "undeclared metric `crashes`",
            ),
            (
                json!({"metric": "installs", "t": "2026-11-02T14:03:11Z", "v": 3, "dimensions": {"country": 49}}),
                "not a string",
            ),
            (
                json!({"metric": "installs", "t": "2026-11-02T14:03:11Z", "v": 3, "dimensions": {"os": "ios"}}),
                "does not declare",
            ),
            (
                json!({"metric": "installs", "t": "2026-11-02T14:03:11Z", "v": "3"}),
                "no number `v`",
            ),
        ] {
            let e = metrics_page(&DECLARED, &page(bad)).unwrap_err();
            assert_eq!(e.error_code(), Some(ErrorCode::MetricsResponseInvalid));
            assert!(e.message().contains(says), "{}", e.message());
        }
        let e = metrics_page(&DECLARED, &json!({"points": [], "cursor": 7})).unwrap_err();
        assert!(e.message().contains("`cursor` 7"), "{}", e.message());
    }

    #[test]
    fn links_must_be_https_with_a_host() {
        assert!(is_https("HTTPS://example.com/x"));
        for url in ["https://", "http://example.com", "ftp://x", ""] {
            assert!(!is_https(url), "{url}");
        }
        let e = created_item_answer(&json!({"id": "1", "url": "https://", "status": "open"}))
            .unwrap_err();
        assert_eq!(e.error_code(), Some(ErrorCode::WorkResponseInvalid));
    }

    #[test]
    fn the_compact_length_is_what_serde_json_writes() {
        let v = json!({"summary": "é", "data": [1, 2.5, null]});
        assert_eq!(compact_len(&v), serde_json::to_vec(&v).unwrap().len());
    }
}
