//! Redis (feature `redis`): event deduplication ([`RedisDedupe`]) and the outbox several
//! instances drain ([`RedisOutbox`]), over one kind of connection, with one way of reporting
//! Redis's errors.

mod dedupe;
mod outbox;

pub use dedupe::RedisDedupe;
pub use outbox::RedisOutbox;

use crate::stores::store::{StoreError, StoreErrorKind};

/// A connection to Redis at `url` that fails within [`RedisDedupe::CONNECT_TIMEOUT`] when Redis
/// cannot be reached, times each command out after [`RedisDedupe::COMMAND_TIMEOUT`], and is
/// re-established in the background when Redis returns. Both Redis stores use it.
pub(crate) async fn redis_connection(
    url: &str,
) -> Result<redis::aio::ConnectionManager, redis::RedisError> {
    let client = redis::Client::open(url)?;
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(RedisDedupe::CONNECT_TIMEOUT)
        .set_response_timeout(RedisDedupe::COMMAND_TIMEOUT)
        // Reconnection attempts 100 ms to 2 s apart: Redis is found again within seconds.
        .set_number_of_retries(2)
        .set_factor(100)
        .set_max_delay(2_000);
    let connecting = redis::aio::ConnectionManager::new_with_config(client, config);
    match tokio::time::timeout(RedisDedupe::CONNECT_TIMEOUT, connecting).await {
        Ok(connected) => connected,
        Err(_) => Err(redis::RedisError::from((
            redis::ErrorKind::IoError,
            "Redis did not answer within the connect timeout",
            format!("{} s", RedisDedupe::CONNECT_TIMEOUT.as_secs()),
        ))),
    }
}

/// How a Redis error is reported: retry a refused or dropped connection or a timeout.
pub(crate) fn redis_kind(e: &redis::RedisError) -> StoreErrorKind {
    if e.is_timeout() {
        StoreErrorKind::Timeout
    } else if e.is_connection_refusal() || e.is_connection_dropped() || e.is_io_error() {
        StoreErrorKind::Unavailable
    } else if e.kind() == redis::ErrorKind::ResponseError {
        StoreErrorKind::Refused
    } else {
        StoreErrorKind::Other
    }
}

/// What failed in Redis (`what`), with Redis's error as the source: every Redis store's error.
/// Whether Redis answers `PING` on `connection`: a store's readiness.
pub(crate) async fn ping(
    connection: &redis::aio::ConnectionManager,
    store: &str,
) -> Result<(), StoreError> {
    let mut c = connection.clone();
    redis::cmd("PING")
        .query_async::<()>(&mut c)
        .await
        .map_err(|e| redis_failed(format!("Redis did not answer the {store}'s PING"), e))
}

pub(crate) fn redis_failed(what: impl Into<String>, e: redis::RedisError) -> StoreError {
    StoreError::new("redis", redis_kind(&e), what).with_source(e)
}
