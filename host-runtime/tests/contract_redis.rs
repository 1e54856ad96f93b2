//! The Redis stores (feature `redis`) keep the public store contracts (`testing::contract`), each
//! against a Redis server of its own (`host_test_support::RedisServer`: skipped without
//! `redis-server` locally, failing in CI).

#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::dedupe::RedisDedupe;
use host_runtime::outbox::RedisOutbox;
use host_runtime::testing::contract::{dedupe_store, outbox_senders, outbox_store};
use host_test_support::RedisServer;

/// Run twice at once, as two instances sharing Redis would: each through its own connection, one
/// of them under another extension's key prefix.
#[tokio::test]
async fn the_redis_dedupe_keeps_the_contract() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let a = RedisDedupe::connect(&redis.url()).await.unwrap();
    let b = RedisDedupe::connect(&redis.url())
        .await
        .unwrap()
        .with_prefix("another-extension:");
    let (a, b) = tokio::join!(dedupe_store(&a), dedupe_store(&b));
    a.unwrap_or_else(|broken| panic!("{broken}"));
    b.unwrap_or_else(|broken| panic!("{broken}"));
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

/// Under a key prefix, as extensions sharing one Redis keep their outboxes apart.
#[tokio::test]
async fn the_redis_outbox_keeps_the_contract_under_a_prefix() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let store = RedisOutbox::connect(&redis.url())
        .await
        .unwrap()
        .with_prefix("contract:");
    if let Err(broken) = outbox_store(&store).await {
        panic!("{broken}");
    }
}

/// Senders of one id through the Redis outbox: each send's outcome is its own.
#[tokio::test]
async fn senders_of_one_id_over_the_redis_outbox_each_hear_their_own_outcome() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let store = RedisOutbox::connect(&redis.url()).await.unwrap();
    if let Err(broken) = outbox_senders(std::sync::Arc::new(store)).await {
        panic!("{broken}");
    }
}
