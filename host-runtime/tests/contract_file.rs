//! The file outbox (feature `redb`) keeps the public outbox contract (`testing::contract`).

#![cfg(feature = "redb")]
#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::outbox::FileOutbox;
use host_runtime::testing::contract::outbox_store;

#[tokio::test]
async fn the_file_outbox_keeps_the_contract() {
    let dir = tempfile::Builder::new()
        .prefix("host-outbox-contract")
        .tempdir()
        .unwrap();
    let store = FileOutbox::open(dir.path()).unwrap();
    if let Err(broken) = outbox_store(&store).await {
        panic!("{broken}");
    }
}
