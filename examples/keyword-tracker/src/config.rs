//! Where the server listens and whom it trusts, from flags and the environment.
//!
//! | setting | flag | environment | development default |
//! |---|---|---|---|
//! | listen address | `--listen` | `LISTEN_ADDR` | `127.0.0.1:8787` |
//! | mode | `--production` | `HOST_MODE=production` | development |
//! | install token key set | | `HOST_JWKS_URL` | the inline development key set |
//! | token issuer | | `HOST_ISSUER` | `https://auth.host.example` |
//! | event-post URL | | `HOST_EVENT_POST_URL` | `http://127.0.0.1:8788/v1/events` (`cargo host dev`) |
//! | event signing secret | | `HOST_SIGNING_SECRET` | the development secret |
//! | outbox | | `HOST_OUTBOX` | the folder `.host-outbox` in the working directory |
//! | database | | `HOST_DATABASE_URL` | none |
//! | the database without its pooler (for migrations and the outbox's listener) | | `HOST_DATABASE_DIRECT_URL` | none: `HOST_DATABASE_URL` |
//! | migrations at start: `apply` (what is missing; nothing when up to date) or `check` (reads only) | | `HOST_DATABASE_MIGRATIONS` | `apply` |
//! | database connections at most | | `HOST_DATABASE_POOL_SIZE` | 16 |
//! | how long a call waits for a database connection (seconds) | | `HOST_DATABASE_ACQUIRE_TIMEOUT_SECS` | 2 |
//! | how long the start waits for the database to answer (seconds; 0: not at all) | | `HOST_DATABASE_START_TIMEOUT_SECS` | 60 |
//! | how long a crashed instance holds a host event (seconds) | | `HOST_DEDUPE_LEASE_SECS` | 60 |
//! | how long a crashed instance holds its own events (seconds) | | `HOST_OUTBOX_LEASE_SECS` | 60 |
//! | the operator port: `/livez`, `/readyz` and Prometheus' `/metrics` | | `HOST_METRICS_ADDR` | none (not served) |
//!
//! `HOST_OUTBOX` is where the server's own events wait until the host takes them: a folder (an
//! embedded store, one file, for one instance) or a `redis://host:port` URL (for several
//! instances), in both modes. Unset, it is `.host-outbox` in the working directory.
//!
//! `HOST_DATABASE_URL` (`postgres://user:password@host:port/database`) keeps the alerts in
//! PostgreSQL, with the deduplication of host events and the outbox in the same database: an
//! alert's row, its `rank.dropped` event and the record that the delivery ran commit in one
//! transaction. `HOST_OUTBOX` must then be unset (or name the same URL). Unset, nothing changes.
//!
//! Behind a pooler in transaction mode (Supabase's and Neon's pooled URLs, RDS Proxy, PgBouncer),
//! `HOST_DATABASE_URL` may be the pooled URL alone: the SDK's statements and the example's need no
//! session. `HOST_DATABASE_DIRECT_URL`, when set, is used to migrate at start and for the outbox's
//! listener (which hears nothing through such a pooler; the dispatcher then looks once a second).
//! With `HOST_DATABASE_MIGRATIONS=check` the server changes no schema and needs rights on the rows
//! alone (`cargo host postgres grants` prints them): migrate first with `cargo host postgres
//! migrate`, as the schema's owner; a missing or edited migration then refuses the start, naming
//! it.
//!
//! The deduplication keys of host events follow the other stores: in the database with
//! `HOST_DATABASE_URL`; otherwise, in production, in the Redis of a `redis://` `HOST_OUTBOX` (shared
//! by every instance) or, beside an outbox folder (one instance), in the process, where a restart
//! forgets them; in development, in memory.
//!
//! In production mode the last four have no default: the server refuses to start without them and
//! names each one missing. The development key set and secret are public (every copy of the SDK
//! has them), so a development-mode server must never face the internet.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use host_runtime::outbox::{FileOutbox, MemoryOutbox, OutboxStore, RedisOutbox};

/// The address served by default.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8787";
/// The outbox folder when `HOST_OUTBOX` is unset, relative to the working directory.
pub const DEFAULT_OUTBOX: &str = ".host-outbox";
/// Where `cargo host dev` takes the vendor's events by default.
pub const DEFAULT_DEV_EVENT_POST_URL: &str = "http://127.0.0.1:8788/v1/events";

/// Development (embedded defaults) or production (everything from the environment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Trusts the public development key set; posts events to the local host.
    Development,
    /// Trusts only what the environment configures.
    Production,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Development => "development",
            Mode::Production => "production",
        })
    }
}

/// Where install token keys come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Keys {
    /// A key set given inline (the development one).
    Inline(serde_json::Value),
    /// A key set URL, fetched and cached.
    Url(String),
}

/// Where the server's own events wait until the host takes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutboxSetting {
    /// The embedded store, in this folder.
    Folder(std::path::PathBuf),
    /// A Redis outbox shared by every instance (`redis://` or `rediss://` URL).
    Redis(String),
    /// Process memory (`memory`), asked for by name: for tests only, events are lost with the
    /// process.
    Memory,
    /// The PostgreSQL database of `HOST_DATABASE_URL`, where the events commit with the alerts.
    Database(String),
}

impl fmt::Display for OutboxSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutboxSetting::Folder(dir) => write!(f, "{}", dir.display()),
            OutboxSetting::Redis(url) => f.write_str(&host_runtime::store::without_password(url)),
            OutboxSetting::Memory => f.write_str("memory"),
            OutboxSetting::Database(_) => f.write_str("the database of HOST_DATABASE_URL"),
        }
    }
}

impl OutboxSetting {
    /// Reads `HOST_OUTBOX`: a `redis://`/`rediss://` URL, `memory`, or else a folder.
    pub fn parse(value: Option<&str>) -> Self {
        match value.map(str::trim) {
            Some(url) if url.starts_with("redis://") || url.starts_with("rediss://") => {
                OutboxSetting::Redis(url.to_owned())
            }
            Some("memory") => OutboxSetting::Memory,
            Some(dir) => OutboxSetting::Folder(dir.into()),
            None => OutboxSetting::Folder(DEFAULT_OUTBOX.into()),
        }
    }

    /// Opens the store, naming `HOST_OUTBOX` and the place in the error. The database's outbox is
    /// opened by [`crate::database::Database::outbox`], on the pool the alerts use.
    pub async fn open(&self) -> Result<Arc<dyn OutboxStore>, ConfigError> {
        let opened = match self {
            OutboxSetting::Database(url) => {
                let database = crate::database::Database::open(url).await?;
                return database.outbox().await;
            }
            OutboxSetting::Folder(dir) => {
                FileOutbox::open(dir).map(|s| Arc::new(s) as Arc<dyn OutboxStore>)
            }
            OutboxSetting::Redis(url) => RedisOutbox::connect(url)
                .await
                .map(|s| Arc::new(s) as Arc<dyn OutboxStore>),
            OutboxSetting::Memory => {
                tracing::warn!(
                    "HOST_OUTBOX=memory: events wait in this process's memory and are lost with it; for tests only"
                );
                Ok(Arc::new(MemoryOutbox::new()) as Arc<dyn OutboxStore>)
            }
        };
        opened.map_err(|e| ConfigError(format!("HOST_OUTBOX ({self}) cannot be opened: {e}")))
    }

    /// Opens the store on a serverless `platform`, where an instance's memory and disk go with it
    /// (and may be frozen for good once it answers): a Redis outbox, or `memory` asked for by name.
    /// `HOST_OUTBOX` unset (`set` false) or a folder is refused, naming the setting that fixes it.
    pub async fn open_serverless(
        &self,
        set: bool,
        platform: &str,
    ) -> Result<Arc<dyn OutboxStore>, ConfigError> {
        let fix = "set HOST_OUTBOX to a redis:// URL every instance reaches (or to `memory` for a \
                   test, where events can be lost)";
        match self {
            _ if !set => Err(ConfigError(format!(
                "HOST_OUTBOX is not set: on {platform} an instance's memory and disk go with it, so \
                 the events it accepts must wait in a store that outlives it; {fix}"
            ))),
            OutboxSetting::Folder(dir) => Err(ConfigError(format!(
                "HOST_OUTBOX is a folder ({}): on {platform} it goes with the instance; {fix}",
                dir.display()
            ))),
            OutboxSetting::Redis(_) | OutboxSetting::Memory | OutboxSetting::Database(_) => {
                let store = self.open().await?;
                if let OutboxSetting::Redis(url) = self {
                    tracing::info!(outbox = %host_runtime::store::without_password(url), "events wait in Redis until the host takes them (durable across instances)");
                }
                Ok(store)
            }
        }
    }
}

/// The server's configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The mode.
    pub mode: Mode,
    /// The install token key set.
    pub keys: Keys,
    /// The expected token issuer.
    pub issuer: String,
    /// Where the server posts its own events.
    pub event_post_url: String,
    /// The secret those events are signed with (`whsec_...`).
    pub signing_secret: String,
    /// Where those events wait until the host takes them.
    pub outbox: OutboxSetting,
    /// The PostgreSQL database of the alerts, the deduplication keys and the outbox, if any.
    pub database: Option<DatabaseConfig>,
    /// How long a claim on a host event lasts without renewal, in the database: what an instance
    /// that crashed holds a delivery for before the host's retry may run it.
    pub dedupe_lease: Option<std::time::Duration>,
    /// How long an instance's claim on one of its own events lasts in a shared outbox: what an
    /// instance that crashed holds them for before another posts them. At least 20 s (two attempt
    /// timeouts); a shorter one is raised to that, with a warning.
    pub outbox_lease: Option<std::time::Duration>,
    /// Where the operator's routes listen (`/livez`, `/readyz`, `/metrics`), if anywhere: a port
    /// apart from the host's, never exposed to it.
    pub metrics: Option<SocketAddr>,
}

/// How the PostgreSQL database is reached and migrated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseConfig {
    /// `HOST_DATABASE_URL`: the database, or its pooler.
    pub url: String,
    /// `HOST_DATABASE_DIRECT_URL`: the database itself, where `url` is a pooler's.
    pub direct_url: Option<String>,
    /// The pool's size and timeouts.
    pub pool: host_runtime::postgres::Settings,
    /// What the start does about migrations.
    pub migrations: Migrations,
}

/// What the start does about the database's migrations (`HOST_DATABASE_MIGRATIONS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Migrations {
    /// Applies what is missing (and changes nothing when the schema is up to date).
    Apply,
    /// Only checks, with reads: a role without the right to change the schema starts; a missing or
    /// edited migration refuses the start.
    Check,
}

/// Where a production server keeps the deduplication keys of host events when it has no database
/// (with one they are kept in it; in development, in memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DedupeSetting {
    /// In the Redis of `HOST_OUTBOX`, shared by every instance.
    Redis,
    /// In this process: an outbox folder (or `memory`) serves one instance, whose keys a restart
    /// forgets.
    Process,
}

impl Config {
    /// Where a production server without a database keeps its deduplication keys, by its outbox;
    /// `None` in development mode or with a database.
    pub fn dedupe_setting(&self) -> Option<DedupeSetting> {
        match (&self.mode, &self.outbox) {
            (Mode::Development, _) | (_, OutboxSetting::Database(_)) => None,
            (Mode::Production, OutboxSetting::Redis(_)) => Some(DedupeSetting::Redis),
            (Mode::Production, OutboxSetting::Folder(_) | OutboxSetting::Memory) => {
                Some(DedupeSetting::Process)
            }
        }
    }

    /// The deduplication store of [`dedupe_setting`](Self::dedupe_setting), opened; `None` when the
    /// handler takes its keys elsewhere (the database, or development mode's memory).
    pub async fn dedupe_store(
        &self,
    ) -> Result<Option<Arc<dyn host_runtime::dedupe::DedupeStore>>, ConfigError> {
        Ok(match (self.dedupe_setting(), &self.outbox) {
            (Some(DedupeSetting::Redis), OutboxSetting::Redis(url)) => {
                let store = host_runtime::dedupe::RedisDedupe::connect(url)
                    .await
                    .map_err(|e| {
                        ConfigError(format!(
                            "the deduplication keys cannot be kept in the Redis of HOST_OUTBOX ({url}): {e}"
                        ))
                    })?;
                let store = match self.dedupe_lease {
                    Some(lease) => store.with_lease(lease),
                    None => store,
                };
                Some(Arc::new(store))
            }
            // One instance: the keys are kept on disk beside the outbox folder, so a restart
            // inside the host's retry window remembers what ran.
            (Some(_), OutboxSetting::Folder(dir)) => {
                let store = host_runtime::dedupe::FileDedupe::open(dir).map_err(|e| {
                    ConfigError(format!(
                        "the deduplication keys cannot be kept beside HOST_OUTBOX ({}): {e}",
                        dir.display()
                    ))
                })?;
                Some(Arc::new(store))
            }
            // `HOST_OUTBOX=memory`, asked for by name: the keys go with the process too.
            (Some(_), _) => {
                tracing::warn!(
                    "HOST_OUTBOX=memory: the deduplication keys of host events are kept in this \
                     process's memory too, and a restart forgets them; for tests only"
                );
                Some(Arc::new(host_runtime::dedupe::MemoryDedupe::new()))
            }
            (None, _) => None,
        })
    }
}

/// Why the configuration is unusable; the message names every setting at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// A setting in whole seconds, more than 0, if it is set.
fn seconds(name: &str, value: Option<String>) -> Result<Option<std::time::Duration>, ConfigError> {
    let Some(secs) = value else {
        return Ok(None);
    };
    match secs.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(Some(std::time::Duration::from_secs(n))),
        _ => Err(ConfigError(format!(
            "{name} is `{secs}`; give a whole number of seconds, such as 60"
        ))),
    }
}

/// The database settings, if `HOST_DATABASE_URL` names one.
fn database(var: &impl Fn(&str) -> Option<String>) -> Result<Option<DatabaseConfig>, ConfigError> {
    let Some(url) = var("HOST_DATABASE_URL") else {
        return Ok(None);
    };
    let mut pool = host_runtime::postgres::Settings::default();
    if let Some(size) = var("HOST_DATABASE_POOL_SIZE") {
        match size.trim().parse::<u32>() {
            Ok(n) if n > 0 => pool = pool.with_max_connections(n),
            _ => {
                return Err(ConfigError(format!(
                    "HOST_DATABASE_POOL_SIZE is `{size}`; give a whole number of connections, such as 16"
                )));
            }
        }
    }
    let name = "HOST_DATABASE_ACQUIRE_TIMEOUT_SECS";
    if let Some(secs) = seconds(name, var(name))? {
        pool = pool.with_acquire_timeout(secs);
    }
    let name = "HOST_DATABASE_START_TIMEOUT_SECS";
    if let Some(secs) = var(name) {
        match secs.trim().parse::<u64>() {
            Ok(n) => pool = pool.with_start_timeout(std::time::Duration::from_secs(n)),
            Err(_) => {
                return Err(ConfigError(format!(
                    "{name} is `{secs}`; give a whole number of seconds, such as 60 (0: do not wait)"
                )));
            }
        }
    }
    let migrations = match var("HOST_DATABASE_MIGRATIONS").as_deref().map(str::trim) {
        None | Some("apply") => Migrations::Apply,
        Some("check") => Migrations::Check,
        Some(other) => {
            return Err(ConfigError(format!(
                "HOST_DATABASE_MIGRATIONS is `{other}`; use `apply` (migrate at start what is \
                 missing) or `check` (change nothing; refuse to start unless migrated)"
            )));
        }
    };
    Ok(Some(DatabaseConfig {
        url: url.trim().to_owned(),
        direct_url: var("HOST_DATABASE_DIRECT_URL").map(|u| u.trim().to_owned()),
        pool,
        migrations,
    }))
}

/// The settings production mode requires, with what each is for.
const REQUIRED_IN_PRODUCTION: [(&str, &str); 4] = [
    ("HOST_JWKS_URL", "the host's key set URL"),
    ("HOST_ISSUER", "the install token issuer"),
    ("HOST_EVENT_POST_URL", "where to post the server's events"),
    (
        "HOST_SIGNING_SECRET",
        "the install's signing secret, whsec_...",
    ),
];

impl Config {
    /// Reads the configuration: `listen` and `production` come from flags (`None`/`false` when not
    /// given), everything else from `env` (the process environment in `main`, a map in tests).
    pub fn load(
        listen: Option<&str>,
        production: bool,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let listen_text = listen
            .map(str::to_owned)
            .or_else(|| var("LISTEN_ADDR"))
            .unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
        let listen: SocketAddr = listen_text.trim().parse().map_err(|_| {
            ConfigError(format!(
                "the listen address `{listen_text}` is not an IP address and port such as {DEFAULT_LISTEN}"
            ))
        })?;
        let mode = match var("HOST_MODE").as_deref().map(str::trim) {
            _ if production => Mode::Production,
            None | Some("development") => Mode::Development,
            Some("production") => Mode::Production,
            Some(other) => {
                return Err(ConfigError(format!(
                    "HOST_MODE is `{other}`; use `production` or `development`"
                )));
            }
        };
        if mode == Mode::Production {
            let missing: Vec<String> = REQUIRED_IN_PRODUCTION
                .iter()
                .filter(|(name, _)| var(name).is_none())
                .map(|(name, what)| format!("{name} ({what})"))
                .collect();
            if !missing.is_empty() {
                return Err(ConfigError(format!(
                    "production mode needs {} in the environment; nothing is assumed in production",
                    missing.join(", ")
                )));
            }
        }
        let keys = match var("HOST_JWKS_URL") {
            Some(url) => {
                host_runtime::auth::check_key_set_url(&url)
                    .map_err(|why| ConfigError(format!("HOST_JWKS_URL is unusable: {why}")))?;
                Keys::Url(url)
            }
            None => Keys::Inline(host_runtime::testing::development_jwks()),
        };
        let mut config = Config {
            listen,
            mode,
            keys,
            issuer: var("HOST_ISSUER")
                .unwrap_or_else(|| host_runtime::auth::DEFAULT_ISSUER.to_owned()),
            event_post_url: var("HOST_EVENT_POST_URL")
                .unwrap_or_else(|| DEFAULT_DEV_EVENT_POST_URL.to_owned()),
            signing_secret: var("HOST_SIGNING_SECRET")
                .unwrap_or_else(|| host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET.to_owned()),
            outbox: OutboxSetting::parse(var("HOST_OUTBOX").as_deref()),
            database: database(&var)?,
            dedupe_lease: seconds("HOST_DEDUPE_LEASE_SECS", var("HOST_DEDUPE_LEASE_SECS"))?,
            outbox_lease: seconds("HOST_OUTBOX_LEASE_SECS", var("HOST_OUTBOX_LEASE_SECS"))?,
            metrics: match var("HOST_METRICS_ADDR") {
                None => None,
                Some(text) => Some(text.trim().parse().map_err(|_| {
                    ConfigError(format!(
                        "HOST_METRICS_ADDR `{text}` is not an IP address and port such as 127.0.0.1:9464"
                    ))
                })?),
            },
        };
        if let Some(url) = config.database.as_ref().map(|d| &d.url) {
            match var("HOST_OUTBOX").map(|o| o.trim().to_owned()) {
                None => config.outbox = OutboxSetting::Database(url.clone()),
                Some(same) if &same == url => config.outbox = OutboxSetting::Database(url.clone()),
                Some(_) => {
                    return Err(ConfigError(
                        "HOST_OUTBOX and HOST_DATABASE_URL are both set: with a database the \
                         events wait in it, committed with the alerts they announce; unset \
                         HOST_OUTBOX"
                            .to_owned(),
                    ));
                }
            }
        }
        if let Err(e) = host_runtime::webhook::Secret::parse(&config.signing_secret) {
            return Err(ConfigError(format!("HOST_SIGNING_SECRET is unusable: {e}")));
        }
        // A key set on another machine is a deployed host's (`cargo host dev`'s is on this one).
        let deployed =
            matches!(&config.keys, Keys::Url(url) if !host_runtime::auth::on_this_machine(url));
        if deployed
            && config.signing_secret.trim() == host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET
        {
            return Err(ConfigError(
                "HOST_SIGNING_SECRET is the development secret published with the SDK, and \
                 HOST_JWKS_URL is a deployed host's key set, so anyone could sign this server's \
                 events: give the install's own signing secret"
                    .to_owned(),
            ));
        }
        Ok(config)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn load(
        listen: Option<&str>,
        production: bool,
        vars: &[(&str, &str)],
    ) -> Result<Config, ConfigError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Config::load(listen, production, |k| vars.get(k).cloned())
    }

    #[test]
    fn development_runs_on_embedded_defaults() {
        let c = load(None, false, &[]).unwrap();
        assert_eq!(c.mode, Mode::Development);
        assert_eq!(c.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(
            c.keys,
            Keys::Inline(host_runtime::testing::development_jwks())
        );
        assert_eq!(c.event_post_url, DEFAULT_DEV_EVENT_POST_URL);
        assert_eq!(c.outbox, OutboxSetting::Folder(DEFAULT_OUTBOX.into()));
    }

    #[test]
    fn leases_are_whole_seconds_and_reach_the_sender() {
        let c = load(None, false, &[("HOST_OUTBOX_LEASE_SECS", " 25 ")]).unwrap();
        assert_eq!(c.outbox_lease, Some(std::time::Duration::from_secs(25)));
        assert_eq!(c.dedupe_lease, None);
        let sender =
            crate::Tracker::event_sender(&c, host_runtime::outbox::MemoryOutbox::new()).unwrap();
        assert_eq!(sender.lease(), std::time::Duration::from_secs(25));
        for bad in ["0", "-3", "1.5", "soon"] {
            let e = load(None, false, &[("HOST_OUTBOX_LEASE_SECS", bad)]).unwrap_err();
            assert!(
                e.0.starts_with(&format!("HOST_OUTBOX_LEASE_SECS is `{bad}`")),
                "{e}"
            );
        }
    }

    #[test]
    fn the_outbox_is_a_folder_or_a_redis_url() {
        let c = load(None, false, &[("HOST_OUTBOX", "/var/lib/tracker/outbox")]).unwrap();
        assert_eq!(
            c.outbox,
            OutboxSetting::Folder("/var/lib/tracker/outbox".into())
        );
        let c = load(None, false, &[("HOST_OUTBOX", " redis://10.0.0.5:6379/2 ")]).unwrap();
        assert_eq!(
            c.outbox,
            OutboxSetting::Redis("redis://10.0.0.5:6379/2".into())
        );
    }

    #[test]
    fn a_database_holds_the_outbox_too() {
        let url = "postgres://tracker@127.0.0.1:5432/tracker";
        let c = load(None, false, &[("HOST_DATABASE_URL", url)]).unwrap();
        let database = c.database.as_ref().unwrap();
        assert_eq!(database.url, url);
        assert_eq!(database.migrations, Migrations::Apply);
        assert_eq!(database.pool, host_runtime::postgres::Settings::default());
        assert_eq!(database.direct_url, None);
        assert_eq!(c.outbox, OutboxSetting::Database(url.into()));
        let c = load(
            None,
            false,
            &[("HOST_DATABASE_URL", url), ("HOST_OUTBOX", url)],
        )
        .unwrap();
        assert_eq!(c.outbox, OutboxSetting::Database(url.into()));
        let e = load(
            None,
            false,
            &[
                ("HOST_DATABASE_URL", url),
                ("HOST_OUTBOX", "redis://127.0.0.1/"),
            ],
        )
        .unwrap_err();
        assert!(e.0.contains("unset HOST_OUTBOX"), "{e}");
        let c = load(None, false, &[]).unwrap();
        assert_eq!(c.database, None);
    }

    #[test]
    fn the_database_pool_and_migrations_are_settings() {
        let url = "postgres://tracker@pooler.example:6543/tracker";
        let c = load(
            None,
            false,
            &[
                ("HOST_DATABASE_URL", url),
                (
                    "HOST_DATABASE_DIRECT_URL",
                    "postgres://tracker@db.example:5432/tracker",
                ),
                ("HOST_DATABASE_MIGRATIONS", "check"),
                ("HOST_DATABASE_POOL_SIZE", "4"),
                ("HOST_DATABASE_ACQUIRE_TIMEOUT_SECS", "5"),
                ("HOST_DATABASE_START_TIMEOUT_SECS", "0"),
            ],
        )
        .unwrap();
        let database = c.database.unwrap();
        assert_eq!(database.migrations, Migrations::Check);
        assert_eq!(
            database.direct_url.as_deref(),
            Some("postgres://tracker@db.example:5432/tracker")
        );
        assert_eq!(database.pool.max_connections, 4);
        assert_eq!(
            database.pool.acquire_timeout,
            std::time::Duration::from_secs(5)
        );
        assert_eq!(database.pool.start_timeout, std::time::Duration::ZERO);
        for (name, bad) in [
            ("HOST_DATABASE_MIGRATIONS", "later"),
            ("HOST_DATABASE_POOL_SIZE", "0"),
            ("HOST_DATABASE_ACQUIRE_TIMEOUT_SECS", "soon"),
            ("HOST_DATABASE_START_TIMEOUT_SECS", "-1"),
        ] {
            let e = load(None, false, &[("HOST_DATABASE_URL", url), (name, bad)]).unwrap_err();
            assert!(e.0.starts_with(&format!("{name} is `{bad}`")), "{e}");
        }
    }

    #[test]
    fn the_flag_wins_over_the_environment_for_the_address() {
        let c = load(
            Some("127.0.0.1:9000"),
            false,
            &[("LISTEN_ADDR", "127.0.0.1:9001")],
        )
        .unwrap();
        assert_eq!(c.listen.port(), 9000);
        let c = load(None, false, &[("LISTEN_ADDR", "127.0.0.1:9001")]).unwrap();
        assert_eq!(c.listen.port(), 9001);
        let e = load(Some("localhost"), false, &[]).unwrap_err();
        assert!(
            e.0.contains("`localhost` is not an IP address and port"),
            "{e}"
        );
    }

    #[test]
    fn production_refuses_to_start_naming_everything_missing() {
        let e = load(None, true, &[("HOST_ISSUER", "https://auth.host.example")]).unwrap_err();
        assert!(e.0.contains("HOST_JWKS_URL"), "{e}");
        assert!(e.0.contains("HOST_EVENT_POST_URL"), "{e}");
        assert!(e.0.contains("HOST_SIGNING_SECRET"), "{e}");
        assert!(!e.0.contains("HOST_ISSUER"), "{e}");
        // HOST_MODE does the same as the flag; blank values count as missing.
        let e = load(
            None,
            false,
            &[("HOST_MODE", "production"), ("HOST_JWKS_URL", " ")],
        )
        .unwrap_err();
        assert!(e.0.contains("HOST_JWKS_URL"), "{e}");
        let e = load(None, false, &[("HOST_MODE", "prod")]).unwrap_err();
        assert!(e.0.contains("use `production` or `development`"), "{e}");
    }

    #[test]
    fn the_dedupe_store_follows_the_mode_and_the_other_stores() {
        let production = |extra: &[(&str, &str)]| {
            let mut env = vec![
                ("HOST_JWKS_URL", "https://auth.example/jwks.json"),
                ("HOST_ISSUER", "https://auth.example"),
                ("HOST_EVENT_POST_URL", "https://events.example/v1"),
                (
                    "HOST_SIGNING_SECRET",
                    "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
                ),
            ];
            env.extend_from_slice(extra);
            load(None, true, &env).unwrap().dedupe_setting()
        };
        // Development keeps the keys in memory (the handler's development defaults).
        assert_eq!(load(None, false, &[]).unwrap().dedupe_setting(), None);
        // A database keeps them, in both modes.
        let url = "postgres://tracker@127.0.0.1:5432/tracker";
        assert_eq!(production(&[("HOST_DATABASE_URL", url)]), None);
        assert_eq!(
            production(&[("HOST_OUTBOX", "redis://10.0.0.5:6379/2")]),
            Some(DedupeSetting::Redis)
        );
        assert_eq!(production(&[]), Some(DedupeSetting::Process));
        assert_eq!(
            production(&[("HOST_OUTBOX", "memory")]),
            Some(DedupeSetting::Process)
        );
    }

    #[test]
    fn production_takes_everything_from_the_environment() {
        let c = load(
            None,
            true,
            &[
                ("HOST_JWKS_URL", "https://auth.example/jwks.json"),
                ("HOST_ISSUER", "https://auth.example"),
                ("HOST_EVENT_POST_URL", "https://events.example/v1"),
                (
                    "HOST_SIGNING_SECRET",
                    "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
                ),
            ],
        )
        .unwrap();
        assert_eq!(c.mode, Mode::Production);
        assert_eq!(c.keys, Keys::Url("https://auth.example/jwks.json".into()));
        assert_eq!(c.issuer, "https://auth.example");
        assert_eq!(c.event_post_url, "https://events.example/v1");
        let e = load(
            None,
            true,
            &[
                ("HOST_JWKS_URL", "https://auth.example/jwks.json"),
                ("HOST_ISSUER", "https://auth.example"),
                ("HOST_EVENT_POST_URL", "https://events.example/v1"),
                ("HOST_SIGNING_SECRET", "not-a-secret"),
            ],
        )
        .unwrap_err();
        assert!(e.0.starts_with("HOST_SIGNING_SECRET is unusable"), "{e}");
    }

    #[test]
    fn passwords_in_urls_are_never_shown() {
        for (url, shown) in [
            (
                "redis://:s3cret@10.0.0.5:6379/2",
                "redis://:***@10.0.0.5:6379/2",
            ),
            (
                "rediss://app:s3cret@cache.example",
                "rediss://app:***@cache.example",
            ),
            (
                "postgres://app:p%40ss@db.example/app?sslmode=verify-full",
                "postgres://app:***@db.example/app?sslmode=verify-full",
            ),
            ("redis://10.0.0.5:6379", "redis://10.0.0.5:6379"),
            ("postgres://app@db/app", "postgres://app@db/app"),
            ("not a url", "not a url"),
        ] {
            assert_eq!(host_runtime::store::without_password(url), shown);
        }
        let c = load(
            None,
            false,
            &[("HOST_OUTBOX", "redis://:s3cret@10.0.0.5:6379/2")],
        )
        .unwrap();
        assert!(!c.outbox.to_string().contains("s3cret"), "{}", c.outbox);
    }

    #[test]
    fn production_refuses_the_published_development_secret() {
        let e = load(
            None,
            true,
            &[
                ("HOST_JWKS_URL", "https://auth.example/jwks.json"),
                ("HOST_ISSUER", "https://auth.example"),
                ("HOST_EVENT_POST_URL", "https://events.example/v1"),
                (
                    "HOST_SIGNING_SECRET",
                    host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET,
                ),
            ],
        )
        .unwrap_err();
        assert!(
            e.0.contains("development secret published with the SDK"),
            "{e}"
        );
    }

    #[test]
    fn a_key_set_url_that_is_not_https_is_refused_at_start() {
        for url in [
            "http://auth.example/jwks.json",
            "ftp://auth.example/jwks.json",
            "auth.example/jwks.json",
        ] {
            let e = load(
                None,
                true,
                &[
                    ("HOST_JWKS_URL", url),
                    ("HOST_ISSUER", "https://auth.example"),
                    ("HOST_EVENT_POST_URL", "https://events.example/v1"),
                    (
                        "HOST_SIGNING_SECRET",
                        "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
                    ),
                ],
            )
            .unwrap_err();
            assert!(e.0.starts_with("HOST_JWKS_URL is unusable"), "{e}");
            assert!(e.0.contains(url), "the error names the URL: {e}");
        }
    }
}
