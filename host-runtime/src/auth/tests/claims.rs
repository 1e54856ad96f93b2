//! The install token claim checks: types, leeway boundaries, issuer, audience.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::*;
use crate::auth::*;

async fn verify_claims(claims: &Value) -> Result<Claims, AuthError> {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    inline(jwks(&[key.jwk()]), &clock)
        .verify(&key.mint(claims))
        .await
}

#[tokio::test]
async fn missing_exp_or_iat_is_refused() {
    for claim in ["exp", "iat"] {
        let claims = with(claims_at(T0), claim, None);
        assert!(
            matches!(verify_claims(&claims).await, Err(AuthError::BadClaims(_))),
            "{claim}"
        );
    }
}

#[tokio::test]
async fn times_must_be_json_integers() {
    let cases = [
        ("exp", json!("1800003600")),
        ("exp", json!(1_800_003_600.0)),
        ("exp", json!(1.8000036e9)),
        ("exp", json!(true)),
        ("exp", json!(null)),
        ("exp", json!(u64::MAX)),
        ("nbf", json!("1800000000")),
        ("nbf", json!(1_800_000_000.5)),
        ("nbf", json!(1_800_000_000.0)),
        ("nbf", json!(null)),
        ("iat", json!(1_800_000_000.0)),
        ("iat", json!("now")),
    ];
    for (claim, value) in cases {
        let claims = with(claims_at(T0), claim, Some(value.clone()));
        assert!(
            matches!(verify_claims(&claims).await, Err(AuthError::BadClaims(_))),
            "{claim}: {value}"
        );
    }
}

#[tokio::test]
async fn exp_is_inclusive_at_the_leeway_boundary() {
    let at_boundary = with(claims_at(T0 - 3600), "exp", Some(json!(T0 - 60)));
    assert!(verify_claims(&at_boundary).await.is_ok());
    let past = with(claims_at(T0 - 3600), "exp", Some(json!(T0 - 61)));
    assert_eq!(verify_claims(&past).await, Err(AuthError::Expired));
    let near_overflow = with(claims_at(T0), "exp", Some(json!(i64::MAX)));
    assert!(verify_claims(&near_overflow).await.is_ok());
}

#[tokio::test]
async fn nbf_is_inclusive_at_the_leeway_boundary() {
    let at_boundary = with(claims_at(T0), "nbf", Some(json!(T0 + 60)));
    assert_eq!(
        verify_claims(&at_boundary).await.unwrap().nbf,
        Some(T0 + 60)
    );
    let ahead = with(claims_at(T0), "nbf", Some(json!(T0 + 61)));
    assert_eq!(verify_claims(&ahead).await, Err(AuthError::NotYetValid));
    let near_underflow = with(claims_at(T0), "nbf", Some(json!(i64::MIN)));
    assert!(verify_claims(&near_underflow).await.is_ok());
}

#[tokio::test]
async fn the_leeway_is_configurable() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let options = VerifyOptions::new(EXT)
        .with_keys(KeySource::Inline(jwks(&[key.jwk()])))
        .with_leeway(Duration::ZERO);
    let verifier = Verifier::with_clock(options, clock.clock());
    let now = with(claims_at(T0 - 3600), "exp", Some(json!(T0)));
    assert!(verifier.verify(&key.mint(&now)).await.is_ok());
    let past = with(claims_at(T0 - 3600), "exp", Some(json!(T0 - 1)));
    assert_eq!(
        verifier.verify(&key.mint(&past)).await,
        Err(AuthError::Expired)
    );
}

#[tokio::test]
async fn the_issuer_must_be_the_configured_one() {
    let evil = with(
        claims_at(T0),
        "iss",
        Some(json!("https://auth.evil.example")),
    );
    assert_eq!(verify_claims(&evil).await, Err(AuthError::WrongIssuer));
    let trailing_slash = with(
        claims_at(T0),
        "iss",
        Some(json!("https://auth.host.example/")),
    );
    assert_eq!(
        verify_claims(&trailing_slash).await,
        Err(AuthError::WrongIssuer)
    );
    for value in [
        None,
        Some(json!(5)),
        Some(json!(["https://auth.host.example"])),
    ] {
        let claims = with(claims_at(T0), "iss", value);
        assert!(matches!(
            verify_claims(&claims).await,
            Err(AuthError::BadClaims(_))
        ));
    }
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let options = VerifyOptions::new(EXT)
        .with_keys(KeySource::Inline(jwks(&[key.jwk()])))
        .with_issuer("https://auth.staging.example");
    let verifier = Verifier::with_clock(options, clock.clock());
    let staging = with(
        claims_at(T0),
        "iss",
        Some(json!("https://auth.staging.example")),
    );
    assert!(verifier.verify(&key.mint(&staging)).await.is_ok());
    assert_eq!(
        verifier.verify(&key.mint(&claims_at(T0))).await,
        Err(AuthError::WrongIssuer)
    );
}

#[tokio::test]
async fn the_audience_must_name_the_extension() {
    let array = with(claims_at(T0), "aud", Some(json!(["other-extension", EXT])));
    assert_eq!(
        verify_claims(&array).await.unwrap().aud,
        vec!["other-extension".to_owned(), EXT.to_owned()]
    );
    for aud in [
        json!("other-extension"),
        json!(["a", "b"]),
        json!([]),
        json!("KEYWORD-TRACKER"),
    ] {
        let claims = with(claims_at(T0), "aud", Some(aud.clone()));
        assert_eq!(
            verify_claims(&claims).await,
            Err(AuthError::WrongAudience),
            "{aud}"
        );
    }
    for aud in [
        Some(json!([EXT, 5])),
        Some(json!(5)),
        Some(json!({ "aud": EXT })),
        None,
    ] {
        let claims = with(claims_at(T0), "aud", aud.clone());
        assert!(
            matches!(verify_claims(&claims).await, Err(AuthError::BadClaims(_))),
            "{aud:?}"
        );
    }
}

#[tokio::test]
async fn claim_types_are_checked_strictly() {
    let refused = [
        ("sub", None),
        ("sub", Some(json!(5))),
        ("organizationId", None),
        ("organizationId", Some(json!(null))),
        ("projectId", None),
        ("projectId", Some(json!(5))),
        ("generation", None),
        ("generation", Some(json!(-1))),
        ("generation", Some(json!(1.5))),
        ("generation", Some(json!("3"))),
        ("scopes", Some(json!("metrics:read"))),
        ("scopes", Some(json!([1]))),
        ("scopes", Some(json!(null))),
        ("jti", Some(json!(5))),
    ];
    for (claim, value) in refused {
        let claims = with(claims_at(T0), claim, value.clone());
        assert!(
            matches!(verify_claims(&claims).await, Err(AuthError::BadClaims(_))),
            "{claim}: {value:?}"
        );
    }
    let org_install = with(claims_at(T0), "projectId", Some(json!(null)));
    assert_eq!(verify_claims(&org_install).await.unwrap().project_id, None);
    let no_scopes = with(claims_at(T0), "scopes", None);
    assert_eq!(
        verify_claims(&no_scopes).await.unwrap().scopes,
        Vec::<String>::new()
    );
    let no_jti = with(claims_at(T0), "jti", None);
    assert_eq!(verify_claims(&no_jti).await.unwrap().jti, None);
    let first_generation = with(claims_at(T0), "generation", Some(json!(0)));
    assert_eq!(
        verify_claims(&first_generation).await.unwrap().generation,
        0
    );
    let unknown = with(
        claims_at(T0),
        "x-host-extra",
        Some(json!({ "nested": [1, 2] })),
    );
    assert!(verify_claims(&unknown).await.is_ok());
    // `jsonwebtoken` refuses a payload that is not an object before our checks see it.
    assert!(matches!(
        verify_claims(&json!([1, 2])).await,
        Err(AuthError::Malformed(_))
    ));
}
