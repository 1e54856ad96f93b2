//! {{name}}: a vendor server for the host's assistant: tools, an approved action, a mention picker
//! and a context provider, over notes kept in memory per install.
//!
//! `cargo run` serves it on 127.0.0.1:8787; `cargo host call action save-note --input '{"text":
//! "Ship on Friday"}'` calls it as the host would, and `cargo host check` runs the host's
//! publish-time checks. Notes live in memory: a real server keeps them in its database. What only
//! reads or writes notes (the action, the mention picker, the context provider) is in `notes.rs`.

host_runtime::host_extension!("host.extension.json");

mod config;
mod notes;

use std::process::ExitCode;

use host_runtime::HostError;
use host_runtime::answer::{Table, Value};
use host_runtime::events::InstallCreated;

/// The extension: notes by install id.
#[derive(Debug, Default)]
struct Server {
    notes: notes::Notes,
}

impl Tools for Server {
    async fn greet(&self, call: ToolCall<tools::greet::Input>) -> Result<Value, HostError> {
        Ok(Value::new(format!("Hello, {}!", call.input.name.as_str())))
    }

    async fn recent_notes(
        &self,
        call: ToolCall<tools::recent_notes::Input>,
    ) -> Result<Table, HostError> {
        Ok(self.notes.recent(&call))
    }
}

impl Events for Server {
    async fn install_created(&self, call: EventCall<InstallCreated>) -> Result<(), HostError> {
        println!("installed: {}", call.install.id);
        Ok(())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let config = match config::Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    config::serve(config.apply(handler(Server::default())), &config).await
}
