//! Interface behaviours each driven through a real handler with real signed tokens: an event the
//! install has no scope for, a work destination without comments, a forged token on the event route,
//! what reaches a handler (filters, claims, the event id, OAuth credentials, the raw request), and the
//! key set fetched from the host's published URL by default.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use host_runtime::testing::TestHost;
use host_runtime::{BoxFuture, HostEvent};
use host_sdk_tests::Server;
use http::Method;
use serde_json::{Value, json};

fn release_shipped() -> Value {
    serde_json::to_value(host_runtime::events::ReleaseShipped::example()).unwrap()
}

fn keyword_tracker() -> (TestHost, host_runtime::Handler, Arc<Server>) {
    let mut host = TestHost::new("keyword-tracker");
    host.credentials = json!({ "api_key": "kt_live_123" });
    let server = Arc::new(Server {
        keywords: vec!["notes".into()],
        ..Server::default()
    });
    let handler = host.configure(host_sdk_tests::handler(server.clone()));
    (host, handler, server)
}

/// The host never delivers an event whose scope the install lacks; one that arrives anyway is refused
/// (403, final: retrying cannot grant the scope) and its handler does not run.
#[tokio::test]
async fn an_event_whose_scope_the_install_lacks_is_refused_and_not_run() {
    let (mut host, handler, server) = keyword_tracker();
    let route = host_runtime::route::Route::Event(Some("release.shipped"));
    let scope = route
        .scopes()
        .next()
        .expect("release.shipped needs a scope");
    host.scopes.retain(|s| s != scope);
    let r = host
        .deliver(&handler, "release.shipped", release_shipped(), "evt_1")
        .await;
    r.assert_error(403, "SCOPE_MISSING");
    assert!(r.json["error"]["message"].as_str().unwrap().contains(scope));
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 0);
    // Granted, the same delivery runs.
    host.scopes.push(scope.to_owned());
    let r = host
        .deliver(&handler, "release.shipped", release_shipped(), "evt_2")
        .await;
    assert_eq!(r.status, 204, "{}", r.json);
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 1);
}

/// A token signed by a key the host does not publish is 401 on the event route too: the key set
/// was read, so the answer is final, not the retryable 503 of an unreachable key set.
#[tokio::test]
async fn a_forged_token_on_the_event_route_is_401() {
    let (host, handler, server) = keyword_tracker();
    let forger = TestHost::new("keyword-tracker");
    let body = host.event_body("release.shipped", release_shipped());
    let mut request = host.request(Method::POST, "/host/events", Some(&body));
    request.headers_mut().insert(
        http::header::AUTHORIZATION,
        format!("Bearer {}", forger.token()).parse().unwrap(),
    );
    let r = host.send(&handler, request).await;
    r.assert_error(401, "UNAUTHORIZED");
    assert!(!r.headers.contains_key(http::header::RETRY_AFTER));
    assert_eq!(server.behaviour.releases_handled.load(Ordering::SeqCst), 0);
}

/// A work destination with `comments: "none"` has no comment route.
mod chat {
    host_runtime::host_extension!(
        "../host-manifest/tests/fixtures/valid/work-chat/host.extension.json"
    );

    use host_runtime::HostError;
    use host_runtime::work::{Container, Containers, CreatedItem, NewItem};

    /// Posts messages to one channel.
    pub(crate) struct Chat;

    impl Work for Chat {
        async fn containers(&self, _call: ContainersCall) -> Result<Containers, HostError> {
            Ok(Containers {
                items: vec![Container {
                    id: "general".into(),
                    label: "General".into(),
                }],
            })
        }

        async fn create_item(&self, _call: WorkCall<NewItem>) -> Result<CreatedItem, HostError> {
            Ok(CreatedItem {
                id: "msg-1".into(),
                url: "https://chat.channelpost.example/m/1".into(),
                status: "sent".into(),
            })
        }
    }
}

#[tokio::test]
async fn without_two_way_comments_there_is_no_comment_route() {
    let manifest: Value = serde_json::from_str(include_str!(
        "../../host-manifest/tests/fixtures/valid/work-chat/host.extension.json"
    ))
    .unwrap();
    assert_eq!(manifest["contributes"]["work"]["comments"], "none");
    let host = TestHost::new(manifest["id"].as_str().unwrap());
    let handler = host.configure(chat::handler(chat::Chat));
    let item = json!({ "kind": "message", "container": "general", "title": "Deploy done" });
    let r = host
        .send(
            &handler,
            host.request(
                Method::POST,
                "/host/work/items",
                Some(&host.call_body(item)),
            ),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let r = host
        .send(
            &handler,
            host.request(
                Method::POST,
                "/host/work/items/msg-1/comments",
                Some(&host.call_body(json!({ "body": "Thanks" }))),
            ),
        )
        .await;
    r.assert_error(404, "NOT_FOUND");
}

/// What the OAuth connector's handlers saw.
#[derive(Default)]
struct Seen {
    tool: Mutex<Option<Value>>,
    event_id: Mutex<Option<String>>,
}

// The extension's webhook sender is generated, but this test sends no event of its own.
#[allow(dead_code)]
mod crash {
    host_runtime::host_extension!(
        "../host-manifest/tests/fixtures/valid/crash-oauth/host.extension.json"
    );

    use host_runtime::HostError;
    use host_runtime::answer::{List, ListItem};
    use host_runtime::metrics::SyncAnswer;
    use serde_json::json;

    /// Records what each call carried.
    pub(crate) struct Lens(pub(crate) std::sync::Arc<super::Seen>);

    impl Tools for Lens {
        async fn top_crash_groups(
            &self,
            call: ToolCall<tools::top_crash_groups::Input>,
        ) -> Result<List, HostError> {
            let oauth = &call.credentials.oauth;
            *self.0.tool.lock().unwrap() = Some(json!({
                "filters": call.context.filters,
                "sub": call.claims.sub,
                "organizationId": call.claims.organization_id,
                "scopes": call.claims.scopes,
                "accessToken": oauth.access_token,
                "expiresAt": oauth.expires_at,
                "oauthScopes": oauth.scopes,
                "query": call.request.query(),
                "body": String::from_utf8_lossy(call.request.body()),
            }));
            Ok(List {
                items: vec![ListItem::new("SIGSEGV in Renderer")],
            })
        }
    }

    impl Connector for Lens {
        async fn sync(&self, _call: SyncCall) -> Result<SyncAnswer<manifest::Metric>, HostError> {
            Ok(SyncAnswer {
                points: vec![],
                cursor: None,
            })
        }
    }

    impl Events for Lens {
        async fn release_shipped(
            &self,
            call: EventCall<host_runtime::events::ReleaseShipped>,
        ) -> Result<(), HostError> {
            *self.0.event_id.lock().unwrap() = call.event_id.clone();
            Ok(())
        }
    }
}

#[tokio::test]
async fn filters_claims_oauth_credentials_and_the_raw_request_reach_the_handler() {
    let seen = Arc::new(Seen::default());
    let mut host = TestHost::new("crash-lens");
    host.credentials = json!({ "oauth": {
        "accessToken": "cl_at_42", "expiresAt": "2026-11-02T15:00:00Z", "scopes": ["crashes.read"]
    } });
    let handler = host.configure(crash::handler(crash::Lens(seen.clone())));
    let mut body = host.call_body(json!({ "appVersion": "4.2.0" }));
    body["context"]["filters"] = json!({
        "range": { "from": "2026-11-01T00:00:00Z", "to": "2026-11-08T00:00:00Z" },
        "platform": "ios", "country": "all"
    });
    let text = body.to_string();
    let mut request = host.request(Method::POST, "/host/tools/top-crash-groups?trace=1", None);
    *request.body_mut() = Bytes::from(text.clone());
    let r = host.send(&handler, request).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let tool = seen.tool.lock().unwrap().take().expect("the tool ran");
    assert_eq!(
        tool["filters"],
        json!({ "range": { "from": "2026-11-01T00:00:00Z", "to": "2026-11-08T00:00:00Z" },
                "platform": "ios", "country": "all" })
    );
    assert_eq!(tool["sub"], "ins_test_1");
    assert_eq!(tool["organizationId"], "org_test_1");
    assert!(
        tool["scopes"]
            .as_array()
            .unwrap()
            .contains(&json!("metrics:write"))
    );
    assert_eq!(tool["accessToken"], "cl_at_42");
    assert_eq!(tool["expiresAt"], "2026-11-02T15:00:00Z");
    assert_eq!(tool["oauthScopes"], json!(["crashes.read"]));
    assert_eq!(tool["query"], "trace=1");
    assert_eq!(tool["body"], text.as_str());

    let r = host
        .deliver(
            &handler,
            "release.shipped",
            release_shipped(),
            "evt_attempt_3",
        )
        .await;
    assert_eq!(r.status, 204, "{}", r.json);
    assert_eq!(
        seen.event_id.lock().unwrap().as_deref(),
        Some("evt_attempt_3")
    );
}

/// Answers nothing, and remembers every URL it was asked for.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl host_runtime::client::HttpClient for Recorder {
    fn send(
        &self,
        request: http::Request<Bytes>,
        _max_body: usize,
    ) -> BoxFuture<'_, Result<http::Response<Bytes>, host_runtime::client::ClientError>> {
        self.0.lock().unwrap().push(request.uri().to_string());
        Box::pin(async {
            Err(host_runtime::client::ClientError::new(
                host_runtime::client::ClientErrorKind::Connect,
                "no network in this test",
            ))
        })
    }
}

/// Without `with_jwks_url` or `with_jwks`, the key set is fetched from the host's published URL.
#[tokio::test]
async fn the_key_set_is_fetched_from_the_hosts_published_url_by_default() {
    let (host, _, _) = keyword_tracker();
    let recorder = Recorder::default();
    let handler = host_sdk_tests::handler(Server::default())
        .with_http_client(host_runtime::client::Client::new(recorder.clone()));
    let r = host
        .call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" }))
        .await;
    r.assert_error(401, "UNAUTHORIZED");
    assert_eq!(
        *recorder.0.lock().unwrap(),
        [host_runtime::auth::DEFAULT_JWKS_URL]
    );
    assert_eq!(
        host_runtime::auth::DEFAULT_JWKS_URL,
        "https://auth.host.example/.well-known/jwks.json"
    );
}
