//! Timers, tasks and clocks, from whatever the platform offers.
//!
//! Natively they are tokio's (the pipeline runs inside a tokio runtime: the SDK's own server,
//! axum, Lambda or Vercel). On `wasm32` (Cloudflare Workers and other JavaScript hosts) there is no
//! tokio runtime and `std::time` panics: sleeping is the host's `setTimeout`, a task is a promise
//! on the host's event loop, and clocks are `performance.now()` and `Date.now()` (through
//! `web-time`). The pipeline only uses the functions here, so it builds and runs on both.

use std::future::Future;
use std::time::Duration;

pub(crate) use web_time::{Instant, SystemTime, UNIX_EPOCH};

/// A deadline passed before the future finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elapsed;

/// Seconds since the Unix epoch, now.
pub(crate) fn unix_seconds() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Now, as a timestamp.
pub(crate) fn now_utc() -> chrono::DateTime<chrono::Utc> {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    chrono::DateTime::from_timestamp_millis(millis).unwrap_or_default()
}

/// 32 random hex digits: names one attempt's claim or one process's leases.
pub(crate) fn random_token() -> String {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 16];
    // The system's random source does not fail on the platforms the SDK runs on; were it to, the
    // time keeps tokens apart within this process.
    if ring::rand::SystemRandom::new().fill(&mut bytes).is_err() {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = nanos.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `future`, polled by a function of its own on wasm32, where the runtime compiles a function when
/// it is first called: code behind it is compiled only if it runs. Elsewhere it stays inline in its
/// caller's future, with no allocation of its own.
#[cfg(target_arch = "wasm32")]
pub(crate) fn apart<'a, T>(
    future: impl Future<Output = T> + Send + 'a,
) -> crate::platform::BoxFuture<'a, T> {
    Box::pin(future)
}

/// `future`, polled by a function of its own on wasm32, where the runtime compiles a function when
/// it is first called: code behind it is compiled only if it runs. Elsewhere it stays inline in its
/// caller's future, with no allocation of its own.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn apart<F: Future>(future: F) -> F {
    future
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::{Duration, Elapsed, Future};

    pub(crate) async fn sleep(d: Duration) {
        tokio::time::sleep(d).await;
    }

    pub(crate) async fn timeout<F: Future>(d: Duration, f: F) -> Result<F::Output, Elapsed> {
        tokio::time::timeout(d, f).await.map_err(|_| Elapsed)
    }

    /// Runs `f` on its own; `false` when there is no runtime to run it on.
    pub(crate) fn spawn(f: impl Future<Output = ()> + Send + 'static) -> bool {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                drop(runtime.spawn(f));
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::{Duration, Elapsed, Future};
    use futures_util::future::{Either, select};

    pub(crate) async fn sleep(d: Duration) {
        let millis = u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        // JavaScript values stay on the one thread there is; the wrapper only satisfies `Send`.
        send_wrapper::SendWrapper::new(gloo_timers::future::TimeoutFuture::new(millis)).await;
    }

    pub(crate) async fn timeout<F: Future>(d: Duration, f: F) -> Result<F::Output, Elapsed> {
        let f = std::pin::pin!(f);
        let timer = std::pin::pin!(sleep(d));
        match select(f, timer).await {
            Either::Left((output, _)) => Ok(output),
            Either::Right(((), _)) => Err(Elapsed),
        }
    }

    /// Runs `f` on the host's event loop. (A Worker's event loop ends with its request unless the
    /// task is handed to `ctx.wait_until`, which the Workers adapter does for what it starts.)
    pub(crate) fn spawn(f: impl Future<Output = ()> + Send + 'static) -> bool {
        wasm_bindgen_futures::spawn_local(f);
        true
    }
}

pub(crate) use imp::{sleep, spawn, timeout};
