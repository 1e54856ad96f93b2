//! The example's own events survive what servers meet: a host that refuses them for a while, the
//! server killed with SIGKILL in the middle of the retries (a deploy, a crash, the OOM killer) and
//! started again on the same outbox, several instances draining one Redis outbox, and an outbox
//! that is down when an event is sent. Real processes: the example binary, a stand-in host over
//! HTTP, `redis-server`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::HashMap;
use std::time::Duration;

use support::{
    Proc, acknowledged, refusals_then_each_event_acknowledged_once, ship, stand_in_host, start,
    wait_for,
};

/// Every event refused before the crash reaches the host once after the restart, with the same id
/// and the same bytes, signed.
async fn survives_kill_9(outbox: &str) {
    let (url, shared) = stand_in_host(true, Duration::ZERO).await;
    let (server, base) = start(&url, &[("HOST_OUTBOX", outbox)]);
    assert_eq!(ship(&base, "ins_crash", 1).await, 204);
    // Three alerts and a banner, each refused twice (1 s apart), then the process is killed.
    wait_for(
        &shared,
        Duration::from_secs(20),
        "two refused attempts of each event",
        |s| {
            let mut tries: HashMap<&str, usize> = HashMap::new();
            for p in &s.posts {
                *tries.entry(p.id.as_str()).or_default() += 1;
            }
            tries.len() == 4 && tries.values().all(|&n| n >= 2)
        },
    )
    .await;
    drop(server);
    let refused: HashMap<String, Vec<u8>> = shared
        .lock()
        .unwrap()
        .posts
        .iter()
        .map(|p| (p.id.clone(), p.body.clone()))
        .collect();
    assert_eq!(refused.len(), 4, "{refused:?}");

    shared.lock().unwrap().refusing = false;
    let (_server, _) = start(&url, &[("HOST_OUTBOX", outbox)]);
    wait_for(
        &shared,
        Duration::from_secs(30),
        "every event acknowledged after the restart",
        |s| acknowledged(s).len() == 4,
    )
    .await;
    // A little longer: nothing is posted again once acknowledged.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let s = shared.lock().unwrap();
    let acks = acknowledged(&s);
    assert!(
        acks.values().all(|&n| n == 1),
        "each acknowledged once: {acks:?}"
    );
    for post in &s.posts {
        assert!(post.signed, "every attempt is signed: {}", post.id);
        assert_eq!(
            Some(&post.body),
            refused.get(&post.id),
            "the bytes of {} changed across the restart",
            post.id
        );
    }
    let kinds: Vec<String> = acks
        .keys()
        .map(|id| id.split('-').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "rank.dropped").count(),
        3,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "rank.collapsed").count(),
        1,
        "{kinds:?}"
    );
}

#[tokio::test]
async fn events_refused_before_a_kill_9_are_delivered_after_the_restart_from_the_embedded_outbox() {
    let dir = tempfile::tempdir().unwrap();
    survives_kill_9(dir.path().to_str().unwrap()).await;
}

#[tokio::test]
async fn events_refused_before_a_kill_9_are_delivered_after_the_restart_from_a_redis_outbox() {
    let Some(redis) = host_test_support::RedisServer::start_or_skip() else {
        return;
    };
    survives_kill_9(&redis.url()).await;
}

#[tokio::test]
async fn three_instances_on_one_redis_outbox_never_post_one_event_at_once() {
    let Some(redis) = host_test_support::RedisServer::start_or_skip() else {
        return;
    };
    // Each post is held 30 ms, so two instances posting one event would overlap.
    let (url, shared) = stand_in_host(true, Duration::from_millis(30)).await;
    let servers: Vec<(Proc, String)> = (0..3)
        .map(|_| start(&url, &[("HOST_OUTBOX", &redis.url())]))
        .collect();
    // Ten installs, each release shipped to every instance: 40 distinct events, each offered by
    // three instances.
    for n in 0..10 {
        for (_, base) in &servers {
            assert_eq!(ship(base, &format!("ins_{n}"), 1).await, 204);
        }
    }
    // Refused for a while so every event is retried, then taken.
    refusals_then_each_event_acknowledged_once(&shared, 40).await;
}

#[tokio::test]
async fn an_outbox_that_is_down_fails_the_hosts_call_so_the_host_retries_it() {
    let Some(mut redis) = host_test_support::RedisServer::start_or_skip() else {
        return;
    };
    let (url, shared) = stand_in_host(false, Duration::ZERO).await;
    let (_server, base) = start(&url, &[("HOST_OUTBOX", &redis.url())]);
    redis.stop();
    // The release handler cannot queue its alerts: the call fails with a 5xx (retried by the host),
    // not a 204 that would have lost them.
    let status = ship(&base, "ins_down", 1).await;
    assert!((500..600).contains(&status), "answered {status}");
    assert!(shared.lock().unwrap().posts.is_empty());
}
