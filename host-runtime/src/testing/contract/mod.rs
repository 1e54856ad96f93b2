//! What every store must do, as functions a test runs against a store: the SDK's own stores are
//! held to them (memory, file, Redis, PostgreSQL, DynamoDB, Durable Objects), and so can yours.
//!
//! Each function drives a fresh, empty store through the trait's promises and returns the first
//! one it breaks as a [`Violation`], rather than panicking, so that it also runs where a panic
//! cannot be caught (a Worker's isolate) and reports through whatever channel the test has.

use std::fmt;

mod dedupe;
mod outbox;
#[cfg(not(target_arch = "wasm32"))]
mod senders;

pub use dedupe::dedupe_store;
pub use outbox::{BASE, outbox_store};
#[cfg(not(target_arch = "wasm32"))]
pub use senders::outbox_senders;

/// A promise a store broke: which step of the contract, and what it did instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The step, in the contract's words.
    pub step: &'static str,
    /// What the store answered.
    pub found: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: the store answered {}", self.step, self.found)
    }
}

impl std::error::Error for Violation {}

/// `Ok` when `found` is `expected`, else the step's violation.
pub(crate) fn expect<T: PartialEq + fmt::Debug>(
    step: &'static str,
    found: T,
    expected: T,
) -> Result<(), Violation> {
    if found == expected {
        Ok(())
    } else {
        Err(Violation {
            step,
            found: format!("{found:?} (expected {expected:?})"),
        })
    }
}

/// The value of a store call, or the step's violation when the store failed.
pub(crate) fn answered<T, E: fmt::Display>(
    step: &'static str,
    result: Result<T, E>,
) -> Result<T, Violation> {
    result.map_err(|e| Violation {
        step,
        found: format!("an error: {e}"),
    })
}
