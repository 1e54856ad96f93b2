//! Every route of the example, over real HTTP: the server runs on an ephemeral port with the
//! development key set, the test host mints development tokens, and the server's own events go to
//! a capture endpoint that checks their signatures.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use host_runtime::testing::{DEVELOPMENT_WEBHOOK_SECRET, TestHost, TestResponse};
use host_runtime::webhook::{Secret, verify_webhook};
use keyword_tracker::Tracker;
use keyword_tracker::config::Config;
use serde_json::{Value, json};

/// A vendor event as the capture endpoint received it, signature checked.
#[derive(Debug, Clone)]
struct Posted {
    id: String,
    envelope: Value,
}

struct Running {
    base: String,
    tracker: Arc<Tracker>,
    host: TestHost,
    posted: Arc<Mutex<Vec<Posted>>>,
}

async fn start() -> Running {
    // The capture endpoint: what `cargo host dev` does, reduced to what these tests look at.
    let posted: Arc<Mutex<Vec<Posted>>> = Arc::default();
    let sink = posted.clone();
    let capture = axum::Router::new().route(
        "/v1/events",
        axum::routing::post(move |headers: http::HeaderMap, body: Bytes| async move {
            let h = |n: &str| {
                headers
                    .get(n)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned()
            };
            let secret = Secret::parse(DEVELOPMENT_WEBHOOK_SECRET).unwrap();
            let id = h("webhook-id");
            if verify_webhook(
                &secret,
                &id,
                &h("webhook-timestamp"),
                &h("webhook-signature"),
                &body,
                SystemTime::now(),
            )
            .is_err()
            {
                return http::StatusCode::UNAUTHORIZED;
            }
            let envelope: Value = serde_json::from_slice(&body).unwrap();
            sink.lock().unwrap().push(Posted { id, envelope });
            http::StatusCode::ACCEPTED
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let sink_url = format!("http://{}/v1/events", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, capture).await });

    let config = Config::load(Some("127.0.0.1:0"), false, |k| {
        (k == "HOST_EVENT_POST_URL").then(|| sink_url.clone())
    })
    .unwrap();
    let tracker =
        Arc::new(Tracker::from_config(&config, host_runtime::outbox::MemoryOutbox::new()).unwrap());
    let handler = keyword_tracker::app(tracker.clone(), &config);
    let listener = tokio::net::TcpListener::bind(config.listen).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(handler.serve_on(listener));

    let mut host = TestHost::development("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_demo_key" });
    Running {
        base,
        tracker,
        host,
        posted,
    }
}

impl Running {
    async fn send(&self, method: http::Method, path: &str, body: Option<&Value>) -> TestResponse {
        let request = self.host.request(method, path, body);
        self.host.send_http(&self.base, request).await.unwrap()
    }

    async fn post(&self, path: &str, input: Value) -> TestResponse {
        self.send(http::Method::POST, path, Some(&self.host.call_body(input)))
            .await
    }

    async fn get(&self, path: &str) -> TestResponse {
        self.send(http::Method::GET, path, None).await
    }

    async fn deliver(&self, name: &str, payload: Value, event_id: &str) -> TestResponse {
        let mut request = self.host.request(
            http::Method::POST,
            "/host/events",
            Some(&self.host.event_body(name, payload)),
        );
        request
            .headers_mut()
            .insert("x-host-event-id", event_id.parse().unwrap());
        self.host.send_http(&self.base, request).await.unwrap()
    }

    /// Waits until `n` events were posted (they are sent in the background), then a little
    /// longer to catch any extra ones.
    async fn posted(&self, n: usize) -> Vec<Posted> {
        for _ in 0..100 {
            if self.posted.lock().unwrap().len() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        self.posted.lock().unwrap().clone()
    }

    fn install(&self) -> keyword_tracker::InstallSnapshot {
        self.tracker
            .install(&self.host.install_id)
            .expect("the install is known")
    }
}

fn today() -> String {
    chrono::Utc::now().date_naive().to_string()
}

#[tokio::test]
async fn health_answers_without_a_token() {
    let s = start().await;
    let r = s
        .host
        .send_http(
            &s.base,
            http::Request::get("/host/health")
                .body(Bytes::new())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json["status"], "ok");
    assert_eq!(r.json["extensionId"], "keyword-tracker");
}

#[tokio::test]
async fn calls_without_a_valid_development_token_are_refused() {
    let s = start().await;
    let mut request = s.host.request(
        http::Method::POST,
        "/host/tools/keyword-ranks",
        Some(&s.host.call_body(json!({"keyword": "notes"}))),
    );
    request.headers_mut().remove(http::header::AUTHORIZATION);
    s.host
        .send_http(&s.base, request)
        .await
        .unwrap()
        .assert_error(401, "UNAUTHORIZED");
    // A token from another key (not the development one) is refused too.
    let stranger = TestHost::new("keyword-tracker");
    let request = stranger.request(
        http::Method::POST,
        "/host/tools/keyword-ranks",
        Some(&stranger.call_body(json!({"keyword": "notes"}))),
    );
    s.host
        .send_http(&s.base, request)
        .await
        .unwrap()
        .assert_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn keyword_ranks_is_a_series_from_the_rank_store() {
    let s = start().await;
    let r = s
        .post(
            "/host/tools/keyword-ranks",
            json!({"keyword": "Habit Tracker", "days": 14}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    // The test host's calls come from an iOS context: the App Store line only.
    let lines = r.json["series"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{}", r.json);
    assert_eq!(lines[0]["key"], "app_store");
    let points = lines[0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 14);
    assert_eq!(points[13]["t"], format!("{}T00:00:00Z", today()));
    assert_eq!(points[13]["v"], 24.0);

    s.post(
        "/host/tools/keyword-ranks",
        json!({"keyword": "crypto wallet"}),
    )
    .await
    .assert_error(404, "KEYWORD_UNKNOWN");
    s.post(
        "/host/tools/keyword-ranks",
        json!({"keyword": "notes", "country": "usa"}),
    )
    .await
    .assert_error(422, "INPUT_INVALID");
    s.post("/host/tools/keyword-ranks", json!({}))
        .await
        .assert_error(422, "INPUT_INVALID");
    let r = s
        .send(http::Method::GET, "/host/tools/keyword-ranks", None)
        .await;
    assert_eq!(r.status, 405);
}

#[tokio::test]
async fn a_blank_api_key_is_the_vendors_own_error() {
    let mut s = start().await;
    s.host.credentials = json!({ "api_key": "  " });
    s.post("/host/tools/visibility-score", json!({}))
        .await
        .assert_error(401, "API_KEY_INVALID");
    s.host.credentials = json!({});
    s.post("/host/tools/visibility-score", json!({}))
        .await
        .assert_error(400, "BAD_REQUEST");
}

#[tokio::test]
async fn the_other_four_tools_answer_their_kinds() {
    let s = start().await;
    let r = s
        .post(
            "/host/tools/compare-keywords",
            json!({"keywords": ["notes", "journal", "nonsense"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["subjects"], json!(["notes", "journal", "nonsense"]));
    let rows = r.json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["values"][1], 31.0, "journal is #31 today");
    assert_eq!(
        rows[0]["values"][2],
        Value::Null,
        "no data for an unknown keyword"
    );

    let r = s
        .post(
            "/host/tools/top-movers",
            json!({"days": 1, "direction": "down"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let rows = r.json["rows"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= 10);
    assert!(
        rows.iter().all(|row| row["change"].as_f64().unwrap() < 0.0),
        "{}",
        r.json
    );
    assert_eq!(
        rows[0]["keyword"], "journal",
        "the biggest fall first: {}",
        r.json
    );

    let r = s
        .post("/host/tools/keyword-ideas", json!({"seed": "planner"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let titles: Vec<&str> = r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"daily planner") && titles.contains(&"planner app"),
        "{titles:?}"
    );
    assert!(
        !titles.contains(&"planner"),
        "the seed itself is no idea: {titles:?}"
    );

    let r = s
        .post("/host/tools/visibility-score", json!({"country": "US"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let v = r.json["value"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&v), "{v}");
    assert!(
        r.json["change"].as_f64().unwrap() < 0.0,
        "three keywords fell today: {}",
        r.json
    );
    s.post("/host/tools/visibility-score", json!({"country": "FR"}))
        .await
        .assert_error(404, "KEYWORD_UNKNOWN");
}

#[tokio::test]
async fn mentions_and_context_come_from_the_install_and_the_rank_store() {
    let s = start().await;
    let r = s.get("/host/mentions/keyword?q=PLAN").await;
    assert_eq!(r.status, 200, "{}", r.json);
    let ids: Vec<&str> = r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["daily planner", "planner"]);
    assert_eq!(s.get("/host/mentions/nope?q=x").await.status, 404);

    let r = s.get("/host/context/tracked-keywords").await;
    assert_eq!(r.status, 200, "{}", r.json);
    let summary = r.json["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("12 keywords tracked in US"),
        "{summary}"
    );
    assert!(
        summary.contains("habit tracker #24 (-18 since yesterday)"),
        "{summary}"
    );
}

#[tokio::test]
async fn the_action_runs_once_approved_and_procedures_keep_their_shapes() {
    let s = start().await;
    let r = s.post("/host/actions/save-rank-insight", json!({"keyword": "journal", "summary": "Fell after the 4.12 release notes dropped the word."})).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["saved"], true);
    assert_eq!(s.install().insights.len(), 1);
    s.post(
        "/host/actions/save-rank-insight",
        json!({"keyword": "journal", "summary": "short"}),
    )
    .await
    .assert_error(422, "INPUT_INVALID");

    let r = s
        .post(
            "/host/procedures/addKeyword",
            json!({"keyword": "Sticky Notes", "country": "GB"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json, json!({"tracked": true}));
    assert!(
        s.install()
            .tracked
            .contains(&("sticky notes".to_owned(), "GB".to_owned()))
    );

    let mut body = s.host.call_body(json!({}));
    body["documents"] = json!({ "watchlists": [
        { "id": "wl_1", "data": { "name": "Core terms", "keywords": ["notes"] }, "updatedAt": "2026-11-01T10:00:00Z" }
    ]});
    let r = s
        .send(
            http::Method::POST,
            "/host/procedures/listWatchlists",
            Some(&body),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(
        r.json,
        json!({"items": [{"id": "wl_1", "name": "Core terms"}]})
    );
}

#[tokio::test]
async fn sync_answers_dimensioned_metrics_and_raises_signed_alerts_once_per_drop() {
    let s = start().await;
    let now = chrono::Utc::now();
    let from = (now - chrono::Duration::days(1)).to_rfc3339();
    let r = s
        .post(
            "/host/metrics",
            json!({
                "metrics": ["average_rank", "ranked_keywords", "search_impressions"],
                "from": from, "to": now.to_rfc3339(), "backfill": false, "cursor": null,
            }),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let points = r.json["points"].as_array().unwrap();
    let avg: Vec<&Value> = points
        .iter()
        .filter(|p| p["metric"] == "average_rank")
        .collect();
    assert_eq!(avg.len(), 2 * 2 * 2, "two days, two countries, two stores");
    assert!(avg.iter().all(|p| p["dimensions"]["country"].is_string() && p["dimensions"]["store"].is_string()));
    assert!(
        points.iter().any(|p| p["metric"] == "search_impressions"
            && p["dimensions"]["keyword"] == "habit tracker")
    );
    assert!(r.json.get("cursor").is_none());

    // Three tracked keywords fell today by more than the default threshold: three alerts and a
    // banner, signed with the development secret.
    let posted = s.posted(4).await;
    assert_eq!(posted.len(), 4, "{posted:#?}");
    let alerts: Vec<&Posted> = posted
        .iter()
        .filter(|p| p.envelope["event"] == "rank.dropped")
        .collect();
    assert_eq!(alerts.len(), 3);
    for a in &alerts {
        assert_eq!(a.envelope["source"], s.host.install_id);
        assert_eq!(a.envelope["dedupeKey"], a.id);
        assert!(
            a.envelope["payload"]["why"]
                .as_str()
                .unwrap()
                .ends_with("since yesterday."),
            "{}",
            a.envelope
        );
    }
    let banner = posted
        .iter()
        .find(|p| p.envelope["event"] == "rank.collapsed")
        .unwrap();
    assert_eq!(
        banner.envelope["payload"]["keywords"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    // The same drops found again (a second sync the same day) post with the same ids: one event
    // each for the host.
    let again = s.post("/host/metrics", json!({
        "metrics": ["ranked_keywords"], "from": from, "to": now.to_rfc3339(), "backfill": false, "cursor": null,
    })).await;
    assert_eq!(again.status, 200);
    let posted = s.posted(8).await;
    let mut ids: Vec<&str> = posted.iter().map(|p| p.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4, "{ids:?}");
}

#[tokio::test]
async fn a_backfill_pages_by_cursor_and_marks_the_algorithm_update() {
    let s = start().await;
    let now = chrono::Utc::now();
    let from = (now - chrono::Duration::days(89)).to_rfc3339();
    let mut cursor = Value::Null;
    let mut points = 0;
    let mut pages = 0;
    loop {
        let r = s.post("/host/metrics", json!({
            "metrics": ["search_impressions", "average_rank"], "from": from, "to": now.to_rfc3339(),
            "backfill": true, "cursor": cursor,
        })).await;
        assert_eq!(r.status, 200, "{}", r.json);
        points += r.json["points"].as_array().unwrap().len();
        pages += 1;
        match r.json.get("cursor") {
            Some(c) => cursor = c.clone(),
            None => break,
        }
        assert!(pages < 20, "the cursor must make progress");
    }
    // 90 days x (2 countries x 12 keywords + 2 countries x 2 stores).
    assert_eq!(points, 90 * (24 + 4));
    assert!(pages > 1);
    let posted = s.posted(1).await;
    assert!(
        posted
            .iter()
            .all(|p| p.envelope["event"] == "store.algorithm_updated"),
        "a backfill raises no alerts: {posted:#?}"
    );
    assert_eq!(posted.len(), 1, "{posted:#?}");
    assert_eq!(posted[0].envelope["payload"]["store"], "google_play");

    s.post("/host/metrics", json!({"metrics": ["average_rank"], "from": from, "to": now.to_rfc3339(), "cursor": "day:yesterday"}))
        .await
        .assert_error(422, "INPUT_INVALID");
    s.post(
        "/host/metrics",
        json!({"metrics": ["page_views"], "from": from, "to": now.to_rfc3339()}),
    )
    .await
    .assert_error(422, "INPUT_INVALID");
}

#[tokio::test]
async fn the_work_destination_creates_tasks_and_takes_comments() {
    let s = start().await;
    let r = s.get("/host/work/boards?q=aso").await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(
        r.json,
        json!({"items": [{"id": "aso", "label": "ASO backlog"}]})
    );

    let item = json!({"kind": "issue", "container": "aso", "title": "Win back “journal”", "priority": "high", "labels": ["aso"],
        "attachments": [{"type": "link", "url": "https://app.keywordtracker.example/k/journal"}]});
    let r = s.post("/host/work/items", item).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(
        r.json,
        json!({"id": "KT-1", "url": "https://app.keywordtracker.example/tasks/KT-1", "status": "todo"})
    );

    let r = s
        .post(
            "/host/work/items/KT-1/comments",
            json!({"body": "Rewrote the subtitle."}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json, json!({"id": "KT-1-c1"}));
    s.post("/host/work/items/KT-9/comments", json!({"body": "?"}))
        .await
        .assert_error(404, "TASK_NOT_FOUND");
    s.post(
        "/host/work/items",
        json!({"kind": "issue", "container": "nope", "title": "x"}),
    )
    .await
    .assert_error(404, "BOARD_NOT_FOUND");
    s.post(
        "/host/work/items",
        json!({"kind": "page", "container": "aso", "title": "x"}),
    )
    .await
    .assert_error(422, "INPUT_INVALID");
    assert_eq!(
        s.install().tasks,
        [("KT-1".to_owned(), "Win back “journal”".to_owned(), 1)]
    );
}

#[tokio::test]
async fn a_release_redelivered_with_fresh_event_ids_is_processed_once() {
    let s = start().await;
    let mut release = example("release.shipped");
    release["releaseId"] = json!("rel_e2e_1");
    for attempt in 1..=4 {
        let r = s
            .deliver(
                "release.shipped",
                release.clone(),
                &format!("evt_{attempt}"),
            )
            .await;
        assert_eq!(r.status, 204, "attempt {attempt}: {}", r.json);
    }
    assert_eq!(s.install().releases, ["4.12.0"]);
    let posted = s.posted(4).await;
    assert_eq!(
        posted.len(),
        4,
        "three alerts and a banner, once: {posted:#?}"
    );
    assert!(posted.iter().any(|p| {
        p.envelope["payload"]["why"]
            .as_str()
            .unwrap()
            .contains("since 4.12.0 went live")
    }));
}

#[tokio::test]
async fn install_events_drive_the_install_state() {
    let s = start().await;
    let with = example;
    assert_eq!(
        s.deliver("install.created", with("install.created"), "evt_c")
            .await
            .status,
        204
    );
    assert!(!s.install().paused);

    assert_eq!(
        s.deliver("install.paused", with("install.paused"), "evt_p")
            .await
            .status,
        204
    );
    assert!(s.install().paused);
    // A paused install gets no alerts, even when a release reveals drops.
    let mut release = with("release.shipped");
    release["releaseId"] = json!("rel_paused");
    assert_eq!(
        s.deliver("release.shipped", release, "evt_r").await.status,
        204
    );
    assert!(s.posted(1).await.is_empty());

    assert_eq!(
        s.deliver("install.resumed", with("install.resumed"), "evt_u")
            .await
            .status,
        204
    );
    assert!(!s.install().paused);

    let mut rotated = with("install.token_rotated");
    rotated["generation"] = json!(7);
    assert_eq!(
        s.deliver("install.token_rotated", rotated, "evt_t")
            .await
            .status,
        204
    );
    assert_eq!(s.install().generation, 7);

    // Settings arrive in the documents of the call; the event says they changed.
    let mut request = s
        .host
        .event_body("settings.changed", with("settings.changed"));
    request["documents"] =
        json!({"settings": {"alertThreshold": 30, "defaultCountry": "GB", "weeklyDigest": false}});
    let mut request = s
        .host
        .request(http::Method::POST, "/host/events", Some(&request));
    request
        .headers_mut()
        .insert("x-host-event-id", "evt_s".parse().unwrap());
    assert_eq!(
        s.host.send_http(&s.base, request).await.unwrap().status,
        204
    );
    assert_eq!(
        (s.install().threshold, s.install().country.as_str()),
        (30, "GB")
    );

    assert_eq!(
        s.deliver("install.revoked", with("install.revoked"), "evt_v")
            .await
            .status,
        204
    );
    assert!(
        s.tracker.install(&s.host.install_id).is_none(),
        "a revoked install's data is deleted"
    );

    // An event the manifest does not subscribe to.
    s.deliver("price.changed", with("price.changed"), "evt_x")
        .await
        .assert_error(422, "EVENT_NOT_SUBSCRIBED");
}

fn example(name: &str) -> Value {
    host_runtime::events::example_payload(name).expect("a published event")
}

/// Four releases on one day find the same drops, and each report says which release it follows:
/// four messages, each under ids of its own. An id is one message, so no id is posted with two
/// different bodies (the outbox would keep only the first).
#[tokio::test]
async fn each_release_on_one_day_reports_its_drops_under_ids_of_its_own() {
    let s = start().await;
    for (n, version) in ["4.12.0", "4.12.1", "4.13.0", "4.13.1"].iter().enumerate() {
        let mut release = host_runtime::events::example_payload("release.shipped").unwrap();
        release["releaseId"] = json!(format!("rel_{n}"));
        release["version"] = json!(version);
        let r = s
            .deliver("release.shipped", release, &format!("evt_release_{n}"))
            .await;
        assert_eq!(r.status, 204, "{}", r.json);
    }
    let posted = s.posted(16).await;
    let mut bodies: HashMap<&str, Vec<&Value>> = HashMap::new();
    for p in &posted {
        bodies
            .entry(p.id.as_str())
            .or_default()
            .push(&p.envelope["payload"]);
    }
    assert_eq!(
        bodies.len(),
        16,
        "4 alerts and banners per release: {bodies:#?}"
    );
    for (id, payloads) in &bodies {
        assert!(
            payloads.windows(2).all(|w| w[0] == w[1]),
            "{id} was posted with two different payloads: {payloads:#?}"
        );
    }
    for version in ["4.12.0", "4.12.1", "4.13.0", "4.13.1"] {
        let about = posted
            .iter()
            .filter(|p| {
                p.envelope["payload"]["why"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("since {version} went live"))
            })
            .count();
        assert_eq!(about, 4, "the events that follow {version}");
    }
}
