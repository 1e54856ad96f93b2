//! A value current for the span of each poll of one future: how a request's invocation or
//! transaction reaches every future the handler awaits, however deep, without being passed down
//! (and reaches nothing else: not a spawned task, not another request on the same thread).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::LocalKey;

/// Where a kind of scope keeps its current value: a `thread_local!` of this type.
pub(crate) type Slot<T> = RefCell<Option<Arc<T>>>;

/// `future`, polled with `value` current in `slot`.
pub(crate) struct Scoped<T: 'static, F> {
    slot: &'static LocalKey<Slot<T>>,
    value: Arc<T>,
    future: Pin<Box<F>>,
}

impl<T: 'static, F> Scoped<T, F> {
    pub(crate) fn new(slot: &'static LocalKey<Slot<T>>, value: Arc<T>, future: F) -> Self {
        Scoped {
            slot,
            value,
            future: Box::pin(future),
        }
    }
}

impl<T: 'static, F: Future> Future for Scoped<T, F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        /// Puts back the value that was current before, even if the poll panics.
        struct Restore<T: 'static>(&'static LocalKey<Slot<T>>, Option<Arc<T>>);
        impl<T: 'static> Drop for Restore<T> {
            fn drop(&mut self) {
                let previous = self.1.take();
                self.0.with(|current| *current.borrow_mut() = previous);
            }
        }
        let slot = self.slot;
        let previous = slot.with(|current| current.replace(Some(Arc::clone(&self.value))));
        let _restore = Restore(slot, previous);
        self.future.as_mut().poll(cx)
    }
}

/// The value current in `slot`, if a [`Scoped`] future is being polled on this thread.
pub(crate) fn current<T>(slot: &'static LocalKey<Slot<T>>) -> Option<Arc<T>> {
    slot.with(|current| current.borrow().clone())
}
