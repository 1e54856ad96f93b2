//! [`FileDedupe`]: the deduplication keys of one instance, recorded in its outbox's file so that a
//! restart inside the host's retry window remembers what ran.

use std::sync::Arc;

use redb::{ReadableDatabase as _, ReadableTable as _, TableDefinition};
use sha2::{Digest as _, Sha256};

use super::FileOutbox;
use crate::platform::BoxFuture;
use crate::stores::dedupe::{Claim, DedupeStore, StoreError, WINDOW};
use crate::stores::memory::MemoryDedupe;

/// Recorded keys: the SHA-256 of the key, and when it was recorded (Unix milliseconds).
pub(super) const RECORDED: TableDefinition<&[u8], i64> = TableDefinition::new("dedupe_recorded");
/// The same keys by when they were recorded, to forget them once the window has passed.
pub(super) const RECORDED_AT: TableDefinition<(i64, &[u8]), ()> =
    TableDefinition::new("dedupe_recorded_at");
/// Keys forgotten per record at most: the sweep keeps up with the records without a pause.
const FORGET_AT_ONCE: usize = 16;

/// Event deduplication for one instance, durable across restarts: a processed key is written to a
/// file ([`FileDedupe::open`], or the outbox's own with [`FileOutbox::dedupe`]) in group commits,
/// fsynced before the delivery is answered, and remembered for the deduplication window, so a
/// restart (a deploy, a crash) inside the host's retry window does not run a delivery twice.
/// Attempts in flight are held in memory, as they end with the process that runs them.
///
/// The production default of a server that runs one instance with the embedded outbox. Several
/// instances share a `RedisDedupe`, `PostgresDedupe` or `DynamoDbDedupe` instead.
#[derive(Clone)]
pub struct FileDedupe {
    file: FileOutbox,
    in_flight: Arc<MemoryDedupe>,
}

impl std::fmt::Debug for FileDedupe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileDedupe")
            .field("path", &self.file.path())
            .finish_non_exhaustive()
    }
}

impl FileOutbox {
    /// The deduplication store in this outbox's file (see [`FileDedupe`]): its records go in the
    /// same commits as the outbox's events.
    pub fn dedupe(&self) -> FileDedupe {
        FileDedupe {
            file: self.clone(),
            in_flight: Arc::new(MemoryDedupe::new()),
        }
    }
}

impl FileDedupe {
    /// The store in a file of its own, `dedupe.redb` in `dir` (made with the folder if missing),
    /// beside an outbox folder's `outbox.redb`. Locked while open, as the outbox is: one instance
    /// per folder.
    pub fn open(dir: impl AsRef<std::path::Path>) -> Result<Self, StoreError> {
        Ok(FileOutbox::open_file(dir.as_ref(), FILE)?.dedupe())
    }
}

/// The file [`FileDedupe::open`] keeps its keys in.
const FILE: &str = "dedupe.redb";

/// The row id of a key: its SHA-256 (a reserved event's key is its whole payload).
fn id_of(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn window_ms() -> i64 {
    i64::try_from(WINDOW.as_millis()).unwrap_or(i64::MAX)
}

impl FileDedupe {
    /// Whether `key` was recorded within the window.
    fn recorded(&self, key: &str) -> BoxFuture<'static, Result<bool, StoreError>> {
        let id = id_of(key);
        let since = crate::stores::outbox::now_ms().saturating_sub(window_ms());
        self.file.read(move |db| {
            let txn = db.begin_read()?;
            let table = txn.open_table(RECORDED)?;
            Ok(table
                .get(id.as_slice())?
                .is_some_and(|at| at.value() > since))
        })
    }
}

impl DedupeStore for FileDedupe {
    fn name(&self) -> &'static str {
        "file"
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            // Recorded before this process started (or by it): done. Else the attempts of this
            // process take turns in memory.
            if self.recorded(key).await? {
                return Ok(Claim::Done);
            }
            self.in_flight.claim(key, owner).await
        })
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        // Only the holder records: an attempt whose claim is gone changes nothing.
        if !self.in_flight.holds(key, owner) {
            return Box::pin(std::future::ready(()));
        }
        let id = id_of(key);
        let now = crate::stores::outbox::now_ms();
        let forget_before = now.saturating_sub(window_ms());
        let written = self.file.write(move |txn| {
            let mut recorded = txn.open_table(RECORDED)?;
            let mut by_time = txn.open_table(RECORDED_AT)?;
            let mut old = Vec::new();
            for entry in by_time
                .range(..(forget_before, &[][..]))?
                .take(FORGET_AT_ONCE)
            {
                let (k, _) = entry?;
                let (at, old_id) = k.value();
                old.push((at, old_id.to_vec()));
            }
            for (at, old_id) in &old {
                by_time.remove((*at, old_id.as_slice()))?;
                if recorded
                    .get(old_id.as_slice())?
                    .is_some_and(|v| v.value() == *at)
                {
                    recorded.remove(old_id.as_slice())?;
                }
            }
            if let Some(was) = recorded.insert(id.as_slice(), now)? {
                by_time.remove((was.value(), id.as_slice()))?;
            }
            by_time.insert((now, id.as_slice()), ())?;
            Ok(())
        });
        Box::pin(async move {
            if let Err(e) = written.await {
                tracing::warn!(error = %crate::calls::error::Chain(&e), "a processed event could not be recorded in the outbox file; a retry after a restart would run it again");
            }
            self.in_flight.complete(key, owner).await;
        })
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        self.in_flight.release(key, owner)
    }
}
