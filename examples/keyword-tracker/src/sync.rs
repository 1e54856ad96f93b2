//! The connector sync (`POST /host/metrics`): daily metrics from the rank store, paged by day.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use host_runtime::HostError;
use host_runtime::metrics::{MetricPoint, SyncAnswer};

use crate::data::{Store, click_share, midnight};
use crate::{Connector, SyncCall, Tracker, manifest::Metric};

/// Points one answer carries at most; the rest follow through `cursor`.
const PAGE_POINTS: usize = 2_000;
/// Ranks counted by `ranked_keywords`.
const TOP: u32 = 100;

fn date_of(member: &str, t: &host_runtime::Timestamp) -> Result<NaiveDate, HostError> {
    t.to_datetime().map(|t| t.date_naive()).ok_or_else(|| {
        HostError::input_invalid(format!(
            "/input/{member}: `{}` is not an ISO 8601 time",
            t.as_str()
        ))
    })
}

impl Tracker {
    /// Every point of `metric` on day index `day`.
    fn points_of(
        &self,
        metric: Metric,
        day: usize,
        t: &host_runtime::Timestamp,
    ) -> Vec<MetricPoint<Metric>> {
        let ago = self.data.days - 1 - day;
        let mut points = Vec::new();
        for country in self.data.countries() {
            match metric {
                Metric::AverageRank => {
                    for store in Store::ALL {
                        let ranks: Vec<f64> = self
                            .data
                            .in_country(country, &[store])
                            .filter_map(|s| s.rank(ago).map(f64::from))
                            .collect();
                        if !ranks.is_empty() {
                            let mean = ranks.iter().sum::<f64>() / ranks.len() as f64;
                            points.push(
                                MetricPoint::new(metric, t.clone(), (mean * 10.0).round() / 10.0)
                                    .dimension("country", country)
                                    .dimension("store", store.key()),
                            );
                        }
                    }
                }
                Metric::RankedKeywords => {
                    let mut ranked: Vec<&str> = self
                        .data
                        .in_country(country, &Store::ALL)
                        .filter(|s| s.rank(ago).is_some_and(|r| r <= TOP))
                        .map(|s| s.keyword.as_str())
                        .collect();
                    ranked.sort_unstable();
                    ranked.dedup();
                    points.push(
                        MetricPoint::new(metric, t.clone(), ranked.len() as f64)
                            .dimension("country", country),
                    );
                }
                Metric::SearchImpressions => {
                    let mut per_keyword: BTreeMap<&str, f64> = BTreeMap::new();
                    for s in self.data.in_country(country, &Store::ALL) {
                        let daily = f64::from(s.volume) / 30.0;
                        *per_keyword.entry(&s.keyword).or_default() += s
                            .rank(ago)
                            .map_or(0.0, |r| (daily * click_share(r)).round());
                    }
                    for (keyword, v) in per_keyword {
                        points.push(
                            MetricPoint::new(metric, t.clone(), v)
                                .dimension("country", country)
                                .dimension("keyword", keyword),
                        );
                    }
                }
            }
        }
        points
    }
}

impl Connector for Tracker {
    async fn sync(&self, call: SyncCall) -> Result<SyncAnswer<Metric>, HostError> {
        crate::account(&call.credentials)?;
        let request = &call.input;
        let today = self.today();
        let from = date_of("from", &request.from)?;
        let to = date_of("to", &request.to)?.min(today);
        let start = match &request.cursor {
            None => from,
            Some(cursor) => cursor
                .strip_prefix("day:")
                .and_then(|d| d.parse::<NaiveDate>().ok())
                .filter(|d| *d >= from)
                .ok_or_else(|| {
                    HostError::input_invalid(format!(
                        "/input/cursor: `{cursor}` is not a cursor this server gave out"
                    ))
                })?,
        };
        let first = self.data.date_of(0, today);
        let mut answer = SyncAnswer::default();
        let mut date = start.max(first);
        // The last day this page covers: markers are raised for the days of this page only.
        let mut covered = None;
        while date <= to {
            let Some(day) = self.data.day_of(date, today) else {
                break;
            };
            if answer.points.len() >= PAGE_POINTS {
                answer.cursor = Some(format!("day:{date}"));
                break;
            }
            let t = midnight(date);
            for metric in &request.metrics {
                answer.points.extend(self.points_of(*metric, day, &t));
            }
            covered = Some(date);
            let Some(next) = date.succ_opt() else {
                break;
            };
            date = next;
        }
        let install = &call.install.id;
        self.apply_settings(install, &call.documents);
        if let Some(last) = covered {
            self.mark_algorithm_updates(install, start, last).await?;
        }
        if !request.backfill && answer.cursor.is_none() && to >= today {
            self.check_drops(install, "since yesterday", "sync").await?;
        }
        Ok(answer)
    }
}
