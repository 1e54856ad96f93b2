//! {{name}}: a connector for the host: daily sign-ups by country, paged by day.
//!
//! `cargo run` serves it on 127.0.0.1:8787; `cargo host call sync` asks for the last 24 hours as
//! the host's scheduled sync does, and `cargo host check` runs a backfill through every page. The
//! numbers are made up from the date: a real connector reads them from its own API with the
//! install's `api_key`.

host_runtime::host_extension!("host.extension.json");

mod config;

use std::process::ExitCode;

use chrono::{Days, NaiveDate, NaiveTime, SecondsFormat, TimeZone, Utc};
use host_runtime::HostError;
use host_runtime::metrics::{MetricPoint, SyncAnswer};

/// The countries reported.
const COUNTRIES: [&str; 3] = ["US", "DE", "JP"];
/// Days one answer covers; the rest follow through `cursor`.
const DAYS_PER_PAGE: u64 = 7;

/// The extension.
#[derive(Debug, Default)]
struct Server;

/// `day:2026-11-01` -> the date.
fn parse_cursor(cursor: &str) -> Option<NaiveDate> {
    cursor.strip_prefix("day:")?.parse().ok()
}

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

#[tokio::main]
async fn main() -> ExitCode {
    let config = match config::Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    config::serve(config.apply(handler(Server)), &config).await
}
