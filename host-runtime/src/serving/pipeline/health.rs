//! `GET`/`HEAD /host/health`: 200 `ok`, or 503 `degraded` when the vendor's own check fails or is
//! slower than the interface allows.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use bytes::Bytes;
use futures_util::FutureExt;
use http::{Response, StatusCode};

use super::{Inner, json_response};

/// The health route's own deadline for the vendor's check: over 2.5 s is degraded.
pub(crate) const HEALTH_DEADLINE: Duration =
    Duration::from_millis(host_interface::limits::HEALTH_CHECK_MS);

/// `GET`/`HEAD /host/health`: 200 `ok`, or 503 `degraded` when the vendor's check fails or takes
/// over 2.5 s.
pub(super) async fn health(inner: &Inner, head: bool) -> Response<Bytes> {
    let healthy = match &inner.config.health {
        None => true,
        Some(check) => {
            match crate::platform::rt::timeout(
                HEALTH_DEADLINE,
                AssertUnwindSafe(check()).catch_unwind(),
            )
            .await
            {
                Ok(Ok(Ok(()))) => true,
                Ok(Ok(Err(e))) => {
                    tracing::warn!(error = %crate::calls::error::Chain(&*e), "the health check failed");
                    false
                }
                Ok(Err(_)) => {
                    tracing::error!("the health check panicked");
                    false
                }
                Err(_) => {
                    tracing::warn!("the health check took longer than {HEALTH_DEADLINE:?}");
                    false
                }
            }
        }
    };
    let body = serde_json::json!({
        "status": if healthy { "ok" } else { "degraded" },
        "extensionId": inner.spec.extension_id,
        // The interface version (what a manifest's `sdk` range is about), then this crate's own.
        "sdk": host_interface::catalogue::INTERFACE_VERSION,
        "runtime": concat!("host-runtime ", env!("CARGO_PKG_VERSION")),
    });
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let mut r = json_response(status, Bytes::from(body.to_string()));
    if head {
        *r.body_mut() = Bytes::new();
    }
    r
}
