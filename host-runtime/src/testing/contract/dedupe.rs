//! The [`DedupeStore`](crate::dedupe::DedupeStore) contract: what the delivery pipeline relies on
//! from any deduplication store, checked step by step.
//!
//! Lease expiry is not part of it: how long an unsettled claim lasts differs by store (a minute in
//! Redis, PostgreSQL or DynamoDB, until settled in memory), so each store tests its own expiry.

use std::sync::Arc;

use futures_util::FutureExt as _;
use tokio::sync::Notify;

use super::{Violation, answered, expect};
use crate::dedupe::{Claim, DedupeStore};

/// A claim's answer without the notification a `Wait` carries, so that it can be compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Run,
    Done,
    Busy,
    Wait,
}

/// Drives `store` through the deduplication contract and returns the first promise it breaks:
///
/// 1. the first claim of a key answers `Run`;
/// 2. while that claim is held, a claim by another attempt answers `Busy` or `Wait` (see below);
/// 3. `complete`, `release` and `renew` by an attempt that does not hold the claim change nothing,
///    and on a key nobody claimed they create nothing;
/// 4. `renew` by the holder keeps its claim;
/// 5. `complete` by the holder records the key: every later claim answers `Done`, and a late
///    `release`, `complete` or `renew` by anyone, the holder included, does not erase the record;
/// 6. `release` by the holder frees the key: the next claim answers `Run`;
/// 7. keys are independent, also when one is the beginning of another;
/// 8. keys with spaces, control characters, JSON, non-ASCII text, and of 300 and 5,000
///    characters behave like any other key, and two long keys that differ only in their last
///    character are two keys.
///
/// A claim held by another attempt may be answered either way: `Busy` (claim again shortly), what
/// a store shared between instances answers, or `Wait`, what a store answers for an attempt in its
/// own process (the memory store). A `Wait` must be notified when its holder completes or
/// releases the key.
///
/// The store needs no emptying first: every key of a run starts with `contract-` and a random
/// token, so runs can share a store with other runs and with real deliveries. When it passes,
/// every claim it made is settled; what it recorded stays until the store forgets it (the
/// deduplication window). It takes no time of its own (no sleep), but a claim must last at least
/// as long as the run takes, a few dozen requests: keep the store's default lease.
pub async fn dedupe_store(store: &dyn DedupeStore) -> Result<(), Violation> {
    let run = Run {
        store,
        prefix: format!("contract-{}:", crate::platform::rt::random_token()),
    };
    run.a_claim_is_held_then_recorded().await?;
    run.strangers_change_nothing().await?;
    run.a_released_key_runs_again().await?;
    run.keys_are_independent().await?;
    run.unusual_keys_are_keys().await
}

/// One run of the contract: its store and the prefix of its keys.
struct Run<'a> {
    store: &'a dyn DedupeStore,
    prefix: String,
}

impl Run<'_> {
    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// Claims `key` for `owner`: the answer, and a `Wait`'s notification.
    async fn claim(
        &self,
        step: &'static str,
        key: &str,
        owner: &str,
    ) -> Result<(Answer, Option<Arc<Notify>>), Violation> {
        Ok(match answered(step, self.store.claim(key, owner).await)? {
            Claim::Run => (Answer::Run, None),
            Claim::Done => (Answer::Done, None),
            Claim::Busy => (Answer::Busy, None),
            Claim::Wait(notify) => (Answer::Wait, Some(notify)),
        })
    }

    /// Claims `key` for `owner`, expecting `expected`.
    async fn expect_claim(
        &self,
        step: &'static str,
        key: &str,
        owner: &str,
        expected: Answer,
    ) -> Result<(), Violation> {
        let (answer, _) = self.claim(step, key, owner).await?;
        expect(step, answer, expected)
    }

    /// Claims `key`, held by another attempt, for `owner`: `Busy` or `Wait`, and a `Wait`'s
    /// notification.
    async fn expect_held(
        &self,
        step: &'static str,
        key: &str,
        owner: &str,
    ) -> Result<Option<Arc<Notify>>, Violation> {
        match self.claim(step, key, owner).await? {
            (Answer::Busy | Answer::Wait, notify) => Ok(notify),
            (other, _) => Err(Violation {
                step,
                found: format!("{other:?} (expected Busy, or Wait in the holder's own process)"),
            }),
        }
    }

    /// Promises 1, 2, 4 and 5: a claim is held by its attempt, renewed, then recorded for good.
    async fn a_claim_is_held_then_recorded(&self) -> Result<(), Violation> {
        let key = self.key("recorded");
        self.expect_claim("the first claim of a key runs", &key, "holder", Answer::Run)
            .await?;
        self.expect_held(
            "a claim of a key another attempt holds is busy or waits",
            &key,
            "duplicate",
        )
        .await?;
        self.store.renew(&key, "holder").await;
        let waiting = self
            .expect_held(
                "a claim renewed by its holder is still held",
                &key,
                "duplicate",
            )
            .await?;
        // Registered before the holder settles, so a notification sent then is kept.
        let notified = waiting.as_ref().map(|notify| notify.notified());
        self.store.complete(&key, "holder").await;
        if let Some(notified) = notified {
            expect(
                "an attempt waiting for a key is notified when its holder completes it",
                notified.now_or_never().is_some(),
                true,
            )?;
        }
        self.expect_claim(
            "a key its holder completed is done",
            &key,
            "duplicate",
            Answer::Done,
        )
        .await?;
        self.expect_claim(
            "a key its holder completed is done for the holder too",
            &key,
            "holder",
            Answer::Done,
        )
        .await?;
        self.store.release(&key, "holder").await;
        self.store.release(&key, "duplicate").await;
        self.store.renew(&key, "holder").await;
        self.store.complete(&key, "duplicate").await;
        self.expect_claim(
            "a late release, renewal or completion does not erase a record",
            &key,
            "retry",
            Answer::Done,
        )
        .await
    }

    /// Promise 3: only the holder settles its claim, and settling a key nobody claimed does
    /// nothing.
    async fn strangers_change_nothing(&self) -> Result<(), Violation> {
        let key = self.key("held");
        self.expect_claim("the first claim of a key runs", &key, "holder", Answer::Run)
            .await?;
        self.store.complete(&key, "stranger").await;
        self.expect_held(
            "a completion by an attempt that does not hold the claim records nothing",
            &key,
            "duplicate",
        )
        .await?;
        self.store.release(&key, "stranger").await;
        self.expect_held(
            "a release by an attempt that does not hold the claim frees nothing",
            &key,
            "duplicate",
        )
        .await?;
        // A renewal by a stranger must not make the claim its own: the holder still records it.
        self.store.renew(&key, "stranger").await;
        self.store.complete(&key, "holder").await;
        self.expect_claim(
            "a renewal by an attempt that does not hold the claim leaves it to its holder",
            &key,
            "duplicate",
            Answer::Done,
        )
        .await?;

        let never = self.key("never-claimed");
        self.store.complete(&never, "stranger").await;
        self.store.renew(&never, "stranger").await;
        self.store.release(&never, "stranger").await;
        self.expect_claim(
            "completing, renewing or releasing a key nobody claimed creates nothing",
            &never,
            "holder",
            Answer::Run,
        )
        .await?;
        self.store.release(&never, "holder").await;
        Ok(())
    }

    /// Promise 6: a key released by its holder (the handler failed) runs again.
    async fn a_released_key_runs_again(&self) -> Result<(), Violation> {
        let key = self.key("released");
        self.expect_claim(
            "the first claim of a key runs",
            &key,
            "failing",
            Answer::Run,
        )
        .await?;
        let waiting = self
            .expect_held(
                "a claim of a key another attempt holds is busy or waits",
                &key,
                "duplicate",
            )
            .await?;
        let notified = waiting.as_ref().map(|notify| notify.notified());
        self.store.release(&key, "failing").await;
        if let Some(notified) = notified {
            expect(
                "an attempt waiting for a key is notified when its holder releases it",
                notified.now_or_never().is_some(),
                true,
            )?;
        }
        self.expect_claim(
            "a key its holder released runs again",
            &key,
            "retry",
            Answer::Run,
        )
        .await?;
        self.store.release(&key, "failing").await;
        self.expect_held(
            "a second release by the former holder frees nothing of the new claim",
            &key,
            "duplicate",
        )
        .await?;
        self.store.complete(&key, "retry").await;
        self.expect_claim(
            "a key run again and completed is done",
            &key,
            "duplicate",
            Answer::Done,
        )
        .await
    }

    /// Promise 7: what happens to one key does not happen to another, also when one key is the
    /// beginning of the other.
    async fn keys_are_independent(&self) -> Result<(), Violation> {
        let short = self.key("independent");
        let longer = self.key("independent-more");
        self.expect_claim("the first claim of a key runs", &short, "a", Answer::Run)
            .await?;
        self.expect_claim(
            "a key runs while another key is held",
            &longer,
            "a",
            Answer::Run,
        )
        .await?;
        self.store.complete(&short, "a").await;
        self.expect_held("completing a key leaves another key held", &longer, "b")
            .await?;
        self.store.release(&longer, "a").await;
        self.expect_claim(
            "releasing a key leaves another key recorded",
            &short,
            "b",
            Answer::Done,
        )
        .await?;
        self.expect_claim(
            "a key its holder released runs again",
            &longer,
            "b",
            Answer::Run,
        )
        .await?;
        self.store.complete(&longer, "b").await;
        Ok(())
    }

    /// Promise 8: keys as a reserved event makes them (its whole payload) are keys like any other.
    async fn unusual_keys_are_keys(&self) -> Result<(), Violation> {
        let long_a = format!("{}a", "x".repeat(4_999));
        let long_b = format!("{}b", "x".repeat(4_999));
        let keys: [(&str, String); 6] = [
            (
                "spaces and a tab",
                "a key with  spaces\tand a tab".to_owned(),
            ),
            (
                "JSON and a line break",
                "release.shipped|ins_1|{\"id\":\"a b\",\n\"path\":\"%2F/\\\\\"}".to_owned(),
            ),
            ("non-ASCII text", "clé-ключ-鍵-🔑".to_owned()),
            ("300 characters", "é".repeat(300)),
            ("5,000 characters", long_a.clone()),
            ("5,000 characters, another last one", long_b),
        ];
        for (what, name) in &keys {
            let key = self.key(name);
            self.unusual_key(&key).await.map_err(|v| Violation {
                found: format!("{} (the key with {what})", v.found),
                ..v
            })?;
        }
        Ok(())
    }

    /// One unusual key: claimed, held, recorded. The key ending in `b` comes after the one ending
    /// in `a`, so a store that cut long keys short would find it recorded already.
    async fn unusual_key(&self, key: &str) -> Result<(), Violation> {
        self.expect_claim(
            "the first claim of an unusual key runs",
            key,
            "holder",
            Answer::Run,
        )
        .await?;
        self.expect_held(
            "an unusual key another attempt holds is busy or waits",
            key,
            "duplicate",
        )
        .await?;
        self.store.complete(key, "holder").await;
        self.expect_claim(
            "an unusual key its holder completed is done",
            key,
            "duplicate",
            Answer::Done,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedupe::{MemoryDedupe, StoreError};
    use crate::platform::BoxFuture;

    /// A store that forgets everything: every claim runs.
    struct Forgetful;

    impl DedupeStore for Forgetful {
        fn claim<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, Result<Claim, StoreError>> {
            Box::pin(std::future::ready(Ok(Claim::Run)))
        }
        fn complete<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, ()> {
            Box::pin(std::future::ready(()))
        }
        fn release<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, ()> {
            Box::pin(std::future::ready(()))
        }
    }

    /// The memory store with one mistake: any attempt may record a claim, or keys are cut to
    /// their first 200 bytes.
    struct Careless {
        store: MemoryDedupe,
        /// Who holds each key, when any attempt may record it.
        holders: Option<std::sync::Mutex<std::collections::HashMap<String, String>>>,
        cut_keys: bool,
    }

    impl Careless {
        fn new(anyone_completes: bool, cut_keys: bool) -> Self {
            Careless {
                store: MemoryDedupe::new(),
                holders: anyone_completes.then(Default::default),
                cut_keys,
            }
        }

        fn key<'k>(&self, key: &'k str) -> &'k str {
            match key.get(..200) {
                Some(cut) if self.cut_keys => cut,
                _ => key,
            }
        }
    }

    impl DedupeStore for Careless {
        fn claim<'a>(
            &'a self,
            key: &'a str,
            owner: &'a str,
        ) -> BoxFuture<'a, Result<Claim, StoreError>> {
            Box::pin(async move {
                let claim = self.store.claim(self.key(key), owner).await;
                if let (Ok(Claim::Run), Some(holders)) = (&claim, &self.holders) {
                    holders
                        .lock()
                        .unwrap()
                        .insert(key.to_owned(), owner.to_owned());
                }
                claim
            })
        }
        fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
            let holder = self
                .holders
                .as_ref()
                .and_then(|h| h.lock().unwrap().get(key).cloned());
            Box::pin(async move {
                let owner = holder.as_deref().unwrap_or(owner);
                self.store.complete(self.key(key), owner).await;
            })
        }
        fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
            self.store.release(self.key(key), owner)
        }
    }

    #[tokio::test]
    async fn a_store_that_forgets_breaks_the_second_step() {
        let v = dedupe_store(&Forgetful).await.unwrap_err();
        assert_eq!(
            v.to_string(),
            "a claim of a key another attempt holds is busy or waits: the store answered Run \
             (expected Busy, or Wait in the holder's own process)"
        );
    }

    #[tokio::test]
    async fn a_store_that_lets_another_attempt_record_a_claim_is_caught() {
        let v = dedupe_store(&Careless::new(true, false)).await.unwrap_err();
        assert_eq!(
            v.step,
            "a completion by an attempt that does not hold the claim records nothing"
        );
    }

    #[tokio::test]
    async fn a_store_that_cuts_long_keys_short_is_caught() {
        let v = dedupe_store(&Careless::new(false, true)).await.unwrap_err();
        assert_eq!(v.step, "the first claim of an unusual key runs");
        assert_eq!(
            v.found,
            "Done (expected Run) (the key with 5,000 characters, another last one)"
        );
    }

    #[tokio::test]
    async fn runs_on_one_store_do_not_meet() {
        let store = MemoryDedupe::new();
        let (a, b) = futures_util::future::join(dedupe_store(&store), dedupe_store(&store)).await;
        assert_eq!((a, b), (Ok(()), Ok(())));
    }
}
