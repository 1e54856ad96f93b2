//! A test host for vendors' own tests: a freshly generated signing key and the matching inline key set,
//! tokens with overrides (expiry, scopes, install), call bodies, and calls to a handler in process or
//! over HTTP.
//!
//! [`TestHost::development`] uses a well-known development key instead, the one the local host
//! (`cargo host dev`, `cargo host call`) signs with, so that a vendor server started in development
//! mode with [`development_jwks`] accepts the local host's calls. That key is public: a server in
//! production must never trust it.
//!
//! ```ignore
//! let host = host_runtime::testing::TestHost::new("keyword-tracker");
//! let handler = host.configure(handler(Server::default()));
//! let answer = host.call_tool(&handler, "keyword-ranks", json!({ "keyword": "notes" })).await;
//! assert_eq!(answer.status, 200);
//! ```
//!
//! [`contract`] holds what every store must do, as functions to run against a store: a vendor
//! who writes a deduplication store of their own runs [`contract::dedupe_store`] on it in a test,
//! and gets the first promise it breaks.

use crate::platform::rt::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use ed25519_dalek::SigningKey;
use serde_json::{Value, json};

use crate::Handler;
use crate::calls::route::Route;

/// The claims a test token carries; change any of them before minting.
#[derive(Debug, Clone)]
pub struct TokenClaims {
    /// `iss`.
    pub iss: String,
    /// `aud`, as JSON (a string or an array).
    pub aud: Value,
    /// `sub`: the install id.
    pub sub: String,
    /// `iat`.
    pub iat: i64,
    /// `exp`.
    pub exp: i64,
    /// `nbf`, if any.
    pub nbf: Option<i64>,
    /// `organizationId`.
    pub organization_id: String,
    /// `projectId` (`None` for an organization install).
    pub project_id: Option<String>,
    /// `generation`.
    pub generation: u64,
    /// `scopes`.
    pub scopes: Vec<String>,
}

/// An answer from the handler, with its body parsed when it is JSON.
#[derive(Debug, Clone)]
pub struct TestResponse {
    /// The HTTP status.
    pub status: u16,
    /// The body as JSON (`Null` when empty or not JSON).
    pub json: Value,
    /// The raw body.
    pub body: Bytes,
    /// The response headers.
    pub headers: http::HeaderMap,
}

impl TestResponse {
    /// The error code, when the answer is an error body.
    pub fn error_code(&self) -> Option<&str> {
        self.json
            .get("error")
            .and_then(|e| e.get("code"))
            .and_then(Value::as_str)
    }

    /// Panics unless the answer is the error `code` with `status`, showing the body when not.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(
            (self.status, self.error_code()),
            (status, Some(code)),
            "{}",
            self.json
        );
    }
}

/// A stand-in for the host. Cloning it keeps the same signing key.
#[derive(Clone)]
pub struct TestHost {
    key: SigningKey,
    kid: String,
    extension_id: String,
    issuer: String,
    /// The install the host's calls belong to.
    pub install_id: String,
    /// Its organization.
    pub organization_id: String,
    /// Its project (`None` for an organization install).
    pub project_id: Option<String>,
    /// Scopes granted to the install (by default every scope key).
    pub scopes: Vec<String>,
    /// The `credentials` sent in call bodies.
    pub credentials: Value,
}

/// The `kid` of the well-known development key.
pub const DEVELOPMENT_KID: &str = "host-dev-1";

/// The well-known development signing secret for the vendor's own events, used by the local
/// host's event-post endpoint unless told otherwise. Public: never use it in production.
pub const DEVELOPMENT_WEBHOOK_SECRET: &str = crate::outbound::webhook::development::SECRET;

/// The well-known development signing key: derived from a public phrase, so every copy of the SDK
/// has the same one. Anyone can mint tokens with it; it exists for local development only.
fn development_key() -> SigningKey {
    use sha2::Digest as _;
    let seed: [u8; 32] =
        sha2::Sha256::digest(b"host-sdk-rust development key; public; never trust in production")
            .into();
    SigningKey::from_bytes(&seed)
}

/// The key set holding only the well-known development key: what a vendor server in development
/// mode gives [`Handler::with_jwks`] to accept calls from `cargo host call` and [`TestHost::development`].
pub fn development_jwks() -> Value {
    jwks_of(&development_key(), DEVELOPMENT_KID)
}

fn jwks_of(key: &SigningKey, kid: &str) -> Value {
    json!({ "keys": [ {
        "kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": kid,
        "x": URL_SAFE_NO_PAD.encode(key.verifying_key().as_bytes()),
    } ] })
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl TestHost {
    /// A host with a new Ed25519 key for the extension `extension_id`.
    pub fn new(extension_id: impl Into<String>) -> Self {
        use ring::rand::SecureRandom as _;
        let mut seed = [0u8; 32];
        // The system's random source; it does not fail on the platforms the SDK supports, and a
        // zero seed would still give a working (if guessable) test key.
        let _ = ring::rand::SystemRandom::new().fill(&mut seed);
        let key = SigningKey::from_bytes(&seed);
        let kid = format!(
            "test-{}",
            &URL_SAFE_NO_PAD.encode(key.verifying_key().as_bytes())[..8]
        );
        Self::with_key(extension_id.into(), key, kid)
    }

    /// A host signing with the well-known development key (see [`development_jwks`]): what the local
    /// host uses, so its tokens are accepted by a server in development mode.
    pub fn development(extension_id: impl Into<String>) -> Self {
        Self::with_key(
            extension_id.into(),
            development_key(),
            DEVELOPMENT_KID.to_owned(),
        )
    }

    fn with_key(extension_id: String, key: SigningKey, kid: String) -> Self {
        TestHost {
            key,
            kid,
            extension_id,
            issuer: crate::auth::DEFAULT_ISSUER.to_owned(),
            install_id: "ins_test_1".to_owned(),
            organization_id: "org_test_1".to_owned(),
            project_id: Some("prj_test_1".to_owned()),
            scopes: host_interface::catalogue::SCOPES
                .iter()
                .map(|s| s.key.to_owned())
                .collect(),
            credentials: json!({}),
        }
    }

    /// The key set (JWKS) to give the handler.
    pub fn jwks(&self) -> Value {
        jwks_of(&self.key, &self.kid)
    }

    /// Points a handler at this host's key set and issuer, in development mode
    /// ([`Handler::with_development_defaults`]): stores the test did not choose are kept in memory.
    pub fn configure(&self, handler: Handler) -> Handler {
        handler
            .with_development_defaults()
            .with_jwks(self.jwks())
            .with_issuer(self.issuer.clone())
    }

    /// The claims of a valid token for this host's install, to adjust before [`Self::mint`].
    pub fn claims(&self) -> TokenClaims {
        let now = now();
        TokenClaims {
            iss: self.issuer.clone(),
            aud: json!(self.extension_id),
            sub: self.install_id.clone(),
            iat: now,
            exp: now + 300,
            nbf: None,
            organization_id: self.organization_id.clone(),
            project_id: self.project_id.clone(),
            generation: 1,
            scopes: self.scopes.clone(),
        }
    }

    /// A valid token.
    pub fn token(&self) -> String {
        self.mint(&self.claims())
    }

    /// A token with the given claims, signed with this host's key.
    pub fn mint(&self, c: &TokenClaims) -> String {
        let mut payload = json!({
            "iss": c.iss, "aud": c.aud, "sub": c.sub, "iat": c.iat, "exp": c.exp,
            "organizationId": c.organization_id, "projectId": c.project_id,
            "generation": c.generation, "scopes": c.scopes,
        });
        if let Some(nbf) = c.nbf {
            payload["nbf"] = json!(nbf);
        }
        self.sign(&payload)
    }

    /// Signs any JSON payload as a token of this host (for tests of malformed claims).
    pub fn sign(&self, payload: &Value) -> String {
        use ed25519_dalek::Signer as _;
        let header = json!({ "alg": "EdDSA", "typ": "JWT", "kid": self.kid });
        let message = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(payload.to_string())
        );
        let signature = self.key.sign(message.as_bytes());
        format!("{message}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
    }

    /// The shared call body with `input`.
    pub fn call_body(&self, input: Value) -> Value {
        json!({
            "install": {
                "id": self.install_id, "extensionId": self.extension_id,
                "projectId": self.project_id, "organizationId": self.organization_id,
            },
            "context": { "projectId": self.project_id, "platform": "ios" },
            "input": input,
            "credentials": self.credentials,
            "documents": {},
        })
    }

    /// An event delivery body.
    pub fn event_body(&self, name: &str, payload: Value) -> Value {
        let mut body = self.call_body(Value::Null);
        if let Some(map) = body.as_object_mut() {
            map.remove("input");
            map.insert(
                "event".to_owned(),
                json!({ "name": name, "payload": payload }),
            );
        }
        body
    }

    /// A request with a valid token.
    ///
    /// Panics when `path` is not a valid request target (a mistake in the test, reported as such
    /// rather than sent as some other request).
    #[track_caller]
    #[allow(clippy::panic)]
    pub fn request(
        &self,
        method: http::Method,
        path: &str,
        body: Option<&Value>,
    ) -> http::Request<Bytes> {
        let bytes = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
        http::Request::builder()
            .method(method)
            .uri(path)
            .header(
                http::header::AUTHORIZATION,
                format!("Bearer {}", self.token()),
            )
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(bytes)
            .unwrap_or_else(|e| panic!("`{path}` is not a valid request target: {e}"))
    }

    /// Sends a request to the handler in process.
    pub async fn send(&self, handler: &Handler, request: http::Request<Bytes>) -> TestResponse {
        let response = handler.handle(request).await;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.into_body();
        let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
        TestResponse {
            status,
            json,
            body,
            headers,
        }
    }

    /// Calls `route` in process as the host would: with its method, and for a `POST` the shared call
    /// body with `input`. The work container route is not reachable this way (its path is the
    /// manifest's); use [`request`](Self::request) with that path.
    pub async fn call(&self, handler: &Handler, route: Route<'_>, input: Value) -> TestResponse {
        let path = route.path(None).unwrap_or_default();
        let method = route.method();
        let request = {
            let body = (method == http::Method::POST).then(|| self.call_body(input));
            self.request(method, &path, body.as_ref())
        };
        self.send(handler, request).await
    }

    /// Calls a tool in process.
    pub async fn call_tool(&self, handler: &Handler, id: &str, input: Value) -> TestResponse {
        self.call(handler, Route::Tool(id), input).await
    }

    /// Calls an action in process.
    pub async fn call_action(&self, handler: &Handler, id: &str, input: Value) -> TestResponse {
        self.call(handler, Route::Action(id), input).await
    }

    /// Calls a procedure in process.
    pub async fn call_procedure(
        &self,
        handler: &Handler,
        name: &str,
        input: Value,
    ) -> TestResponse {
        self.call(handler, Route::Procedure(name), input).await
    }

    /// Asks a mention picker in process.
    pub async fn call_mention(&self, handler: &Handler, id: &str, q: &str) -> TestResponse {
        let q: String = form_urlencoded::byte_serialize(q.as_bytes()).collect();
        let path = Route::Mention(id).path(None).unwrap_or_default();
        self.send(
            handler,
            self.request(http::Method::GET, &format!("{path}?q={q}"), None),
        )
        .await
    }

    /// Asks a context provider in process.
    pub async fn call_context(&self, handler: &Handler, id: &str) -> TestResponse {
        self.call(handler, Route::Context(id), Value::Null).await
    }

    /// Delivers a host event in process, with `event_id` as `X-Host-Event-Id`.
    pub async fn deliver(
        &self,
        handler: &Handler,
        name: &str,
        payload: Value,
        event_id: &str,
    ) -> TestResponse {
        let path = Route::Event(Some(name)).path(None).unwrap_or_default();
        // The body's JSON tree is dropped once it is bytes: a delivery in flight holds what a
        // server would (the request), not the test's own copy of it.
        let mut request = self.request(
            http::Method::POST,
            &path,
            Some(&self.event_body(name, payload)),
        );
        if let Ok(v) = http::HeaderValue::from_str(event_id) {
            request.headers_mut().insert("x-host-event-id", v);
        }
        self.send(handler, request).await
    }

    /// Sends a request over HTTP to a running server at `base_url` (for example
    /// `http://127.0.0.1:8787`), with the runtime's own HTTP client.
    #[cfg(feature = "client")]
    pub async fn send_http(
        &self,
        base_url: &str,
        request: http::Request<Bytes>,
    ) -> Result<TestResponse, crate::platform::client::ClientError> {
        use crate::platform::client::{Client, ClientError, ClientErrorKind};
        let client = Client::platform_default().ok_or_else(|| {
            ClientError::new(ClientErrorKind::Request, "no HTTP client could be built")
        })?;
        let (mut parts, body) = request.into_parts();
        let url = format!("{}{}", base_url.trim_end_matches('/'), parts.uri);
        parts.uri = url.parse().map_err(|e: http::uri::InvalidUri| {
            ClientError::new(ClientErrorKind::Request, format!("`{url}` is not a URL"))
                .with_source(e)
        })?;
        let response = client
            .send(http::Request::from_parts(parts, body), 64 * 1024 * 1024)
            .await?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.into_body();
        let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
        Ok(TestResponse {
            status,
            json,
            body,
            headers,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_development_key_is_the_same_everywhere_and_distinct_from_test_keys() {
        let a = TestHost::development("x");
        let b = TestHost::development("x");
        assert_eq!(a.jwks(), b.jwks());
        assert_eq!(a.jwks(), development_jwks());
        assert_ne!(TestHost::new("x").jwks(), development_jwks());
    }

    #[tokio::test]
    async fn development_tokens_verify_against_the_development_key_set() {
        let host = TestHost::development("keyword-tracker");
        let mut options = crate::auth::VerifyOptions::new("keyword-tracker");
        options.keys = crate::auth::KeySource::Inline(development_jwks());
        let claims = crate::auth::verify_host_token(&host.token(), options).await;
        assert_eq!(claims.map(|c| c.sub).ok(), Some(host.install_id.clone()));
    }

    #[test]
    fn the_development_secret_is_a_valid_secret() {
        assert!(crate::outbound::webhook::Secret::parse(DEVELOPMENT_WEBHOOK_SECRET).is_ok());
    }
}

pub mod contract;
