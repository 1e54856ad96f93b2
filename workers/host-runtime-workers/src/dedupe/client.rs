//! [`DurableDedupe`]: the deduplication store a handler uses. Each step (claim, renew, complete,
//! release) is one request to the object that keeps its key's record, a [`wire`](crate::wire)
//! request answered with the type it names ([`ClaimAnswer`]). One typed `ask` posts it and reads
//! the answer, whichever object keeps the record: the key's own `HostDedupe` object, or the
//! `HostOutbox` object of a store from `DurableOutbox::dedupe_store`.

use std::fmt;
use std::time::Duration;

use host_runtime::BoxFuture;
use host_runtime::dedupe::{Claim, DedupeStore, StoreError, StoreErrorKind};
use host_runtime::serde_json;
use send_wrapper::SendWrapper;
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use worker::{Env, ObjectNamespace, Result};

use crate::clock::millis;
use crate::wire::{
    Ask, ClaimAnswer, DedupeAnswer, DedupeOp, DedupeRequest, KeptDedupeRequest, OutboxRequest,
};

/// A deduplication store on the Durable Object namespace bound as `binding` (class
/// [`HostDedupe`](crate::HostDedupe)): give it to the handler with `with_dedupe_store`.
///
/// ```toml
/// # wrangler.toml
/// [[durable_objects.bindings]]
/// name = "HOST_DEDUPE"
/// class_name = "HostDedupe"
///
/// [[migrations]]
/// tag = "v1"
/// new_sqlite_classes = ["HostDedupe"]
/// ```
///
/// ```ignore
/// let handler = handler(MyServer::default())
///     .with_dedupe_store(host_runtime_workers::DurableDedupe::new(&env, "HOST_DEDUPE")?);
/// ```
pub struct DurableDedupe {
    // JavaScript values live on the isolate's one thread; the wrapper only satisfies `Send`.
    namespace: SendWrapper<ObjectNamespace>,
    /// The `HostOutbox` object that keeps every record, or `None`: a `HostDedupe` object per key.
    shared: Option<String>,
    lease: Duration,
}

impl DurableDedupe {
    /// How long a claim lasts without renewal unless [`with_lease`](Self::with_lease) says
    /// otherwise: what an attempt whose isolate was evicted mid-handler holds its key for.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

    /// The store on the Durable Object namespace bound as `binding` in `wrangler.toml`. Fails,
    /// naming the binding, when the Worker has no such binding.
    pub fn new(env: &Env, binding: &str) -> Result<Self> {
        let namespace = env.durable_object(binding).map_err(|e| {
            worker::Error::RustError(format!(
                "the Durable Object binding `{binding}` for event deduplication is missing ({e}); \
                 add it under [[durable_objects.bindings]] in wrangler.toml with class_name = \"HostDedupe\""
            ))
        })?;
        Ok(DurableDedupe {
            namespace: SendWrapper::new(namespace),
            shared: None,
            lease: Self::DEFAULT_LEASE,
        })
    }

    /// The records kept in the `HostOutbox` object `name` of `namespace`, beside its events: see
    /// [`DurableOutbox::dedupe_store`](crate::DurableOutbox::dedupe_store).
    pub(crate) fn in_outbox(namespace: ObjectNamespace, name: String) -> Self {
        DurableDedupe {
            namespace: SendWrapper::new(namespace),
            shared: Some(name),
            lease: Self::DEFAULT_LEASE,
        }
    }

    /// How long a claim lasts without renewal (default 60 s, at least 300 ms). Attempts renew it
    /// every third of it.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(300));
        self
    }

    /// Asks the object of `key` (or the outbox's object that keeps it) for the step `op` of the
    /// attempt `owner`: its answer.
    async fn step(
        &self,
        key: &str,
        op: DedupeOp,
        owner: &str,
    ) -> std::result::Result<ClaimAnswer, AskError> {
        let lease = millis(self.lease);
        let owner = owner.to_owned();
        match &self.shared {
            Some(name) => {
                let asked = KeptDedupeRequest {
                    dedupe: op,
                    key: key.to_owned(),
                    owner,
                    lease,
                };
                self.ask::<_, OutboxRequest>(name, asked).await
            }
            None => {
                let asked = DedupeRequest { op, owner, lease };
                self.ask::<_, DedupeRequest>(key, asked).await
            }
        }
    }

    /// Posts `asked` to the object `object`, as the request `P` that object reads (a `HostOutbox`
    /// object reads every request as an [`OutboxRequest`]), and reads the answer as the type
    /// `asked` names.
    async fn ask<R, P>(&self, object: &str, asked: R) -> std::result::Result<R::Answer, AskError>
    where
        R: Ask + Into<P>,
        P: Serialize,
    {
        let body =
            serde_json::to_string(&asked.into()).map_err(|e| AskError::Unreachable(e.into()))?;
        let (status, text) =
            crate::ask_object(&self.namespace, object, "https://host-dedupe/", &body)
                .await
                .map_err(AskError::Unreachable)?;
        read_answer(status, &text)
    }

    fn settle<'a>(&'a self, key: &'a str, owner: &'a str, op: DedupeOp) -> BoxFuture<'a, ()> {
        Box::pin(SendWrapper::new(async move {
            if let Err(e) = self.step(key, op, owner).await {
                worker::console_error!("event deduplication: {} failed: {e}", op.name());
            }
        }))
    }
}

/// Why a step has no answer this version reads.
#[derive(Debug)]
enum AskError {
    /// The object was not reached, answered a status other than 200, or answered text that is not
    /// JSON.
    Unreachable(worker::Error),
    /// The object answered JSON that is not the answer the request names.
    Unread {
        /// The answer, as the object gave it.
        answer: String,
        /// Why it does not read.
        source: serde_json::Error,
    },
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::Unreachable(e) => e.fmt(f),
            AskError::Unread { answer, source } => write!(
                f,
                "the deduplication object answered {answer}, which this version does not read: \
                 {source}"
            ),
        }
    }
}

/// Reads an object's answer, `text` with the HTTP `status`, as `A`. A status other than 200, or
/// text that is not JSON, is [`AskError::Unreachable`]; JSON that is not an `A` is
/// [`AskError::Unread`].
fn read_answer<A: DeserializeOwned>(status: u16, text: &str) -> std::result::Result<A, AskError> {
    if status != 200 {
        return Err(AskError::Unreachable(worker::Error::RustError(format!(
            "the deduplication object answered {status}: {text}"
        ))));
    }
    serde_json::from_str(text).map_err(|e| {
        // Whether the text is JSON at all, asked only once it is no answer: a text cut short can
        // fail on a value before its end does.
        match serde_json::from_str::<IgnoredAny>(text) {
            Ok(_) => AskError::Unread {
                answer: text.to_owned(),
                source: e,
            },
            Err(e) => AskError::Unreachable(worker::Error::RustError(format!(
                "the deduplication object's answer is not JSON: {e}"
            ))),
        }
    })
}

/// The claim an answer to a `claim` step gives: an object not reached is
/// [`Unavailable`](StoreErrorKind::Unavailable), an answer that is no claim
/// [`Corrupt`](StoreErrorKind::Corrupt).
fn claim_of(
    answer: std::result::Result<ClaimAnswer, AskError>,
) -> std::result::Result<Claim, StoreError> {
    let not_a_claim = |answer: &str| {
        StoreError::new(
            "durable object",
            StoreErrorKind::Corrupt,
            format!("the deduplication object answered {answer}, not a claim"),
        )
    };
    match answer {
        Ok(ClaimAnswer { claim }) => match claim {
            DedupeAnswer::Run => Ok(Claim::Run),
            DedupeAnswer::Done => Ok(Claim::Done),
            DedupeAnswer::Busy => Ok(Claim::Busy),
            // The answers of the other steps are no claim.
            other => {
                let answer = serde_json::to_string(&ClaimAnswer { claim: other });
                Err(not_a_claim(&answer.unwrap_or_default()))
            }
        },
        // worker's error holds JavaScript values, which cannot cross threads: its text is kept.
        Err(AskError::Unreachable(e)) => Err(StoreError::new(
            "durable object",
            StoreErrorKind::Unavailable,
            format!("the deduplication object cannot be reached: {e}"),
        )),
        Err(AskError::Unread { answer, source }) => Err(not_a_claim(&answer).with_source(source)),
    }
}

impl DedupeStore for DurableDedupe {
    fn name(&self) -> &'static str {
        "durable-object"
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Claim, StoreError>> {
        Box::pin(SendWrapper::new(async move {
            claim_of(self.step(key, DedupeOp::Claim, owner).await)
        }))
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, DedupeOp::Complete)
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, DedupeOp::Release)
    }

    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.settle(key, owner, DedupeOp::Renew)
    }

    fn renew_every(&self) -> Option<Duration> {
        Some(self.lease / 3)
    }
}

#[cfg(test)]
mod tests {
    //! The store's reading of each answer, as an object of this or the previous version writes it
    //! (the texts `wire/tests.rs` pins).

    use super::*;

    /// What `claim` returns when the object answers `text` with `status`.
    fn claimed(status: u16, text: &str) -> std::result::Result<Claim, StoreError> {
        claim_of(read_answer(status, text))
    }

    #[test]
    fn a_claim_answer_is_the_claim() {
        assert!(matches!(claimed(200, r#"{"claim":"run"}"#), Ok(Claim::Run)));
        assert!(matches!(
            claimed(200, r#"{"claim":"done"}"#),
            Ok(Claim::Done)
        ));
        assert!(matches!(
            claimed(200, r#"{"claim":"busy"}"#),
            Ok(Claim::Busy)
        ));
        // Unknown members are ignored, as they always were.
        assert!(matches!(
            claimed(200, r#"{"claim":"run","since":1}"#),
            Ok(Claim::Run)
        ));
    }

    #[test]
    fn another_steps_answer_is_no_claim() {
        for answer in ["renewed", "completed", "released", "not held"] {
            let text = format!(r#"{{"claim":"{answer}"}}"#);
            let error = claimed(200, &text).expect_err("no claim");
            assert_eq!(error.kind(), StoreErrorKind::Corrupt);
            assert!(error.to_string().contains(&text), "{error}");
        }
    }

    #[test]
    fn json_that_is_no_answer_is_corrupt() {
        for text in [r#"{"claim":"running"}"#, r#"{"state":"done"}"#, "[]", "7"] {
            let error = claimed(200, text).expect_err("no answer");
            assert_eq!(error.kind(), StoreErrorKind::Corrupt, "{text}");
            assert!(error.to_string().contains(text), "{error}");
            assert!(std::error::Error::source(&error).is_some(), "{text}");
        }
    }

    #[test]
    fn an_object_that_fails_or_answers_no_json_is_unavailable() {
        let unreadable = "the deduplication record of this key is not one this version reads";
        for (status, text) in [
            (500, unreadable),
            (400, "the body is not a request to HostDedupe"),
            (200, "not json"),
            (200, ""),
            // Cut short: its value fails to read before its end does, yet it is no JSON.
            (200, r#"{"claim":"running""#),
        ] {
            let error = claimed(status, text).expect_err("no answer");
            assert_eq!(error.kind(), StoreErrorKind::Unavailable, "{status} {text}");
        }
        let error = claimed(500, unreadable).expect_err("no answer");
        assert!(error.to_string().contains(unreadable), "{error}");
        assert!(error.to_string().contains("500"), "{error}");
    }

    #[test]
    fn a_settling_step_reads_its_answer_as_the_claim_answer() {
        let read: ClaimAnswer = read_answer(200, r#"{"claim":"not held"}"#).expect("it reads");
        assert_eq!(read.claim, DedupeAnswer::NotHeld);
        let unread =
            read_answer::<ClaimAnswer>(200, r#"{"claim":"finished"}"#).expect_err("no answer");
        assert!(unread.to_string().contains("finished"), "{unread}");
    }
}
