//! Each service starts, answers, stops, starts again and leaves nothing behind, against the real
//! programs (skipped where one is not installed, failing in CI).

#![allow(clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::net::TcpStream;

use host_test_support::{DynamoDbEmulator, PgBouncer, PostgresServer, RedisServer};

fn accepts(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_ok()
}

#[test]
fn redis_stops_and_restarts_on_its_port() {
    let Some(mut redis) = RedisServer::start_or_skip() else {
        return;
    };
    let port = redis.port();
    assert_eq!(redis.url(), format!("redis://127.0.0.1:{port}/"));
    assert!(redis.pid().is_some());
    redis.stop();
    assert_eq!(redis.pid(), None);
    assert!(!accepts(port));
    redis.restart().unwrap();
    assert!(accepts(port));
    assert!(
        redis.log().contains(&format!("port={port}")),
        "{}",
        redis.log()
    );
    drop(redis);
    assert!(!accepts(port));
    let again = RedisServer::start_on(port).unwrap();
    assert!(accepts(again.port()));
}

#[test]
fn postgres_and_its_pooler_log_and_stop() {
    let Some(mut server) = PostgresServer::start_or_skip() else {
        return;
    };
    let Some(bouncer) = PgBouncer::start_or_skip(&server, 2) else {
        return;
    };
    assert_eq!(
        bouncer.url(),
        format!("postgres://postgres@127.0.0.1:{}/postgres", bouncer.port())
    );
    let psql = server.tool("psql");
    let out = std::process::Command::new(&psql)
        .args([&bouncer.url(), "-Atc", "SELECT 40 + 2"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "42", "{out:?}");
    assert!(
        server.log().contains("ready to accept connections"),
        "{}",
        server.log()
    );
    assert!(bouncer.log().contains("listening on"), "{}", bouncer.log());
    server.stop();
    assert!(!accepts(server.port()));
    server.restart().unwrap();
    assert!(accepts(server.port()));
}

#[test]
fn dynamodb_answers_on_its_endpoint() {
    let Some(dynamodb) = DynamoDbEmulator::start_or_skip() else {
        return;
    };
    assert_eq!(
        dynamodb.var("AWS_ENDPOINT_URL_DYNAMODB"),
        Some(format!("http://127.0.0.1:{}", dynamodb.port()))
    );
    assert_eq!(
        dynamodb.var("AWS_REGION").as_deref(),
        Some(DynamoDbEmulator::REGION)
    );
    assert!(accepts(dynamodb.port()));
}
