//! {{name}}: a vendor server for the host.
//!
//! `cargo run` serves it on 127.0.0.1:8787; `cargo host call tool greet --input '{"name": "Ada"}'`
//! calls it as the host would, and `cargo host check` runs the host's publish-time checks.

host_runtime::host_extension!("host.extension.json");

mod config;

use std::process::ExitCode;

use host_runtime::HostError;
use host_runtime::answer::Value;

/// The extension.
#[derive(Debug, Default)]
struct Server;

impl Tools for Server {
    async fn greet(&self, call: ToolCall<tools::greet::Input>) -> Result<Value, HostError> {
        Ok(Value::new(format!("Hello, {}!", call.input.name.as_str())))
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
    config::serve(config.apply(handler(Server)), &config).await
}
