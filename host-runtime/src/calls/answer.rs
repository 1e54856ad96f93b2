//! The answers handlers give: the five tool card shapes, mention items and the context block.
//!
//! Types say most of what the shapes ask; [`ToolAnswer::check`] covers what types cannot (row keys
//! that are not columns, non-finite numbers, comparison rows of the wrong length, URLs and timestamps).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::calls::error::{ErrorCode, HostError};
use crate::calls::events::Timestamp;
use crate::calls::text::{is_https, is_utc_timestamp};

/// Value formatting, the connector metric units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// `count`
    Count,
    /// `ratio`
    Ratio,
    /// `currency`
    Currency,
    /// `seconds`
    Seconds,
    /// `bytes`
    Bytes,
}

/// A number or a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    /// A finite number.
    Number(f64),
    /// Text.
    Text(String),
}

impl From<f64> for Scalar {
    fn from(v: f64) -> Self {
        Scalar::Number(v)
    }
}
impl From<i64> for Scalar {
    fn from(v: i64) -> Self {
        Scalar::Number(v as f64)
    }
}
impl From<&str> for Scalar {
    fn from(v: &str) -> Self {
        Scalar::Text(v.to_owned())
    }
}
impl From<String> for Scalar {
    fn from(v: String) -> Self {
        Scalar::Text(v)
    }
}

/// One table cell: text, a number, a boolean or null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cell {
    /// A finite number.
    Number(f64),
    /// Text.
    Text(String),
    /// A boolean.
    Bool(bool),
    /// Nothing.
    Null,
}

impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Number(v)
    }
}
impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Number(v as f64)
    }
}
impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_owned())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}
impl From<bool> for Cell {
    fn from(v: bool) -> Self {
        Cell::Bool(v)
    }
}
impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Null, Into::into)
    }
}

/// A tool answer of one `returns` kind. Implemented by the five card types only.
pub trait ToolAnswer: Serialize + Send + sealed::Sealed + 'static {
    /// Checks what the type cannot express; the error names the offending member.
    fn check(&self) -> Result<(), HostError>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Value {}
    impl Sealed for super::List {}
    impl Sealed for super::Table {}
    impl Sealed for super::Series {}
    impl Sealed for super::Comparison {}
}

fn finite(v: f64, at: impl FnOnce() -> String) -> Result<(), HostError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(invalid_tool_answer(format!(
            "{} is {v}; numbers must be finite",
            at()
        )))
    }
}

fn scalar_finite(s: &Scalar, at: impl FnOnce() -> String) -> Result<(), HostError> {
    match s {
        Scalar::Number(v) => finite(*v, at),
        Scalar::Text(_) => Ok(()),
    }
}

/// `returns: "value"`: one figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Value {
    /// The figure.
    pub value: Scalar,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Formatting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// Change against the previous period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
}

impl Value {
    /// A figure with nothing else.
    pub fn new(value: impl Into<Scalar>) -> Self {
        Value {
            value: value.into(),
            label: None,
            unit: None,
            change: None,
        }
    }
    /// Adds a label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    /// Adds a unit.
    pub fn unit(mut self, unit: Unit) -> Self {
        self.unit = Some(unit);
        self
    }
    /// Adds the change against the previous period.
    pub fn change(mut self, change: f64) -> Self {
        self.change = Some(change);
        self
    }
}

impl ToolAnswer for Value {
    fn check(&self) -> Result<(), HostError> {
        scalar_finite(&self.value, || "`value`".to_owned())?;
        self.change
            .map_or(Ok(()), |c| finite(c, || "`change`".to_owned()))
    }
}

/// `returns: "list"`: items with a title.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct List {
    /// The items.
    pub items: Vec<ListItem>,
}

/// One list item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListItem {
    /// Title.
    pub title: String,
    /// Second line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtitle: Option<String>,
    /// An https link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Scalar>,
}

impl ListItem {
    /// An item with a title only.
    pub fn new(title: impl Into<String>) -> Self {
        ListItem {
            title: title.into(),
            subtitle: None,
            url: None,
            value: None,
        }
    }
}

impl ToolAnswer for List {
    fn check(&self) -> Result<(), HostError> {
        for (i, item) in self.items.iter().enumerate() {
            if let Some(url) = &item.url
                && !is_https(url)
            {
                return Err(invalid_tool_answer(format!(
                    "`items[{i}].url` is `{url}`; list links must be https URLs"
                )));
            }
            if let Some(v) = &item.value {
                scalar_finite(v, || format!("`items[{i}].value`"))?;
            }
        }
        Ok(())
    }
}

/// `returns: "table"`: columns, and rows keyed by column key.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Table {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The rows; every key must be a column key.
    pub rows: Vec<BTreeMap<String, Cell>>,
}

/// One table column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Key rows use.
    pub key: String,
    /// Header.
    pub label: String,
    /// Formatting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
}

impl Table {
    /// An empty table.
    pub fn new() -> Self {
        Table::default()
    }
    /// Adds a column.
    pub fn column(mut self, key: impl Into<String>, label: impl Into<String>) -> Self {
        self.columns.push(Column {
            key: key.into(),
            label: label.into(),
            unit: None,
        });
        self
    }
    /// Adds a column with a unit.
    pub fn column_with_unit(
        mut self,
        key: impl Into<String>,
        label: impl Into<String>,
        unit: Unit,
    ) -> Self {
        self.columns.push(Column {
            key: key.into(),
            label: label.into(),
            unit: Some(unit),
        });
        self
    }
    /// Adds a row from `(column key, cell)` pairs.
    pub fn row<K: Into<String>, V: Into<Cell>>(
        mut self,
        cells: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.rows.push(
            cells
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self
    }
}

impl ToolAnswer for Table {
    fn check(&self) -> Result<(), HostError> {
        for (i, row) in self.rows.iter().enumerate() {
            for (key, cell) in row {
                if !self.columns.iter().any(|c| &c.key == key) {
                    return Err(invalid_tool_answer(format!(
                        "`rows[{i}]` has the key `{key}`, which is not a column"
                    )));
                }
                if let Cell::Number(v) = cell {
                    finite(*v, || format!("`rows[{i}].{key}`"))?;
                }
            }
        }
        Ok(())
    }
}

/// `returns: "series"`: lines of points in time.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Series {
    /// The lines.
    pub series: Vec<Line>,
}

/// One line of a series answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Key.
    pub key: String,
    /// Legend label.
    pub label: String,
    /// Formatting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// The points.
    pub points: Vec<Point>,
}

/// One point of a line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// When (ISO 8601 UTC).
    pub t: Timestamp,
    /// The value.
    pub v: f64,
}

impl ToolAnswer for Series {
    fn check(&self) -> Result<(), HostError> {
        for (i, line) in self.series.iter().enumerate() {
            for (j, p) in line.points.iter().enumerate() {
                finite(p.v, || format!("`series[{i}].points[{j}].v`"))?;
                if !is_utc_timestamp(p.t.as_str()) {
                    return Err(invalid_tool_answer(format!(
                        "`series[{i}].points[{j}].t` is `{}`, not an ISO 8601 UTC timestamp (write it as `2026-11-02T14:03:11Z`)",
                        p.t
                    )));
                }
            }
        }
        Ok(())
    }
}

/// `returns: "comparison"`: subjects side by side.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Comparison {
    /// At least two subjects.
    pub subjects: Vec<String>,
    /// Rows with one value per subject.
    pub rows: Vec<ComparisonRow>,
}

/// One comparison row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRow {
    /// What is compared.
    pub label: String,
    /// One value (or null) per subject.
    pub values: Vec<Option<Scalar>>,
}

impl ToolAnswer for Comparison {
    fn check(&self) -> Result<(), HostError> {
        if self.subjects.len() < 2 {
            return Err(invalid_tool_answer(format!(
                "`subjects` has {}; a comparison needs at least 2",
                self.subjects.len()
            )));
        }
        for (i, row) in self.rows.iter().enumerate() {
            if row.values.len() != self.subjects.len() {
                return Err(invalid_tool_answer(format!(
                    "`rows[{i}].values` has {} values for {} subjects",
                    row.values.len(),
                    self.subjects.len()
                )));
            }
            for (j, v) in row.values.iter().enumerate() {
                if let Some(v) = v {
                    scalar_finite(v, || format!("`rows[{i}].values[{j}]`"))?;
                }
            }
        }
        Ok(())
    }
}

/// A mention picker's answer.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MentionItems {
    /// The items; the host keeps the first 20 and cuts labels to 80 characters.
    pub items: Vec<MentionItem>,
}

/// One mention item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MentionItem {
    /// Id.
    pub id: String,
    /// Label.
    pub label: String,
}

impl MentionItem {
    /// An item.
    pub fn new(id: impl Into<String>, label: impl Into<String>) -> Self {
        MentionItem {
            id: id.into(),
            label: label.into(),
        }
    }
}

/// A context provider's answer: at most 2,048 bytes of compact JSON once rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextBlock {
    /// What the assistant reads.
    pub summary: String,
    /// Structured data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ContextBlock {
    /// A block with a summary only.
    pub fn new(summary: impl Into<String>) -> Self {
        ContextBlock {
            summary: summary.into(),
            data: None,
        }
    }
}

/// `TOOL_RESPONSE_INVALID`, saying why.
pub(crate) fn invalid_tool_answer(why: impl std::fmt::Display) -> HostError {
    HostError::from_code(
        ErrorCode::ToolResponseInvalid,
        format!("the tool's answer is invalid: {why}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_must_use_column_keys() {
        let t = Table::new()
            .column("kw", "Keyword")
            .row([("kw", Cell::from("notes"))]);
        assert!(t.check().is_ok());
        let t = t.row([("rank", 3.0)]);
        assert!(
            t.check()
                .unwrap_err()
                .message()
                .to_owned()
                .contains("`rank`")
        );
    }

    #[test]
    fn non_finite_numbers_are_refused() {
        assert!(Value::new(f64::NAN).check().is_err());
        assert!(Value::new(1.0).change(f64::INFINITY).check().is_err());
        let t = Table::new()
            .column("v", "V")
            .row([("v", f64::NEG_INFINITY)]);
        assert!(t.check().is_err());
    }

    #[test]
    fn comparisons_need_two_subjects_and_full_rows() {
        let mut c = Comparison {
            subjects: vec!["a".into(), "b".into()],
            rows: vec![],
        };
        assert!(c.check().is_ok());
        c.rows.push(ComparisonRow {
            label: "x".into(),
            values: vec![Some(1.0.into())],
        });
        assert!(c.check().is_err());
        c.rows[0].values.push(None);
        assert!(c.check().is_ok());
        c.subjects.pop();
        assert!(c.check().is_err());
    }

    #[test]
    fn list_links_are_https_and_series_times_parse() {
        let mut l = List {
            items: vec![ListItem::new("a")],
        };
        l.items[0].url = Some("http://x".into());
        assert!(l.check().is_err());
        let s = Series {
            series: vec![Line {
                key: "k".into(),
                label: "K".into(),
                unit: None,
                points: vec![Point {
                    t: "soon".into(),
                    v: 1.0,
                }],
            }],
        };
        assert!(s.check().is_err());
    }

    #[test]
    fn json_answers_are_checked_against_their_kind() {
        use serde_json::json;
        assert!(
            crate::calls::check::tool_answer("value", &json!({ "value": 3, "extra": true }))
                .is_ok()
        );
        assert!(
            crate::calls::check::tool_answer("value", &json!({ "value": "3rd", "unit": "count" }))
                .is_ok()
        );
        let wrong_kind = crate::calls::check::tool_answer("series", &json!({ "value": 3 }))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(wrong_kind.contains("not a `series` card"), "{wrong_kind}");
        assert!(wrong_kind.contains("`series`"), "{wrong_kind}");
        assert!(
            crate::calls::check::tool_answer("list", &json!({ "items": [ { "title": "a" } ] }))
                .is_ok()
        );
        assert!(
            crate::calls::check::tool_answer(
                "list",
                &json!({ "items": [ { "title": "a", "url": "http://x" } ] })
            )
            .unwrap_err()
            .message()
            .to_owned()
            .contains("https")
        );
        let table = json!({ "columns": [ { "key": "k", "label": "K" } ], "rows": [ { "x": 1 } ] });
        assert!(
            crate::calls::check::tool_answer("table", &table)
                .unwrap_err()
                .message()
                .to_owned()
                .contains("`x`")
        );
        let series = json!({ "series": [ { "key": "k", "label": "K",
            "points": [ { "t": "2026-11-02T14:03:11Z", "v": 1.5 } ] } ] });
        assert!(crate::calls::check::tool_answer("series", &series).is_ok());
        let bad_time = json!({ "series": [ { "key": "k", "label": "K", "points": [ { "t": "soon", "v": 1 } ] } ] });
        assert!(crate::calls::check::tool_answer("series", &bad_time).is_err());
        let comparison =
            json!({ "subjects": ["a", "b"], "rows": [ { "label": "x", "values": [1, null] } ] });
        assert!(crate::calls::check::tool_answer("comparison", &comparison).is_ok());
        assert!(
            crate::calls::check::tool_answer(
                "comparison",
                &json!({ "subjects": ["a"], "rows": [] })
            )
            .is_err()
        );
        assert!(crate::calls::check::tool_answer("value", &json!("3")).is_err());
        assert!(
            crate::calls::check::tool_answer("chart", &json!({}))
                .unwrap_err()
                .message()
                .to_owned()
                .contains("`chart`")
        );
    }

    #[test]
    fn series_times_are_utc_with_z() {
        use serde_json::json;
        let at = |t: &str| {
            crate::calls::check::tool_answer(
                "series",
                &json!({ "series": [ { "key": "k", "label": "K", "points": [ { "t": t, "v": 1 } ] } ] }),
            )
        };
        assert!(at("2026-11-02T14:03:11Z").is_ok());
        assert!(at("2026-11-02T14:03:11.250Z").is_ok());
        for not_utc in [
            "2026-11-02T14:03:11+02:00",
            "2026-11-02T14:03:11+00:00",
            "2026-11-02T14:03:11",
            "2026-11-02",
            "2026-13-02T14:03:11Z",
            "Z",
        ] {
            let why = at(not_utc).expect_err(not_utc).message().to_owned();
            assert!(why.contains("UTC") && why.contains(not_utc), "{why}");
        }
    }

    #[test]
    fn answers_serialize_to_the_d4_keys() {
        let v = serde_json::to_value(Value::new(4.5).label("Rank").unit(Unit::Count)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({ "value": 4.5, "label": "Rank", "unit": "count" })
        );
        let t =
            serde_json::to_value(Table::new().column("k", "K").row([("k", Cell::Null)])).unwrap();
        assert_eq!(
            t,
            serde_json::json!({ "columns": [ { "key": "k", "label": "K" } ], "rows": [ { "k": null } ] })
        );
    }
}
