//! The cause an error of this crate keeps for [`source`](std::error::Error::source): shared, so the
//! error stays `Clone`, and left out of equality (errors seldom implement `PartialEq`), so two
//! errors that say the same thing are equal whatever their causes.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// An error's cause, if it has one.
#[derive(Clone, Default)]
pub(crate) struct Cause(Option<Arc<dyn Error + Send + Sync>>);

impl Cause {
    /// The cause `error`.
    pub(crate) fn of(error: impl Into<Box<dyn Error + Send + Sync + 'static>>) -> Self {
        Cause(Some(Arc::from(error.into())))
    }

    /// The cause, as [`Error::source`] returns it.
    pub(crate) fn get(&self) -> Option<&(dyn Error + 'static)> {
        self.0.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for Cause {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Cause {}
