//! The fetched key set against a local key server: caching, `max-age`, refresh limits, failures.

use std::time::{Duration, Instant};

use http::HeaderValue;
use serde_json::json;

use super::support::*;
use crate::auth::fetch::max_age;
use crate::auth::*;

#[tokio::test]
async fn unknown_kid_is_refused_after_one_fetch() {
    let clock = TestClock::new();
    let (key, next) = (EdKey::new("ed-1"), EdKey::new("ed-2"));
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    // Cold start: the one fetch serves both the load and the miss.
    assert_eq!(
        verifier.verify(&next.mint(&claims_at(T0))).await,
        Err(AuthError::UnknownKey)
    );
    assert_eq!(server.hits(), 1);
    clock.advance(31);
    assert_eq!(
        verifier.verify(&next.mint(&claims_at(T0))).await,
        Err(AuthError::UnknownKey)
    );
    assert_eq!(server.hits(), 2);
    // Within the hold-back the key may be one the host just rotated in: not definitive.
    assert_eq!(
        verifier.verify(&next.mint(&claims_at(T0))).await,
        Err(AuthError::KeysUnavailable)
    );
    assert_eq!(server.hits(), 2);
    // The host rotates in `ed-2`: the next miss past the interval picks it up.
    server.set_keys(jwks(&[key.jwk(), next.jwk()]));
    clock.advance(30);
    assert!(verifier.verify(&next.mint(&claims_at(T0))).await.is_ok());
    assert_eq!(server.hits(), 3);
}

#[tokio::test]
async fn cold_start_without_keys_fails_closed() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let down = KeyServer::start(jwks(&[key.jwk()])).await;
    down.stop().await;
    let verifier = remote(&down, &clock);
    assert_eq!(
        verifier.verify(&key.mint(&claims_at(T0))).await,
        Err(AuthError::KeysUnavailable)
    );
    assert_eq!(down.hits(), 0);

    let failing = KeyServer::start(jwks(&[key.jwk()])).await;
    failing.set_mode(Mode::Fail);
    let verifier = remote(&failing, &clock);
    assert_eq!(
        verifier.verify(&key.mint(&claims_at(T0))).await,
        Err(AuthError::KeysUnavailable)
    );
    assert_eq!(failing.hits(), 1);

    let empty = KeyServer::start(jwks(&[])).await;
    let verifier = remote(&empty, &clock);
    assert_eq!(
        verifier.verify(&key.mint(&claims_at(T0))).await,
        Err(AuthError::NoKeys)
    );

    let not_a_key_set = KeyServer::start(json!({ "keys": "nope" })).await;
    let verifier = remote(&not_a_key_set, &clock);
    assert_eq!(
        verifier.verify(&key.mint(&claims_at(T0))).await,
        Err(AuthError::KeysUnavailable)
    );

    let inline_empty = inline(jwks(&[]), &clock);
    assert_eq!(
        inline_empty.verify(&key.mint(&claims_at(T0))).await,
        Err(AuthError::NoKeys)
    );
}

#[tokio::test]
async fn cached_keys_keep_serving_after_the_key_server_goes_down_up_to_24_hours() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
    server.stop().await;
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
    // Stale: every refresh fails, the fetched keys keep serving.
    clock.advance(301);
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    clock.set(T0 + 24 * 3600 - 1);
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    clock.set(T0 + 24 * 3600);
    assert_eq!(
        verifier.verify(&key.mint(&claims_at(clock.now()))).await,
        Err(AuthError::KeysUnavailable)
    );
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn a_failed_refresh_keeps_the_old_keys_until_one_succeeds() {
    let clock = TestClock::new();
    let (key, next) = (EdKey::new("ed-1"), EdKey::new("ed-2"));
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
    server.set_mode(Mode::Fail);
    server.set_keys(jwks(&[next.jwk()]));
    clock.advance(301);
    // Stale keys holding the token's key answer at once; the refresh runs beside the call.
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    verifier.settled().await;
    assert_eq!(server.hits(), 2);
    // Failed attempts are rate-limited too: nothing within 30 s.
    clock.advance(29);
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    assert_eq!(server.hits(), 2);
    server.set_mode(Mode::Serve);
    clock.advance(1);
    // Still stale: the old key serves this call while the refresh learns the host dropped it.
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    verifier.settled().await;
    assert_eq!(server.hits(), 3);
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_err(),
        "the dropped key is refused once the refreshed keys are in"
    );
    assert!(
        verifier
            .verify(&next.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    assert_eq!(server.hits(), 3);
}

#[tokio::test]
async fn a_hanging_refresh_does_not_hold_up_calls_with_a_cached_key() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
    server.set_mode(Mode::Stall);
    clock.advance(301);
    // The key set is stale and its server hangs: calls with the cached key answer at once.
    for i in 0..20 {
        let started = Instant::now();
        assert!(
            verifier
                .verify(&key.mint(&claims_at(clock.now() + i)))
                .await
                .is_ok()
        );
        // Waiting on the refresh would take the 5 s fetch timeout; a loaded machine may take a
        // while over a verification, so the bound is well under that rather than tight.
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "call {i} waited {:?} for the refresh",
            started.elapsed()
        );
    }
    // One refresh at a time, however many calls saw the stale keys.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.hits(), 2);
    // A token whose key the cache lacks still waits for the keys (and fails closed).
    let other = EdKey::new("ed-2");
    assert!(
        verifier
            .verify(&other.mint(&claims_at(clock.now())))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_slow_key_server_fails_closed_on_cold_start() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    server.set_mode(Mode::Stall);
    let options = VerifyOptions::new(EXT).with_fetch_timeout(Duration::from_millis(300));
    let verifier = remote_with(&server, &clock, options);
    let started = Instant::now();
    assert_eq!(
        verifier.verify(&key.mint(&claims_at(T0))).await,
        Err(AuthError::KeysUnavailable)
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.hits(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_random_kids_causes_one_fetch_per_30_seconds() {
    let clock = TestClock::new();
    let (key, attacker) = (EdKey::new("ed-1"), EdKey::new("x"));
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    let flood = |n: usize| {
        let tasks: Vec<_> = (0..n)
            .map(|_| {
                let kid = format!("rnd-{}", rand::random::<u64>());
                let token = attacker.mint_as(Some(&kid), &claims_at(T0));
                let verifier = verifier.clone();
                tokio::spawn(async move { verifier.verify(&token).await })
            })
            .collect();
        async move {
            for task in tasks {
                // Refused either way: unknown to keys fetched just now, or, while fetches are
                // held back, a key this server cannot learn yet (503 on the event route).
                let refused = task.await.unwrap();
                assert!(
                    matches!(
                        refused,
                        Err(AuthError::UnknownKey | AuthError::KeysUnavailable)
                    ),
                    "{refused:?}"
                );
            }
        }
    };
    flood(200).await;
    assert_eq!(server.hits(), 1);
    clock.advance(29);
    flood(20).await;
    assert_eq!(server.hits(), 1);
    clock.advance(1);
    flood(200).await;
    assert_eq!(server.hits(), 2);
    flood(20).await;
    assert_eq!(server.hits(), 2);
    // Genuine tokens are unaffected by the flood.
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
}

#[test]
fn max_age_is_read_from_cache_control_and_clamped() {
    let cases: [(Option<&str>, i64); 12] = [
        (None, 300),
        (Some("max-age=600"), 600),
        (Some("public, max-age=3600, must-revalidate"), 3600),
        (Some("MAX-AGE=900"), 900),
        (Some("max-age=\"1200\""), 1200),
        (Some("max-age=10"), 300),
        (Some("max-age=0"), 300),
        (Some("max-age=172800"), 86_400),
        (Some("max-age=99999999999999999999999"), 86_400),
        (Some("s-maxage=900"), 300),
        (Some("max-age=abc"), 300),
        (Some("no-store"), 300),
    ];
    for (value, expected) in cases {
        let mut headers = http::HeaderMap::new();
        if let Some(v) = value {
            headers.insert(http::header::CACHE_CONTROL, HeaderValue::from_static(v));
        }
        assert_eq!(max_age(&headers), expected, "{value:?}");
    }
}

#[tokio::test]
async fn fetched_keys_are_refreshed_when_their_clamped_max_age_passes() {
    let cases = [
        (Some("max-age=600"), 600),
        (Some("max-age=10"), 300),
        (Some("max-age=172800"), 86_400),
        (None, 300),
    ];
    for (cache_control, fresh_for) in cases {
        let clock = TestClock::new();
        let key = EdKey::new("ed-1");
        let server = KeyServer::start(jwks(&[key.jwk()])).await;
        server.set_cache_control(cache_control);
        let verifier = remote(&server, &clock);
        assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
        clock.set(T0 + fresh_for - 1);
        assert!(
            verifier
                .verify(&key.mint(&claims_at(clock.now())))
                .await
                .is_ok()
        );
        assert_eq!(server.hits(), 1, "{cache_control:?} still fresh");
        clock.set(T0 + fresh_for);
        assert!(
            verifier
                .verify(&key.mint(&claims_at(clock.now())))
                .await
                .is_ok()
        );
        verifier.settled().await;
        assert_eq!(server.hits(), 2, "{cache_control:?} stale");
    }
}

/// The key set URL check reads URLs with `http::Uri`; a fetcher reads them as WHATWG URLs (the
/// `url` crate here). Plain http must never pass for a host a WHATWG reader sees as remote, and
/// every https URL and loopback host both read alike must pass.
#[test]
fn the_key_set_url_check_is_never_looser_than_a_whatwg_reading() {
    fn whatwg_loopback_http(raw: &str) -> bool {
        let Ok(url) = url::Url::parse(raw) else {
            return false;
        };
        url.scheme() == "http"
            && match url.host() {
                Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                None => false,
            }
    }
    let tricky = [
        "http://127.0.0.1@keys.example.com/jwks.json",
        "http://keys.example.com@127.0.0.1/jwks.json",
        "http://127.0.0.1.keys.example.com/jwks.json",
        "http://localhost.keys.example.com/jwks.json",
        "http://localhost./jwks.json",
        "http://127.1/jwks.json",
        "http://0x7f000001/jwks.json",
        "http://2130706433/jwks.json",
        "http://[::ffff:127.0.0.1]/jwks.json",
        "http://[0:0:0:0:0:0:0:1]/jwks.json",
        "http:\\\\127.0.0.1\\jwks.json",
        "http://127.0.0.1\\@keys.example.com/jwks.json",
        " http://127.0.0.1/jwks.json",
        "http://127.0.0.1:99999/jwks.json",
        "HTTP://LOCALHOST/jwks.json",
        "http://[::1]/jwks.json",
        "http:///jwks.json",
        "http://%6c%6f%63%61%6c%68%6f%73%74/jwks.json",
    ];
    for raw in tricky {
        let ours = check_key_set_url(raw).is_ok();
        if ours {
            assert!(
                whatwg_loopback_http(raw),
                "{raw:?} passes, but a fetcher reads it as a remote host"
            );
        }
    }
    for same in [
        "http://127.0.0.1:8788/jwks.json",
        "http://localhost/jwks.json",
        "HTTP://LOCALHOST/jwks.json",
        "http://[::1]:8788/jwks.json",
        "http://[0:0:0:0:0:0:0:1]/jwks.json",
        "https://keys.example.com/.well-known/jwks.json",
        "HTTPS://keys.example.com/jwks.json",
    ] {
        assert!(check_key_set_url(same).is_ok(), "{same} is refused");
    }
    for refused in [
        "http://127.1/jwks.json",
        "http:///jwks.json",
        "http://keys.example.com@",
        "http://127.0.0.1:99999/jwks.json",
    ] {
        let why = check_key_set_url(refused).unwrap_err().to_string();
        assert!(why.contains(refused), "{why}");
    }
}

#[tokio::test]
async fn a_preloaded_copy_verifies_without_a_fetch_until_its_five_minutes_pass() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    assert_eq!(preload_key_set(&server.url, &jwks(&[key.jwk()])), Ok(1));
    let verifier = remote(&server, &clock);
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
    clock.set(T0 + 299);
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    assert_eq!(server.hits(), 0, "the copy spares the fetch");
    // Then it is refreshed like fetched keys: in the background, the call served meanwhile.
    clock.set(T0 + 300);
    assert!(
        verifier
            .verify(&key.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    verifier.settled().await;
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn a_key_missing_from_the_copy_is_fetched_at_once() {
    let clock = TestClock::new();
    let (old, new) = (EdKey::new("ed-old"), EdKey::new("ed-new"));
    // The copy predates a rotation: the host signs with `ed-new` now.
    let server = KeyServer::start(jwks(&[old.jwk(), new.jwk()])).await;
    preload_key_set(&server.url, &jwks(&[old.jwk()])).unwrap();
    let verifier = remote(&server, &clock);
    assert!(verifier.verify(&old.mint(&claims_at(T0))).await.is_ok());
    assert_eq!(server.hits(), 0);
    // No hold-back: the copy was no fetch attempt.
    assert!(verifier.verify(&new.mint(&claims_at(T0))).await.is_ok());
    assert_eq!(server.hits(), 1);
    // From then on, the fetched set and the usual limits.
    let unknown = EdKey::new("ed-unknown");
    assert_eq!(
        verifier.verify(&unknown.mint(&claims_at(T0))).await,
        Err(AuthError::KeysUnavailable)
    );
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn a_key_withdrawn_since_the_copy_stops_verifying_at_the_first_refresh() {
    let clock = TestClock::new();
    let (withdrawn, kept) = (EdKey::new("ed-withdrawn"), EdKey::new("ed-kept"));
    let server = KeyServer::start(jwks(&[kept.jwk()])).await;
    preload_key_set(&server.url, &jwks(&[withdrawn.jwk(), kept.jwk()])).unwrap();
    let verifier = remote(&server, &clock);
    // What a copy cannot know (documented): until its first refresh the withdrawn key verifies.
    assert!(
        verifier
            .verify(&withdrawn.mint(&claims_at(T0)))
            .await
            .is_ok()
    );
    clock.set(T0 + 300);
    assert!(
        verifier
            .verify(&kept.mint(&claims_at(clock.now())))
            .await
            .is_ok()
    );
    verifier.settled().await;
    assert_eq!(server.hits(), 1);
    // The refreshed set replaced the copy, and the withdrawn key's cached tokens went with it.
    assert!(
        verifier
            .verify(&withdrawn.mint(&claims_at(clock.now())))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_copy_serves_only_its_own_url_and_verifiers_created_after_it() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let (server, other) = (
        KeyServer::start(jwks(&[key.jwk()])).await,
        KeyServer::start(jwks(&[key.jwk()])).await,
    );
    let before = remote(&server, &clock);
    preload_key_set(&server.url, &jwks(&[key.jwk()])).unwrap();
    let elsewhere = remote(&other, &clock);
    assert!(elsewhere.verify(&key.mint(&claims_at(T0))).await.is_ok());
    assert_eq!(other.hits(), 1);
    assert!(before.verify(&key.mint(&claims_at(T0))).await.is_ok());
    assert_eq!(server.hits(), 1);
}

#[test]
fn a_copy_that_cannot_serve_is_refused_and_not_kept() {
    let url = "https://keys.preload.test/.well-known/jwks.json";
    let key = EdKey::new("ed-1");
    assert_eq!(
        preload_key_set(url, &json!({ "keys": "nope" })),
        Err(PreloadError::NotAKeySet)
    );
    assert_eq!(
        preload_key_set(url, &jwks(&[json!({ "kty": "oct", "k": "c2VjcmV0" })])),
        Err(PreloadError::NoUsableKey)
    );
    assert!(matches!(
        preload_key_set("http://keys.preload.test/jwks.json", &jwks(&[key.jwk()])),
        Err(PreloadError::Url(_))
    ));
    let store =
        crate::auth::keys::KeyStore::remote(url.to_owned(), Duration::from_secs(1), None, T0);
    assert!(store.snapshot(T0).is_none(), "nothing was kept");
}
