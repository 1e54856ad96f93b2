//! The work destination's routes end to end: the container list at the manifest's own path,
//! items, and two-way comments, with the error codes that apply.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::Handler;
use host_runtime::testing::TestHost;
use host_sdk_tests::work_tracker::{Tracker, handler};
use http::Method;
use serde_json::json;

fn setup() -> (TestHost, Handler) {
    let host = TestHost::new("issue-bridge");
    let handler = host.configure(handler(Tracker));
    (host, handler)
}

fn item() -> serde_json::Value {
    json!({ "kind": "issue", "container": "prj-mobile", "title": "Crash on launch", "priority": "high", "labels": ["ios"] })
}

#[tokio::test]
async fn containers_are_listed_at_the_manifests_path_with_q() {
    let (host, handler) = setup();
    let r = host
        .send(
            &handler,
            host.request(Method::GET, "/work/projects?q=mob", None),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(
        r.json,
        json!({ "items": [ { "id": "prj-mobile", "label": "Mobile app" } ] })
    );
    let r = host
        .send(&handler, host.request(Method::GET, "/work/projects", None))
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/work/projects", Some(&json!({}))),
        )
        .await;
    r.assert_error(405, "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn an_item_is_created() {
    let (host, handler) = setup();
    let body = host.call_body(item());
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/work/items", Some(&body)),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["id"], "ISS-101");
    assert_eq!(r.json["status"], "Backlog");
}

#[tokio::test]
async fn item_calls_refuse_bad_methods_bodies_and_inputs() {
    let (host, handler) = setup();
    let r = host
        .send(
            &handler,
            host.request(Method::GET, "/host/work/items", None),
        )
        .await;
    r.assert_error(405, "METHOD_NOT_ALLOWED");
    let mut request = host.request(Method::POST, "/host/work/items", None);
    *request.body_mut() = bytes::Bytes::from_static(b"{not json");
    host.send(&handler, request)
        .await
        .assert_error(400, "BAD_REQUEST");
    let mut bad = item();
    bad["kind"] = json!("epic");
    let body = host.call_body(bad);
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/work/items", Some(&body)),
        )
        .await;
    r.assert_error(422, "INPUT_INVALID");
}

#[tokio::test]
async fn items_are_checked_against_the_manifest_and_https() {
    let (host, handler) = setup();
    let post = |input: serde_json::Value| {
        let body = host.call_body(input);
        host.request(Method::POST, "/host/work/items", Some(&body))
    };
    // `page` is an item kind, but not one this destination `creates`.
    let mut page = item();
    page["kind"] = json!("page");
    let r = host.send(&handler, post(page)).await;
    r.assert_error(422, "INPUT_INVALID");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("/input/kind"),
        "{}",
        r.json
    );
    // Attachments are https links.
    let mut attached = item();
    attached["attachments"] = json!([{ "type": "link", "url": "http://example.com/trace" }]);
    let r = host.send(&handler, post(attached)).await;
    r.assert_error(422, "INPUT_INVALID");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("/input/attachments/0/url"),
        "{}",
        r.json
    );
    let mut attached = item();
    attached["attachments"] = json!([{ "type": "link", "url": "https://example.com/trace" }]);
    assert_eq!(host.send(&handler, post(attached)).await.status, 200);
    // The created item's link must be https too.
    let mut insecure = item();
    insecure["container"] = json!("prj-insecure");
    host.send(&handler, post(insecure))
        .await
        .assert_error(502, "WORK_RESPONSE_INVALID");
}

#[tokio::test]
async fn a_vendor_error_keeps_its_code() {
    let (host, handler) = setup();
    let mut other = item();
    other["container"] = json!("prj-gone");
    let body = host.call_body(other);
    let r = host
        .send(
            &handler,
            host.request(Method::POST, "/host/work/items", Some(&body)),
        )
        .await;
    r.assert_error(404, "NO_SUCH_PROJECT");
}

#[tokio::test]
async fn comments_sync_and_need_work_sync() {
    let (mut host, handler) = setup();
    let body = host.call_body(json!({ "body": "Fixed in 4.12.1" }));
    let r = host
        .send(
            &handler,
            host.request(
                Method::POST,
                "/host/work/items/ISS-101/comments",
                Some(&body),
            ),
        )
        .await;
    assert_eq!((r.status, &r.json), (200, &json!({ "id": "ISS-101-c15" })));
    host.scopes.retain(|s| s != "work:sync");
    let handler = host.configure(host_sdk_tests::work_tracker::handler(Tracker));
    let r = host
        .send(
            &handler,
            host.request(
                Method::POST,
                "/host/work/items/ISS-101/comments",
                Some(&body),
            ),
        )
        .await;
    r.assert_error(403, "SCOPE_MISSING");
}

/// The work destination needs both of its scopes on every one of its routes: listing
/// containers, creating an item and syncing a comment each refuse an install that lacks either.
#[tokio::test]
async fn every_work_route_needs_both_work_scopes() {
    for missing in ["work:create", "work:sync"] {
        let (mut host, _) = setup();
        host.scopes.retain(|s| s != missing);
        let handler = host.configure(host_sdk_tests::work_tracker::handler(Tracker));
        let list = host.request(Method::GET, "/work/projects", None);
        let item = host.request(
            Method::POST,
            "/host/work/items",
            Some(&host.call_body(json!({ "title": "Crash on launch" }))),
        );
        let comment = host.request(
            Method::POST,
            "/host/work/items/ISS-101/comments",
            Some(&host.call_body(json!({ "body": "Fixed in 4.12.1" }))),
        );
        for request in [list, item, comment] {
            let path = request.uri().path().to_owned();
            let r = host.send(&handler, request).await;
            r.assert_error(403, "SCOPE_MISSING");
            assert!(
                r.json["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains(missing),
                "{path} without {missing}: {}",
                r.json
            );
        }
    }
}

#[tokio::test]
async fn work_calls_need_a_token() {
    let (host, handler) = setup();
    let mut request = host.request(Method::GET, "/work/projects", None);
    request.headers_mut().remove(http::header::AUTHORIZATION);
    host.send(&handler, request)
        .await
        .assert_error(401, "UNAUTHORIZED");
}
