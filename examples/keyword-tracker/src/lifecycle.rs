//! The host events the server subscribes to (`server.events`). The runtime delivers each once per
//! content, whatever `X-Host-Event-Id` says, so these handlers need no deduplication of their
//! own.

use host_runtime::HostError;
use host_runtime::events::{
    InstallCreated, InstallPaused, InstallResumed, InstallRevoked, InstallTokenRotated,
    ReleaseShipped, SettingsChanged,
};

use crate::{EventCall, Events, Tracker};

impl Events for Tracker {
    /// A release went live: ranks often move after one, so check the tracked keywords now rather
    /// than at the next sync.
    async fn release_shipped(&self, call: EventCall<ReleaseShipped>) -> Result<(), HostError> {
        let install = &call.install.id;
        let version = call.input.version.clone();
        self.with_install(install, |s| s.releases.push(version.clone()));
        let drops = self
            .check_drops(
                install,
                &format!("since {version} went live"),
                &format!("v{version}"),
            )
            .await?;
        tracing::info!(%install, %version, drops, "release checked");
        Ok(())
    }

    async fn install_created(&self, call: EventCall<InstallCreated>) -> Result<(), HostError> {
        // Start from the defaults (every keyword of the account in the default country) and the
        // owner's settings if the host sent them.
        let fresh = self.default_state();
        self.lock().insert(call.install.id.clone(), fresh);
        self.apply_settings(&call.install.id, &call.documents);
        tracing::info!(install = %call.install.id, scopes = ?call.input.granted_scopes, "install created");
        Ok(())
    }

    async fn install_paused(&self, call: EventCall<InstallPaused>) -> Result<(), HostError> {
        self.with_install(&call.install.id, |s| s.paused = true);
        Ok(())
    }

    async fn install_resumed(&self, call: EventCall<InstallResumed>) -> Result<(), HostError> {
        self.with_install(&call.install.id, |s| s.paused = false);
        Ok(())
    }

    async fn install_revoked(&self, call: EventCall<InstallRevoked>) -> Result<(), HostError> {
        // The owner removed the extension: forget everything kept for the install.
        self.lock().remove(&call.install.id);
        tracing::info!(install = %call.install.id, reason = ?call.input.reason, "install revoked; its data is deleted");
        Ok(())
    }

    async fn install_token_rotated(
        &self,
        call: EventCall<InstallTokenRotated>,
    ) -> Result<(), HostError> {
        // The install's signing secret rotates with the token generation: a real vendor would fetch
        // the new secret from its own records of the portal here.
        let generation = call.input.generation;
        self.with_install(&call.install.id, |s| {
            s.generation = s.generation.max(generation)
        });
        Ok(())
    }

    async fn settings_changed(&self, call: EventCall<SettingsChanged>) -> Result<(), HostError> {
        let country = self.apply_settings(&call.install.id, &call.documents);
        tracing::info!(install = %call.install.id, keys = ?call.input.keys, %country, "settings applied");
        Ok(())
    }
}
