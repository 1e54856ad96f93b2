//! The connector: daily sign-ups by country, paged by day. The numbers are made up from the date:
//! a real connector reads them from its own API with the install's `api_key`.

use chrono::{Days, NaiveDate, NaiveTime, SecondsFormat, TimeZone, Utc};
use host_runtime::HostError;
use host_runtime::metrics::{MetricPoint, SyncAnswer};

use crate::{Connector, Server, SyncCall, manifest};

/// The countries reported.
const COUNTRIES: [&str; 3] = ["US", "DE", "JP"];
/// Days one answer covers; the rest follow through `cursor`.
const DAYS_PER_PAGE: u64 = 7;

/// `day:2026-11-01` -> the date.
fn parse_cursor(cursor: &str) -> Option<NaiveDate> {
    cursor.strip_prefix("day:")?.parse().ok()
}

/// The date of the input's time `member`, or `INPUT_INVALID` naming the member.
fn date_of(member: &str, t: &host_runtime::Timestamp) -> Result<NaiveDate, HostError> {
    t.to_datetime()
        .map(|t| t.date_naive())
        .ok_or_else(|| HostError::input_invalid(format!("/input/{member}: not an ISO 8601 time")))
}

impl Connector for Server {
    async fn sync(&self, call: SyncCall) -> Result<SyncAnswer<manifest::Metric>, HostError> {
        if call.credentials.api_key.is_empty() {
            return Err(
                HostError::new("API_KEY_MISSING", "connect an API key first").with_status(401),
            );
        }
        let request = call.input;
        let from = date_of("from", &request.from)?;
        let to = date_of("to", &request.to)?;
        let start = match &request.cursor {
            None => from,
            Some(cursor) => parse_cursor(cursor).filter(|d| *d >= from).ok_or_else(|| {
                HostError::input_invalid(format!(
                    "/input/cursor: `{cursor}` is not a cursor this server gave out"
                ))
            })?,
        };
        let mut answer = SyncAnswer::default();
        let mut day = start;
        while day <= to {
            if day >= start + Days::new(DAYS_PER_PAGE) {
                answer.cursor = Some(format!("day:{day}"));
                break;
            }
            let midnight = Utc.from_utc_datetime(&day.and_time(NaiveTime::MIN));
            let t = midnight.to_rfc3339_opts(SecondsFormat::Secs, true);
            for metric in &request.metrics {
                for (i, country) in COUNTRIES.iter().enumerate() {
                    let v = f64::from(day.format("%d").to_string().parse::<u8>().unwrap_or(1))
                        * (i as f64 + 1.0);
                    answer.points.push(
                        MetricPoint::new(*metric, t.as_str(), v).dimension("country", *country),
                    );
                }
            }
            let Some(next) = day.succ_opt() else {
                break;
            };
            day = next;
        }
        Ok(answer)
    }
}
