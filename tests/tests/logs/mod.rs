//! What a test's thread logs, kept as text: a `tracing` subscriber set as the thread's default that
//! writes into memory, shared by `tracing.rs` and `warm.rs`. Each uses it in a test binary of its
//! own: a thread-local subscriber shares tracing's callsite cache with whatever else runs in the
//! process.

use std::sync::{Arc, Mutex};

/// Everything the subscriber prints, kept while the guard it came with lives.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Captures what this thread logs at `level` and above, until the guard is dropped.
    pub(crate) fn install(level: tracing::Level) -> (Captured, tracing::subscriber::DefaultGuard) {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(level)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        (captured, tracing::subscriber::set_default(subscriber))
    }

    /// What was logged so far.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
