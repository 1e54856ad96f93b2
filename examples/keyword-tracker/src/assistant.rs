//! The rest of the assistant's surface: the keyword mention picker, the context provider, the
//! approved action and the two procedures.

use host_runtime::{ContextBlock, ContextCall, HostError, MentionCall, MentionItem, MentionItems};

use crate::data::Store;
use crate::{
    Actions, Approved, ContextProviders, Mentions, ProcedureCall, Procedures, Tracker, actions,
    procedures,
};

/// Bytes of summary the context block may use; the runtime refuses blocks over 2,048 bytes of
/// compact JSON, and the JSON framing takes some.
const CONTEXT_BUDGET: usize = 1_800;

impl Mentions for Tracker {
    async fn keyword(&self, call: MentionCall) -> Result<MentionItems, HostError> {
        let q = call.q.trim().to_lowercase();
        let (tracked, country) =
            self.with_install(&call.install.id, |s| (s.tracked.clone(), s.country.clone()));
        let mut keywords: Vec<&str> = self.data.keywords().into_iter().collect();
        keywords.extend(
            tracked
                .iter()
                .filter(|(_, c)| *c == country)
                .map(|(k, _)| k.as_str()),
        );
        keywords.sort_unstable();
        keywords.dedup();
        let items = keywords
            .into_iter()
            .filter(|k| k.contains(&q))
            .map(|k| {
                let rank = Store::ALL
                    .iter()
                    .filter_map(|s| self.data.find(k, &country, *s)?.rank(0))
                    .min();
                let label = match rank {
                    Some(rank) => format!("{k} (#{rank} in {country})"),
                    None => format!("{k} (no rank yet in {country})"),
                };
                MentionItem::new(k, label)
            })
            .collect();
        // The runtime keeps the first 20.
        Ok(MentionItems { items })
    }
}

impl ContextProviders for Tracker {
    async fn tracked_keywords(&self, call: ContextCall) -> Result<ContextBlock, HostError> {
        let (tracked, country) =
            self.with_install(&call.install.id, |s| (s.tracked.clone(), s.country.clone()));
        let mut lines = Vec::new();
        let mut used = 0;
        let mut left = 0;
        for (keyword, _) in tracked.iter().filter(|(_, c)| *c == country) {
            let line = match self.data.find(keyword, &country, Store::AppStore) {
                Some(s) => match (s.rank(0), s.change(1)) {
                    (Some(rank), Some(change)) if change != 0 => {
                        format!("{keyword} #{rank} ({change:+} since yesterday)")
                    }
                    (Some(rank), _) => format!("{keyword} #{rank}"),
                    (None, _) => format!("{keyword} unranked"),
                },
                None => format!("{keyword} (no data yet)"),
            };
            if used + line.len() + 2 > CONTEXT_BUDGET {
                left += 1;
                continue;
            }
            used += line.len() + 2;
            lines.push(line);
        }
        let mut summary = format!(
            "{} keywords tracked in {country} (App Store ranks): {}",
            lines.len() + left,
            lines.join("; ")
        );
        if left > 0 {
            summary.push_str(&format!("; and {left} more"));
        }
        Ok(ContextBlock::new(summary))
    }
}

impl Actions for Tracker {
    async fn save_rank_insight(
        &self,
        call: Approved<actions::save_rank_insight::Input>,
    ) -> Result<host_runtime::serde_json::Value, HostError> {
        let keyword = call.input.keyword.trim().to_owned();
        let summary = call.input.summary.trim().to_owned();
        let id = self.with_install(&call.install.id, |s| {
            s.insights.push(format!("{keyword}: {summary}"));
            format!("insight-{}", s.insights.len())
        });
        tracing::info!(install = %call.install.id, %id, "insight saved after approval");
        Ok(host_runtime::serde_json::json!({ "id": id, "keyword": keyword, "saved": true }))
    }
}

impl Procedures for Tracker {
    async fn list_watchlists(
        &self,
        call: ProcedureCall<procedures::list_watchlists::Input>,
    ) -> Result<procedures::list_watchlists::Output, HostError> {
        // Watchlists live in the host's storage for this install: they arrive with the call.
        let items = call
            .documents
            .watchlists
            .iter()
            .map(|d| procedures::list_watchlists::OutputItemsItem {
                id: d.id.clone(),
                name: d.data.name.to_string(),
            })
            .collect();
        Ok(procedures::list_watchlists::Output { items })
    }

    async fn add_keyword(
        &self,
        call: ProcedureCall<procedures::add_keyword::Input>,
    ) -> Result<procedures::add_keyword::Output, HostError> {
        let keyword = call.input.keyword.trim().to_lowercase();
        if keyword.is_empty() {
            return Err(HostError::input_invalid("/keyword: the keyword is blank"));
        }
        let country = call.input.country.to_string();
        self.with_install(&call.install.id, |s| s.tracked.insert((keyword, country)));
        Ok(procedures::add_keyword::Output { tracked: true })
    }
}
