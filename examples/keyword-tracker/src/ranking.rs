//! The assistant's tools: one per `returns` kind, all answered from the rank store.

use host_runtime::HostError;
use host_runtime::answer::{
    Cell, Comparison, ComparisonRow, Line, List, ListItem, Point, Series, Table, Value,
};

use crate::data::{RankSeries, Store, click_share, midnight};
use crate::{ToolCall, Tools, Tracker, tools};

/// Rows `top-movers` returns at most.
const TOP_MOVERS: usize = 10;
/// Ideas `keyword-ideas` returns at most.
const IDEAS: usize = 10;

impl Tracker {
    /// The country a call asks about: its input's, else the install's setting.
    fn country_of<I>(&self, call: &ToolCall<I>, asked: Option<&str>) -> String {
        let default = self.apply_settings(&call.install.id, &call.documents);
        asked.map_or(default, str::to_owned)
    }

    fn unknown_keyword(keyword: &str, country: &str) -> HostError {
        HostError::new(
            "KEYWORD_UNKNOWN",
            format!(
                "“{keyword}” has no rank data in {country} yet; track it with the addKeyword \
                 procedure and ranks appear after the next daily crawl"
            ),
        )
        .with_status(404)
    }
}

/// The best rank of `keyword` today across `stores`, and that series.
fn best<'a>(
    tracker: &'a Tracker,
    keyword: &str,
    country: &str,
    stores: &[Store],
) -> Option<&'a RankSeries> {
    stores
        .iter()
        .filter_map(|s| tracker.data.find(keyword, country, *s))
        .min_by_key(|s| s.rank(0).unwrap_or(u32::MAX))
}

impl Tools for Tracker {
    async fn keyword_ranks(
        &self,
        call: ToolCall<tools::keyword_ranks::Input>,
    ) -> Result<Series, HostError> {
        crate::account(&call.credentials)?;
        let country = self.country_of(&call, call.input.country.as_deref());
        let keyword = call.input.keyword.trim();
        // The schema's default (30) when the call leaves `days` out.
        let days = usize::try_from(call.input.days.map_or(30, |d| d.get()))
            .unwrap_or(usize::MAX)
            .min(self.data.days);
        let today = self.today();
        let series: Vec<Line> = Store::for_platform(call.context.platform.as_deref())
            .iter()
            .filter_map(|store| self.data.find(keyword, &country, *store))
            .map(|s| Line {
                key: s.store.key().to_owned(),
                label: format!("{} rank, {}", s.store.label(), s.country),
                unit: None,
                points: (0..days)
                    .rev()
                    .filter_map(|ago| {
                        let rank = s.rank(ago)?;
                        let day = self.data.days - 1 - ago;
                        Some(Point {
                            t: midnight(self.data.date_of(day, today)),
                            v: f64::from(rank),
                        })
                    })
                    .collect(),
            })
            .collect();
        if series.is_empty() {
            return Err(Self::unknown_keyword(keyword, &country));
        }
        Ok(Series { series })
    }

    async fn compare_keywords(
        &self,
        call: ToolCall<tools::compare_keywords::Input>,
    ) -> Result<Comparison, HostError> {
        crate::account(&call.credentials)?;
        let country = self.country_of(&call, call.input.country.as_deref());
        let stores = Store::for_platform(call.context.platform.as_deref());
        let found: Vec<Option<&RankSeries>> = call
            .input
            .keywords
            .iter()
            .map(|k| best(self, k.trim(), &country, stores))
            .collect();
        let row = |label: &str, f: &dyn Fn(&RankSeries) -> Option<f64>| ComparisonRow {
            label: label.to_owned(),
            values: found
                .iter()
                .map(|s| s.and_then(f).map(Into::into))
                .collect(),
        };
        Ok(Comparison {
            subjects: call
                .input
                .keywords
                .iter()
                .map(|k| k.trim().to_owned())
                .collect(),
            rows: vec![
                row(&format!("Rank today, {country}"), &|s| {
                    s.rank(0).map(f64::from)
                }),
                row("Change over 7 days", &|s| s.change(7).map(|c| c as f64)),
                row("Monthly searches", &|s| Some(f64::from(s.volume))),
                row("Difficulty (0-100)", &|s| Some(f64::from(s.difficulty))),
            ],
        })
    }

    async fn top_movers(
        &self,
        call: ToolCall<tools::top_movers::Input>,
    ) -> Result<Table, HostError> {
        use tools::top_movers::InputDirection;
        crate::account(&call.credentials)?;
        // The schema's default (7) when the call leaves `days` out.
        let days = usize::try_from(call.input.days.map_or(7, |d| d.get()))
            .unwrap_or(usize::MAX)
            .min(self.data.days - 1);
        let stores = Store::for_platform(call.context.platform.as_deref());
        let mut movers: Vec<(&RankSeries, i64)> = self
            .data
            .series
            .iter()
            .filter(|s| stores.contains(&s.store))
            .filter_map(|s| Some((s, s.change(days)?)))
            .filter(|(_, change)| match call.input.direction {
                Some(InputDirection::Up) => *change > 0,
                Some(InputDirection::Down) => *change < 0,
                // `both` is the schema's default.
                Some(InputDirection::Both) | None => *change != 0,
            })
            .collect();
        movers.sort_by(|a, b| {
            b.1.abs()
                .cmp(&a.1.abs())
                .then_with(|| a.0.keyword.cmp(&b.0.keyword))
        });
        let mut table = Table::new()
            .column("keyword", "Keyword")
            .column("country", "Country")
            .column("store", "Store")
            .column("rank", "Rank today")
            .column("change", format!("Change over {days} days"));
        for (s, change) in movers.into_iter().take(TOP_MOVERS) {
            table = table.row([
                ("keyword", Cell::from(s.keyword.as_str())),
                ("country", Cell::from(s.country.as_str())),
                ("store", Cell::from(s.store.label())),
                ("rank", Cell::from(s.rank(0).map(i64::from))),
                ("change", Cell::from(change)),
            ]);
        }
        Ok(table)
    }

    async fn keyword_ideas(
        &self,
        call: ToolCall<tools::keyword_ideas::Input>,
    ) -> Result<List, HostError> {
        crate::account(&call.credentials)?;
        let country = self.country_of(&call, None);
        let seed = call.input.seed.trim().to_lowercase();
        let words: Vec<&str> = seed.split_whitespace().collect();
        // Keywords the account already has data for that share a word with the seed...
        let mut items: Vec<ListItem> = self
            .data
            .keywords()
            .into_iter()
            .filter(|k| *k != seed && k.split_whitespace().any(|w| words.contains(&w)))
            .filter_map(|k| best(self, k, &country, &Store::ALL))
            .map(|s| ListItem {
                title: s.keyword.clone(),
                subtitle: Some(match s.rank(0) {
                    Some(rank) => {
                        format!("Ranked #{rank} in {country}, difficulty {}", s.difficulty)
                    }
                    None => format!("Not ranked in {country}, difficulty {}", s.difficulty),
                }),
                url: None,
                value: Some(f64::from(s.volume).into()),
            })
            .collect();
        // ...then the usual long-tail variations, which nobody tracks yet.
        for variation in [
            format!("{seed} app"),
            format!("best {seed}"),
            format!("{seed} free"),
        ] {
            if !self.data.keywords().contains(variation.as_str()) {
                let mut item = ListItem::new(variation);
                item.subtitle = Some("New: not tracked yet".to_owned());
                items.push(item);
            }
        }
        items.truncate(IDEAS);
        Ok(List { items })
    }

    async fn visibility_score(
        &self,
        call: ToolCall<tools::visibility_score::Input>,
    ) -> Result<Value, HostError> {
        crate::account(&call.credentials)?;
        let country = self.country_of(&call, call.input.country.as_deref());
        let stores = Store::for_platform(call.context.platform.as_deref());
        let score = |days_ago: usize| -> Option<f64> {
            let (mut got, mut best) = (0.0, 0.0);
            for s in self.data.in_country(&country, stores) {
                let volume = f64::from(s.volume);
                best += volume * click_share(1);
                got += s.rank(days_ago).map_or(0.0, |r| volume * click_share(r));
            }
            (best > 0.0).then(|| (got / best * 1000.0).round() / 10.0)
        };
        let Some(now) = score(0) else {
            return Err(Self::unknown_keyword("any keyword", &country));
        };
        let mut value = Value::new(now).label(format!("Visibility in {country}"));
        if let Some(before) = score(7) {
            value = value.change(((now - before) * 10.0).round() / 10.0);
        }
        Ok(value)
    }
}
