//! Valid tokens of each algorithm, the `Authorization` header, and the refusals as host errors.

use http::HeaderValue;
use serde_json::json;

use super::support::*;
use crate::auth::*;
use crate::calls::error::ErrorCode;

#[tokio::test]
async fn a_valid_eddsa_token_yields_its_claims() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let payload = claims_at(T0);
    let claims = verifier.verify(&key.mint(&payload)).await.unwrap();
    assert_eq!(
        claims,
        Claims {
            iss: DEFAULT_ISSUER.to_owned(),
            aud: vec![EXT.to_owned()],
            sub: "ins_1".to_owned(),
            iat: T0,
            exp: T0 + 3600,
            nbf: None,
            jti: payload["jti"].as_str().map(str::to_owned),
            organization_id: "org_1".to_owned(),
            project_id: Some("prj_1".to_owned()),
            generation: 3,
            scopes: vec!["metrics:read".to_owned(), "alerts:write".to_owned()],
        }
    );
}

#[tokio::test]
async fn rs256_and_ps256_tokens_verify_with_rsa_keys() {
    let clock = TestClock::new();
    let verifier = inline(
        jwks(&[rsa_jwk("rsa-1", None), rsa_jwk("rsa-pss", Some("PS256"))]),
        &clock,
    );
    let rs = mint("RS256", Some("rsa-1"), &claims_at(T0), &rsa_encoding());
    assert_eq!(verifier.verify(&rs).await.unwrap().sub, "ins_1");
    let ps = mint("PS256", Some("rsa-pss"), &claims_at(T0), &rsa_encoding());
    assert_eq!(verifier.verify(&ps).await.unwrap().sub, "ins_1");
    // The same RSA key material, but each entry is fixed to one algorithm.
    let ps_for_rs = mint("PS256", Some("rsa-1"), &claims_at(T0), &rsa_encoding());
    assert_eq!(
        verifier.verify(&ps_for_rs).await,
        Err(AuthError::AlgorithmMismatch)
    );
    let rs_for_ps = mint("RS256", Some("rsa-pss"), &claims_at(T0), &rsa_encoding());
    assert_eq!(
        verifier.verify(&rs_for_ps).await,
        Err(AuthError::AlgorithmMismatch)
    );
}

#[tokio::test]
async fn es256_tokens_verify_with_p256_keys() {
    let clock = TestClock::new();
    let verifier = inline(jwks(&[ec_jwk("ec-1")]), &clock);
    let token = mint("ES256", Some("ec-1"), &claims_at(T0), &ec_encoding());
    assert_eq!(
        verifier.verify(&token).await.unwrap().organization_id,
        "org_1"
    );
}

#[tokio::test]
async fn verify_host_token_builds_a_one_off_verifier() {
    let key = EdKey::new("ed-1");
    let now = crate::auth::system_now();
    let options = VerifyOptions::new(EXT).with_keys(KeySource::Inline(jwks(&[key.jwk()])));
    let claims = verify_host_token(&key.mint(&claims_at(now)), options.clone())
        .await
        .unwrap();
    assert_eq!(claims.sub, "ins_1");
    let old = with(claims_at(now - 7200), "exp", Some(json!(now - 3600)));
    assert_eq!(
        verify_host_token(&key.mint(&old), options).await,
        Err(AuthError::Expired)
    );
}

#[tokio::test]
async fn verify_authorization_reads_a_bearer_token() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let token = key.mint(&claims_at(T0));
    assert_eq!(
        verifier.verify_authorization(None).await,
        Err(AuthError::Missing)
    );
    for value in [
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer   ",
        "Token abc",
        "Bearertoken",
    ] {
        let header = HeaderValue::from_str(value).unwrap();
        let result = verifier.verify_authorization(Some(&header)).await;
        assert!(
            matches!(result, Err(AuthError::Malformed(_))),
            "{value}: {result:?}"
        );
    }
    let not_ascii = HeaderValue::from_bytes(b"Bearer \xff\xfe").unwrap();
    assert!(matches!(
        verifier.verify_authorization(Some(&not_ascii)).await,
        Err(AuthError::Malformed(_))
    ));
    for value in [
        format!("Bearer {token}"),
        format!("bearer {token}"),
        format!("BEARER  {token}"),
    ] {
        let header = HeaderValue::from_str(&value).unwrap();
        assert_eq!(
            verifier
                .verify_authorization(Some(&header))
                .await
                .unwrap()
                .sub,
            "ins_1"
        );
    }
    let wrong = HeaderValue::from_str(&format!(
        "Bearer {}",
        EdKey::new("ed-1").mint(&claims_at(T0))
    ))
    .unwrap();
    assert_eq!(
        verifier.verify_authorization(Some(&wrong)).await,
        Err(AuthError::BadSignature)
    );
}

#[test]
fn the_verifier_and_its_futures_are_send_and_sync() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: T) {}
    let verifier = Verifier::new(VerifyOptions::new(EXT));
    send_sync(&verifier);
    send(verifier.verify("token"));
    send(verifier.verify_authorization(None));
}

#[tokio::test]
async fn every_refusal_is_a_401_that_never_echoes_the_token() {
    let all = [
        AuthError::Missing,
        AuthError::Malformed("the token header is not base64url"),
        AuthError::UnsupportedAlgorithm,
        AuthError::AlgorithmMismatch,
        AuthError::UnknownKey,
        AuthError::NoKeys,
        AuthError::BadSignature,
        AuthError::Expired,
        AuthError::NotYetValid,
        AuthError::WrongIssuer,
        AuthError::WrongAudience,
        AuthError::BadClaims("`sub` is missing or not a string"),
    ];
    for e in &all {
        let host = e.to_host_error();
        assert_eq!(host.error_code(), Some(ErrorCode::Unauthorized));
        assert_eq!(host.status(), 401);
        assert!(
            host.message().starts_with("install token refused: "),
            "{}",
            host.message()
        );
    }
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    let expired = key.mint(&with(claims_at(T0 - 7200), "exp", Some(json!(T0 - 3600))));
    let err = verifier.verify(&expired).await.unwrap_err();
    let message = err.to_host_error().message().to_owned();
    for part in expired.split('.') {
        assert!(!message.contains(part));
    }
    assert!(!message.contains(&key.x()));
}
