//! {{name}}: a connector for the host: daily sign-ups by country, paged by day.
//!
//! `cargo run` serves it on 127.0.0.1:8787; `cargo host call sync` asks for the last 24 hours as
//! the host's scheduled sync does, and `cargo host check` runs a backfill through every page. The
//! sync itself is in `signups.rs`: the numbers are made up from the date, where a real connector
//! reads them from its own API with the install's `api_key`.

host_runtime::host_extension!("host.extension.json");

mod config;
mod signups;

use std::process::ExitCode;

/// The extension.
#[derive(Debug, Default)]
struct Server;

#[tokio::main]
async fn main() -> ExitCode {
    let config = match config::Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    config::serve(config.apply(handler(Server)), &config).await
}
