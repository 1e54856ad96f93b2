//! The in-memory stores keep the public store contracts (`testing::contract`).

#![allow(clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::dedupe::MemoryDedupe;
use host_runtime::outbox::MemoryOutbox;
use host_runtime::testing::contract::{dedupe_store, outbox_senders, outbox_store};

#[tokio::test]
async fn the_memory_dedupe_keeps_the_contract() {
    if let Err(broken) = dedupe_store(&MemoryDedupe::new()).await {
        panic!("{broken}");
    }
}

#[tokio::test]
async fn the_memory_outbox_keeps_the_contract() {
    if let Err(broken) = outbox_store(&MemoryOutbox::new()).await {
        panic!("{broken}");
    }
}

/// Senders of one id through the memory outbox: each send's outcome is its own.
#[tokio::test]
async fn senders_of_one_id_over_the_memory_outbox_each_hear_their_own_outcome() {
    if let Err(broken) = outbox_senders(std::sync::Arc::new(MemoryOutbox::new())).await {
        panic!("{broken}");
    }
}
