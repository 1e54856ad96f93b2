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

/// How long the `pattern`s of one request may run in all: its `input` and its answer share it.
///
/// Each match is bounded by itself, deterministically: a pattern runs on the linear-time regex
/// engine unless it needs lookaround or backreferences, and then the backtracking engine gives up
/// after 1,000,000 steps, which refuses the string (`INPUT_INVALID`, naming where) on any machine.
/// But a body can hold many strings: a backtracking pattern under `items`, matched against 50,000
/// strings of a 1 MiB body, could take minutes of CPU though each match stays under its own bound.
/// Past this budget the check stops, and since how far it got depends on how busy the machine is,
/// the request is answered `503 PATTERN_BUDGET_SPENT` with `Retry-After`, never a final 4xx: the
/// host calls again, and the same input gets the same verdict once it can be read to the end. A
/// match that starts before the budget runs out finishes first, so a request's checks take at most
/// the budget and one match.
///
/// Every pattern that can backtrack spends the budget, wherever it is matched:
///
/// - a key checked by `propertyNames` and a `pattern` spends it like a string value;
/// - a `patternProperties` name is matched by the validator itself, out of the budget's reach, so
///   in a schema checked per request one that needs lookaround or a backreference is refused when
///   the crate compiles (manifest rule `key-pattern`); the others run in linear time;
/// - a validator generated at compile time (the `compiled-validators` feature, the Workers build)
///   cannot be stopped part-way, so a schema checked per request whose patterns backtrack gets
///   none: the runtime compiles it with the budget, and a build without the `schema-compiler`
///   feature fails, naming the schema, the pattern and the feature.
///
/// What is left runs on the linear-time engine: its time grows with the body's size, which the
/// request's body limit bounds, and with nothing else.
pub const PATTERN_BUDGET: std::time::Duration = std::time::Duration::from_millis(100);

/// What a check of one instance found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The instance is valid.
    Valid,
    /// Where the instance first fails its schema: final, the same on any machine.
    Invalid(Violation),
    /// The check was stopped before it read the instance to the end: its patterns spent the
    /// request's [`PATTERN_BUDGET`]. Not a verdict on the instance; the runtime answers
    /// `503 PATTERN_BUDGET_SPENT` with `Retry-After`.
    Unfinished,
}

/// The pattern time one request has left (see [`PATTERN_BUDGET`]), spent by every check made for
/// it through [`verdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    left: std::time::Duration,
}

impl Budget {
    /// A budget of `left`.
    pub const fn new(left: std::time::Duration) -> Self {
        Budget { left }
    }

    /// One request's budget: [`PATTERN_BUDGET`].
    pub const fn per_request() -> Self {
        Budget::new(PATTERN_BUDGET)
    }

    /// What is left.
    pub const fn left(&self) -> std::time::Duration {
        self.left
    }
}

/// The message of `503 PATTERN_BUDGET_SPENT`.
pub(crate) fn budget_spent_message(budget: std::time::Duration) -> String {
    format!(
        "checking the request against its schemas' patterns took longer than the {} ms a request \
         may spend on them (the server is busy, or the body holds many strings under a costly \
         pattern), so it was not read to the end; call again later",
        budget.as_millis()
    )
}

/// Compiles one of the manifest's JSON Schemas as the runtime does (draft 2020-12; `format` is an
/// annotation only). Its `pattern`s spend the budget of the check that runs them (see
/// [`PATTERN_BUDGET`]).
#[cfg(feature = "schema-compiler")]
pub fn compile_schema(schema: &Json) -> Result<jsonschema::Validator, SchemaError> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_keyword("pattern", budget::Pattern::compile)
        .build(schema)
        .map_err(SchemaError)
}

/// The first place `instance` fails `validator`, if any, read to the end however long its
/// patterns take (each match keeps its own bound). For instances of the vendor's own making
/// (an event it sends); a request from outside is checked with [`verdict`] instead.
#[cfg(feature = "schema-compiler")]
pub fn first_violation(validator: &jsonschema::Validator, instance: &Json) -> Option<Violation> {
    validator
        .iter_errors(instance)
        .next()
        .map(|e| Violation::from_error(&e))
}

/// Checks `instance` against `validator`, its patterns spending `budget`: [`Verdict::Unfinished`]
/// when the budget ran out before the instance was read to the end, whatever the validator had
/// found by then.
#[cfg(feature = "schema-compiler")]
pub fn verdict(validator: &jsonschema::Validator, instance: &Json, budget: &mut Budget) -> Verdict {
    let check = budget::Check::start(budget.left);
    let first = validator
        .iter_errors(instance)
        .next()
        .map(|e| Violation::from_error(&e));
    // A spent budget can hide behind another keyword's verdict (a branch of `anyOf` that failed, a
    // `not` that passed): whatever the validator said, the instance was not read to the end.
    let (left, spent) = check.finish();
    budget.left = left;
    match (spent, first) {
        (true, _) => Verdict::Unfinished,
        (false, Some(v)) => Verdict::Invalid(v),
        (false, None) => Verdict::Valid,
    }
}

/// The pattern budget of the check under way on this thread, and the `pattern` keyword that spends
/// it. A check is synchronous, so a thread-local budget is the check's own.
#[cfg(feature = "schema-compiler")]
mod budget {
    use std::cell::Cell;
    use std::time::Duration;

    use serde_json::Value as Json;

    use super::Violation;
    // web-time: `std::time::Instant` where there is a clock, the browser's on wasm32 (the
    // platform layer re-exports the same, but `calls` sits beside it, not above).
    use web_time::Instant;

    thread_local! {
        /// What the check under way may still spend (`None`: no check, no bound).
        static LEFT: Cell<Option<Duration>> = const { Cell::new(None) };
        /// Whether the check under way ran out.
        static SPENT: Cell<bool> = const { Cell::new(false) };
    }

    /// One check's budget, from [`start`](Self::start) to [`finish`](Self::finish); a check inside
    /// another (none today) gets its own and gives the outer one back.
    pub(super) struct Check {
        outer: (Option<Duration>, bool),
    }

    impl Check {
        pub(super) fn start(budget: Duration) -> Self {
            let outer = (LEFT.replace(Some(budget)), SPENT.replace(false));
            Check { outer }
        }

        /// What is left of the budget, and whether it ran out.
        pub(super) fn finish(self) -> (Duration, bool) {
            (LEFT.get().unwrap_or_default(), SPENT.get())
        }
    }

    impl Drop for Check {
        fn drop(&mut self) {
            LEFT.set(self.outer.0);
            SPENT.set(self.outer.1);
        }
    }

    /// Runs one match, charged to the check under way: `None` when the budget was spent before it.
    fn charge<R>(run: impl FnOnce() -> R) -> Option<R> {
        let Some(left) = LEFT.get() else {
            return Some(run());
        };
        if SPENT.get() || left.is_zero() {
            SPENT.set(true);
            return None;
        }
        let started = Instant::now();
        let result = run();
        match left.checked_sub(started.elapsed()) {
            Some(rest) if !rest.is_zero() => LEFT.set(Some(rest)),
            _ => {
                LEFT.set(Some(Duration::ZERO));
                SPENT.set(true);
            }
        }
        Some(result)
    }

    /// `pattern`, as jsonschema compiles it (the same translation of the ECMA-262 syntax, the same
    /// choice of engine, the same messages), with each match charged to the budget.
    pub(super) struct Pattern {
        matcher: jsonschema::Validator,
    }

    impl Pattern {
        pub(super) fn compile<'a>(
            _parent: &'a serde_json::Map<String, Json>,
            pattern: &'a Json,
            _path: jsonschema::paths::Location,
        ) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>>
        {
            // The keyword alone, compiled without this override: the engine's own `pattern`.
            let matcher = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&serde_json::json!({ "pattern": pattern }))?;
            Ok(Box::new(Pattern { matcher }))
        }
    }

    impl<'i> jsonschema::Keyword<'i> for Pattern {
        fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
            if !instance.is_string() {
                return Ok(());
            }
            let refused = charge(|| {
                self.matcher
                    .iter_errors(instance)
                    .next()
                    .map(|e| Violation::from_error(&e).message)
            });
            match refused {
                Some(None) => Ok(()),
                Some(Some(message)) => Err(jsonschema::ValidationError::custom(message)),
                None => Err(jsonschema::ValidationError::custom(
                    "not matched: the check's pattern budget was spent",
                )),
            }
        }

        fn is_valid(&self, instance: &'i Json) -> bool {
            !instance.is_string() || charge(|| self.matcher.is_valid(instance)) == Some(true)
        }
    }
}

/// A JSON Schema that does not compile; the compiler's error, which says where and why, is the
/// [`source`](std::error::Error::source).
#[cfg(feature = "schema-compiler")]
#[derive(Debug, thiserror::Error)]
#[error("the schema does not compile")]
pub struct SchemaError(#[source] jsonschema::ValidationError<'static>);

/// The runtime's rules for a new work item's `input` beyond its schema: its `kind` is one the
/// destination `creates`, and each attachment's `url` is an https URL with something after the
/// scheme (`https://` alone passes the schema's `^https://` and is still refused). The runtime
/// answers the error (`INPUT_INVALID`, naming the pointer) before the handler runs; `cargo host
/// dev`'s console judges a form with the same function.
pub fn new_work_item(creates: &[&str], input: Option<&Json>) -> Result<(), HostError> {
    if let Some(kind) = input.and_then(|i| i.get("kind"))
        && !kind.as_str().is_some_and(|k| creates.contains(&k))
    {
        let names: Vec<String> = creates.iter().map(|k| format!("\"{k}\"")).collect();
        return Err(HostError::input_invalid(format!(
            "/input/kind: {kind} is not a kind this destination creates ({})",
            names.join(", ")
        )));
    }
    let attachments = input
        .and_then(|i| i.get("attachments"))
        .and_then(Json::as_array);
    for (i, a) in attachments.into_iter().flatten().enumerate() {
        if let Some(url) = a.get("url").and_then(Json::as_str)
            && !is_https(url)
        {
            return Err(HostError::input_invalid(format!(
                "/input/attachments/{i}/url: `{url}` is not an https URL"
            )));
        }
    }
    Ok(())
}

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

#[cfg(all(test, feature = "schema-compiler"))]
mod pattern_budget {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use super::*;

    /// Valid strings that each cost the backtracking engine many steps, under its own bound: the
    /// lookahead's backreference keeps the match in the backtracking engine, which tries every way
    /// of splitting the `a`s before it gives up on the `b` and lets the string through.
    const COSTLY: &str = r"^(?!(a|a)*\1b).*$";

    fn strings(n: usize, len: usize) -> Json {
        Json::Array(vec![json!(format!("{}c", "a".repeat(len))); n])
    }

    #[test]
    fn a_pattern_keeps_its_verdicts_and_messages() {
        let v = compile_schema(&json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "loose": {"pattern": "^x"},
                "not_b": {"not": {"pattern": "^b"}},
                "either": {"anyOf": [{"pattern": "^x"}, {"pattern": "^y"}]}
            }
        }))
        .unwrap();
        assert_eq!(
            first_violation(&v, &json!({"code": "ABC", "not_b": "a", "either": "yes"})),
            None
        );
        assert_eq!(
            first_violation(&v, &json!({"loose": 7})),
            None,
            "not a string"
        );
        let refused = first_violation(&v, &json!({"code": "abcd"})).unwrap();
        assert_eq!(refused.pointer, "/code");
        assert_eq!(refused.message, r#""abcd" does not match "^[A-Z]{3}$""#);
        assert!(first_violation(&v, &json!({"not_b": "bee"})).is_some());
        assert!(first_violation(&v, &json!({"either": "zed"})).is_some());
        // A match the engine cannot finish is still refused, as before.
        let cut = compile_schema(&json!({"pattern": COSTLY})).unwrap();
        assert!(first_violation(&cut, &json!(format!("{}c", "a".repeat(30)))).is_some());
    }

    /// Many strings under a backtracking pattern: each match stays under its own bound, and the
    /// check stops once they have used the budget: unfinished, not a verdict.
    #[test]
    fn many_costly_strings_spend_the_budget_and_leave_the_check_unfinished() {
        let v = compile_schema(
            &json!({"type": "array", "items": {"type": "string", "pattern": COSTLY}}),
        )
        .unwrap();
        // One string alone is valid.
        assert_eq!(first_violation(&v, &strings(1, 16)), None);
        let many = strings(400, 16);
        let started = Instant::now();
        let mut budget = Budget::new(Duration::from_millis(50));
        assert_eq!(verdict(&v, &many, &mut budget), Verdict::Unfinished);
        let took = started.elapsed();
        assert_eq!(budget.left(), Duration::ZERO);
        // 400 matches would take 400 times one; the check stopped after a few.
        let one = {
            let started = Instant::now();
            assert_eq!(first_violation(&v, &strings(1, 16)), None);
            started.elapsed()
        };
        assert!(took < one * 100, "took {took:?}; one match takes {one:?}");
        // Read to the end, the same instance is valid: the budget decided nothing about it.
        assert_eq!(first_violation(&v, &many), None);
        // With time enough, the verdict is the validator's.
        let mut ample = Budget::new(Duration::from_secs(600));
        assert_eq!(verdict(&v, &strings(3, 16), &mut ample), Verdict::Valid);
        let invalid = json!(["aac", 7]);
        assert!(matches!(
            verdict(&v, &invalid, &mut ample),
            Verdict::Invalid(Violation { pointer, .. }) if pointer == "/1"
        ));
    }

    /// The budget hides behind no other keyword: spent inside `not` (where a failed match would
    /// pass) or one branch of `anyOf`, it still leaves the check unfinished.
    #[test]
    fn a_budget_spent_under_not_or_any_of_still_leaves_the_check_unfinished() {
        for schema in [
            json!({"type": "array", "items": {"not": {"pattern": COSTLY}}}),
            json!({"type": "array", "items": {"anyOf": [{"pattern": COSTLY}, {"type": "number"}]}}),
        ] {
            let v = compile_schema(&schema).unwrap();
            let mut budget = Budget::new(Duration::from_millis(20));
            assert_eq!(
                verdict(&v, &strings(400, 16), &mut budget),
                Verdict::Unfinished,
                "{schema}"
            );
        }
    }

    /// Keys checked by `propertyNames` and a `pattern` spend the budget like string values.
    #[test]
    fn key_names_under_property_names_spend_the_budget_too() {
        let v = compile_schema(&json!({"type": "object", "propertyNames": {"pattern": COSTLY}}))
            .unwrap();
        let keys: serde_json::Map<String, Json> = (0..400)
            .map(|i| (format!("{}c{i}", "a".repeat(16)), json!(1)))
            .collect();
        let many = Json::Object(keys);
        let mut budget = Budget::new(Duration::from_millis(20));
        assert_eq!(verdict(&v, &many, &mut budget), Verdict::Unfinished);
        assert_eq!(first_violation(&v, &many), None, "read to the end, valid");
    }

    /// A spent budget stops only checks that match patterns.
    #[test]
    fn a_spent_budget_leaves_checks_without_patterns_alone() {
        let v = compile_schema(&json!({"type": "array", "items": {"type": "string"}})).unwrap();
        let mut spent = Budget::new(Duration::ZERO);
        assert_eq!(verdict(&v, &strings(10, 4), &mut spent), Verdict::Valid);
        assert!(matches!(
            verdict(&v, &json!([1]), &mut spent),
            Verdict::Invalid(_)
        ));
    }
}
