//! The handler `host_extension!`'s entry point builds: the manifest the crate was compiled against and
//! the generated dispatcher around the vendor's value.

use std::fmt;

use host_manifest::Manifest;

use crate::codegen::{Dispatch, RawCall, Reply, Route};
use crate::error::HostError;

/// A vendor server's handler for host calls.
pub struct Handler {
    manifest: Result<Manifest, String>,
    dispatch: Box<dyn Dispatch>,
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handler")
            .field("extension", &self.extension_id())
            .finish_non_exhaustive()
    }
}

impl Handler {
    pub(crate) fn new(manifest_json: &str, dispatch: Box<dyn Dispatch>) -> Self {
        let manifest = serde_json::from_str(manifest_json).map_err(|e| {
            format!("the embedded manifest does not match this host-runtime version ({e}); rebuild the crate")
        });
        Handler { manifest, dispatch }
    }

    /// The manifest this handler serves.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref().ok()
    }

    /// The extension id.
    pub fn extension_id(&self) -> &str {
        self.manifest().map_or("", |m| m.id.as_str())
    }

    /// Routes one verified call to the vendor's handler. Only the runtime can make a [`RawCall`].
    #[doc(hidden)]
    pub async fn dispatch(&self, route: Route<'_>, call: RawCall) -> Result<Reply, HostError> {
        if let Err(e) = &self.manifest {
            return Err(HostError::internal(e.clone()));
        }
        self.dispatch.dispatch(route, call).await
    }
}
