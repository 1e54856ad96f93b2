//! The DynamoDB deduplication store (feature `dynamodb`) keeps the public store contract
//! (`testing::contract`), against moto's DynamoDB emulator
//! (`host_test_support::DynamoDbEmulator`: skipped without moto locally, failing in CI), alone
//! and beside another extension sharing its table under a prefix.

#![cfg(feature = "dynamodb")]
#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::dedupe::{Claim, DedupeStore, DynamoDbDedupe};
use host_runtime::testing::contract::dedupe_store;
use host_test_support::DynamoDbEmulator;

#[tokio::test]
async fn the_dynamodb_dedupe_keeps_the_contract() {
    let Some(dynamodb) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    let store = DynamoDbDedupe::from_vars("contract", |k| dynamodb.var(k)).unwrap();
    store.create_table().await.unwrap();
    store.check().await.unwrap();
    if let Err(broken) = dedupe_store(&store).await {
        panic!("{broken}");
    }
    // A prefix keeps extensions that share the table apart: the same key is new to the other.
    assert!(matches!(store.claim("k", "a").await, Ok(Claim::Run)));
    let shared = DynamoDbDedupe::from_vars("contract", |k| dynamodb.var(k))
        .unwrap()
        .with_prefix("another-extension:");
    assert!(matches!(shared.claim("k", "a").await, Ok(Claim::Run)));
    if let Err(broken) = dedupe_store(&shared).await {
        panic!("{broken}");
    }
}
