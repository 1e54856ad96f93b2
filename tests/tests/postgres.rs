//! The PostgreSQL stores as they are deployed, against real servers this test starts: TLS with a
//! CA the test makes (every `sslmode`, a server without TLS, a server that takes only TLS) and the
//! stores working over it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use host_runtime::postgres::{self, sqlx};
use host_test_support::{Certificates, PostgresServer};

/// A CA, and a server certificate it signed for `names`.
fn certificates(names: &[&str]) -> Certificates {
    Certificates::for_names(names).unwrap()
}

/// `text` written to `dir/name`; its path.
fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn url(server: &PostgresServer, host: &str, query: &str) -> String {
    format!(
        "postgres://postgres@{host}:{}/postgres?{query}",
        server.port()
    )
}

/// Whether the pool's connection is encrypted, as the server sees it.
async fn encrypted(pool: &sqlx::PgPool) -> bool {
    sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The whole error chain, as a log shows it.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out += &format!(": {s}");
        source = s.source();
    }
    out
}

#[tokio::test]
async fn every_sslmode_against_a_server_with_tls() {
    let certs = certificates(&["localhost"]);
    let Some(server) = started(PostgresServer::start_with_tls(
        &[],
        &certs.server_pem,
        &certs.server_key_pem,
        false,
    )) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ca = file(dir.path(), "ca.pem", &certs.ca_pem);
    let other_ca = file(dir.path(), "other.pem", &certificates(&["x"]).ca_pem);
    let with_ca = |mode: &str, host: &str, ca: &Path| {
        url(
            &server,
            host,
            &format!("sslmode={mode}&sslrootcert={}", ca.display()),
        )
    };

    // verify-full with the CA: encrypted, and the certificate and its name checked.
    let pool = postgres::connect(&with_ca("verify-full", "localhost", &ca))
        .await
        .unwrap();
    assert!(encrypted(&pool).await);
    // The stores work over it.
    postgres::migrate(&pool).await.unwrap();
    let dedupe = host_runtime::dedupe::PostgresDedupe::new(pool.clone());
    let claim = host_runtime::dedupe::DedupeStore::claim(&dedupe, "k", "owner")
        .await
        .unwrap();
    assert!(
        matches!(claim, host_runtime::dedupe::Claim::Run),
        "{claim:?}"
    );

    // verify-full without the CA: refused, saying why.
    let e = postgres::connect(&url(&server, "localhost", "sslmode=verify-full"))
        .await
        .unwrap_err();
    let said = chain(&e);
    assert!(
        said.contains("not signed by a CA this client trusts") && said.contains("sslrootcert"),
        "{said}"
    );
    // With another CA: refused too.
    let e = postgres::connect(&with_ca("verify-full", "localhost", &other_ca))
        .await
        .unwrap_err();
    assert!(chain(&e).contains("not signed by a CA"), "{}", chain(&e));
    // By an address the certificate does not name: verify-full refuses. So does this driver's
    // verify-ca (sqlx 0.8 checks the name there too), saying so; by the name, it connects, and a
    // certificate of another CA is refused.
    let e = postgres::connect(&with_ca("verify-full", "127.0.0.1", &ca))
        .await
        .unwrap_err();
    assert!(
        chain(&e).contains("does not name the host"),
        "{}",
        chain(&e)
    );
    let e = postgres::connect(&with_ca("verify-ca", "127.0.0.1", &ca))
        .await
        .unwrap_err();
    assert!(
        chain(&e).contains("checks the name under sslmode=verify-ca too"),
        "{}",
        chain(&e)
    );
    let pool = postgres::connect(&with_ca("verify-ca", "localhost", &ca))
        .await
        .unwrap();
    assert!(encrypted(&pool).await);
    let e = postgres::connect(&with_ca("verify-ca", "localhost", &other_ca))
        .await
        .unwrap_err();
    assert!(chain(&e).contains("not signed by a CA"), "{}", chain(&e));
    // require: encrypted, nothing checked; with a root certificate it checks it, as libpq does.
    let pool = postgres::connect(&url(&server, "127.0.0.1", "sslmode=require"))
        .await
        .unwrap();
    assert!(encrypted(&pool).await);
    let e = postgres::connect(&with_ca("require", "localhost", &other_ca))
        .await
        .unwrap_err();
    assert!(chain(&e).contains("not signed by a CA"), "{}", chain(&e));
    // prefer (also the default): encrypted when the server offers it.
    for query in ["sslmode=prefer", ""] {
        let pool = postgres::connect(&url(&server, "localhost", query))
            .await
            .unwrap();
        assert!(encrypted(&pool).await, "{query}");
    }
    // disable: plaintext, as asked.
    let pool = postgres::connect(&url(&server, "localhost", "sslmode=disable"))
        .await
        .unwrap();
    assert!(!encrypted(&pool).await);
}

#[tokio::test]
async fn a_server_without_tls_refuses_what_requires_it() {
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    for mode in ["require", "verify-ca", "verify-full"] {
        let e = postgres::connect(&url(&server, "localhost", &format!("sslmode={mode}")))
            .await
            .unwrap_err();
        assert!(
            chain(&e).contains("does not accept TLS"),
            "{mode}: {}",
            chain(&e)
        );
    }
    // prefer falls back to plaintext (said at start when the database is across a network).
    let pool = postgres::connect(&url(&server, "localhost", "sslmode=prefer"))
        .await
        .unwrap();
    assert!(!encrypted(&pool).await);
}

#[tokio::test]
async fn a_server_that_takes_only_tls_refuses_plaintext_in_words() {
    let certs = certificates(&["localhost"]);
    let Some(server) = started(PostgresServer::start_with_tls(
        &[],
        &certs.server_pem,
        &certs.server_key_pem,
        true,
    )) else {
        return;
    };
    let e = postgres::connect(&url(&server, "localhost", "sslmode=disable"))
        .await
        .unwrap_err();
    assert!(
        chain(&e).contains("takes only TLS connections"),
        "{}",
        chain(&e)
    );
    let pool = postgres::connect(&url(&server, "localhost", "sslmode=require"))
        .await
        .unwrap();
    assert!(encrypted(&pool).await);
}

/// A server that started, or `None` where PostgreSQL is not installed (outside CI).
fn started(server: std::io::Result<PostgresServer>) -> Option<PostgresServer> {
    match server {
        Ok(server) => Some(server),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: PostgreSQL cannot be started here ({e})");
            None
        }
        Err(e) => panic!("PostgreSQL cannot be started: {e}"),
    }
}

/// An application's table, with a sequence: created by three instances at once outside a lock,
/// PostgreSQL's catalogue races (`pg_type_typname_nsp_index`).
const APP: &[postgres::Migration] = &[postgres::Migration {
    version: 1,
    name: "alerts",
    sql: "CREATE TABLE IF NOT EXISTS alerts (id bigserial PRIMARY KEY, install text NOT NULL)",
}];

/// Three instances start at the same instant on a fresh database, twenty times: each migrates the
/// SDK's tables and its own under one lock, and every round starts cleanly.
#[test]
fn instances_starting_at_the_same_moment_each_migrate_cleanly() {
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let admin = |sql: String| {
        let url = server.url();
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(async move {
                let pool = postgres::connect(&url).await.unwrap();
                sqlx::raw_sql(&sql).execute(&pool).await.unwrap();
                pool.close().await;
            });
    };
    for round in 0..20 {
        admin(format!("CREATE DATABASE round_{round}"));
        let url = format!(
            "postgres://postgres@127.0.0.1:{}/round_{round}",
            server.port()
        );
        let start = std::sync::Arc::new(std::sync::Barrier::new(3));
        let instances: Vec<_> = (0..3)
            .map(|_| {
                let (url, start) = (url.clone(), std::sync::Arc::clone(&start));
                std::thread::spawn(move || {
                    let runtime = tokio::runtime::Runtime::new().unwrap();
                    runtime.block_on(async {
                        let pool = postgres::connect(&url).await.unwrap();
                        start.wait();
                        let done = postgres::migrate_with(&pool, "app", APP).await;
                        pool.close().await;
                        done.map_err(|e| chain(&e))
                    })
                })
            })
            .collect();
        let results: Vec<Result<Vec<i32>, String>> =
            instances.into_iter().map(|t| t.join().unwrap()).collect();
        let mut applied: Vec<Vec<i32>> = results
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| panic!("round {round}: an instance failed: {e}")))
            .collect();
        applied.sort();
        assert_eq!(
            applied,
            [vec![], vec![], vec![1]],
            "round {round}: applied once"
        );
    }
}

/// A migration whose SQL changed after a database applied it refuses to start, naming it; the
/// SDK's own as well as an application's.
#[tokio::test]
async fn an_edited_migration_refuses_to_start_naming_it() {
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let pool = postgres::connect(&server.url()).await.unwrap();
    assert_eq!(
        postgres::migrate_with(&pool, "app", APP).await.unwrap(),
        [1]
    );
    assert!(
        postgres::migrate_with(&pool, "app", APP)
            .await
            .unwrap()
            .is_empty()
    );
    let edited = [postgres::Migration {
        sql: "CREATE TABLE IF NOT EXISTS alerts (id bigint PRIMARY KEY)",
        ..APP[0]
    }];
    let e = postgres::migrate_with(&pool, "app", &edited)
        .await
        .unwrap_err();
    let said = chain(&e);
    assert!(
        said.contains("migration 1 of `app` (alerts)") && said.contains("changed"),
        "{said}"
    );
    sqlx::query("UPDATE host_migrations SET checksum = 'edited' WHERE component = 'host'")
        .execute(&pool)
        .await
        .unwrap();
    let e = postgres::migrate(&pool).await.unwrap_err();
    assert!(chain(&e).contains("migration 1 of `host`"), "{}", chain(&e));
    // The SDK's name is its own.
    assert!(postgres::migrate_with(&pool, "host", APP).await.is_err());
}

/// A database migrated by a release that kept no checksums (`host_migrations` keyed by version
/// alone) is adopted: nothing runs twice, the checksums are filled in, the newer migrations apply,
/// applications migrate. An event that release left waiting (no digest) holds its id as any other:
/// the same event again is recognised from its body, another is refused.
#[tokio::test]
async fn a_history_without_checksums_is_adopted() {
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let pool = postgres::connect(&server.url()).await.unwrap();
    sqlx::raw_sql(
        "CREATE TABLE host_migrations (version integer PRIMARY KEY, name text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now());
         INSERT INTO host_migrations (version, name) VALUES (1, 'deduplication keys and the outbox');",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::raw_sql(postgres::MIGRATIONS[0].sql)
        .execute(&pool)
        .await
        .unwrap();
    let waiting = br#"{"event":"e","source":"i","occurredAt":"2026-01-01T00:00:00Z","build":null,"dedupeKey":"old","payload":{"why":"w"}}"#;
    sqlx::query("INSERT INTO host_outbox (id, body, due, accepted) VALUES ('old', $1, 0, 0)")
        .bind(&waiting[..])
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(
        postgres::migrate(&pool).await.unwrap(),
        postgres::MIGRATIONS[1..]
            .iter()
            .map(|m| m.version)
            .collect::<Vec<_>>(),
        "only what is newer than that release"
    );
    let checksum: Option<String> = sqlx::query_scalar(
        "SELECT checksum FROM host_migrations WHERE component = 'host' AND version = 1",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(checksum, Some(postgres::MIGRATIONS[0].checksum()));
    {
        use host_runtime::outbox::{Entry, OutboxStore, PostgresOutbox, Put};
        let outbox = PostgresOutbox::new(pool.clone()).await.unwrap();
        let later = String::from_utf8_lossy(waiting).replace("2026-01-01", "2026-01-02");
        let same = outbox
            .put(Entry::new("old", later.into_bytes(), 0))
            .await
            .unwrap();
        assert_eq!(same, Put::AlreadyPending);
        let other = String::from_utf8_lossy(waiting).replace("\"w\"", "\"x\"");
        let other = outbox
            .put(Entry::new("old", other.into_bytes(), 0))
            .await
            .unwrap();
        assert_eq!(other, Put::Conflict);
    }
    assert_eq!(
        postgres::migrate_with(&pool, "app", APP).await.unwrap(),
        [1]
    );
}

/// A vendor that counts releases in one row, reading it, waiting, then writing it back: the
/// read-modify-write a handler's own code does.
mod counter {
    host_runtime::host_extension!("manifests/counter/host.extension.json");

    use std::time::Duration;

    use host_runtime::HostError;
    use host_runtime::postgres::{self, Isolation, sqlx};

    /// Counts in the table `releases` at `level`, waiting `pause` between read and write.
    pub(crate) struct Counter {
        pub level: Isolation,
        pub pause: Duration,
    }

    impl Events for Counter {
        async fn release_shipped(
            &self,
            _call: EventCall<host_runtime::events::ReleaseShipped>,
        ) -> Result<(), HostError> {
            let mut tx = postgres::transaction_with(self.level).await?;
            let n: i64 = sqlx::query_scalar("SELECT n FROM releases WHERE id = 1")
                .fetch_one(&mut *tx)
                .await
                .map_err(postgres::failed_write)?;
            tokio::time::sleep(self.pause).await;
            sqlx::query("UPDATE releases SET n = $1 WHERE id = 1")
                .bind(n + 1)
                .execute(&mut *tx)
                .await
                .map_err(postgres::failed_write)?;
            Ok(())
        }
    }
}

/// Two releases delivered at once to a handler that reads a counter and writes it back. At READ
/// COMMITTED one increment is lost, as the guide says; at REPEATABLE READ and SERIALIZABLE the
/// second answers 503 with Retry-After, and the host's redelivery of it counts it: both counted.
#[tokio::test]
async fn a_serialization_failure_is_retried_by_the_hosts_redelivery() {
    use host_runtime::postgres::Isolation;
    use host_runtime::testing::TestHost;
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let pool = postgres::connect(&server.url()).await.unwrap();
    postgres::migrate(&pool).await.unwrap();
    sqlx::raw_sql("CREATE TABLE releases (id integer PRIMARY KEY, n bigint NOT NULL)")
        .execute(&pool)
        .await
        .unwrap();
    let host = TestHost::new("release-counter");
    let release = |n: u32| {
        let mut payload = host_runtime::events::example_payload("release.shipped").unwrap();
        payload["releaseId"] = serde_json::json!(format!("rel_{n}"));
        payload
    };
    let mut n = 0;
    for level in [
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
    ] {
        sqlx::raw_sql("DELETE FROM releases; INSERT INTO releases VALUES (1, 0)")
            .execute(&pool)
            .await
            .unwrap();
        let handler = host
            .configure(counter::handler(counter::Counter {
                level,
                pause: std::time::Duration::from_millis(200),
            }))
            .with_dedupe_store(host_runtime::dedupe::PostgresDedupe::new(pool.clone()));
        let (a, b) = (n, n + 1);
        n += 2;
        let (id_a, id_b) = (format!("evt_{a}"), format!("evt_{b}"));
        let (first, second) = tokio::join!(
            host.deliver(&handler, "release.shipped", release(a), &id_a),
            host.deliver(&handler, "release.shipped", release(b), &id_b),
        );
        let count = || async {
            sqlx::query_scalar::<_, i64>("SELECT n FROM releases")
                .fetch_one(&pool)
                .await
                .unwrap()
        };
        if level == Isolation::ReadCommitted {
            assert_eq!((first.status, second.status), (204, 204));
            assert_eq!(count().await, 1, "READ COMMITTED loses one increment");
            continue;
        }
        let statuses = [first.status, second.status];
        assert!(
            statuses.contains(&204) && statuses.contains(&503),
            "{level:?}: {statuses:?}"
        );
        let failed = if first.status == 503 { &first } else { &second };
        assert!(
            failed.headers.contains_key(http::header::RETRY_AFTER),
            "{level:?}"
        );
        assert_eq!(
            failed.json["error"]["code"], "STORE_UNAVAILABLE",
            "{}",
            failed.json
        );
        // The host's redelivery: the same release, a new event id.
        let again = if first.status == 503 { a } else { b };
        let retried = host
            .deliver(
                &handler,
                "release.shipped",
                release(again),
                &format!("evt_{again}_2"),
            )
            .await;
        assert_eq!(retried.status, 204, "{level:?}: {}", retried.json);
        assert_eq!(count().await, 2, "{level:?}: both releases counted");
        // And a third delivery of it runs nothing.
        let third = host
            .deliver(
                &handler,
                "release.shipped",
                release(again),
                &format!("evt_{again}_3"),
            )
            .await;
        assert_eq!(third.status, 204);
        assert_eq!(count().await, 2, "{level:?}: counted once");
    }
}

/// Dead letters are kept for the retention the vendor sets (30 days unless told), then deleted,
/// by the dispatcher's claims now and then or on demand; `None` keeps them.
#[tokio::test]
async fn dead_letters_are_kept_for_their_retention() {
    use host_runtime::outbox::{Entry, OutboxStore, PostgresOutbox, Settlement, Which};
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let pool = postgres::connect(&server.url()).await.unwrap();
    postgres::migrate(&pool).await.unwrap();
    let hour: i64 = 60 * 60 * 1000;
    let now = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    async fn dead_at(outbox: &PostgresOutbox, id: &str, at: i64) {
        outbox.put(Entry::new(id, b"{}".to_vec(), 0)).await.unwrap();
        outbox
            .claim_ids(&[id.to_owned()], 0, at + 60_000, "me")
            .await
            .unwrap();
        let dead = Settlement::Dead {
            attempts: 1,
            at,
            reason: "refused with 422".into(),
        };
        outbox.settle(id, "me", dead).await.unwrap();
    }
    async fn dead(outbox: &PostgresOutbox) -> Vec<String> {
        let mut ids: Vec<String> = outbox
            .list(Which::Dead, 100)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        ids.sort();
        ids
    }
    let kept_forever = PostgresOutbox::new(pool.clone())
        .await
        .unwrap()
        .with_dead_letter_retention(None);
    dead_at(&kept_forever, "old", now - 2 * hour).await;
    dead_at(&kept_forever, "recent", now - hour / 6).await;
    assert_eq!(kept_forever.forget_dead_letters(now).await.unwrap(), 0);
    let default = PostgresOutbox::new(pool.clone()).await.unwrap();
    assert_eq!(
        default.forget_dead_letters(now).await.unwrap(),
        0,
        "30 days by default"
    );
    assert_eq!(dead(&default).await, ["old", "recent"]);

    // An hour: the first claim of the dispatcher sweeps.
    let hourly = PostgresOutbox::new(pool.clone())
        .await
        .unwrap()
        .with_dead_letter_retention(Some(std::time::Duration::from_secs(3600)));
    hourly
        .claim(now, 10, now + hour, "dispatcher")
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while dead(&hourly).await != ["recent"] {
        assert!(
            std::time::Instant::now() < deadline,
            "{:?}",
            dead(&hourly).await
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    dead_at(&hourly, "older", now - 3 * hour).await;
    assert_eq!(hourly.forget_dead_letters(now).await.unwrap(), 1);
    assert_eq!(dead(&hourly).await, ["recent"]);
}

/// A processed key is remembered for the retention the vendor sets, never less than the window
/// that outlasts the host's retries.
#[tokio::test]
async fn processed_keys_are_kept_for_their_retention() {
    use host_runtime::dedupe::{Claim, DedupeStore, PostgresDedupe};
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let pool = postgres::connect(&server.url()).await.unwrap();
    postgres::migrate(&pool).await.unwrap();
    let kept_minutes = |key: &'static str| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, f64>(
                "SELECT extract(epoch FROM expires - clock_timestamp())::float8 / 60 FROM host_dedupe WHERE key = $1",
            )
            .bind(key)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    for (store, key, minutes) in [
        (PostgresDedupe::new(pool.clone()), "default", 20.0),
        (
            PostgresDedupe::new(pool.clone())
                .with_retention(std::time::Duration::from_secs(7 * 24 * 3600)),
            "a-week",
            7.0 * 24.0 * 60.0,
        ),
        (
            PostgresDedupe::new(pool.clone()).with_retention(std::time::Duration::from_secs(60)),
            "too-short",
            20.0,
        ),
    ] {
        assert!(matches!(store.claim(key, "me").await.unwrap(), Claim::Run));
        store.complete(key, "me").await;
        let kept = kept_minutes(key).await;
        assert!((kept - minutes).abs() < 1.0, "{key}: {kept} minutes");
        assert!(matches!(
            store.claim(key, "other").await.unwrap(),
            Claim::Done
        ));
    }
}

/// The stores with nothing but a pooler's URL: PgBouncer 1.18 in transaction mode, three server
/// connections for many clients, so consecutive statements of one client run on different server
/// connections. Two pools migrate at the same moment; keys are claimed and recorded; events are
/// put, claimed and settled; a handler's transaction commits its row, its events and its record
/// together. Neither the pooler nor PostgreSQL logs an error, and the outbox says its listener hears
/// nothing there (the dispatcher's look finds revived events).
#[tokio::test]
async fn the_stores_work_through_a_pooler_in_transaction_mode() {
    use host_runtime::dedupe::{Claim, DedupeStore, PostgresDedupe};
    use host_runtime::outbox::{Entry, OutboxStore, PostgresOutbox, Put, Settlement};
    let Some(server) = PostgresServer::start_or_skip() else {
        return;
    };
    let Some(bouncer) = host_test_support::PgBouncer::start_or_skip(&server, 3) else {
        return;
    };
    let url = bouncer.url();
    let (a, b) = tokio::join!(postgres::connect(&url), postgres::connect(&url));
    let (a, b) = (a.unwrap(), b.unwrap());
    let (ma, mb) = tokio::join!(postgres::migrate(&a), postgres::migrate(&b));
    let applied = [ma.unwrap(), mb.unwrap()];
    assert!(
        applied.iter().any(|v| !v.is_empty()) && applied.iter().any(Vec::is_empty),
        "one pool migrated, the other found it done: {applied:?}"
    );
    postgres::check(&a).await.unwrap();
    sqlx::raw_sql("CREATE TABLE effects (n int)")
        .execute(&a)
        .await
        .unwrap();

    // Many clients at once, each doing several statements.
    let dedupe = PostgresDedupe::new(a.clone());
    let outbox = PostgresOutbox::new(a.clone()).await.unwrap();
    assert!(
        !outbox.listening(),
        "a listener behind the pooler hears nothing"
    );
    let (dedupe, outbox) = (Arc::new(dedupe), Arc::new(outbox));
    let work = (0..40).map(|n| {
        let (dedupe, outbox) = (Arc::clone(&dedupe), Arc::clone(&outbox));
        async move {
            let key = format!("key-{n}");
            assert!(matches!(
                dedupe.claim(&key, "me").await.unwrap(),
                Claim::Run
            ));
            dedupe.complete(&key, "me").await;
            assert!(matches!(
                dedupe.claim(&key, "other").await.unwrap(),
                Claim::Done
            ));
            let entry = Entry::new(format!("evt-{n}"), format!("{{\"n\":{n}}}").into_bytes(), 0);
            assert!(outbox.put(entry.clone()).await.unwrap().is_stored());
            assert_eq!(outbox.put(entry).await.unwrap(), Put::AlreadyPending);
        }
    });
    let mut work: tokio::task::JoinSet<()> = work.collect();
    while let Some(done) = work.join_next().await {
        done.unwrap();
    }
    let mut claimed = Vec::new();
    loop {
        let batch = outbox.claim(1, 16, 60_000, "me").await.unwrap();
        if batch.is_empty() {
            break;
        }
        claimed.extend(batch);
    }
    assert_eq!(claimed.len(), 40);
    let settlements: Vec<(String, Settlement)> = claimed
        .iter()
        .map(|e| (e.id.clone(), Settlement::Delivered))
        .collect();
    let settled = outbox.settle_all("me", &settlements).await;
    assert!(settled.iter().all(|s| *s == Ok(true)), "{settled:?}");

    // A handler's transaction through the pooler: its row, its event and its record commit.
    let host = host_runtime::testing::TestHost::new("release-counter");
    let handler = host
        .configure(counter::handler(Effects))
        .with_dedupe_store(PostgresDedupe::new(b.clone()));
    let release = host_runtime::events::example_payload("release.shipped").unwrap();
    for attempt in 0..3 {
        let answer = host
            .deliver(
                &handler,
                "release.shipped",
                release.clone(),
                &format!("evt_t{attempt}"),
            )
            .await;
        assert_eq!(answer.status, 204, "{}", answer.json);
    }
    let effects: i64 = sqlx::raw_sql("SELECT count(*) FROM effects")
        .fetch_one(&a)
        .await
        .and_then(|row| sqlx::Row::try_get(&row, 0))
        .unwrap();
    assert_eq!(effects, 1, "the handler ran once for three deliveries");

    for line in server.log().lines() {
        assert!(!line.contains("ERROR:"), "PostgreSQL logged: {line}");
    }
    let said = bouncer.log();
    for line in said.lines() {
        assert!(
            !line.contains("ERROR") && !line.contains("WARNING"),
            "the pooler logged: {line}"
        );
    }
}

/// A handler that writes one row in its transaction, with a statement that names no prepared
/// statement behind a pooler (`persistent(!tx.behind_pooler())`), as the guide asks.
struct Effects;

impl counter::Events for Effects {
    async fn release_shipped(
        &self,
        _call: counter::EventCall<host_runtime::events::ReleaseShipped>,
    ) -> Result<(), host_runtime::HostError> {
        let mut tx = postgres::transaction().await?;
        // Found out at connect: through the pooler, nothing is prepared.
        assert!(tx.behind_pooler());
        sqlx::query("INSERT INTO effects (n) VALUES ($1)")
            .bind(1)
            .persistent(!tx.behind_pooler())
            .execute(&mut *tx)
            .await
            .map_err(postgres::failed_write)?;
        Ok(())
    }
}

/// A server that may not change the schema: `check` reads only, refuses an unmigrated database, a
/// missing migration and an edited one, each naming it and the fix, and takes migrations a newer
/// release added; `migrate` on an up-to-date database changes nothing, so a role with rights on
/// the rows alone (`grants`) runs it too, and the stores work as that role.
#[tokio::test]
async fn a_role_with_data_rights_only_checks_and_runs_but_never_migrates() {
    use host_runtime::dedupe::{DedupeStore, PostgresDedupe};
    use host_runtime::outbox::{Entry, OutboxStore, PostgresOutbox};
    let Some(server) = started(PostgresServer::start_with_passwords(&[])) else {
        return;
    };
    let owner = postgres::connect(&server.url()).await.unwrap();
    sqlx::raw_sql("CREATE ROLE app LOGIN PASSWORD 'app-password'")
        .execute(&owner)
        .await
        .unwrap();
    let app = postgres::connect(&format!(
        "postgres://app:app-password@127.0.0.1:{}/postgres",
        server.port()
    ))
    .await
    .unwrap();

    // Nothing migrated: refused, naming what to run; the role cannot migrate either.
    let e = postgres::check(&app).await.unwrap_err();
    let said = chain(&e);
    assert!(
        said.contains("no migration history") && said.contains("cargo host postgres migrate"),
        "{said}"
    );
    let e = postgres::migrate(&app).await.unwrap_err();
    assert!(chain(&e).contains("permission denied"), "{}", chain(&e));

    // Migrated by the owner, with the grants: checked and run by the role.
    postgres::migrate_with(&owner, "app", APP).await.unwrap();
    sqlx::raw_sql(&postgres::grants("app"))
        .execute(&owner)
        .await
        .unwrap();
    postgres::check(&app).await.unwrap();
    postgres::check_with(&app, "app", APP).await.unwrap();
    assert!(postgres::migrate(&app).await.unwrap().is_empty());
    let dedupe = PostgresDedupe::new(app.clone());
    assert!(matches!(
        dedupe.claim("k", "me").await.unwrap(),
        host_runtime::dedupe::Claim::Run
    ));
    let outbox = PostgresOutbox::new(app.clone()).await.unwrap();
    assert!(
        outbox
            .put(Entry::new("e", b"{}".to_vec(), 0))
            .await
            .unwrap()
            .is_stored()
    );

    // A migration this build has and the database lacks, and one edited since: refused, named.
    let newer = [
        APP[0],
        postgres::Migration {
            version: 2,
            name: "alert kinds",
            sql: "ALTER TABLE alerts ADD COLUMN kind text",
        },
    ];
    let e = postgres::check_with(&app, "app", &newer).await.unwrap_err();
    let said = chain(&e);
    assert!(
        said.contains("migration 2 of `app` (alert kinds) is not applied"),
        "{said}"
    );
    let edited = [postgres::Migration {
        sql: "CREATE TABLE alerts (id bigint PRIMARY KEY)",
        ..APP[0]
    }];
    let e = postgres::check_with(&app, "app", &edited)
        .await
        .unwrap_err();
    assert!(
        chain(&e).contains("migration 1 of `app` (alerts)"),
        "{}",
        chain(&e)
    );

    // Migrations a newer release applied are taken: this build's are all there.
    postgres::migrate_with(&owner, "app", &newer).await.unwrap();
    postgres::check_with(&app, "app", APP).await.unwrap();
}
