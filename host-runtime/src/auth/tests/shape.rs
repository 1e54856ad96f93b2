//! The token's shape and header: size, segments, base64url, JSON, `kid`, `crit`, `jku`/`x5u`/`jwk`/`x5c`.

use serde_json::json;

use super::support::*;
use crate::auth::*;

#[tokio::test]
async fn hostile_kids_are_refused_without_panic() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let server = KeyServer::start(jwks(&[key.jwk()])).await;
    let verifier = remote(&server, &clock);
    verifier.verify(&key.mint(&claims_at(T0))).await.unwrap();
    assert_eq!(server.hits(), 1);
    clock.advance(31);
    let long = "k".repeat(257);
    for kid in [
        long.as_str(),
        "\u{0}",
        "ed-1\n",
        "\u{1b}[31mred",
        "ed\u{7f}1",
    ] {
        let token = key.raw(&json!({ "alg": "EdDSA", "kid": kid }), &claims_at(T0));
        assert!(
            matches!(verifier.verify(&token).await, Err(AuthError::Malformed(_))),
            "{kid:?}"
        );
    }
    for kid in [
        json!(42),
        json!(null),
        json!(true),
        json!({}),
        json!(["ed-1"]),
    ] {
        let token = key.raw(&json!({ "alg": "EdDSA", "kid": kid }), &claims_at(T0));
        assert!(
            matches!(verifier.verify(&token).await, Err(AuthError::Malformed(_))),
            "{kid}"
        );
    }
    assert_eq!(server.hits(), 1, "a malformed kid never costs a fetch");
    for kid in ["../../etc/passwd", &"k".repeat(256), "ED-1", ""] {
        let token = key.raw(&json!({ "alg": "EdDSA", "kid": kid }), &claims_at(T0));
        let refused = verifier.verify(&token).await;
        assert!(
            matches!(
                refused,
                Err(AuthError::UnknownKey | AuthError::KeysUnavailable)
            ),
            "{kid:?}: {refused:?}"
        );
    }
    assert_eq!(
        server.hits(),
        2,
        "unknown kids share one rate-limited refresh"
    );
}

#[tokio::test]
async fn an_oversized_token_is_refused() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let big = with(claims_at(T0), "padding", Some(json!("x".repeat(5800))));
    let token = key.mint(&big);
    assert!(token.len() <= 8192, "{}", token.len());
    assert!(verifier.verify(&token).await.is_ok());
    let bigger = with(claims_at(T0), "padding", Some(json!("x".repeat(6200))));
    let token = key.mint(&bigger);
    assert!(token.len() > 8192);
    assert_eq!(
        verifier.verify(&token).await,
        Err(AuthError::Malformed("the token is larger than 8 KiB"))
    );
}

#[tokio::test]
async fn tokens_without_exactly_three_segments_are_refused() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let good = key.mint(&claims_at(T0));
    let parts: Vec<&str> = good.split('.').collect();
    let cases = [
        format!("{}.{}", parts[0], parts[1]),
        format!("{good}.{}", parts[2]),
        format!("{}.{}.{}.{}", parts[0], parts[1], parts[1], parts[2]),
        parts[0].to_owned(),
        "..".to_owned(),
        format!("{}..{}", parts[0], parts[2]),
    ];
    for token in cases {
        assert!(
            matches!(verifier.verify(&token).await, Err(AuthError::Malformed(_))),
            "{token}"
        );
    }
    assert_eq!(verifier.verify("").await, Err(AuthError::Missing));
}

#[tokio::test]
async fn segments_that_are_not_unpadded_base64url_are_refused() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let good = key.mint(&claims_at(T0));
    let parts: Vec<&str> = good.split('.').collect();
    let cases = [
        format!("{}+.{}.{}", parts[0], parts[1], parts[2]),
        format!("{}/.{}.{}", parts[0], parts[1], parts[2]),
        format!("{}==.{}.{}", parts[0], parts[1], parts[2]),
        format!("{}.{}*.{}", parts[0], parts[1], parts[2]),
        format!("{}.{}.{}=", parts[0], parts[1], parts[2]),
        format!("{} .{}.{}", parts[0], parts[1], parts[2]),
        format!("{}.{}.{}\u{e9}", parts[0], parts[1], parts[2]),
        // Alphabet right, length impossible for base64 (4n + 1).
        format!("{}.{}.{}", "eyJhbGciOiJFZERTQSJ9a", parts[1], parts[2]),
    ];
    for token in cases {
        assert!(
            matches!(verifier.verify(&token).await, Err(AuthError::Malformed(_))),
            "{token}"
        );
    }
}

#[tokio::test]
async fn a_header_that_is_not_a_json_object_with_a_string_alg_is_refused() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let sign = |m: &[u8]| {
        use ed25519_dalek::Signer as _;
        key.key.sign(m).to_bytes().to_vec()
    };
    for header in [
        "not json",
        "[1,2]",
        "\"EdDSA\"",
        "{\"kid\":\"ed-1\"}",
        "{\"alg\":5,\"kid\":\"ed-1\"}",
        "{\"alg\":\"EdDSA\"",
    ] {
        let token = raw_token(header, &claims_at(T0), sign);
        assert!(
            matches!(verifier.verify(&token).await, Err(AuthError::Malformed(_))),
            "{header}"
        );
    }
    let not_utf8 = format!(
        "{}.{}.{}",
        b64([0xff, 0xfe, 0x7b]),
        b64("{}"),
        b64([1u8; 64])
    );
    assert!(matches!(
        verifier.verify(&not_utf8).await,
        Err(AuthError::Malformed(_))
    ));
}

#[tokio::test]
async fn a_crit_header_is_refused() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let header = json!({ "alg": "EdDSA", "kid": "ed-1", "crit": ["exp"] });
    let token = key.raw(&header, &claims_at(T0));
    assert!(matches!(
        verifier.verify(&token).await,
        Err(AuthError::Malformed(_))
    ));
}

#[tokio::test]
async fn jku_x5u_jwk_and_x5c_headers_are_never_fetched_or_trusted() {
    let clock = TestClock::new();
    let (key, attacker) = (EdKey::new("ed-1"), EdKey::new("attacker"));
    let keys = KeyServer::start(jwks(&[key.jwk()])).await;
    let trap = KeyServer::start(jwks(&[attacker.jwk()])).await;
    let verifier = remote(&keys, &clock);
    let header = |kid: Option<&str>| {
        let mut h = json!({
            "alg": "EdDSA",
            "jku": trap.url,
            "x5u": trap.url,
            "jwk": attacker.jwk(),
            "x5c": [base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                b"no cert",
            )],
        });
        if let Some(kid) = kid {
            h["kid"] = json!(kid);
        }
        h
    };
    let sign = |h: Value, k: &EdKey| k.raw(&h, &claims_at(T0));
    let own_kid = sign(header(Some("attacker")), &attacker);
    assert_eq!(verifier.verify(&own_kid).await, Err(AuthError::UnknownKey));
    let stolen_kid = sign(header(Some("ed-1")), &attacker);
    assert_eq!(
        verifier.verify(&stolen_kid).await,
        Err(AuthError::BadSignature)
    );
    let no_kid = sign(header(None), &attacker);
    assert_eq!(verifier.verify(&no_kid).await, Err(AuthError::BadSignature));
    // The members are ignored, not held against a genuine token.
    let genuine = sign(header(Some("ed-1")), &key);
    assert!(verifier.verify(&genuine).await.is_ok());
    assert_eq!(trap.hits(), 0);
    assert_eq!(keys.hits(), 1);
}
