//! The Redis stores (feature `redis`) keep the public store contracts (`testing::contract`), each
//! against a Redis server of its own (`host_test_support::RedisServer`: skipped without
//! `redis-server` locally, failing in CI).

#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::dedupe::RedisDedupe;
use host_runtime::outbox::RedisOutbox;
use host_runtime::testing::contract::{dedupe_store, outbox_store};
use host_test_support::RedisServer;

#[tokio::test]
async fn the_redis_dedupe_keeps_the_contract() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let store = RedisDedupe::connect(&redis.url()).await.unwrap();
    if let Err(broken) = dedupe_store(&store).await {
        panic!("{broken}");
    }
}

#[tokio::test]
async fn the_redis_outbox_keeps_the_contract() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let store = RedisOutbox::connect(&redis.url()).await.unwrap();
    if let Err(broken) = outbox_store(&store).await {
        panic!("{broken}");
    }
}
