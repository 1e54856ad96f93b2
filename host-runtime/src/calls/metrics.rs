//! The connector's metrics sync (`POST /host/metrics`), typed by the manifest's metric keys: the
//! generated `Metric` enum has one variant per declared key, so an undeclared key cannot be written.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::calls::events::Timestamp;

/// What the host asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncRequest<M> {
    /// The metrics wanted.
    pub metrics: Vec<M>,
    /// Start of the period.
    pub from: Timestamp,
    /// End of the period.
    pub to: Timestamp,
    /// Whether this is the first sync's backfill.
    #[serde(default)]
    pub backfill: bool,
    /// Where the previous page stopped.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The answer: points, and a cursor when more pages follow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncAnswer<M> {
    /// The points.
    pub points: Vec<MetricPoint<M>>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

impl<M> Default for SyncAnswer<M> {
    fn default() -> Self {
        SyncAnswer {
            points: Vec::new(),
            cursor: None,
        }
    }
}

/// One value of one metric at one time, optionally broken down by the metric's dimensions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricPoint<M> {
    /// The metric.
    pub metric: M,
    /// When.
    pub t: Timestamp,
    /// The value (finite).
    pub v: f64,
    /// Dimension values by dimension key; every key must be one the metric declares.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dimensions: BTreeMap<String, String>,
}

impl<M> MetricPoint<M> {
    /// A point without dimensions.
    pub fn new(metric: M, t: impl Into<Timestamp>, v: f64) -> Self {
        MetricPoint {
            metric,
            t: t.into(),
            v,
            dimensions: BTreeMap::new(),
        }
    }

    /// Adds a dimension value.
    pub fn dimension(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.dimensions.insert(key.into(), value.into());
        self
    }
}
