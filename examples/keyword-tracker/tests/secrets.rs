//! No secret reaches a log line: the example run with a password in every URL it takes (the
//! database, the database without its pooler, the Redis outbox, the event-post URL, the key set
//! URL), serving deliveries and refusing a start with a wrong password, while every line it prints
//! is read. The passwords are distinct, so a leak names the setting it came from.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::process::Stdio;
use std::time::Duration;

use support::{ship, stand_in_host};

/// The passwords, each in one setting.
const DATABASE: &str = "db-pass-7f3a";
const DIRECT: &str = "direct-pass-91c2";
const REDIS: &str = "redis-pass-44de";
const POST: &str = "post-pass-0b8e";
const KEYS: &str = "keys-pass-5a17";

/// Runs the example with `env` until it has served `deliveries` deliveries (or, with none, until
/// it exits); everything it printed, stdout and stderr.
async fn printed(post_url: &str, env: &[(&str, String)], deliveries: u32) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = support::command()
        .args(["--listen", "127.0.0.1:0"])
        .env("HOST_EVENT_POST_URL", post_url)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .env("RUST_LOG", "debug")
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    if deliveries > 0 {
        let until = std::time::Instant::now() + Duration::from_secs(60);
        let base = loop {
            let said = std::fs::read_to_string(&out).unwrap_or_default();
            if let Some(line) = said.lines().next().filter(|l| l.contains("http://")) {
                break support::address_in(line);
            }
            assert!(
                child.try_wait().unwrap().is_none(),
                "the example stopped: {}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
            assert!(
                std::time::Instant::now() < until,
                "the example did not start"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        for n in 0..deliveries {
            ship(&base, &format!("ins_secret_{n}"), 1).await;
        }
        // Time to post, retry and log.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let _ = child.kill();
    }
    let _ = child.wait();
    std::fs::read_to_string(&out).unwrap() + &std::fs::read_to_string(&err).unwrap()
}

/// Fails naming the password and the setting it came from, if `said` holds any.
fn no_password_in(said: &str, what: &str) {
    for (password, setting) in [
        (DATABASE, "HOST_DATABASE_URL"),
        (DIRECT, "HOST_DATABASE_DIRECT_URL"),
        (REDIS, "HOST_OUTBOX"),
        (POST, "HOST_EVENT_POST_URL"),
        (KEYS, "HOST_JWKS_URL"),
    ] {
        for line in said.lines() {
            assert!(
                !line.contains(password),
                "{what}: the password of {setting} was printed: {line}"
            );
        }
    }
}

#[tokio::test]
async fn no_password_of_any_url_reaches_the_log() {
    let Some(postgres) = host_test_support::PostgresServer::start_with_passwords(&[])
        .map(Some)
        .unwrap_or_else(|e| {
            assert!(std::env::var_os("CI").is_none(), "{e}");
            None
        })
    else {
        return;
    };
    let Some(redis) = host_test_support::RedisServer::start_with_password(REDIS)
        .map(Some)
        .unwrap_or_else(|e| {
            assert!(std::env::var_os("CI").is_none(), "{e}");
            None
        })
    else {
        return;
    };
    let owner = host_runtime::postgres::connect(&postgres.url())
        .await
        .unwrap();
    host_runtime::postgres::sqlx::raw_sql(&format!(
        "CREATE ROLE app LOGIN PASSWORD '{DATABASE}'; CREATE ROLE direct LOGIN PASSWORD '{DIRECT}';
         GRANT CREATE ON SCHEMA public TO app, direct;"
    ))
    .execute(&owner)
    .await
    .unwrap();
    let (post, _shared) = stand_in_host(false, Duration::ZERO).await;
    let post = post.replacen("http://", &format!("http://poster:{POST}@"), 1);
    let port = postgres.port();
    let database = |user: &str, password: &str| {
        format!("postgres://{user}:{password}@127.0.0.1:{port}/postgres")
    };

    // The database and its direct URL, deliveries served.
    let said = printed(
        &post,
        &[
            ("HOST_DATABASE_URL", database("app", DATABASE)),
            ("HOST_DATABASE_DIRECT_URL", database("direct", DIRECT)),
        ],
        3,
    )
    .await;
    assert!(said.contains("listening on"), "{said}");
    no_password_in(&said, "serving with a database");

    // A wrong password in each database URL: refused at start, naming the database, not the
    // password.
    for (url, direct) in [
        (database("app", &format!("{DATABASE}-wrong")), None),
        (
            database("app", DATABASE),
            Some(database("direct", &format!("{DIRECT}-wrong"))),
        ),
    ] {
        let mut env = vec![
            ("HOST_DATABASE_URL", url),
            ("HOST_DATABASE_START_TIMEOUT_SECS", "0".to_owned()),
        ];
        if let Some(direct) = direct {
            env.push(("HOST_DATABASE_DIRECT_URL", direct));
        }
        let said = printed(&post, &env, 0).await;
        assert!(said.contains("error: "), "{said}");
        no_password_in(&said, "refused at start");
    }

    // A Redis outbox, and a key set URL with a password that cannot be reached: deliveries
    // refused (401/503), logged.
    let redis_url = format!("redis://:{REDIS}@127.0.0.1:{}", redis.port());
    let said = printed(&post, &[("HOST_OUTBOX", redis_url.clone())], 3).await;
    assert!(said.contains("listening on"), "{said}");
    no_password_in(&said, "serving with a Redis outbox");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let said = printed(
        &post,
        &[
            (
                "HOST_OUTBOX",
                redis_url.replace(REDIS, &format!("{REDIS}-wrong")),
            ),
            (
                "HOST_JWKS_URL",
                format!("http://keys:{KEYS}@127.0.0.1:{closed}/jwks.json"),
            ),
        ],
        0,
    )
    .await;
    assert!(said.contains("error: "), "{said}");
    no_password_in(&said, "refused with a wrong Redis password");
    let said = printed(
        &post,
        &[(
            "HOST_JWKS_URL",
            format!("http://keys:{KEYS}@127.0.0.1:{closed}/jwks.json"),
        )],
        2,
    )
    .await;
    no_password_in(&said, "serving with a key set that cannot be fetched");
}
