//! The outbox a vendor server uses, opened from the place a user names: a folder (the embedded
//! store), a `redis://` URL or a `postgres://` URL; and the times it keeps, as people read them.
//!
//! Shared by `cargo host outbox`, which lists and mends it, and `cargo host dev --outbox`, whose
//! console shows it; it names neither.

use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};
use host_runtime::outbox::{FileOutbox, OutboxStore, PostgresOutbox, RedisOutbox};

/// Why an outbox could not be opened.
#[derive(Debug)]
pub(crate) struct OpenError {
    /// What is wrong, naming the store.
    pub message: String,
    /// What to do about it, when there is something.
    pub note: Option<String>,
}

/// Opens the outbox at `place`: a `redis://` (or `rediss://`) URL with `prefix`, or the folder of
/// the embedded store.
pub(crate) async fn open(place: &str, prefix: &str) -> Result<Arc<dyn OutboxStore>, OpenError> {
    let fail = |message: String, note: Option<&str>| OpenError {
        message,
        note: note.map(str::to_owned),
    };
    if place.starts_with("postgres://") || place.starts_with("postgresql://") {
        let settings = host_runtime::postgres::Settings::default()
            .with_start_timeout(std::time::Duration::ZERO);
        let pool = host_runtime::postgres::connect_with(place, &settings)
            .await
            .map_err(|e| fail(e.to_string(), None))?;
        return match PostgresOutbox::new(pool).await {
            Ok(store) => Ok(Arc::new(store)),
            Err(e) => Err(fail(
                e.to_string(),
                Some("the database needs the stores' tables: `cargo host postgres migrate`"),
            )),
        };
    }
    if place.starts_with("redis://") || place.starts_with("rediss://") {
        return match RedisOutbox::connect(place).await {
            Ok(store) => Ok(Arc::new(store.with_prefix(prefix.to_owned()))),
            Err(e) => Err(fail(e.to_string(), None)),
        };
    }
    if !std::path::Path::new(place).join("outbox.redb").exists() {
        return Err(fail(
            format!(
                "no outbox at `{place}`: name the server's HOST_OUTBOX folder or redis:// URL with `--store` (`--outbox` for `cargo host dev`)"
            ),
            None,
        ));
    }
    match FileOutbox::open(place) {
        Ok(store) => Ok(Arc::new(store)),
        Err(e) => {
            let busy = e.to_string().contains("another process");
            Err(fail(
                e.to_string(),
                busy.then_some("stop the server that uses this outbox, then run this again"),
            ))
        }
    }
}

/// A time the outbox keeps (milliseconds since the epoch) as RFC 3339, to the second.
pub(crate) fn time(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms).map_or_else(
        || ms.to_string(),
        |t| t.to_rfc3339_opts(SecondsFormat::Secs, true),
    )
}

/// Now, as the outbox keeps times.
pub(crate) fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}
