//! The PostgreSQL stores (feature `postgres`) keep the public store contracts
//! (`testing::contract`), each in a database of its own (`host_test_support::PostgresServer`:
//! skipped without PostgreSQL locally, failing in CI).

#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::dedupe::PostgresDedupe;
use host_runtime::outbox::PostgresOutbox;
use host_runtime::postgres::{self, sqlx};
use host_runtime::testing::contract::{dedupe_store, outbox_senders, outbox_store};
use host_test_support::PostgresServer;

/// A fresh server with the stores' schema, and a pool on it.
async fn database() -> Option<(PostgresServer, sqlx::PgPool)> {
    let server = PostgresServer::start_or_skip()?;
    let pool = postgres::connect(&server.url()).await.unwrap();
    postgres::migrate(&pool).await.unwrap();
    Some((server, pool))
}

#[tokio::test]
async fn the_postgres_dedupe_keeps_the_contract() {
    let Some((_server, pool)) = database().await else {
        return;
    };
    if let Err(broken) = dedupe_store(&PostgresDedupe::new(pool.clone())).await {
        panic!("{broken}");
    }
    // Every claim was settled: only records are left, none in flight.
    let in_flight: i64 = sqlx::query_scalar("SELECT count(*) FROM host_dedupe WHERE NOT done")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(in_flight, 0);
}

#[tokio::test]
async fn the_postgres_outbox_keeps_the_contract() {
    let Some((_server, pool)) = database().await else {
        return;
    };
    let store = PostgresOutbox::new(pool).await.unwrap();
    if let Err(broken) = outbox_store(&store).await {
        panic!("{broken}");
    }
}

/// Senders of one id through the PostgreSQL outbox: each send's outcome is its own.
#[tokio::test]
async fn senders_of_one_id_over_the_postgres_outbox_each_hear_their_own_outcome() {
    let Some((_server, pool)) = database().await else {
        return;
    };
    let store = PostgresOutbox::new(pool).await.unwrap();
    if let Err(broken) = outbox_senders(std::sync::Arc::new(store)).await {
        panic!("{broken}");
    }
}
