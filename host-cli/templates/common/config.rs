//! Where the server listens, which host it trusts and where its events go, from the environment.
//!
//! | variable | meaning | development default |
//! |---|---|---|
//! | `LISTEN_ADDR` | address to listen on (port 0 picks a free one) | `127.0.0.1:8787` |
//! | `HOST_MODE` | `production` or `development` | `production` when `HOST_JWKS_URL` names another machine |
//! | `HOST_JWKS_URL` | the host's key set, for install tokens | the public development key set |
//! | `HOST_ISSUER` | the install token issuer | the host's production issuer |
//! | `HOST_EVENT_POST_URL` | where the server's own events are posted | `cargo host dev`'s, on this machine |
//! | `HOST_SIGNING_SECRET` | the install's secret those events are signed with (`whsec_...`) | the public development secret |
//! | `HOST_OUTBOX` | the folder where events (and, in production, the keys of host events already handled) wait on disk | `.host-outbox` |
//! | `HOST_DEDUPE` | `memory`: keep the keys of host events in memory, forgotten on restart (tests only) | on disk beside the outbox |
//!
//! `cargo host dev` prints these for a local host. Production (`HOST_MODE=production`, or a key set
//! on another machine) assumes nothing: it needs `HOST_JWKS_URL`, and a server that sends events
//! needs `HOST_EVENT_POST_URL` and `HOST_SIGNING_SECRET`, each named when missing; the public
//! development secret is refused with a key set on another machine. Without `HOST_JWKS_URL` the server trusts the public
//! development key set, so anyone can mint tokens for it: never expose it like that.

use std::net::SocketAddr;
use std::process::ExitCode;

use host_runtime::{EventSender, Handler};

/// Where `cargo host dev` takes the server's events.
#[allow(dead_code)] // Read by a template that sends events.
const DEV_EVENT_POST_URL: &str = "http://127.0.0.1:8788/v1/events";

/// The settings read from the environment.
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// Whether nothing may be assumed.
    pub production: bool,
    /// The host's key set URL; `None` in development.
    pub jwks_url: Option<String>,
    /// The token issuer, when not the default.
    pub issuer: Option<String>,
    /// Where events are posted, if set.
    #[allow(dead_code)] // Read by a template that sends events.
    pub event_post_url: Option<String>,
    /// What they are signed with, if set.
    #[allow(dead_code)] // Read by a template that sends events.
    pub signing_secret: Option<String>,
    /// The folder where events (and the keys of host events) wait on disk.
    pub outbox: String,
    /// Whether the keys of host events are kept in memory, asked for by name.
    pub dedupe_in_memory: bool,
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
        let production = match var("HOST_MODE").as_deref().map(str::trim) {
            Some("production") => true,
            Some("development") => false,
            Some(other) => {
                return Err(format!(
                    "HOST_MODE is `{other}`; use `production` or `development`"
                ));
            }
            // A key set on another machine is a deployed host's.
            None => jwks_url
                .as_deref()
                .is_some_and(|url| !host_runtime::auth::on_this_machine(url)),
        };
        if production && jwks_url.is_none() {
            return Err("production needs HOST_JWKS_URL (the host's key set URL); nothing is \
                        assumed in production"
                .to_owned());
        }
        let dedupe_in_memory = match var("HOST_DEDUPE").as_deref().map(str::trim) {
            None => false,
            Some("memory") => true,
            Some(other) => {
                return Err(format!(
                    "HOST_DEDUPE is `{other}`; unset it (keys on disk beside the outbox) or use \
                     `memory` (tests only)"
                ));
            }
        };
        Ok(Config {
            listen,
            production,
            jwks_url,
            issuer: var("HOST_ISSUER"),
            event_post_url: var("HOST_EVENT_POST_URL"),
            signing_secret: var("HOST_SIGNING_SECRET"),
            outbox: var("HOST_OUTBOX").unwrap_or_else(|| ".host-outbox".to_owned()),
            dedupe_in_memory,
        })
    }

    /// The sender of the server's own events, its outbox on disk in [`outbox`](Self::outbox). In
    /// production both the post URL and the secret must be set (each missing one is named) and
    /// the development secret is refused; in development they default to `cargo host dev`'s.
    #[allow(dead_code)] // Called by a template that sends events.
    pub fn event_sender(&self) -> Result<EventSender, String> {
        let (post_url, secret) = if self.production {
            let missing: Vec<&str> = [
                ("HOST_EVENT_POST_URL", self.event_post_url.is_none()),
                ("HOST_SIGNING_SECRET", self.signing_secret.is_none()),
            ]
            .into_iter()
            .filter_map(|(name, missing)| missing.then_some(name))
            .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "production needs {} to send events; nothing is assumed in production",
                    missing.join(" and ")
                ));
            }
            let secret = self.signing_secret.clone().unwrap_or_default();
            // `cargo host dev`, on this machine, signs with it; a deployed host never does.
            let deployed = self
                .jwks_url
                .as_deref()
                .is_some_and(|url| !host_runtime::auth::on_this_machine(url));
            if deployed && secret.trim() == host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET {
                return Err("HOST_SIGNING_SECRET is the development secret published with the \
                            SDK, so anyone could sign this server's events: give the install's \
                            own secret"
                    .to_owned());
            }
            (self.event_post_url.clone().unwrap_or_default(), secret)
        } else {
            (
                self.event_post_url
                    .clone()
                    .unwrap_or_else(|| DEV_EVENT_POST_URL.to_owned()),
                self.signing_secret.clone().unwrap_or_else(|| {
                    host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET.to_owned()
                }),
            )
        };
        // Accepted events wait on disk until the host takes them, across restarts. One process
        // per folder.
        let outbox = host_runtime::outbox::FileOutbox::open(&self.outbox).map_err(|e| {
            format!(
                "the outbox in `{}` cannot be opened (set HOST_OUTBOX to a writable folder): {e}",
                self.outbox
            )
        })?;
        EventSender::new(post_url, &secret, outbox)
            .map_err(|e| format!("HOST_SIGNING_SECRET is unusable: {e}"))
    }

    /// The handler, trusting the configured key set and issuer. In development mode the stores
    /// the manifest needs are kept in memory, and the server says so when it starts; in
    /// production, a manifest that subscribes to host events keeps their keys on disk beside the
    /// outbox ([`FileDedupe`](host_runtime::dedupe::FileDedupe)), so a restart does not run a
    /// delivery twice. One instance: for several, share a `RedisDedupe` or `PostgresDedupe`.
    pub fn apply(&self, handler: Handler) -> Result<Handler, String> {
        let handler = match &self.issuer {
            Some(issuer) => handler.with_issuer(issuer.clone()),
            None => handler,
        };
        let handler = match &self.jwks_url {
            Some(url) => handler.with_jwks_url(url.clone()),
            None => handler.with_jwks(host_runtime::testing::development_jwks()),
        };
        if !self.production {
            return Ok(handler.with_development_defaults());
        }
        if handler.events().is_empty() {
            return Ok(handler);
        }
        if self.dedupe_in_memory {
            eprintln!(
                "warning: HOST_DEDUPE=memory: the keys of host events are kept in memory, and a \
                 restart forgets them (tests only)"
            );
            return Ok(handler.with_dedupe_store(host_runtime::dedupe::MemoryDedupe::new()));
        }
        let dedupe = host_runtime::dedupe::FileDedupe::open(&self.outbox).map_err(|e| {
            format!(
                "the keys of host events cannot be kept in `{}` (set HOST_OUTBOX to a writable \
                 folder): {e}",
                self.outbox
            )
        })?;
        Ok(handler.with_dedupe_store(dedupe))
    }
}

/// Serves `handler` until SIGTERM or Ctrl-C; the first line printed is the address.
pub async fn serve(handler: Result<Handler, String>, config: &Config) -> ExitCode {
    let handler = match handler {
        Ok(handler) => handler,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
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
    // SIGTERM is handled from here on: one sent as soon as the line below is read stops the
    // server cleanly rather than killing it.
    let stop = host_runtime::shutdown_signal();
    println!("listening on http://{addr}");
    if config.jwks_url.is_none() {
        println!(
            "  development mode: trusting the public development key set (`cargo host call` works)"
        );
    }
    match handler.serve_until(listener, stop).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}
