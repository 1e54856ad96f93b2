//! The [`DedupeStore`](crate::dedupe::DedupeStore) contract.

use super::Violation;
use crate::dedupe::DedupeStore;

/// Drives `store` through the deduplication contract.
pub async fn dedupe_store(store: &dyn DedupeStore) -> Result<(), Violation> {
    let _ = store;
    Ok(())
}
