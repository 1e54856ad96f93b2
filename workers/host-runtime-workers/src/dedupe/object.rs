//! [`HostDedupe`], the Durable Object class behind [`DurableDedupe`](crate::DurableDedupe): one
//! object per deduplication key. It reads each request as a [`DedupeRequest`], decides it on its one
//! record by the [rules](super::rules), writes what changed and answers the type the request names
//! ([`ClaimAnswer`]). Its alarm erases the record once it ends.

use host_runtime::serde_json;
use worker::{DurableObject, Env, Request, Response, Result, State, Storage, durable_object};

use super::rules::{Change, decide, unreadable};
use crate::clock::{at, now_ms};
use crate::wire::{ClaimAnswer, DedupeRecord, DedupeRequest, Ends};

/// The storage key of the one record a [`HostDedupe`] object keeps.
const RECORD: &str = "claim";

// The constructor and methods `#[durable_object]` generates are the JavaScript class's, which
// the runtime calls; they carry no documentation of their own.
#[allow(missing_docs)]
mod class {
    use super::*;

    /// The Durable Object class behind [`DurableDedupe`](crate::DurableDedupe): one object per
    /// deduplication key, holding whether the key is claimed (by whom, until when) or processed.
    /// Bind it in `wrangler.toml` (see [`DurableDedupe`](crate::DurableDedupe)); the Worker exports
    /// it by linking this crate.
    #[durable_object]
    pub struct HostDedupe {
        state: State,
    }

    impl DurableObject for HostDedupe {
        fn new(state: State, _env: Env) -> Self {
            HostDedupe { state }
        }

        async fn fetch(&self, mut request: Request) -> Result<Response> {
            let asked = match serde_json::from_str::<DedupeRequest>(&request.text().await?) {
                Ok(asked) => asked,
                Err(e) => {
                    return Response::error(
                        format!("the body is not a request to HostDedupe: {e}"),
                        400,
                    );
                }
            };
            let storage = self.state.storage();
            let record = match stored_record(&storage).await? {
                Ok(record) => record,
                Err(e) => return Response::error(unreadable(&e), 500),
            };
            let (claim, change) = decide(
                record.as_ref(),
                asked.op,
                &asked.owner,
                asked.lease,
                now_ms(),
            );
            apply(&storage, change).await?;
            crate::reply(&asked, &ClaimAnswer { claim })
        }

        async fn alarm(&self) -> Result<Response> {
            let storage = self.state.storage();
            // A record this version cannot read is erased, as an ended one.
            let until = stored_record(&storage)
                .await?
                .ok()
                .flatten()
                .map(|r| r.until());
            match until {
                Some(until) if until > now_ms() => storage.set_alarm(at(until)).await?,
                _ => storage.delete_all().await?,
            }
            Response::empty()
        }
    }
}

pub use class::HostDedupe;

/// The record a [`HostDedupe`] object keeps, if it has one, or why it cannot be read.
async fn stored_record(
    storage: &Storage,
) -> Result<std::result::Result<Option<DedupeRecord>, serde_json::Error>> {
    Ok(storage
        .get::<String>(RECORD)
        .await?
        .map(|text| serde_json::from_str(&text))
        .transpose())
}

/// Does `change` to the object's one record.
async fn apply(storage: &Storage, change: Change) -> Result<()> {
    match change {
        Change::Write(record) => {
            storage.put(RECORD, serde_json::to_string(&record)?).await?;
            // The alarm erases the record once it ends (or finds it renewed and waits again).
            if storage.get_alarm().await?.is_none() {
                storage.set_alarm(at(record.until())).await?;
            }
        }
        Change::Erase => {
            storage.delete_all().await?;
            storage.delete_alarm().await?;
        }
        Change::None => {}
    }
    Ok(())
}
