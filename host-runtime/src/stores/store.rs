//! What the runtime's stores report when they fail, whichever store it is.
//!
//! Two kinds of store keep the runtime's promises across crashes and instances: a
//! [`DedupeStore`](crate::dedupe::DedupeStore) remembers which event deliveries ran, an
//! [`OutboxStore`](crate::outbox::OutboxStore) keeps the vendor's own events until the host has
//! them. Each comes in the same backends, named `<Backend><Role>`: [`MemoryDedupe`] and
//! [`MemoryOutbox`] in the process, `FileOutbox` in one local file, `RedisDedupe` and
//! `RedisOutbox` in Redis, `PostgresDedupe` and `PostgresOutbox` in the vendor's PostgreSQL
//! database, `DynamoDbDedupe` in DynamoDB, and the Workers adapter's `DurableDedupe` and
//! `DurableOutbox` in Durable Objects.
//!
//! Every one of them fails with a [`StoreError`]: which store, a [`StoreErrorKind`] a caller can
//! match (retry on [`Unavailable`](StoreErrorKind::Unavailable), alert on
//! [`Corrupt`](StoreErrorKind::Corrupt)), and the backend's own error as its
//! [`source`](std::error::Error::source), so a report shows the Redis, PostgreSQL or DynamoDB cause and not
//! only a sentence.
//!
//! [`MemoryDedupe`]: crate::dedupe::MemoryDedupe
//! [`MemoryOutbox`]: crate::outbox::MemoryOutbox

use std::error::Error;
use std::fmt;

use crate::cause::Cause;

/// What kind of failure a store met, for a caller deciding what to do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// The store could not be reached or refused the connection: try again later.
    Unavailable,
    /// The store did not answer in time: try again later.
    Timeout,
    /// The store has no room left (a full disk, a full table).
    Full,
    /// What the store holds cannot be read back (a damaged file, a record of another format).
    Corrupt,
    /// The store answered that the request is wrong: a missing table, missing permissions, a
    /// configuration to fix. Retrying does not help.
    Refused,
    /// Anything else.
    Other,
}

impl fmt::Display for StoreErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreErrorKind::Unavailable => "unavailable",
            StoreErrorKind::Timeout => "timed out",
            StoreErrorKind::Full => "full",
            StoreErrorKind::Corrupt => "damaged data",
            StoreErrorKind::Refused => "refused",
            StoreErrorKind::Other => "failed",
        })
    }
}

/// Why a store could not do what was asked. Displays as `redis store: <what happened>`; the
/// backend's error, when there is one, is the [`source`](Error::source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    store: &'static str,
    kind: StoreErrorKind,
    message: String,
    source: Cause,
}

impl StoreError {
    /// An error of the store named `store` (`"file"`, `"redis"`, `"dynamodb"`, ...).
    pub fn new(store: &'static str, kind: StoreErrorKind, message: impl Into<String>) -> Self {
        StoreError {
            store,
            kind,
            message: message.into(),
            source: Cause::default(),
        }
    }

    /// The same error, caused by `source` (the backend's own error).
    pub fn with_source(mut self, source: impl Into<crate::platform::BoxError>) -> Self {
        self.source = Cause::of(source);
        self
    }

    /// Which store failed.
    pub fn store(&self) -> &'static str {
        self.store
    }

    /// What kind of failure it was.
    pub fn kind(&self) -> StoreErrorKind {
        self.kind
    }

    /// What happened, without the store's name.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} store: {}", self.store, self.message)
    }
}

impl Error for StoreError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.get()
    }
}

/// The answer to the host when a store failed, so that a handler can write `store_call().await?`:
/// a store that may answer later ([`Unavailable`](StoreErrorKind::Unavailable),
/// [`Timeout`](StoreErrorKind::Timeout), [`Full`](StoreErrorKind::Full)) is
/// `503 STORE_UNAVAILABLE` with `Retry-After: 30`, so the host calls again; any other failure is
/// `500 INTERNAL`, which the host's event deliveries retry too. The store error is kept as the
/// cause, for the log.
impl From<StoreError> for crate::calls::error::HostError {
    fn from(e: StoreError) -> Self {
        let answer = match e.kind() {
            StoreErrorKind::Unavailable | StoreErrorKind::Timeout | StoreErrorKind::Full => {
                crate::calls::error::HostError::new(
                    "STORE_UNAVAILABLE",
                    format!(
                        "the {} store cannot be used right now; call again",
                        e.store()
                    ),
                )
                .with_status(503)
                .with_retry_after(30)
            }
            _ => crate::calls::error::HostError::internal("a store failed"),
        };
        answer.with_source(e)
    }
}

/// `url` with the password of its user part (`redis://:secret@host`, `postgres://user:secret@host`)
/// replaced by `***`, for messages and logs: a store's URL often carries its password, and no log
/// line should.
///
/// ```
/// use host_runtime::store::without_password;
/// assert_eq!(without_password("redis://:s3cret@10.0.0.5:6379/2"), "redis://:***@10.0.0.5:6379/2");
/// assert_eq!(without_password("postgres://app:s3cret@db/app?sslmode=verify-full"), "postgres://app:***@db/app?sslmode=verify-full");
/// assert_eq!(without_password("redis://10.0.0.5:6379"), "redis://10.0.0.5:6379");
/// ```
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = match user.split_once(':') {
                Some((name, _)) => format!("{name}:***"),
                None => user.to_owned(),
            };
            format!("{scheme}://{user}@{host}{path}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backend_error_is_the_source() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let e =
            StoreError::new("redis", StoreErrorKind::Unavailable, "cannot connect").with_source(io);
        assert_eq!(e.to_string(), "redis store: cannot connect");
        assert_eq!(e.kind(), StoreErrorKind::Unavailable);
        let source = e.source().expect("a source");
        let io = source
            .downcast_ref::<std::io::Error>()
            .expect("the io error itself");
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
    }
}
