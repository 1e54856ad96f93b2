//! The algorithm is fixed by the key: `none`, `HS*`, `oct` entries and mismatches are refused.

use super::super::token::Algorithm;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

use super::support::*;
use crate::auth::jwks::KeySet;
use crate::auth::*;

#[tokio::test]
async fn alg_none_is_refused_in_any_case() {
    let clock = TestClock::new();
    let key = EdKey::new("ed-1");
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    for alg in ["none", "None", "NONE", "nOnE"] {
        let header = json!({ "alg": alg, "kid": "ed-1", "typ": "JWT" });
        // Signed anyway (even with the right key), so only the algorithm can be the reason.
        let signed = key.raw(&header, &claims_at(T0));
        assert_eq!(
            verifier.verify(&signed).await,
            Err(AuthError::UnsupportedAlgorithm),
            "{alg}"
        );
        // The classic form, with an empty signature.
        let unsigned = raw_token(&header.to_string(), &claims_at(T0), |_| Vec::new());
        assert!(unsigned.ends_with('.'));
        assert!(verifier.verify(&unsigned).await.is_err(), "{alg}");
    }
}

#[tokio::test]
async fn hmac_signed_with_the_public_key_is_refused() {
    let clock = TestClock::new();
    let ed = EdKey::new("ed-1");
    let rsa = rsa_jwk("rsa-1", None);
    let verifier = inline(jwks(&[ed.jwk(), rsa.clone()]), &clock);
    let secrets: [(&str, Vec<u8>); 4] = [
        ("ed-1", ed.key.verifying_key().as_bytes().to_vec()),
        ("ed-1", ed.jwk().to_string().into_bytes()),
        ("rsa-1", RSA_N.as_bytes().to_vec()),
        ("rsa-1", rsa.to_string().into_bytes()),
    ];
    for (kid, secret) in secrets {
        for alg in ["HS256", "HS384", "HS512"] {
            let token = mint(
                alg,
                Some(kid),
                &claims_at(T0),
                &TestSigner::Secret(secret.clone()),
            );
            assert_eq!(
                verifier.verify(&token).await,
                Err(AuthError::UnsupportedAlgorithm),
                "{alg:?} {kid}"
            );
        }
    }
}

#[tokio::test]
async fn oct_entries_of_the_key_set_are_never_used() {
    let clock = TestClock::new();
    let ed = EdKey::new("ed-1");
    let oct = json!({ "kty": "oct", "k": b64("shared secret"), "kid": "shared", "alg": "HS256" });
    assert_eq!(
        KeySet::from_document(&jwks(std::slice::from_ref(&oct)))
            .unwrap()
            .len(),
        0
    );
    let verifier = inline(jwks(&[oct, ed.jwk()]), &clock);
    let hs = mint(
        "HS256",
        Some("shared"),
        &claims_at(T0),
        &TestSigner::Secret(b"shared secret".to_vec()),
    );
    assert_eq!(
        verifier.verify(&hs).await,
        Err(AuthError::UnsupportedAlgorithm)
    );
    // Even with an accepted algorithm, the `oct` entry's kid names no key.
    let ed_as_shared = ed.mint_as(Some("shared"), &claims_at(T0));
    assert_eq!(
        verifier.verify(&ed_as_shared).await,
        Err(AuthError::UnknownKey)
    );
}

#[tokio::test]
async fn a_header_algorithm_other_than_the_keys_is_refused() {
    let clock = TestClock::new();
    let ed = EdKey::new("ed-1");
    let verifier = inline(
        jwks(&[ed.jwk(), rsa_jwk("rsa-1", None), ec_jwk("ec-1")]),
        &clock,
    );
    let rs_for_ed = mint("RS256", Some("ed-1"), &claims_at(T0), &rsa_encoding());
    assert_eq!(
        verifier.verify(&rs_for_ed).await,
        Err(AuthError::AlgorithmMismatch)
    );
    let es_for_rsa = mint("ES256", Some("rsa-1"), &claims_at(T0), &ec_encoding());
    assert_eq!(
        verifier.verify(&es_for_rsa).await,
        Err(AuthError::AlgorithmMismatch)
    );
    let ed_for_ec = ed.mint_as(Some("ec-1"), &claims_at(T0));
    assert_eq!(
        verifier.verify(&ed_for_ec).await,
        Err(AuthError::AlgorithmMismatch)
    );
}

#[test]
fn each_key_set_entry_is_fixed_to_one_algorithm() {
    let ed = EdKey::new("ed-1");
    let mut entries = vec![
        rsa_jwk("rsa", None),
        rsa_jwk("rsa-ps", Some("PS256")),
        ec_jwk("ec"),
        ed.jwk(),
    ];
    let ignored = [
        rsa_jwk("rsa-512", Some("RS512")),
        rsa_jwk("rsa-oaep", Some("RSA-OAEP")),
        json!({ "kty": "RSA", "n": RSA_N, "e": RSA_E, "kid": "rsa-enc", "use": "enc" }),
        json!({ "kty": "EC", "crv": "P-384", "x": EC_X, "y": EC_Y, "kid": "p384" }),
        json!({ "kty": "EC", "crv": "P-256", "x": EC_X, "y": EC_Y, "kid": "ec-384", "alg": "ES384" }),
        json!({ "kty": "EC", "crv": "P-256", "x": b64([1u8; 31]), "y": EC_Y, "kid": "ec-short" }),
        json!({ "kty": "OKP", "crv": "X25519", "x": ed.x(), "kid": "x25519" }),
        json!({ "kty": "OKP", "crv": "Ed448", "x": ed.x(), "kid": "ed448" }),
        json!({ "kty": "OKP", "crv": "Ed25519", "x": b64([7u8; 16]), "kid": "ed-short" }),
        json!({ "kty": "OKP", "crv": "Ed25519", "x": ed.x(), "kid": "ed-hs", "alg": "HS256" }),
        json!({ "kty": "oct", "k": b64("k"), "kid": "oct" }),
        json!({ "n": RSA_N, "e": RSA_E, "kid": "no-kty" }),
        json!({ "kty": "OKP", "crv": "Ed25519", "x": ed.x(), "kid": 7 }),
        json!("not an object"),
    ];
    entries.extend(ignored);
    let set = KeySet::from_document(&jwks(&entries)).unwrap();
    assert_eq!(set.len(), 4);
    assert_eq!(
        set.find(Algorithm::RS256, Some("rsa")).unwrap().id.alg,
        Algorithm::RS256
    );
    assert_eq!(
        set.find(Algorithm::PS256, Some("rsa-ps")).unwrap().id.alg,
        Algorithm::PS256
    );
    assert_eq!(
        set.find(Algorithm::ES256, Some("ec")).unwrap().id.alg,
        Algorithm::ES256
    );
    assert_eq!(
        set.find(Algorithm::EdDSA, Some("ed-1")).unwrap().id.alg,
        Algorithm::EdDSA
    );
    assert_eq!(
        set.find(Algorithm::PS256, Some("rsa")).err(),
        Some(AuthError::AlgorithmMismatch)
    );
    assert_eq!(
        set.find(Algorithm::RS256, Some("rsa-512")).err(),
        Some(AuthError::UnknownKey)
    );
    assert!(KeySet::from_document(&json!({ "keys": 5 })).is_err());
    assert!(KeySet::from_document(&json!([])).is_err());
}

#[tokio::test]
async fn a_malformed_ed25519_key_in_the_set_cannot_panic_the_verifier() {
    let clock = TestClock::new();
    let ed = EdKey::new("short");
    let short = json!({ "kty": "OKP", "crv": "Ed25519", "x": b64([7u8; 16]), "kid": "short" });
    let verifier = inline(jwks(&[short]), &clock);
    assert_eq!(
        verifier.verify(&ed.mint(&claims_at(T0))).await,
        Err(AuthError::NoKeys)
    );
}

#[tokio::test]
async fn a_token_without_kid_uses_the_only_key_of_its_algorithm() {
    let clock = TestClock::new();
    let (a, b) = (EdKey::new("ed-a"), EdKey::new("ed-b"));
    let one = inline(jwks(&[a.jwk(), rsa_jwk("rsa-1", None)]), &clock);
    assert!(one.verify(&a.mint_as(None, &claims_at(T0))).await.is_ok());
    assert_eq!(
        one.verify(&b.mint_as(None, &claims_at(T0))).await,
        Err(AuthError::BadSignature)
    );
    let two = inline(jwks(&[a.jwk(), b.jwk()]), &clock);
    assert_eq!(
        two.verify(&a.mint_as(None, &claims_at(T0))).await,
        Err(AuthError::UnknownKey)
    );
}

#[tokio::test]
async fn a_bad_signature_is_refused() {
    let clock = TestClock::new();
    let (key, other) = (EdKey::new("ed-1"), EdKey::new("ed-1"));
    let verifier = inline(jwks(&[key.jwk()]), &clock);
    assert_eq!(
        verifier.verify(&other.mint(&claims_at(T0))).await,
        Err(AuthError::BadSignature)
    );
    // A payload swapped under a valid signature.
    let good = key.mint(&claims_at(T0));
    let forged = key.mint(&with(claims_at(T0), "sub", Some(json!("ins_victim"))));
    let parts: Vec<&str> = good.split('.').collect();
    let forged_payload = forged.split('.').nth(1).unwrap();
    let swapped = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
    assert_eq!(
        verifier.verify(&swapped).await,
        Err(AuthError::BadSignature)
    );
    let truncated = &good[..good.len() - 8];
    assert!(verifier.verify(truncated).await.is_err());
}

/// Public moduli of a 1,024-bit and a 512-bit RSA key (`openssl genrsa -traditional`), and a token each
/// signed with `openssl dgst -sha256 -sign` over claims valid at `T0`: real signatures, so only the
/// key-size rule stands between them and a verified call.
const WEAK_1024_N: &str = "3PxyoV87ma13-jKPp2sMv2vh1SlFUb3E4pnz2GtDbQC8x9-We7qm5Wkp5pm990dVVLrnAavvzyPKbSD9-G569Fl2gEA7a-N51q4uJBFigjDYB0YYFV0JErw2mwGmiI_vxC-JM9W-uKRKoiWuNJyO04Gt2sM35Ee5c0vH9L7_g5E";
const WEAK_1024_TOKEN: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IndlYWstMTAyNCJ9.eyJpc3MiOiJodHRwczovL2F1dGguaG9zdC5leGFtcGxlIiwiYXVkIjoia2V5d29yZC10cmFja2VyIiwic3ViIjoiaW5zXzEiLCJpYXQiOjE4MDAwMDAwMDAsImV4cCI6MTgwMDAwMzYwMCwib3JnYW5pemF0aW9uSWQiOiJvcmdfMSIsInByb2plY3RJZCI6InByal8xIiwiZ2VuZXJhdGlvbiI6Mywic2NvcGVzIjpbIm1ldHJpY3M6cmVhZCIsImFsZXJ0czp3cml0ZSJdLCJqdGkiOiJ0b2tfd2Vha18xMDI0In0.D0pAS3lqqyaFC_O2OibVbulrcog9F1Z43Z7BHrwQhE6BaDFfealL1Vypnu9U__d16oUUucHSLYwdiVApYvRNTrdIREtlVvCGfDMclqTbhNFEJQZsxcnFg1B5SRk84Rre2vspEhcFp50YgizuvXObd0BBUKyBtOvGODBaZiUiaLw";
const WEAK_512_N: &str =
    "7Ie4kIuSmajtb_MLeApIpEqTrV9q52xBSCNs_E5fA2nW8sTcS3HAYHBXHoY8upDI54CZoBl2o9_CmZ-LZIM7JQ";
const WEAK_512_TOKEN: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IndlYWstNTEyIn0.eyJpc3MiOiJodHRwczovL2F1dGguaG9zdC5leGFtcGxlIiwiYXVkIjoia2V5d29yZC10cmFja2VyIiwic3ViIjoiaW5zXzEiLCJpYXQiOjE4MDAwMDAwMDAsImV4cCI6MTgwMDAwMzYwMCwib3JnYW5pemF0aW9uSWQiOiJvcmdfMSIsInByb2plY3RJZCI6InByal8xIiwiZ2VuZXJhdGlvbiI6Mywic2NvcGVzIjpbIm1ldHJpY3M6cmVhZCIsImFsZXJ0czp3cml0ZSJdLCJqdGkiOiJ0b2tfd2Vha181MTIifQ.1TT3-2WdVSgE5wroOCLWyeSRPetER5V5S33wdiqmJYHF3N77hKmj4w7yhItzNbG5fZ33oLOmFPXPM0DcakbPYw";

#[tokio::test]
async fn tokens_signed_with_rsa_keys_under_2048_bits_are_refused() {
    let clock = TestClock::new();
    let ed = EdKey::new("ed-1");
    for (bits, n, token) in [
        (1024, WEAK_1024_N, WEAK_1024_TOKEN),
        (512, WEAK_512_N, WEAK_512_TOKEN),
    ] {
        let kid = format!("weak-{bits}");
        let weak = json!({ "kty": "RSA", "n": n, "e": RSA_E, "kid": kid });
        assert_eq!(
            KeySet::from_document(&jwks(std::slice::from_ref(&weak)))
                .unwrap()
                .len(),
            0,
            "a {bits}-bit key is not usable"
        );
        // Leading zero bytes do not make a short modulus long enough.
        let padded = {
            let mut bytes = vec![0u8; 160];
            bytes.extend(URL_SAFE_NO_PAD.decode(n).unwrap());
            json!({ "kty": "RSA", "n": b64(bytes), "e": RSA_E, "kid": kid })
        };
        let verifier = inline(jwks(&[weak, padded, ed.jwk()]), &clock);
        assert_eq!(
            verifier.verify(token).await,
            Err(AuthError::UnknownKey),
            "{bits} bits"
        );
    }
    // The 2,048-bit test key still verifies.
    let verifier = inline(jwks(&[rsa_jwk("rsa-1", None)]), &clock);
    let token = mint("RS256", Some("rsa-1"), &claims_at(T0), &rsa_encoding());
    assert!(verifier.verify(&token).await.is_ok());
}
