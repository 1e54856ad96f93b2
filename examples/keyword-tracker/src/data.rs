//! The embedded rank store: 90 days of daily keyword ranks of one app ("Notely") in two stores and
//! two countries, from `data/ranks.json` (written by `data/generate.py`).
//!
//! A real tracker crawls the stores every day; this example replays the recorded days so that the
//! last one is always today, which keeps every date the server answers with current.

use std::collections::BTreeSet;

use chrono::{NaiveDate, TimeZone, Utc};
use serde::Deserialize;

const EMBEDDED: &str = include_str!("../data/ranks.json");

/// A store the app is listed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Store {
    /// Apple's App Store (`platform: ios`).
    AppStore,
    /// Google Play (`platform: android`).
    GooglePlay,
}

impl Store {
    /// Both stores.
    pub const ALL: [Store; 2] = [Store::AppStore, Store::GooglePlay];

    /// The wire name, as metrics dimensions and webhook payloads spell it.
    pub fn key(self) -> &'static str {
        match self {
            Store::AppStore => "app_store",
            Store::GooglePlay => "google_play",
        }
    }

    /// The name shown to people.
    pub fn label(self) -> &'static str {
        match self {
            Store::AppStore => "App Store",
            Store::GooglePlay => "Google Play",
        }
    }

    /// The stores a call's `context.platform` asks about: `ios`, `android`, or both for `all` and
    /// when the host does not say.
    pub fn for_platform(platform: Option<&str>) -> &'static [Store] {
        match platform {
            Some("ios") => &[Store::AppStore],
            Some("android") => &[Store::GooglePlay],
            _ => &Store::ALL,
        }
    }
}

/// One keyword's daily ranks in one country and store.
#[derive(Debug, Clone, Deserialize)]
pub struct RankSeries {
    /// The keyword, lower case.
    pub keyword: String,
    /// ISO 3166-1 alpha-2 store country.
    pub country: String,
    /// The store.
    pub store: Store,
    /// Monthly searches in that country.
    pub volume: u32,
    /// How hard the keyword is to rank for, 0 to 100.
    pub difficulty: u8,
    /// The rank per day, oldest first; `None` on days the app was not in the top 200.
    pub ranks: Vec<Option<u32>>,
}

impl RankSeries {
    /// The rank `days_ago` days before today (0 is today).
    pub fn rank(&self, days_ago: usize) -> Option<u32> {
        let last = self.ranks.len().checked_sub(1)?;
        let day = last.checked_sub(days_ago)?;
        self.ranks.get(day).copied().flatten()
    }

    /// Positions gained over the last `days` days (negative when the keyword fell).
    pub fn change(&self, days: usize) -> Option<i64> {
        Some(i64::from(self.rank(days)?) - i64::from(self.rank(0)?))
    }
}

/// A day on which a store changed its ranking algorithm.
#[derive(Debug, Clone, Deserialize)]
pub struct AlgorithmUpdate {
    /// The store.
    pub store: Store,
    /// The day, as an index into every series' `ranks`.
    pub day: usize,
}

/// The whole data set.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dataset {
    /// The app the ranks are of.
    pub app: String,
    /// Days recorded per series.
    pub days: usize,
    /// Ranking changes detected in the recorded days.
    pub algorithm_updates: Vec<AlgorithmUpdate>,
    /// Every series.
    pub series: Vec<RankSeries>,
}

impl Dataset {
    /// The data set shipped inside the binary.
    pub fn embedded() -> Result<Dataset, String> {
        let data: Dataset = serde_json::from_str(EMBEDDED)
            .map_err(|e| format!("the embedded rank data is corrupt: {e}"))?;
        if data.days == 0 || data.series.iter().any(|s| s.ranks.len() != data.days) {
            return Err("the embedded rank data has series of the wrong length".to_owned());
        }
        Ok(data)
    }

    /// The date of day index `day`, the last recorded day being `today`.
    pub fn date_of(&self, day: usize, today: NaiveDate) -> NaiveDate {
        let back = self.days.saturating_sub(1).saturating_sub(day);
        today - chrono::Days::new(back as u64)
    }

    /// The day index of `date`, if it is a recorded day.
    pub fn day_of(&self, date: NaiveDate, today: NaiveDate) -> Option<usize> {
        let back = usize::try_from((today - date).num_days()).ok()?;
        self.days.checked_sub(1)?.checked_sub(back)
    }

    /// The series of `keyword` (any case) in `country` on `store`.
    pub fn find(&self, keyword: &str, country: &str, store: Store) -> Option<&RankSeries> {
        self.series.iter().find(|s| {
            s.store == store && s.country == country && s.keyword.eq_ignore_ascii_case(keyword)
        })
    }

    /// Every series of `country` on the given stores.
    pub fn in_country<'a>(
        &'a self,
        country: &'a str,
        stores: &'a [Store],
    ) -> impl Iterator<Item = &'a RankSeries> + 'a {
        self.series
            .iter()
            .filter(move |s| s.country == country && stores.contains(&s.store))
    }

    /// Every keyword of the data set, sorted.
    pub fn keywords(&self) -> BTreeSet<&str> {
        self.series.iter().map(|s| s.keyword.as_str()).collect()
    }

    /// Every country of the data set, sorted.
    pub fn countries(&self) -> BTreeSet<&str> {
        self.series.iter().map(|s| s.country.as_str()).collect()
    }
}

/// Midnight UTC of `date`, as the host's timestamps are written.
pub fn midnight(date: NaiveDate) -> host_runtime::Timestamp {
    Utc.from_utc_datetime(&date.and_time(chrono::NaiveTime::MIN))
        .into()
}

/// The share of searches a result at `rank` receives, relative to rank 1.
pub fn click_share(rank: u32) -> f64 {
    1.0 / f64::from(rank.max(1))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_data_loads_and_tells_its_story() {
        let data = Dataset::embedded().unwrap();
        assert_eq!(data.days, 90);
        assert_eq!(
            data.countries().into_iter().collect::<Vec<_>>(),
            ["GB", "US"]
        );
        let habit = data.find("Habit Tracker", "US", Store::AppStore).unwrap();
        assert!(habit.change(1).unwrap() <= -10, "{:?}", habit.ranks);
    }

    #[test]
    fn days_map_to_dates_ending_today() {
        let data = Dataset::embedded().unwrap();
        let today = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        assert_eq!(data.date_of(89, today), today);
        assert_eq!(
            data.date_of(0, today),
            NaiveDate::from_ymd_opt(2026, 8, 24).unwrap()
        );
        assert_eq!(data.day_of(today, today), Some(89));
        assert_eq!(data.day_of(data.date_of(0, today), today), Some(0));
        assert_eq!(data.day_of(today + chrono::Days::new(1), today), None);
        assert_eq!(
            data.day_of(data.date_of(0, today) - chrono::Days::new(1), today),
            None
        );
        assert_eq!(midnight(today).as_str(), "2026-11-21T00:00:00Z");
    }
}
