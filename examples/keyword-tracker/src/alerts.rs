//! The server's own events: what it tells the owner without being asked.
//!
//! - `rank.dropped` (an inbox alert): a tracked keyword lost at least the install's threshold of
//!   positions since yesterday;
//! - `rank.collapsed` (a banner on the analytics page): three or more dropped on the same day;
//! - `store.algorithm_updated` (a chart marker): a store changed its ranking on a synced day.
//!
//! Checks run after each connector sync and after a release ships. Every event's dedupe key is
//! derived from everything it reports (install, keyword, country, store, day, and what the check ran
//! after: the release's version, or the sync), so reporting the same drop twice, from two instances
//! or two runs of one check, is one event for the host, and two reports that say different things
//! (the same drop after two releases) are two events. A key is one message: the outbox posts one
//! body per key, so a key that stayed the same while the words changed would lose the second.

use chrono::NaiveDate;
use host_runtime::HostError;
use host_runtime::outbox::SendError;
use host_runtime::webhook::OutboundEvent;

use crate::data::{Dataset, Store};
use crate::{Tracker, webhooks};

/// Drops on one day that make a banner rather than only alerts.
const COLLAPSE_COUNT: usize = 3;

/// A tracked keyword that fell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Drop {
    pub(crate) keyword: String,
    pub(crate) country: String,
    pub(crate) store: Store,
    pub(crate) previous: u32,
    pub(crate) current: u32,
}

/// The tracked keywords that lost at least `threshold` positions from yesterday to today.
pub(crate) fn drops<'a>(
    data: &Dataset,
    tracked: impl IntoIterator<Item = &'a (String, String)>,
    threshold: u32,
) -> Vec<Drop> {
    let mut found = Vec::new();
    for (keyword, country) in tracked {
        for store in Store::ALL {
            let Some(series) = data.find(keyword, country, store) else {
                continue;
            };
            if let (Some(previous), Some(current)) = (series.rank(1), series.rank(0))
                && current >= previous.saturating_add(threshold)
            {
                found.push(Drop {
                    keyword: series.keyword.clone(),
                    country: series.country.clone(),
                    store,
                    previous,
                    current,
                });
            }
        }
    }
    found
}

/// `key` followed by 16 hex digits of `payload`'s digest: the event's id covers everything its
/// body says, so a retry (the same alert) has the same id, and an alert that says something else
/// (a new rank the same day, another list of keywords) has an id of its own, rather than one the
/// outbox would refuse as taken.
fn covering(key: String, payload: &impl serde::Serialize) -> String {
    let bytes = serde_json::to_vec(payload).unwrap_or_default();
    let digest = host_runtime::outbox::content_digest(&bytes);
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{key}-{hex}")
}

/// A `webhook-id`-safe piece of a dedupe key.
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

impl Tracker {
    /// Checks install `install`'s tracked keywords for drops today and posts what it finds;
    /// `because` ends each alert's sentence (for example "since 4.12.0 went live") and `after`
    /// names the same cause in the events' keys (for example "v4.12.0"). Returns how
    /// many drops were found, or the error of an outbox that could not take an event (the host's
    /// call then fails and is retried, so no alert is lost).
    pub(crate) async fn check_drops(
        &self,
        install: &str,
        because: &str,
        after: &str,
    ) -> Result<usize, HostError> {
        let (tracked, threshold, paused) =
            self.with_install(install, |s| (s.tracked.clone(), s.threshold, s.paused));
        let found = drops(&self.data, &tracked, threshold);
        if paused {
            tracing::info!(
                install,
                drops = found.len(),
                "install paused: no alerts posted"
            );
            return Ok(found.len());
        }
        let today = self.today();
        for d in &found {
            let why = format!(
                "“{}” fell from #{} to #{} in {} on the {} {because}.",
                d.keyword,
                d.previous,
                d.current,
                d.country,
                d.store.label()
            );
            let Ok(why) = clip(&why).parse() else {
                tracing::error!(why, "alert sentence does not fit the payload schema");
                continue;
            };
            let payload = webhooks::rank_dropped::Payload {
                why,
                keyword: Some(d.keyword.clone()),
                country: d.country.parse().ok(),
                previous: std::num::NonZeroU64::new(u64::from(d.previous)),
                current: std::num::NonZeroU64::new(u64::from(d.current)),
            };
            let key = covering(
                format!(
                    "rank.dropped-{}-{}-{}-{}-{today}-{}",
                    slug(install),
                    slug(&d.keyword),
                    d.country,
                    d.store.key(),
                    slug(after)
                ),
                &payload,
            );
            // In the database, the alert's row commits with its event and the delivery's record.
            if let Some(database) = &self.database {
                database
                    .record(&crate::database::Alert {
                        install,
                        keyword: &d.keyword,
                        country: &d.country,
                        store: d.store.key(),
                        previous: d.previous,
                        current: d.current,
                        event_id: &key,
                    })
                    .await?;
            }
            self.post(self.webhooks.rank_dropped(install, &key, &payload))
                .await?;
        }
        if found.len() >= COLLAPSE_COUNT {
            let mut keywords: Vec<String> = found.iter().map(|d| d.keyword.clone()).collect();
            keywords.dedup();
            let why = format!(
                "{} tracked keywords fell sharply today {because}: {}.",
                found.len(),
                keywords.join(", ")
            );
            match clip(&why).parse() {
                Ok(why) => {
                    let payload = webhooks::rank_collapsed::Payload {
                        why,
                        keywords: Some(keywords),
                    };
                    let key = covering(
                        format!("rank.collapsed-{}-{today}-{}", slug(install), slug(after)),
                        &payload,
                    );
                    self.post(self.webhooks.rank_collapsed(install, &key, &payload))
                        .await?;
                }
                Err(_) => tracing::error!(why, "banner sentence does not fit the payload schema"),
            }
        }
        Ok(found.len())
    }

    /// Posts a `store.algorithm_updated` marker for every ranking change recorded between `from`
    /// and `to` (inclusive).
    pub(crate) async fn mark_algorithm_updates(
        &self,
        install: &str,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<(), HostError> {
        let today = self.today();
        for update in &self.data.algorithm_updates {
            let date = self.data.date_of(update.day, today);
            if date < from || date > to {
                continue;
            }
            let payload = webhooks::store_algorithm_updated::Payload {
                store: match update.store {
                    Store::AppStore => webhooks::store_algorithm_updated::PayloadStore::AppStore,
                    Store::GooglePlay => {
                        webhooks::store_algorithm_updated::PayloadStore::GooglePlay
                    }
                },
                detected_at: date.and_hms_opt(6, 0, 0).map(|t| {
                    t.and_utc()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                }),
            };
            let key = covering(
                format!(
                    "store.algorithm_updated-{}-{}-{date}",
                    slug(install),
                    update.store.key()
                ),
                &payload,
            );
            self.post(
                self.webhooks
                    .store_algorithm_updated(install, &key, &payload),
            )
            .await?;
        }
        Ok(())
    }

    /// Hands one event to the outbox: it is stored (on disk, or in Redis) before this returns,
    /// and posted in the background until the host takes it, across restarts. An outbox that
    /// cannot take it fails the host's call with a 503, which the host retries; an event that
    /// breaks its own schema is a bug here, logged. So is an id another event holds (the ids
    /// cover what the events say, so only a bug gets here): logged, and the other alerts of the
    /// delivery still go out, since failing the call would not free the id.
    async fn post(
        &self,
        event: Result<OutboundEvent, host_runtime::webhook::WebhookError>,
    ) -> Result<(), HostError> {
        match event {
            Err(e) => {
                tracing::error!(error = %e, "event not signed");
                Ok(())
            }
            // The receipt is not needed: the outbox logs the outcome.
            Ok(event) => match event.enqueue().await {
                Ok(_receipt) => Ok(()),
                Err(e @ SendError::Conflict { .. }) => {
                    tracing::error!(error = %e, "alert not sent: its id is taken");
                    Ok(())
                }
                Err(e) => Err(e.into()),
            },
        }
    }
}

/// `why` is at most 280 characters (the webhook's payload schema).
fn clip(text: &str) -> String {
    text.chars().take(280).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn drops_are_found_at_the_threshold_and_not_below() {
        let data = Dataset::embedded().unwrap();
        let tracked = vec![
            ("habit tracker".to_owned(), "US".to_owned()),
            ("notes".to_owned(), "US".to_owned()),
        ];
        let habit = data.find("habit tracker", "US", Store::AppStore).unwrap();
        let lost = habit.rank(0).unwrap() - habit.rank(1).unwrap();
        let at = drops(&data, &tracked, lost);
        assert_eq!(at.len(), 1, "{at:?}");
        assert_eq!(
            (at[0].keyword.as_str(), at[0].store),
            ("habit tracker", Store::AppStore)
        );
        assert!(drops(&data, &tracked, lost + 1).is_empty());
        // Keywords that are not tracked never alert, however far they fell.
        assert!(drops(&data, &tracked[1..], lost).is_empty());
    }

    #[test]
    fn slugs_are_safe_in_webhook_ids() {
        assert_eq!(slug("habit tracker"), "habit-tracker");
        assert_eq!(slug("ins_1/../x"), "ins-1----x");
    }
}
