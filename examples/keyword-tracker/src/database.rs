//! The alerts in PostgreSQL, when `HOST_DATABASE_URL` names a database: the table `keyword_alerts`
//! beside the runtime's own tables (event deduplication and the outbox).
//!
//! An alert is written in the handler's transaction (`host_runtime::postgres::transaction`), and
//! its `rank.dropped` event goes to the outbox of the same database, so the row, the event and the
//! record that the host's delivery ran commit together or not at all: a retry of a delivery that
//! committed runs nothing, one that did not runs again from the start. That is why the table has
//! no unique key over an alert's content: the example relies on the transaction alone, and its
//! tests count rows to show it.

use std::sync::Arc;

use host_runtime::HostError;
use host_runtime::dedupe::PostgresDedupe;
use host_runtime::outbox::{OutboxStore, PostgresOutbox};
use host_runtime::postgres::{self, sqlx};

use crate::config::{ConfigError, DatabaseConfig, Migrations};

/// The example's own tables, as migrations applied under the runtime's migration lock (so that
/// instances starting at the same moment never create a table twice), each checked against its
/// checksum at start. `IF NOT EXISTS` adopts the table of a deployment that made it before it
/// was a migration.
const MIGRATIONS: &[postgres::Migration] = &[postgres::Migration {
    version: 1,
    name: "keyword alerts",
    sql: "CREATE TABLE IF NOT EXISTS keyword_alerts (
    id bigserial PRIMARY KEY,
    install text NOT NULL,
    keyword text NOT NULL,
    country text NOT NULL,
    store text NOT NULL,
    previous integer NOT NULL,
    current integer NOT NULL,
    event_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
)",
}];

/// The name the example's migrations are recorded under.
const COMPONENT: &str = "keyword-tracker";

/// What an application role needs to run the example against a database its owner migrated
/// (`HOST_DATABASE_MIGRATIONS=check`): the SDK's grants (`postgres::grants`) and the rows of the
/// example's own table. Run as the owner, with the server's `search_path`.
pub fn grants(role: &str) -> String {
    let quoted = format!("\"{}\"", role.replace('"', "\"\""));
    format!(
        "{}GRANT SELECT, INSERT, UPDATE, DELETE ON keyword_alerts TO {quoted};\n\
         GRANT USAGE ON SEQUENCE keyword_alerts_id_seq TO {quoted};\n",
        postgres::grants(role)
    )
}

/// The database of `HOST_DATABASE_URL`: a pool, its schema up to date.
#[derive(Debug, Clone)]
pub struct Database {
    pool: sqlx::PgPool,
    lease: Option<std::time::Duration>,
    /// The database without its pooler, for the outbox's listener.
    direct_url: Option<String>,
}

/// One alert, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Alert<'a> {
    pub(crate) install: &'a str,
    pub(crate) keyword: &'a str,
    pub(crate) country: &'a str,
    pub(crate) store: &'a str,
    pub(crate) previous: u32,
    pub(crate) current: u32,
    /// The `webhook-id` of the `rank.dropped` event that announces it.
    pub(crate) event_id: &'a str,
}

impl Database {
    /// Connects with the default settings, and applies the runtime's migrations and the
    /// example's own.
    pub async fn open(url: &str) -> Result<Self, ConfigError> {
        Self::open_with(&DatabaseConfig {
            url: url.to_owned(),
            direct_url: None,
            pool: postgres::Settings::default(),
            migrations: Migrations::Apply,
        })
        .await
    }

    /// Connects as `config` says, then migrates (through the direct URL when there is one) or
    /// only checks that the schema is up to date.
    pub async fn open_with(config: &DatabaseConfig) -> Result<Self, ConfigError> {
        let unusable = |e: &dyn std::error::Error| {
            ConfigError(format!("HOST_DATABASE_URL cannot be used: {}", chain(e)))
        };
        let pool = postgres::connect_with(&config.url, &config.pool)
            .await
            .map_err(|e| unusable(&e))?;
        match config.migrations {
            Migrations::Check => postgres::check_with(&pool, COMPONENT, MIGRATIONS)
                .await
                .map_err(|e| unusable(&e))?,
            Migrations::Apply => {
                let direct = match &config.direct_url {
                    Some(url) => Some(postgres::connect_with(url, &config.pool).await.map_err(
                        |e| {
                            ConfigError(format!(
                                "HOST_DATABASE_DIRECT_URL cannot be used: {}",
                                chain(&e)
                            ))
                        },
                    )?),
                    None => None,
                };
                postgres::migrate_with(direct.as_ref().unwrap_or(&pool), COMPONENT, MIGRATIONS)
                    .await
                    .map_err(|e| unusable(&e))?;
                if let Some(direct) = direct {
                    direct.close().await;
                }
            }
        }
        Ok(Database {
            pool,
            lease: None,
            direct_url: config.direct_url.clone(),
        })
    }

    /// The database behind `pool` (one built with settings of your own), after applying the
    /// runtime's migrations and the example's own.
    pub async fn from_pool(pool: sqlx::PgPool) -> Result<Self, ConfigError> {
        postgres::migrate_with(&pool, COMPONENT, MIGRATIONS)
            .await
            .map_err(|e| ConfigError(format!("HOST_DATABASE_URL cannot be used: {}", chain(&e))))?;
        Ok(Database {
            pool,
            lease: None,
            direct_url: None,
        })
    }

    /// Sets how long a claim on a host event lasts without renewal (`HOST_DEDUPE_LEASE_SECS`; the
    /// store's default, a minute, when `None`).
    pub fn with_dedupe_lease(mut self, lease: Option<std::time::Duration>) -> Self {
        self.lease = lease;
        self
    }

    /// The pool, for the runtime's stores and for reading the alerts.
    pub fn pool(&self) -> &sqlx::PgPool {
        &self.pool
    }

    /// The outbox in this database.
    pub async fn outbox(&self) -> Result<Arc<dyn OutboxStore>, ConfigError> {
        let outbox = match &self.direct_url {
            Some(direct) => PostgresOutbox::new_listening_at(self.pool.clone(), direct).await,
            None => PostgresOutbox::new(self.pool.clone()).await,
        };
        let outbox = outbox.map_err(|e| {
            ConfigError(format!(
                "the outbox in HOST_DATABASE_URL cannot be opened: {}",
                chain(&e)
            ))
        })?;
        Ok(Arc::new(outbox))
    }

    /// The deduplication store in this database: handlers then run in its transactions.
    pub fn dedupe(&self) -> PostgresDedupe {
        let store = PostgresDedupe::new(self.pool.clone());
        match self.lease {
            Some(lease) => store.with_lease(lease),
            None => store,
        }
    }

    /// Stores `alert` in the handler's transaction: it exists once the handler's call commits.
    pub(crate) async fn record(&self, alert: &Alert<'_>) -> Result<(), HostError> {
        let mut tx = postgres::transaction().await?;
        let pooled = tx.behind_pooler();
        sqlx::query(
            "INSERT INTO keyword_alerts
                 (install, keyword, country, store, previous, current, event_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(alert.install)
        .bind(alert.keyword)
        .bind(alert.country)
        .bind(alert.store)
        .bind(i32::try_from(alert.previous).unwrap_or(i32::MAX))
        .bind(i32::try_from(alert.current).unwrap_or(i32::MAX))
        .bind(alert.event_id)
        // Behind a pooler in transaction mode, no prepared statement left on the server: the
        // next transaction may run on another server connection.
        .persistent(!pooled)
        .execute(&mut *tx)
        .await
        .map_err(postgres::failed_write)?;
        Ok(())
    }
}

/// `e` and its causes, `: `-separated.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out += &format!(": {c}");
        cause = c.source();
    }
    out
}
