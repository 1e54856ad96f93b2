//! PostgreSQL: the stores' schema, and (feature `postgres`) the connection pool, the migrations
//! and the handler's transaction.
//!
//! With the deduplication store in the vendor's own database
//! ([`PostgresDedupe`](crate::dedupe::PostgresDedupe)), every handler call can write in one
//! transaction of that database, found with [`transaction()`]: the vendor's rows, the events the
//! handler sends through a [`PostgresOutbox`](crate::outbox::PostgresOutbox) of the same database,
//! and, for an event delivery, the record that the delivery ran, commit together or not at all
//! (see [`crate::transaction`]).
//!
//! ```no_run
//! # #[cfg(feature = "postgres")]
//! # async fn start() -> Result<(), Box<dyn std::error::Error>> {
//! use host_runtime::postgres;
//! let pool = postgres::connect("postgres://tracker@127.0.0.1/tracker").await?;
//! postgres::migrate(&pool).await?; // or apply `cargo host postgres-schema` yourself
//! let dedupe = host_runtime::dedupe::PostgresDedupe::new(pool.clone());
//! let outbox = host_runtime::outbox::PostgresOutbox::new(pool).await?;
//! # let _ = (dedupe, outbox);
//! # Ok(())
//! # }
//! ```
//!
//! An outbox joins the handler's transaction when it was built on the same pool as the
//! deduplication store (clones of one [`PgPool`](sqlx::PgPool)); one on another pool of the same
//! database and settings is refused inside a handler, naming the fix.
//!
//! The tables are `host_dedupe`, `host_outbox` and `host_migrations`, in the schema the
//! connection's `search_path` names first: to keep two outboxes apart (one per signing secret),
//! give each a pool whose `search_path` names a schema of its own
//! (`?options=-csearch_path%3Dsender_b` in the URL); its events then commit on their own.

mod migrations;

pub use migrations::{COMPONENT, MIGRATIONS, Migration, schema};

#[cfg(feature = "postgres")]
mod database;
#[cfg(feature = "postgres")]
pub(crate) mod dedupe;
#[cfg(feature = "postgres")]
pub(crate) mod outbox;
#[cfg(feature = "postgres")]
pub(crate) mod statement;
#[cfg(feature = "postgres")]
mod tls;
#[cfg(feature = "postgres")]
pub use database::{
    Isolation, Settings, Transaction, behind_pooler, connect, connect_with, failed_write,
    refresh_password, transaction, transaction_with,
};
#[cfg(feature = "postgres")]
mod migrate;
#[cfg(feature = "postgres")]
pub(crate) use database::{PgDatabase, PgTransaction, failed, name_of, options_of, pool_of};
#[cfg(feature = "postgres")]
pub use migrate::{check, check_with, grants, migrate, migrate_with};
#[cfg(feature = "postgres")]
pub(crate) use statement::Statement;

/// The PostgreSQL driver the stores use, for the queries of a handler's own writes.
#[cfg(feature = "postgres")]
pub use sqlx;
