//! Where the server listens and which host it trusts, from the environment.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `LISTEN_ADDR` | address to listen on (port 0 picks a free one) | `127.0.0.1:8787` |
//! | `HOST_JWKS_URL` | the host's key set, for install tokens | the public development key set |
//! | `HOST_ISSUER` | the install token issuer | the host's production issuer |
//!
//! `cargo host dev` prints these for a local host. Without `HOST_JWKS_URL` the server trusts the
//! public development key set, so anyone can mint tokens for it: never expose it like that.

use std::net::SocketAddr;
use std::process::ExitCode;

use host_runtime::Handler;

/// The settings read from the environment.
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// The host's key set URL; `None` in development.
    pub jwks_url: Option<String>,
    /// The token issuer, when not the default.
    pub issuer: Option<String>,
}

impl Config {
    /// Reads the environment; a value that cannot be used is an error naming the variable.
    pub fn from_env() -> Result<Config, String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let listen = match var("LISTEN_ADDR") {
            Some(addr) => addr.trim().parse().map_err(|e| {
                format!("LISTEN_ADDR `{addr}` is not an address such as 127.0.0.1:8787: {e}")
            })?,
            None => SocketAddr::from(([127, 0, 0, 1], 8787)),
        };
        let jwks_url = var("HOST_JWKS_URL");
        if let Some(url) = &jwks_url {
            host_runtime::auth::check_key_set_url(url)
                .map_err(|why| format!("HOST_JWKS_URL is unusable: {why}"))?;
        }
        Ok(Config {
            listen,
            jwks_url,
            issuer: var("HOST_ISSUER"),
        })
    }

    /// The handler, trusting the configured key set and issuer. In development mode the stores
    /// the manifest needs are kept in memory, and the server says so when it starts.
    pub fn apply(&self, handler: Handler) -> Handler {
        let handler = match &self.issuer {
            Some(issuer) => handler.with_issuer(issuer.clone()),
            None => handler,
        };
        match &self.jwks_url {
            // One instance: the deduplication keys of host events (if the manifest subscribes to
            // any) are kept in this process, and a restart forgets them. For several instances,
            // share a `RedisDedupe` or `PostgresDedupe` instead.
            Some(url) => handler
                .with_jwks_url(url.clone())
                .with_dedupe_store(host_runtime::dedupe::MemoryDedupe::new()),
            None => handler
                .with_jwks(host_runtime::testing::development_jwks())
                .with_development_defaults(),
        }
    }
}

/// Serves `handler` until SIGTERM or Ctrl-C; the first line printed is the address.
pub async fn serve(handler: Handler, config: &Config) -> ExitCode {
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!(
                "error: cannot listen on {}: {e}; pick another address with LISTEN_ADDR",
                config.listen
            );
            return ExitCode::from(2);
        }
    };
    let addr = listener.local_addr().unwrap_or(config.listen);
    println!("listening on http://{addr}");
    if config.jwks_url.is_none() {
        println!(
            "  development mode: trusting the public development key set (`cargo host call` works)"
        );
    }
    match handler.serve_on(listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}
