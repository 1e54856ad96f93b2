//! What the install token tests are made of: a settable clock, signing keys with their JWK, token
//! minting (any header, signed with `ring`, `ed25519-dalek` or an HMAC), and a tiny key set server
//! that counts requests and can fail, stall or change its keys.

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ed25519_dalek::{Signer as _, SigningKey};
use hmac::{Hmac, Mac};
use ring::signature as sig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::super::{Clock, KeySource, Verifier, VerifyOptions};

/// The extension the tokens are for.
pub(crate) const EXT: &str = "keyword-tracker";
/// The test clock's start (unix seconds).
pub(crate) const T0: i64 = 1_800_000_000;

/// A 2048-bit RSA test key (PKCS#1), made once with `openssl genrsa -traditional 2048`.
pub(crate) const RSA_PEM: &str = "-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEArFV+2QGpRn0rG0IMUKr4EgRyOrFkdGDOJHymEcsSUSFUxd/M
Xh8rx+JTkS1AjBYUC8ABuXAV5GbwOW7+xVf2tUGE/ZEMcgJIsNBLyIYcFxhlPxIp
yb6Ps7KEQEpXIeJ/xjeUYOU2ctkXwx9RMMOwozr7fxs3oZiVMivd+CT1GAMNhULt
zTQbZZ2VdPBZHmCZuJdXuyvvJWAyxumNlI+vyDKsH5G9RMBGvM3D/p23k2C6KJt9
NpttMVAJaoboWH8UdKW5o+zgCQa+0duToJ+83fWV6bVMzw7jiNV0yH04Ht2hIUNN
yDOztjlyoqRl9wQ/u4zoTkTXChoLBSl8s437QQIDAQABAoIBACSUy2XWH/AaDsXs
+b8/44OzlOnXkPrRN8DwArKBOESnfh64uGF8XWdDKDkHcY2q/BtYaSVLYSJIJZMT
eBo8514nZ8sJeKpUyMhbltKcgSb34zoFqYAtJsTezor1HNTRBw1069a7oRi084HU
SoA+8eZcVVlwVhlD0dvCCw6rDanIVuRKph0HKjS/HIPUDeT5ofWjLHFweAuNJNfr
fiyt16dZXBgRj6N7nKxsqOndPDB0OC+bzi6SLtW9ykLvrWaDNfqfyphKHjcewjok
2jl5s3627oReXbVzaX4T+D3pdZddgzFEAeqAaP+884Lqcz6SqZAFetoRiYcrpzTB
9UsiR7cCgYEA2R0kcWjB6021U+HuUe4b8QwC2PzaRraPIPNJZS8l1HltBVwdzRFn
tt90ZhESxRCkKqIrOZFTQIEt1//IdXprMR9NaaoFGJYr0Sas0K0PEYelofwTFZZ2
ozI6jJc+mNg9Qm9YMFWPswr+S7CdW6IkZZoW6I/HqTJntTCiUj2en/sCgYEAyzMo
QlcB50vqLv1CkbM+heOqA8nB6SJTOq2SvbBRlmN3BUJgy91sFWqyv6RtwGFK438w
M44piXHlQ4nvwDLV35BiCKqy9xP00qgBwKeCxrrq6YQxLgOkAIeHEqqckIVK7Zv9
G9/QXrNY51T+kDJfT7KuC3TDY+nDm5zES+eaYPMCgYBOUn8FEn9yPTQ+sHBiyfz2
dhjI4l5zyAPWJS3C/MEu5yb3GgX+Jls901qQP3R/9sLiRmJFgDGCQZeiJjnQd3sX
22z3w0fXWMUxzDvng6a98itERkU0MnVV5hbNBPql9MwUnUo5FYSjWEHoWCxMFDAB
HxdIiiXC2dYjvQmxlV0V5QKBgQCVzWohtjk+BnZoG+fGuEkgtd1yG3ysXdTUDoB+
/Yy4fS2SoAPyZ5O2GkobBKKw0ElAfFTRvT2cCW6GoxswK4oG3k+Xqhh0FK9J2fgo
ypWb4tMqQn1rOd3fUgrfVQ5FcS7zCyvHL/JSzo99Q+jD747al5S991/QudauUx1Y
BC+IxwKBgE00ZrWnS9VJ0Djo4ZJsuRW3Y/h7iY0c9kitIMmrGmcIOWSAgxEHCEgK
hu4kBch8zwYf2K93vTEycUdQO+irzhvLQpOkIQzXVC8PYbIxkPMiAMAIp+nKLcEL
D9bAgR7bvcgKodov1yrijl/ZpjJEGgqU+CmxRJy7qsAiAYe6yOjg
-----END RSA PRIVATE KEY-----";
/// Its modulus and exponent, base64url (from `openssl rsa -modulus -text`).
pub(crate) const RSA_N: &str = "rFV-2QGpRn0rG0IMUKr4EgRyOrFkdGDOJHymEcsSUSFUxd_MXh8rx-JTkS1AjBYUC8ABuXAV5GbwOW7-xVf2tUGE_ZEMcgJIsNBLyIYcFxhlPxIpyb6Ps7KEQEpXIeJ_xjeUYOU2ctkXwx9RMMOwozr7fxs3oZiVMivd-CT1GAMNhULtzTQbZZ2VdPBZHmCZuJdXuyvvJWAyxumNlI-vyDKsH5G9RMBGvM3D_p23k2C6KJt9NpttMVAJaoboWH8UdKW5o-zgCQa-0duToJ-83fWV6bVMzw7jiNV0yH04Ht2hIUNNyDOztjlyoqRl9wQ_u4zoTkTXChoLBSl8s437QQ";
pub(crate) const RSA_E: &str = "AQAB";

/// A P-256 test key (PKCS#8), made once with `openssl genpkey -algorithm EC`.
pub(crate) const EC_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/SO8pGBkupfvNHJ8
UB3/IASIVCCTJnl5i9i9AqYAZT2hRANCAAReC52STBxH6SklV/RGClsT8yHONDXx
kKRSCHqwMMSXzHPkoiYgDPL5fyt25JXheI9IE7/ihAZ1POOnli8MGP6x
-----END PRIVATE KEY-----";
/// Its public point, base64url.
pub(crate) const EC_X: &str = "XgudkkwcR-kpJVf0RgpbE_MhzjQ18ZCkUgh6sDDEl8w";
pub(crate) const EC_Y: &str = "c-SiJiAM8vl_K3bkleF4j0gTv-KEBnU846eWLwwY_rE";

pub(crate) fn b64(bytes: impl AsRef<[u8]>) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn pem_der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    STANDARD.decode(body).unwrap()
}

/// A clock the test sets.
pub(crate) struct TestClock(Arc<AtomicI64>);

impl TestClock {
    pub(crate) fn new() -> Self {
        TestClock(Arc::new(AtomicI64::new(T0)))
    }

    pub(crate) fn clock(&self) -> Clock {
        let now = Arc::clone(&self.0);
        Arc::new(move || now.load(Ordering::SeqCst))
    }

    pub(crate) fn now(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }

    pub(crate) fn set(&self, now: i64) {
        self.0.store(now, Ordering::SeqCst);
    }

    pub(crate) fn advance(&self, seconds: i64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }
}

/// Valid claims at `now`, each call with its own `jti` so two tokens never share a cache entry.
pub(crate) fn claims_at(now: i64) -> Value {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    let jti = format!("tok_{}", NEXT.fetch_add(1, Ordering::SeqCst));
    json!({
        "iss": "https://auth.host.example", "aud": EXT, "sub": "ins_1", "iat": now, "exp": now + 3600,
        "organizationId": "org_1", "projectId": "prj_1", "generation": 3,
        "scopes": ["metrics:read", "alerts:write"], "jti": jti,
    })
}

/// `claims` with `name` set to `value` (or removed when `value` is `None`).
pub(crate) fn with(mut claims: Value, name: &str, value: Option<Value>) -> Value {
    let map = claims.as_object_mut().unwrap();
    match value {
        Some(v) => map.insert(name.to_owned(), v),
        None => map.remove(name),
    };
    claims
}

pub(crate) fn jwks(keys: &[Value]) -> Value {
    json!({ "keys": keys })
}

/// An Ed25519 key with a `kid`.
pub(crate) struct EdKey {
    pub(crate) key: SigningKey,
    pub(crate) kid: String,
}

impl EdKey {
    pub(crate) fn new(kid: &str) -> Self {
        EdKey {
            key: SigningKey::generate(&mut rand::rngs::OsRng),
            kid: kid.to_owned(),
        }
    }

    pub(crate) fn x(&self) -> String {
        b64(self.key.verifying_key().as_bytes())
    }

    pub(crate) fn jwk(&self) -> Value {
        json!({ "kty": "OKP", "crv": "Ed25519", "x": self.x(), "kid": self.kid })
    }

    pub(crate) fn encoding(&self) -> TestSigner {
        TestSigner::Ed(self.key.clone())
    }

    /// A token with this key's `kid`.
    pub(crate) fn mint(&self, claims: &Value) -> String {
        self.mint_as(Some(&self.kid), claims)
    }

    /// A token with any (or no) `kid`.
    pub(crate) fn mint_as(&self, kid: Option<&str>, claims: &Value) -> String {
        mint("EdDSA", kid, claims, &self.encoding())
    }

    /// A token with a hand-written header, signed by this key.
    pub(crate) fn raw(&self, header: &Value, claims: &Value) -> String {
        raw_token(&header.to_string(), claims, |m| {
            self.key.sign(m).to_bytes().to_vec()
        })
    }
}

/// `b64(header).b64(claims).b64(sign(...))` for any header text.
pub(crate) fn raw_token(
    header: &str,
    claims: &Value,
    sign: impl FnOnce(&[u8]) -> Vec<u8>,
) -> String {
    let message = format!("{}.{}", b64(header), b64(claims.to_string()));
    let signature = sign(message.as_bytes());
    format!("{message}.{}", b64(signature))
}

pub(crate) fn rsa_encoding() -> TestSigner {
    TestSigner::Rsa
}

pub(crate) fn rsa_jwk(kid: &str, alg: Option<&str>) -> Value {
    let mut jwk = json!({ "kty": "RSA", "n": RSA_N, "e": RSA_E, "kid": kid });
    if let Some(alg) = alg {
        jwk["alg"] = json!(alg);
    }
    jwk
}

pub(crate) fn ec_encoding() -> TestSigner {
    TestSigner::Ec
}

pub(crate) fn ec_jwk(kid: &str) -> Value {
    json!({ "kty": "EC", "crv": "P-256", "x": EC_X, "y": EC_Y, "kid": kid })
}

/// A key the tests sign tokens with: the RSA and P-256 test keys above, an Ed25519 key, or a shared
/// secret (for the `HS*` tokens that must be refused).
pub(crate) enum TestSigner {
    Rsa,
    Ec,
    Ed(SigningKey),
    Secret(Vec<u8>),
}

impl TestSigner {
    /// The JWS signature of `message` with `alg`, which must suit the key.
    pub(crate) fn sign(&self, alg: &str, message: &[u8]) -> Vec<u8> {
        let rng = ring::rand::SystemRandom::new();
        match (self, alg) {
            (TestSigner::Rsa, "RS256" | "PS256") => {
                let pair = sig::RsaKeyPair::from_der(&pem_der(RSA_PEM)).unwrap();
                let scheme: &dyn sig::RsaEncoding = if alg == "RS256" {
                    &sig::RSA_PKCS1_SHA256
                } else {
                    &sig::RSA_PSS_SHA256
                };
                let mut signature = vec![0; pair.public().modulus_len()];
                pair.sign(scheme, &rng, message, &mut signature).unwrap();
                signature
            }
            (TestSigner::Ec, "ES256") => {
                let pair = sig::EcdsaKeyPair::from_pkcs8(
                    &sig::ECDSA_P256_SHA256_FIXED_SIGNING,
                    &pem_der(EC_PEM),
                    &rng,
                )
                .unwrap();
                pair.sign(&rng, message).unwrap().as_ref().to_vec()
            }
            (TestSigner::Ed(key), "EdDSA") => key.sign(message).to_bytes().to_vec(),
            (TestSigner::Secret(secret), "HS256") => {
                let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
                mac.update(message);
                mac.finalize().into_bytes().to_vec()
            }
            (TestSigner::Secret(secret), "HS384") => {
                let mut mac = Hmac::<sha2::Sha384>::new_from_slice(secret).unwrap();
                mac.update(message);
                mac.finalize().into_bytes().to_vec()
            }
            (TestSigner::Secret(secret), "HS512") => {
                let mut mac = Hmac::<sha2::Sha512>::new_from_slice(secret).unwrap();
                mac.update(message);
                mac.finalize().into_bytes().to_vec()
            }
            _ => panic!("a test signs {alg} with a key of another kind"),
        }
    }
}

/// A token with header `{"alg", "typ": "JWT", "kid"}`, signed by `key`.
pub(crate) fn mint(alg: &str, kid: Option<&str>, claims: &Value, key: &TestSigner) -> String {
    let mut header = json!({ "alg": alg, "typ": "JWT" });
    if let Some(kid) = kid {
        header["kid"] = json!(kid);
    }
    raw_token(&header.to_string(), claims, |m| key.sign(alg, m))
}

/// A verifier over inline keys, on `clock`.
pub(crate) fn inline(keys: Value, clock: &TestClock) -> Verifier {
    Verifier::with_clock(
        VerifyOptions::new(EXT).with_keys(KeySource::Inline(keys)),
        clock.clock(),
    )
}

/// A verifier over `server`'s key set, on `clock`.
pub(crate) fn remote(server: &KeyServer, clock: &TestClock) -> Verifier {
    remote_with(server, clock, VerifyOptions::new(EXT))
}

pub(crate) fn remote_with(
    server: &KeyServer,
    clock: &TestClock,
    options: VerifyOptions,
) -> Verifier {
    Verifier::with_clock(
        options.with_keys(KeySource::Url(server.url.clone())),
        clock.clock(),
    )
}

/// How the key server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Serve,
    Fail,
    Stall,
}

struct ServerState {
    jwks: Value,
    mode: Mode,
    cache_control: Option<String>,
}

/// A key set server on 127.0.0.1 speaking just enough HTTP/1.1.
pub(crate) struct KeyServer {
    pub(crate) url: String,
    hits: Arc<AtomicUsize>,
    state: Arc<Mutex<ServerState>>,
    accept: tokio::task::JoinHandle<()>,
}

impl KeyServer {
    pub(crate) async fn start(jwks: Value) -> KeyServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!(
            "http://{}/.well-known/jwks.json",
            listener.local_addr().unwrap()
        );
        let hits = Arc::new(AtomicUsize::new(0));
        let state = Arc::new(Mutex::new(ServerState {
            jwks,
            mode: Mode::Serve,
            cache_control: None,
        }));
        let accept = tokio::spawn({
            let (hits, state) = (Arc::clone(&hits), Arc::clone(&state));
            async move {
                while let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(answer(stream, Arc::clone(&hits), Arc::clone(&state)));
                }
            }
        });
        KeyServer {
            url,
            hits,
            state,
            accept,
        }
    }

    /// Requests received so far.
    pub(crate) fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    pub(crate) fn set_keys(&self, jwks: Value) {
        self.state.lock().unwrap().jwks = jwks;
    }

    pub(crate) fn set_mode(&self, mode: Mode) {
        self.state.lock().unwrap().mode = mode;
    }

    pub(crate) fn set_cache_control(&self, value: Option<&str>) {
        self.state.lock().unwrap().cache_control = value.map(str::to_owned);
    }

    /// Closes the listening socket: later connections are refused.
    pub(crate) async fn stop(&self) {
        self.accept.abort();
        while !self.accept.is_finished() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

async fn answer(mut stream: TcpStream, hits: Arc<AtomicUsize>, state: Arc<Mutex<ServerState>>) {
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    hits.fetch_add(1, Ordering::SeqCst);
    let (mode, body, cache_control) = {
        let s = state.lock().unwrap();
        (s.mode, s.jwks.to_string(), s.cache_control.clone())
    };
    let response = match mode {
        Mode::Stall => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            return;
        }
        Mode::Fail => {
            "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                .to_owned()
        }
        Mode::Serve => {
            let cc = cache_control
                .map(|v| format!("cache-control: {v}\r\n"))
                .unwrap_or_default();
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{cc}connection: close\r\n\r\n{body}",
                body.len()
            )
        }
    };
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}
