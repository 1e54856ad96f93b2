//! The verified-token cache: hits, expiry, bounds, and entries dropped with their key.

use super::super::token::Algorithm;
use serde_json::json;

use super::support::*;
use crate::auth::cache::TokenCache;
use crate::auth::jwks::KeySet;
use crate::auth::*;

#[tokio::test]
async fn a_second_verification_of_the_same_token_is_a_cache_hit() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    let token = key.mint(&claims_at(T0));
    let first = verifier.verify(&token).await.unwrap();
    assert_eq!(
        verifier.cached_tokens(),
        0,
        "a token seen once is not cached"
    );
    assert_eq!(verifier.verify(&token).await.unwrap(), first);
    assert_eq!(verifier.cached_tokens(), 1, "its second sighting is");
    server.set_keys(jwks(&[]));
    // The keys are stale now: a full verification would refresh. A hit does not.
    clock.advance(301);
    assert_eq!(verifier.verify(&token).await.unwrap(), first);
    assert_eq!(server.hits(), 1);
    // The next full verification refreshes; a set without a usable key is a broken publication,
    // so the last good keys keep serving and the cached entry stays.
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
    verifier.settled().await;
    assert_eq!(server.hits(), 2);
    assert_eq!(verifier.cached_tokens(), 1);
    assert_eq!(verifier.verify(&token).await.unwrap(), first);
}

#[tokio::test]
async fn a_cached_token_is_dropped_when_its_key_leaves_the_set() {
    let clock = TestClock::new();
    let (a, b) = (EdKey::new("ed-a"), EdKey::new("ed-b"));
    let server = KeyServer::start(jwks(&[a.jwk(), b.jwk()])).await;
    let verifier = remote(&server, &clock);
    let (token_a, token_b) = (a.mint(&claims_at(T0)), b.mint(&claims_at(T0)));
    for _ in 0..2 {
        assert!(verifier.verify(&token_a).await.is_ok());
        assert!(verifier.verify(&token_b).await.is_ok());
    }
    assert_eq!(verifier.cached_tokens(), 2);
    server.set_keys(jwks(&[b.jwk()]));
    clock.advance(31);
    let unknown = EdKey::new("ed-new").mint(&claims_at(T0));
    assert_eq!(verifier.verify(&unknown).await, Err(AuthError::UnknownKey));
    assert_eq!(server.hits(), 2);
    assert_eq!(verifier.cached_tokens(), 1);
    assert_eq!(
        verifier.verify(&token_a).await,
        Err(AuthError::KeysUnavailable)
    );
    assert!(verifier.verify(&token_b).await.is_ok());
    // Same kid, new material: the entry goes too.
    let b2 = EdKey::new("ed-b");
    server.set_keys(jwks(&[b2.jwk()]));
    clock.advance(31);
    assert_eq!(verifier.verify(&unknown).await, Err(AuthError::UnknownKey));
    assert_eq!(verifier.cached_tokens(), 0);
    assert_eq!(
        verifier.verify(&token_b).await,
        Err(AuthError::BadSignature)
    );
}

#[tokio::test]
async fn a_cache_hit_still_checks_expiry() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let token = key.mint(&with(claims_at(T0), "exp", Some(json!(T0 + 10))));
    assert!(verifier.verify(&token).await.is_ok());
    assert!(verifier.verify(&token).await.is_ok());
    clock.set(T0 + 70);
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(verifier.cached_tokens(), 1);
    clock.set(T0 + 71);
    assert_eq!(verifier.verify(&token).await, Err(AuthError::Expired));
    assert_eq!(verifier.cached_tokens(), 0);
}

#[tokio::test]
async fn the_token_cache_is_bounded() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let options = VerifyOptions::new(EXT)
        .with_keys(KeySource::Inline(jwks(&[key.jwk()])))
        .with_token_cache(2);
    let verifier = Verifier::with_clock(options.clone(), clock.clock());
    for i in 0..5 {
        let token = key.mint(&with(claims_at(T0), "jti", Some(json!(format!("t{i}")))));
        assert!(verifier.verify(&token).await.is_ok());
        assert!(verifier.verify(&token).await.is_ok());
    }
    assert_eq!(verifier.cached_tokens(), 2);
    let off = Verifier::with_clock(options.with_token_cache(0), clock.clock());
    let token = key.mint(&claims_at(T0));
    assert!(off.verify(&token).await.is_ok());
    assert!(off.verify(&token).await.is_ok());
    assert_eq!(off.cached_tokens(), 0);
}

#[tokio::test]
async fn unique_tokens_are_never_cached() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    for i in 0..50 {
        let token = key.mint(&with(claims_at(T0), "jti", Some(json!(format!("u{i}")))));
        assert!(verifier.verify(&token).await.is_ok());
    }
    assert_eq!(verifier.cached_tokens(), 0);
}

#[test]
fn a_full_token_cache_evicts_expired_entries_first_then_the_soonest_to_expire() {
    let key = EdKey::new("ed-1");
    let set = KeySet::from_document(&jwks(&[key.jwk()])).unwrap();
    let k = set.find(Algorithm::EdDSA, Some("ed-1")).unwrap();
    let claims = |sub: &str| Claims {
        iss: DEFAULT_ISSUER.to_owned(),
        aud: vec![EXT.to_owned()],
        sub: sub.to_owned(),
        iat: 0,
        exp: 0,
        nbf: None,
        jti: None,
        organization_id: "org".to_owned(),
        project_id: None,
        generation: 0,
        scopes: Vec::new(),
    };
    let cache = TokenCache::new(2);
    cache.insert("a", claims("a"), (i64::MIN, 100), k.clone(), 0);
    cache.insert("b", claims("b"), (i64::MIN, 5000), k.clone(), 0);
    cache.insert("c", claims("c"), (i64::MIN, 6000), k.clone(), 200);
    assert!(cache.get("a", 200).is_none());
    assert_eq!(cache.get("b", 200).map(|c| c.sub), Some("b".to_owned()));
    cache.insert("d", claims("d"), (i64::MIN, 7000), k.clone(), 300);
    assert!(cache.get("b", 300).is_none());
    assert!(cache.get("c", 300).is_some());
    assert!(cache.get("d", 300).is_some());
    // An entry is not served before its `nbf` window, nor after its end.
    cache.insert("e", claims("e"), (1000, 2000), k, 300);
    assert!(cache.get("e", 999).is_none());
    assert!(cache.get("e", 1000).is_some());
}
