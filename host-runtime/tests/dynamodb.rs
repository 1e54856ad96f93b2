//! The DynamoDB deduplication store (feature `dynamodb`) beyond the contract
//! (`contract_dynamodb.rs`), against moto's DynamoDB emulator
//! (`host_test_support::DynamoDbEmulator`: skipped without moto locally, failing in CI): the
//! expiry every item carries for DynamoDB's time to live, leases that run out and are renewed, and
//! the table check's errors.

#![cfg(feature = "dynamodb")]
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use host_runtime::dedupe::{
    Claim, DedupeStore, DynamoDbDedupe, KEY_ATTRIBUTE, StoreErrorKind, TTL_ATTRIBUTE, WINDOW,
};
use host_test_support::DynamoDbEmulator;
use serde_json::{Value, json};

/// A store on `table` in the emulator.
fn store_on(moto: &DynamoDbEmulator, table: &str) -> DynamoDbDedupe {
    DynamoDbDedupe::from_vars(table, |k| moto.var(k)).unwrap()
}

/// Calls the emulator's DynamoDB `operation` with `body`, as the AWS CLI would (moto does not
/// check signatures, only reads the region and service from the `Authorization` header): the HTTP
/// status and the answer's JSON. For what the store does not do itself: read its items back, make
/// a table it would not make.
async fn api(moto: &DynamoDbEmulator, operation: &str, body: Value) -> (u16, Value) {
    let region = DynamoDbEmulator::REGION;
    let request = http::Request::post(moto.url())
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", format!("DynamoDB_20120810.{operation}"))
        .header(
            "authorization",
            format!(
                "AWS4-HMAC-SHA256 Credential=testing/20261125/{region}/dynamodb/aws4_request, \
                 SignedHeaders=host, Signature=0"
            ),
        )
        .body(bytes::Bytes::from(body.to_string()))
        .unwrap();
    let answer = host_runtime::client::Client::platform_default()
        .expect("the native HTTP client")
        .send(request, 16 * 1024 * 1024)
        .await
        .unwrap_or_else(|e| panic!("{operation} did not reach the emulator: {e}"));
    let json = serde_json::from_slice(answer.body()).unwrap_or(Value::Null);
    (answer.status().as_u16(), json)
}

async fn claim(store: &impl DedupeStore, key: &str, owner: &str) -> &'static str {
    match store.claim(key, owner).await {
        Ok(Claim::Run) => "run",
        Ok(Claim::Done) => "done",
        Ok(Claim::Busy) => "busy",
        Ok(Claim::Wait(_)) => "wait",
        Err(e) => panic!("claim failed: {e}"),
    }
}

/// Seconds since the Unix epoch: `(floor, ceiling)` of now.
fn unix_now() -> (u64, u64) {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    (now.as_secs(), now.as_millis().div_ceil(1000) as u64)
}

/// Every item in `table`, read back raw, each checked to carry [`TTL_ATTRIBUTE`] as a Number of
/// whole seconds no earlier than the item's own end (`until`, milliseconds): DynamoDB's time to
/// live must never delete a live claim or record. The items by key, with their `expires`.
async fn expiries(moto: &DynamoDbEmulator, table: &str) -> Vec<(String, u64)> {
    let (status, answer) = api(
        moto,
        "Scan",
        json!({ "TableName": table, "ConsistentRead": true }),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let items = answer["Items"].as_array().expect("a list of items");
    items
        .iter()
        .map(|item| {
            let key = item[KEY_ATTRIBUTE]["S"].as_str().unwrap().to_owned();
            let expires = item[TTL_ATTRIBUTE]["N"]
                .as_str()
                .unwrap_or_else(|| panic!("`{TTL_ATTRIBUTE}` is not a Number on {item}"));
            let expires: u64 = expires
                .parse()
                .unwrap_or_else(|_| panic!("`{TTL_ATTRIBUTE}` is not whole seconds on {item}"));
            let until: u64 = item["until"]["N"].as_str().unwrap().parse().unwrap();
            assert!(
                expires * 1000 >= until,
                "the item expires before it ends: {item}"
            );
            (key, expires)
        })
        .collect()
}

/// The `expires` of `key`'s item.
async fn expiry(moto: &DynamoDbEmulator, table: &str, key: &str) -> Option<u64> {
    expiries(moto, table)
        .await
        .into_iter()
        .find_map(|(k, expires)| (k == key).then_some(expires))
}

/// `expires` is `after` from a moment between `from` and `to` (see [`unix_now`]), in seconds:
/// a value in milliseconds would be a thousand times too far.
fn assert_expires_after(
    expires: u64,
    from: (u64, u64),
    to: (u64, u64),
    after: Duration,
    what: &str,
) {
    let (earliest, latest) = (from.0 + after.as_secs(), to.1 + after.as_secs());
    assert!(
        (earliest..=latest).contains(&expires),
        "{what}: `{TTL_ATTRIBUTE}` is {expires}, not Unix seconds between {earliest} and {latest}"
    );
}

#[tokio::test]
async fn every_item_carries_when_it_expires_in_unix_seconds() {
    let Some(moto) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    let store = store_on(&moto, "expiry");
    store.create_table().await.unwrap();
    let lease = DynamoDbDedupe::DEFAULT_LEASE;

    let before = unix_now();
    assert_eq!(claim(&store, "k", "a").await, "run");
    let claimed = expiry(&moto, "expiry", "k")
        .await
        .expect("the claim's item");
    assert_expires_after(claimed, before, unix_now(), lease, "a claim");

    // Past a second, so that a renewal moves `expires` on.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let before = unix_now();
    store.renew("k", "a").await;
    let renewed = expiry(&moto, "expiry", "k")
        .await
        .expect("the claim's item");
    assert_expires_after(renewed, before, unix_now(), lease, "a renewed claim");
    assert!(renewed > claimed, "renewed {renewed}, claimed {claimed}");

    let before = unix_now();
    store.complete("k", "a").await;
    let recorded = expiry(&moto, "expiry", "k").await.expect("the record");
    assert_expires_after(recorded, before, unix_now(), WINDOW, "a record");

    // A released claim leaves no item behind; a hashed long key's item carries it too.
    assert_eq!(claim(&store, "r", "a").await, "run");
    assert!(expiry(&moto, "expiry", "r").await.is_some());
    store.release("r", "a").await;
    assert_eq!(expiry(&moto, "expiry", "r").await, None, "released");
    let before = unix_now();
    assert_eq!(claim(&store, &"x".repeat(3_000), "a").await, "run");
    let items = expiries(&moto, "expiry").await;
    let (_, long) = items
        .iter()
        .find(|(k, _)| k.starts_with("sha256:"))
        .expect("the long key's item");
    assert_expires_after(*long, before, unix_now(), lease, "a long key's claim");
    assert_eq!(items.len(), 2, "{items:?}");
}

#[tokio::test]
async fn a_table_that_does_not_expire_items_on_expires_fails_the_check() {
    let Some(moto) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    // The right key, and time to live off: what `aws dynamodb create-table` alone leaves.
    create_table(&moto, "no-ttl", KEY_ATTRIBUTE).await;
    let e = store_on(&moto, "no-ttl").check().await.unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Refused, "{e}");
    assert_eq!(
        e.message,
        "DynamoDB table `no-ttl` never deletes old deduplication records: its time to live is off; \
         turn it on with `aws dynamodb update-time-to-live --table-name no-ttl \
         --time-to-live-specification Enabled=true,AttributeName=expires` (region us-east-1)"
    );
    // Time to live on another attribute, which the store does not write.
    create_table(&moto, "other-ttl", KEY_ATTRIBUTE).await;
    time_to_live(&moto, "other-ttl", "ttl").await;
    let e = store_on(&moto, "other-ttl").check().await.unwrap_err();
    assert!(
        e.message
            .contains("its time to live is on `ttl`; turn it off, then on for `expires` with"),
        "{e}"
    );
    // Turned on for `expires`, as the message says: the check passes.
    time_to_live(&moto, "no-ttl", TTL_ATTRIBUTE).await;
    store_on(&moto, "no-ttl").check().await.unwrap();
}

#[tokio::test]
async fn an_expired_lease_is_claimed_again_and_its_holder_can_no_longer_settle_it() {
    let Some(moto) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    let store = store_on(&moto, "leases").with_lease(Duration::from_secs(1));
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
    let Some(moto) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    let store = store_on(&moto, "renewals").with_lease(Duration::from_secs(1));
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
    let Some(moto) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    let store = store_on(&moto, "nowhere");
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
    let Some(moto) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    // Created with a partition key named `id`, as a table made for something else would be.
    create_table(&moto, "wrong-key", "id").await;
    let e = store_on(&moto, "wrong-key").check().await.unwrap_err();
    assert!(e.message.contains("has the wrong key"), "{e}");
    assert!(e.message.contains("partition key `pk`"), "{e}");
}

/// Creates `table` with the string partition key `key` and no time to live, as the AWS CLI
/// would; the store's own `create_table` only makes a table set up right.
async fn create_table(moto: &DynamoDbEmulator, table: &str, key: &str) {
    let (status, answer) = api(
        moto,
        "CreateTable",
        json!({
            "TableName": table,
            "AttributeDefinitions": [{ "AttributeName": key, "AttributeType": "S" }],
            "KeySchema": [{ "AttributeName": key, "KeyType": "HASH" }],
            "BillingMode": "PAY_PER_REQUEST",
        }),
    )
    .await;
    assert_eq!(status, 200, "the emulator refused the table: {answer}");
}

/// Turns `table`'s time to live on for `attribute`.
async fn time_to_live(moto: &DynamoDbEmulator, table: &str, attribute: &str) {
    let (status, answer) = api(
        moto,
        "UpdateTimeToLive",
        json!({
            "TableName": table,
            "TimeToLiveSpecification": { "Enabled": true, "AttributeName": attribute },
        }),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
}
