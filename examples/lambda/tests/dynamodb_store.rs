//! The DynamoDB deduplication store against a DynamoDB emulator (moto's server mode, started on a
//! free port; `.ci/run` installs it): the store contract as the Redis store keeps it, leases that
//! run out and are renewed, and the table check's errors.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

mod common;

use std::time::Duration;

use host_runtime::dedupe::{Claim, DedupeStore};

async fn claim(store: &impl DedupeStore, key: &str, owner: &str) -> &'static str {
    match store.claim(key, owner).await {
        Ok(Claim::Run) => "run",
        Ok(Claim::Done) => "done",
        Ok(Claim::Busy) => "busy",
        Ok(Claim::Wait(_)) => "wait",
        Err(e) => panic!("claim failed: {e}"),
    }
}

#[tokio::test]
async fn the_store_claims_records_and_releases_as_the_redis_store_does() {
    let Some(moto) = common::start_moto() else {
        return;
    };
    let store = moto.store("contract");
    store.create_table().await.unwrap();
    store.check().await.unwrap();
    assert_eq!(claim(&store, "k", "a").await, "run");
    assert_eq!(claim(&store, "k", "b").await, "busy", "in flight elsewhere");
    // Only the holder settles the claim.
    store.release("k", "b").await;
    store.complete("k", "b").await;
    assert_eq!(claim(&store, "k", "b").await, "busy");
    store.release("k", "a").await;
    assert_eq!(
        claim(&store, "k", "c").await,
        "run",
        "a failed attempt is retried"
    );
    store.complete("k", "c").await;
    assert_eq!(claim(&store, "k", "d").await, "done");
    // A late release by an attempt that lost its claim, or by the one that recorded it, does not
    // erase the record.
    store.release("k", "a").await;
    store.release("k", "c").await;
    assert_eq!(claim(&store, "k", "e").await, "done");
    // Keys are independent; a prefix separates extensions sharing the table.
    assert_eq!(claim(&store, "other", "a").await, "run");
    let shared = moto.store("contract").with_prefix("another-extension:");
    assert_eq!(claim(&shared, "k", "a").await, "run");
    // A key longer than DynamoDB allows in a partition key (a reserved event's whole payload).
    let long = "x".repeat(4000);
    assert_eq!(claim(&store, &long, "a").await, "run");
    store.complete(&long, "a").await;
    assert_eq!(claim(&store, &long, "b").await, "done");
}

#[tokio::test]
async fn an_expired_lease_is_claimed_again_and_its_holder_can_no_longer_settle_it() {
    let Some(moto) = common::start_moto() else {
        return;
    };
    let store = moto.store("leases").with_lease(Duration::from_secs(1));
    store.create_table().await.unwrap();
    assert_eq!(claim(&store, "k", "crashed").await, "run");
    assert_eq!(claim(&store, "k", "b").await, "busy");
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(
        claim(&store, "k", "b").await,
        "run",
        "the crashed instance's lease ran out"
    );
    // The first attempt wakes up late: it neither records nor releases b's claim.
    store.complete("k", "crashed").await;
    assert_eq!(claim(&store, "k", "c").await, "busy");
    store.release("k", "crashed").await;
    assert_eq!(claim(&store, "k", "c").await, "busy");
    store.complete("k", "b").await;
    assert_eq!(claim(&store, "k", "c").await, "done");
}

#[tokio::test]
async fn a_renewed_lease_outlives_its_first_term() {
    let Some(moto) = common::start_moto() else {
        return;
    };
    let store = moto.store("renewals").with_lease(Duration::from_secs(1));
    store.create_table().await.unwrap();
    assert_eq!(store.renew_every(), Some(Duration::from_secs(1) / 3));
    assert_eq!(claim(&store, "k", "a").await, "run");
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        store.renew("k", "a").await;
    }
    assert_eq!(
        claim(&store, "k", "b").await,
        "busy",
        "renewed for 1.6 s past a 1 s lease"
    );
    // Another attempt's renewal does not extend a's claim.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    store.renew("k", "b").await;
    assert_eq!(claim(&store, "k", "b").await, "run");
}

#[tokio::test]
async fn a_missing_table_is_named_with_the_command_that_creates_it() {
    let Some(moto) = common::start_moto() else {
        return;
    };
    let store = moto.store("nowhere");
    let e = store.check().await.unwrap_err();
    assert_eq!(e.code.as_deref(), Some("ResourceNotFoundException"), "{e}");
    assert!(e.message.contains("table `nowhere` does not exist"), "{e}");
    assert!(
        e.message
            .contains("aws dynamodb create-table --table-name nowhere"),
        "{e}"
    );
    // A claim fails with the same error as its source (a delivery is then answered 503, which the
    // host retries), of a kind that says retrying does not help.
    let e = store.claim("k", "a").await.unwrap_err();
    assert_eq!(
        e.kind(),
        host_runtime::dedupe::StoreErrorKind::Refused,
        "{e}"
    );
    let cause = std::error::Error::source(&e).expect("the DynamoDB error");
    let cause = cause
        .downcast_ref::<host_runtime::dedupe::DynamoDbError>()
        .expect("a DynamoDbError");
    assert!(
        cause.message.contains("create-table --table-name nowhere"),
        "{cause}"
    );
}

#[tokio::test]
async fn a_table_with_another_key_is_refused() {
    let Some(moto) = common::start_moto() else {
        return;
    };
    // Created with a partition key named `id`, as a table made for something else would be.
    let status = create_table_keyed_by_id(&moto);
    assert!(
        status.contains(" 200 "),
        "the emulator refused the table: {status}"
    );
    let e = moto.store("wrong-key").check().await.unwrap_err();
    assert!(e.message.contains("has the wrong key"), "{e}");
    assert!(e.message.contains("partition key `pk`"), "{e}");
}

/// Creates `wrong-key` (partition key `id`) through the emulator's API as the AWS CLI would; the
/// store's own `create_table` only makes the right table.
fn create_table_keyed_by_id(moto: &common::Moto) -> String {
    use std::io::{Read as _, Write as _};
    let body = serde_json::json!({
        "TableName": "wrong-key",
        "AttributeDefinitions": [{ "AttributeName": "id", "AttributeType": "S" }],
        "KeySchema": [{ "AttributeName": "id", "KeyType": "HASH" }],
        "BillingMode": "PAY_PER_REQUEST",
    })
    .to_string();
    let addr = moto.url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.CreateTable\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=testing/20261125/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.lines().next().unwrap_or_default().to_owned()
}
