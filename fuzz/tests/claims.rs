//! The `token_claims` target's generator and oracle: an empty input is a token the rules accept,
//! the oracle says what the host-runtime claim tests say at their boundaries, and a few thousand
//! generated cases run through the target without a disagreement.

use arbitrary::Unstructured;
use host_sdk_fuzz::claims::{self, Defect, Json};

const NOW: i64 = 1_800_000_000;

fn empty() -> claims::Case {
    claims::case(&mut Unstructured::new(&[]), NOW).unwrap_or_else(|e| unreachable!("{e}"))
}

fn with(mut case: claims::Case, name: &str, value: Option<Json>) -> claims::Case {
    let at = claims::CLAIMS
        .iter()
        .position(|c| *c == name)
        .unwrap_or_else(|| unreachable!("no claim {name}"));
    case.claims[at] = value;
    case
}

fn defects(case: &claims::Case) -> Vec<Defect> {
    claims::judge(case, 100, NOW).defects
}

#[test]
fn an_empty_input_is_a_token_the_rules_accept() {
    let case = empty();
    let judged = claims::judge(&case, 100, NOW);
    assert_eq!(judged.defects, vec![]);
    let accepted = judged.claims.unwrap_or_else(|| unreachable!());
    assert_eq!(accepted.aud, vec!["keyword-tracker".to_owned()]);
    assert_eq!(accepted.exp, NOW + 3600);
    assert_eq!(accepted.nbf, None);
    host_sdk_fuzz::targets::token_claims(&[]);
}

#[test]
fn the_oracle_keeps_the_leeway_boundaries_inclusive() {
    let exp = |t: i64| with(empty(), "exp", Some(Json::Int(t.into())));
    assert_eq!(defects(&exp(NOW - 60)), vec![]);
    assert_eq!(defects(&exp(NOW - 61)), vec![Defect::Expired]);
    assert_eq!(defects(&exp(i64::MAX)), vec![]);
    let nbf = |t: i64| with(empty(), "nbf", Some(Json::Int(t.into())));
    assert_eq!(defects(&nbf(NOW + 60)), vec![]);
    assert_eq!(defects(&nbf(NOW + 61)), vec![Defect::NotYetValid]);
    assert_eq!(defects(&nbf(i64::MIN)), vec![]);
}

#[test]
fn the_oracle_types_claims_strictly() {
    let refused = [
        ("exp", Some(Json::Float(1_800_003_600.0))),
        ("exp", Some(Json::Str("1800003600".to_owned()))),
        ("exp", Some(Json::Int(u64::MAX.into()))),
        ("nbf", Some(Json::Null)),
        ("iat", None),
        ("sub", Some(Json::Int(5))),
        ("organizationId", Some(Json::Null)),
        ("projectId", None),
        ("generation", Some(Json::Int(-1))),
        ("generation", Some(Json::Float(3.0))),
        ("scopes", Some(Json::Null)),
        ("scopes", Some(Json::Array(vec![Json::Int(1)]))),
        ("jti", Some(Json::Int(5))),
        (
            "aud",
            Some(Json::Array(vec![
                Json::Str("keyword-tracker".to_owned()),
                Json::Int(5),
            ])),
        ),
    ];
    for (claim, value) in refused {
        let case = with(empty(), claim, value.clone());
        assert!(
            matches!(defects(&case).as_slice(), [Defect::Bad(c)] if *c == claim),
            "{claim}: {value:?}: {:?}",
            defects(&case)
        );
    }
    let accepted = [
        ("projectId", Some(Json::Null)),
        ("scopes", None),
        ("jti", None),
        ("generation", Some(Json::Int(0))),
        ("generation", Some(Json::Int(u64::MAX.into()))),
    ];
    for (claim, value) in accepted {
        assert_eq!(
            defects(&with(empty(), claim, value.clone())),
            vec![],
            "{claim}: {value:?}"
        );
    }
    let wrong_issuer = with(
        empty(),
        "iss",
        Some(Json::Str("https://auth.host.example/".to_owned())),
    );
    assert_eq!(defects(&wrong_issuer), vec![Defect::WrongIssuer]);
    let wrong_audience = with(
        empty(),
        "aud",
        Some(Json::Str("KEYWORD-TRACKER".to_owned())),
    );
    assert_eq!(defects(&wrong_audience), vec![Defect::WrongAudience]);
    assert_eq!(
        claims::judge(&empty(), claims::MAX_TOKEN_BYTES + 1, NOW).defects,
        vec![Defect::Malformed]
    );
}

/// Bytes from a fixed xorshift sequence, so that the sweep is the same on every run.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[3]
        })
        .collect()
}

#[test]
fn generated_cases_agree_with_the_verifier() {
    for seed in 0..400u64 {
        let len = usize::try_from(seed % 200).unwrap_or(0);
        host_sdk_fuzz::targets::token_claims(&bytes(seed, len));
    }
}
