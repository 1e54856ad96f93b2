//! What an operator sees, scraped from the example's operator port (`HOST_METRICS_ADDR`) as
//! Prometheus scrapes it: after a delivery, a duplicate, refused tokens, retried events, posted
//! ones and a dead letter, the counts are the ones that happened; readiness and liveness answer on
//! the same port, apart from the host's routes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use support::{ship, stand_in_host, start, wait_for};

/// One sample of the Prometheus text: its name and labels, and its value.
type Samples = Vec<(String, BTreeMap<String, String>, f64)>;

/// Parses Prometheus' text format (the lines the exporter writes: no escapes in our labels).
fn parse(text: &str) -> Samples {
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (series, value) = line.rsplit_once(' ').unwrap();
        let (name, labels) = match series.split_once('{') {
            Some((name, rest)) => (name, rest.trim_end_matches('}')),
            None => (series, ""),
        };
        let labels = labels
            .split(',')
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (k, v) = l.split_once('=').unwrap();
                (k.to_owned(), v.trim_matches('"').to_owned())
            })
            .collect();
        out.push((name.to_owned(), labels, value.parse().unwrap()));
    }
    out
}

/// The value of `name` with (at least) `labels`, summed over the series that match.
fn value(samples: &Samples, name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|(n, l, _)| {
            n == name
                && labels
                    .iter()
                    .all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|(_, _, v)| v)
        .sum()
}

/// `GET path` of the server at `base`: the status and the body as text.
async fn get(base: &str, path: &str) -> (u16, String) {
    let host = host_runtime::testing::TestHost::development("keyword-tracker");
    let request = http::Request::get(path).body(bytes::Bytes::new()).unwrap();
    let r = host.send_http(base, request).await.unwrap();
    (r.status, String::from_utf8(r.body.to_vec()).unwrap())
}

#[tokio::test]
async fn the_operator_port_counts_what_happened() {
    let metrics_addr = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap()
    };
    let (url, shared) = stand_in_host(true, Duration::ZERO).await;
    shared.lock().unwrap().rejecting = Some("rank.collapsed");
    let outbox = tempfile::tempdir().unwrap();
    let (_server, base) = start(
        &url,
        &[
            ("HOST_OUTBOX", outbox.path().to_str().unwrap()),
            ("HOST_METRICS_ADDR", &metrics_addr.to_string()),
        ],
    );
    let operator = format!("http://{metrics_addr}");

    assert_eq!(get(&operator, "/livez").await, (200, "ok\n".into()));
    let (status, ready) = get(&operator, "/readyz").await;
    assert_eq!(status, 200, "{ready}");
    let ready: serde_json::Value = serde_json::from_str(&ready).unwrap();
    assert_eq!(ready["ready"], true, "{ready}");
    let roles: Vec<(&str, &str)> = ready["stores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["role"].as_str().unwrap(), s["store"].as_str().unwrap()))
        .collect();
    assert_eq!(roles, [("dedupe", "memory"), ("outbox", "file")], "{ready}");

    // One release: three rank.dropped alerts and a rank.collapsed banner, all refused (503) once
    // at least; then the alerts are taken and the banner is refused for good (422).
    assert_eq!(ship(&base, "ins_metrics", 1).await, 204);
    wait_for(
        &shared,
        Duration::from_secs(20),
        "each event refused once",
        |s| {
            let mut tries: HashMap<&str, usize> = HashMap::new();
            for p in &s.posts {
                *tries.entry(p.id.as_str()).or_default() += 1;
            }
            tries.len() == 4
        },
    )
    .await;
    shared.lock().unwrap().refusing = false;
    wait_for(
        &shared,
        Duration::from_secs(30),
        "three taken, one refused",
        |s| {
            s.posts.iter().filter(|p| p.status == 200).count() == 3
                && s.posts.iter().any(|p| p.status == 422)
        },
    )
    .await;
    // The same release again: a duplicate, no run.
    assert_eq!(ship(&base, "ins_metrics", 2).await, 204);
    // A call without a token, and one with a forged one.
    let host = host_runtime::testing::TestHost::development("keyword-tracker");
    for token in [None, Some("Bearer eyJhbGciOiJFZERTQSJ9.e30.AAAA")] {
        let mut request = http::Request::post("/host/tools/visibility-score")
            .header("content-type", "application/json")
            .body(bytes::Bytes::from_static(b"{}"))
            .unwrap();
        if let Some(token) = token {
            request
                .headers_mut()
                .insert("authorization", token.parse().unwrap());
        }
        assert_eq!(host.send_http(&base, request).await.unwrap().status, 401);
    }
    // The dispatcher records an attempt just after the host answers it.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let (status, text) = get(&operator, "/metrics").await;
    assert_eq!(status, 200);
    let m = parse(&text);
    let release = [("event", "release.shipped")];
    let posts = shared.lock().unwrap().posts.clone();
    let refused = posts.iter().filter(|p| p.status == 503).count() as f64;
    for (name, labels, expected) in [
        (
            "host_event_deliveries_total",
            &[("outcome", "new")][..],
            1.0,
        ),
        (
            "host_event_deliveries_total",
            &[("outcome", "duplicate")],
            1.0,
        ),
        ("host_outbox_accepted_total", &[("store", "file")], 4.0),
        ("host_outbox_posted_total", &[("store", "file")], 3.0),
        ("host_outbox_retried_total", &[("store", "file")], refused),
        ("host_outbox_dead_lettered_total", &[("store", "file")], 1.0),
        ("host_outbox_pending", &[("store", "file")], 0.0),
        ("host_outbox_dead_letters", &[("store", "file")], 1.0),
        ("host_token_refusals_total", &[("reason", "missing")], 1.0),
        (
            "host_token_refusals_total",
            &[("reason", "bad_signature")],
            1.0,
        ),
        (
            "host_calls_total",
            &[("route", "event"), ("status", "204")],
            2.0,
        ),
        (
            "host_calls_total",
            &[
                ("route", "tool"),
                ("name", "visibility-score"),
                ("status", "401"),
            ],
            2.0,
        ),
    ] {
        let labels: Vec<(&str, &str)> = match name {
            "host_event_deliveries_total" => [labels, &release[..]].concat(),
            _ => labels.to_vec(),
        };
        assert_eq!(
            value(&m, name, &labels),
            expected,
            "{name} {labels:?} in:\n{text}"
        );
    }
    assert!(refused >= 4.0, "every event was refused at least once");
    // Histograms with buckets, so replicas' series add up in Prometheus.
    assert!(
        text.contains("# TYPE host_call_duration_seconds histogram"),
        "{text}"
    );
    // Every attempt timed: one post duration per post the stand-in saw.
    assert_eq!(
        value(&m, "host_outbox_post_duration_seconds_count", &[]),
        posts.len() as f64,
        "{text}"
    );
    assert_eq!(
        value(
            &m,
            "host_event_handler_duration_seconds_count",
            &[("event", "release.shipped")]
        ),
        1.0,
        "{text}"
    );
}
