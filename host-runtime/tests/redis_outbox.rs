//! The Redis outbox (feature `redis`) beyond the contract (`contract_redis.rs`), against a real
//! Redis server (`host_test_support::RedisServer`: skipped without `redis-server` locally, failing
//! in CI): a record that does not decode turns into a dead letter that can be seen and dropped.

#![cfg(feature = "redis")]
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

use host_runtime::outbox::{Entry, OutboxStore, RedisOutbox, Which};
use host_test_support::RedisServer;

/// Sends one command to the Redis on `port` exactly as given, bytes and all, and returns the first
/// line of the reply.
fn raw(port: u16, args: &[&[u8]]) -> String {
    let mut request = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        request.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        request.extend_from_slice(arg);
        request.extend_from_slice(b"\r\n");
    }
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(&request).unwrap();
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).unwrap();
    reply
}

fn now_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

/// A record that does not decode (written by another version, or damaged) is not claimed and
/// skipped forever out of sight: the claim that meets it moves it to the dead letters, bytes and
/// all, where `list` shows it and `discard` drops it.
#[tokio::test]
async fn an_unreadable_record_becomes_a_dead_letter_that_can_be_dropped() {
    let Some(redis) = RedisServer::start_or_skip() else {
        return;
    };
    let store = RedisOutbox::connect(&redis.url())
        .await
        .unwrap()
        .with_prefix("damaged:");
    let now = now_ms();
    assert!(
        store
            .put(Entry::new("readable", b"{}".to_vec(), now))
            .await
            .unwrap()
            .is_stored()
    );
    // Format 7, which this build does not read; due long ago, so it is claimed first.
    let garbage: &[u8] = b"\x07\x00\xffnot a record";
    assert_eq!(
        raw(
            redis.port(),
            &[b"HSET", b"damaged:pending", b"unreadable", garbage]
        ),
        ":1\r\n"
    );
    assert_eq!(
        raw(
            redis.port(),
            &[b"ZADD", b"damaged:due", b"0", b"unreadable"]
        ),
        ":1\r\n"
    );

    let claimed = store.claim(now, 10, now + 60_000, "one").await.unwrap();
    assert_eq!(
        claimed.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["readable"],
        "the claim skips the unreadable record and takes the readable one"
    );
    let pending = store.list(Which::Pending, 10).await.unwrap();
    assert_eq!(
        pending.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["readable"]
    );

    let dead = store.list(Which::Dead, 10).await.unwrap();
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0].id, "unreadable");
    assert_eq!(dead[0].body, garbage, "the raw bytes are kept as the body");
    assert_eq!(dead[0].attempts, 0);
    let why = dead[0].last_error.as_deref().unwrap_or_default();
    assert!(
        why.contains("cannot be read") && why.contains("format 7"),
        "{why}"
    );
    assert!(
        (dead[0].due - now).abs() < 10_000,
        "given up on now, on this process's clock: {} ms off",
        dead[0].due - now
    );

    assert!(store.discard("unreadable").await.unwrap());
    assert!(store.list(Which::Dead, 10).await.unwrap().is_empty());
    assert!(!store.discard("unreadable").await.unwrap());
}
