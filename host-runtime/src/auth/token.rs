//! The shape of an install token, checked before any key is looked up: its size, the three base64url
//! segments of a compact JWS, and a header that is a JSON object with a supported `alg` and a bounded
//! `kid`.
//!
//! `none` in any spelling and every `HS*` are refused here, so no key is ever looked up for them. The
//! `jku`, `x5u`, `jwk` and `x5c` members are never read: keys come only from the configured key set.
//! Signatures and claims are checked elsewhere (`mod.rs`, `claims.rs`).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::AuthError;

/// The largest token accepted, in bytes.
pub(crate) const MAX_TOKEN_BYTES: usize = 8 * 1024;
/// The longest `kid` accepted, in characters.
pub(crate) const MAX_KID_CHARS: usize = 256;

/// The four signature algorithms an install token may use; the key decides which one applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PSS with SHA-256.
    PS256,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// Ed25519.
    EdDSA,
}

/// What the header says, once it passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenHeader {
    pub(crate) alg: Algorithm,
    pub(crate) kid: Option<String>,
}

/// Checks the size of `token`; the cheap first rule, run before the verified-token cache is consulted.
pub(crate) fn check_size(token: &str) -> Result<(), AuthError> {
    if token.is_empty() {
        return Err(AuthError::Missing);
    }
    if token.len() > MAX_TOKEN_BYTES {
        return Err(AuthError::Malformed("the token is larger than 8 KiB"));
    }
    Ok(())
}

/// The three segments of a compact JWS, split once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Segments<'a> {
    /// `header.payload`: what the signature covers.
    pub(crate) signing_input: &'a str,
    pub(crate) payload: &'a str,
    pub(crate) signature: &'a str,
}

/// Checks the shape of `token`, reads its header and returns it with the token's segments.
pub(crate) fn parse_header(token: &str) -> Result<(TokenHeader, Segments<'_>), AuthError> {
    check_size(token)?;
    let (header, segments) = segments(token)?;
    let bytes = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|_| AuthError::Malformed("the token header is not base64url"))?;
    let Ok(Value::Object(header)) = serde_json::from_slice::<Value>(&bytes) else {
        return Err(AuthError::Malformed(
            "the token header is not a JSON object",
        ));
    };
    // A critical extension must be understood or the token refused (RFC 7515 4.1.11); none is.
    if header.contains_key("crit") {
        return Err(AuthError::Malformed(
            "the token header names critical extensions (`crit`)",
        ));
    }
    let alg = match header.get("alg") {
        Some(Value::String(alg)) => algorithm(alg)?,
        _ => return Err(AuthError::Malformed("the token header has no string `alg`")),
    };
    let kid = match header.get("kid") {
        None => None,
        Some(Value::String(kid)) => Some(check_kid(kid)?.to_owned()),
        Some(_) => return Err(AuthError::Malformed("the token's `kid` is not a string")),
    };
    Ok((TokenHeader { alg, kid }, segments))
}

/// Splits a compact JWS into exactly three non-empty base64url segments: the header and the rest.
fn segments(token: &str) -> Result<(&str, Segments<'_>), AuthError> {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(AuthError::Malformed(
            "a token has exactly three `.`-separated segments",
        ));
    };
    for segment in [header, payload, signature] {
        if segment.is_empty() || !segment.bytes().all(is_base64url) {
            return Err(AuthError::Malformed(
                "a token segment is not unpadded base64url",
            ));
        }
    }
    let signing_input = &token[..header.len() + 1 + payload.len()];
    Ok((
        header,
        Segments {
            signing_input,
            payload,
            signature,
        },
    ))
}

fn is_base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

impl Algorithm {
    /// Every accepted algorithm.
    const ALL: [Algorithm; 4] = [
        Algorithm::RS256,
        Algorithm::PS256,
        Algorithm::ES256,
        Algorithm::EdDSA,
    ];

    /// The algorithm's JWS name, as a token's header spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Algorithm::RS256 => "RS256",
            Algorithm::PS256 => "PS256",
            Algorithm::ES256 => "ES256",
            Algorithm::EdDSA => "EdDSA",
        }
    }
}

/// The four accepted algorithms, spelled exactly (JWS names are case-sensitive). `none`, `None`, `NONE`,
/// `HS256` and everything else fall through to the refusal.
fn algorithm(alg: &str) -> Result<Algorithm, AuthError> {
    Algorithm::ALL
        .into_iter()
        .find(|a| a.name() == alg)
        .ok_or(AuthError::UnsupportedAlgorithm)
}

/// A `kid` is at most 256 characters and holds no control characters; anything else cannot name a
/// key of a sane key set, so it is refused without a key set refresh.
fn check_kid(kid: &str) -> Result<&str, AuthError> {
    if kid.chars().count() > MAX_KID_CHARS {
        return Err(AuthError::Malformed(
            "the token's `kid` is longer than 256 characters",
        ));
    }
    if kid.chars().any(char::is_control) {
        return Err(AuthError::Malformed(
            "the token's `kid` holds control characters",
        ));
    }
    Ok(kid)
}
