//! The tokens `Handler::warm` checks: one per algorithm of the keys held, each refused at its
//! signature, and none while checking a token would fetch the key set.

use std::collections::BTreeSet;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::support::*;
use crate::auth::keys::HARD_MAX_AGE;
use crate::auth::*;

fn header_of(token: &str) -> Value {
    let header = token.split('.').next().unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).unwrap()).unwrap()
}

#[tokio::test]
async fn one_token_per_algorithm_each_refused_at_its_signature() {
    let clock = TestClock::new();
    let (first, second) = (EdKey::new("ed-1"), EdKey::new("ed-2"));
    let keys = jwks(&[
        first.jwk(),
        second.jwk(),
        rsa_jwk("rsa-1", Some("RS256")),
        ec_jwk("ec-1"),
    ]);
    let verifier = inline(keys, &clock);
    let tokens = verifier.unverifiable_tokens();
    let named: BTreeSet<(String, String)> = tokens
        .iter()
        .map(|t| {
            let h = header_of(t);
            (
                h["alg"].as_str().unwrap().to_owned(),
                h["kid"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected = [("EdDSA", "ed-1"), ("ES256", "ec-1"), ("RS256", "rsa-1")]
        .map(|(a, k)| (a.to_owned(), k.to_owned()));
    assert_eq!(named, BTreeSet::from(expected));
    for token in &tokens {
        assert_eq!(
            verifier.verify(token).await,
            Err(AuthError::BadSignature),
            "{token}"
        );
    }
    // Refused tokens are not remembered.
    assert_eq!(verifier.cached_tokens(), 0);
}

/// The signatures get through the libraries' checks made before the arithmetic (so that V8
/// compiles the arithmetic as the module loads), where zeros would be refused before it.
#[test]
fn signatures_reach_the_arithmetic() {
    let clock = TestClock::new();
    let keys = jwks(&[
        EdKey::new("ed-1").jwk(),
        rsa_jwk("rsa-1", Some("RS256")),
        ec_jwk("ec-1"),
    ]);
    let verifier = inline(keys, &clock);
    let signatures: Vec<(String, Vec<u8>)> = verifier
        .unverifiable_tokens()
        .iter()
        .map(|t| {
            let alg = header_of(t)["alg"].as_str().unwrap().to_owned();
            let signature = URL_SAFE_NO_PAD
                .decode(t.rsplit('.').next().unwrap())
                .unwrap();
            (alg, signature)
        })
        .collect();
    assert_eq!(signatures.len(), 3);
    let one =
        |bytes: &[u8]| bytes.iter().rev().skip(1).all(|b| *b == 0) && bytes.last() == Some(&1);
    for (alg, signature) in &signatures {
        match alg.as_str() {
            "EdDSA" => {
                let (r, s) = signature.split_at(32);
                // R is a point of large order: `verify_strict` refuses one of small order (the
                // all-zero encoding is one) before it hashes anything.
                let point = ed25519_dalek::VerifyingKey::from_bytes(r.try_into().unwrap()).unwrap();
                assert!(!point.is_weak(), "R is of small order");
                let zero = ed25519_dalek::VerifyingKey::from_bytes(&[0; 32]).unwrap();
                assert!(zero.is_weak());
                assert_eq!(s, [0; 32]);
            }
            // r = s = 1, within [1, n): ring refuses 0 at once.
            "ES256" => {
                let (r, s) = signature.split_at(32);
                assert!(one(r) && one(s), "{signature:?}");
            }
            // 1, as long as the 2048-bit modulus: ring refuses 0 at once.
            "RS256" => assert!(signature.len() == 256 && one(signature)),
            other => panic!("a token for {other}"),
        }
    }
}

#[tokio::test]
async fn none_while_checking_a_token_would_fetch_the_key_set() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    // No keys yet: a token would be checked against a fetched set.
    assert!(verifier.unverifiable_tokens().is_empty());
    assert_eq!(server.hits(), 0);
    assert!(verifier.verify(&key.mint(&claims_at(T0))).await.is_ok());
    assert_eq!(server.hits(), 1);
    let tokens = verifier.unverifiable_tokens();
    assert_eq!(tokens.len(), 1);
    assert_eq!(
        verifier.verify(&tokens[0]).await,
        Err(AuthError::BadSignature)
    );
    assert_eq!(server.hits(), 1);
    // Past their age the keys are due a refresh: none again, and still nothing fetched.
    clock.advance(HARD_MAX_AGE + 1);
    assert!(verifier.unverifiable_tokens().is_empty());
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn none_for_keys_no_token_finds() {
    let clock = TestClock::new();
    let without_kid = |key: &EdKey| {
        let mut jwk = key.jwk();
        jwk.as_object_mut().unwrap().remove("kid");
        jwk
    };
    // Two Ed25519 keys without a `kid`: a token naming neither matches no one key.
    let (first, second) = (EdKey::new("ed-1"), EdKey::new("ed-2"));
    let both = inline(jwks(&[without_kid(&first), without_kid(&second)]), &clock);
    assert!(both.unverifiable_tokens().is_empty());
    // One alone is found by a token naming no key, and that token is refused at its signature.
    let one = inline(jwks(&[without_kid(&first)]), &clock);
    let tokens = one.unverifiable_tokens();
    assert_eq!(tokens.len(), 1);
    assert!(header_of(&tokens[0]).get("kid").is_none());
    assert_eq!(one.verify(&tokens[0]).await, Err(AuthError::BadSignature));
}
