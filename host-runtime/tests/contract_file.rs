//! The file outbox (feature `redb`) keeps the public outbox contract (`testing::contract`).

#![cfg(feature = "redb")]
#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::outbox::FileOutbox;
use host_runtime::testing::contract::{outbox_senders, outbox_store};

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

/// Senders of one id through the file outbox: each send's outcome is its own.
#[tokio::test]
async fn senders_of_one_id_over_the_file_outbox_each_hear_their_own_outcome() {
    let dir = tempfile::Builder::new()
        .prefix("host-outbox-senders")
        .tempdir()
        .unwrap();
    let store = FileOutbox::open(dir.path()).unwrap();
    if let Err(broken) = outbox_senders(std::sync::Arc::new(store)).await {
        panic!("{broken}");
    }
}
