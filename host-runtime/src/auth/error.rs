//! Why an install token was refused, and the `UNAUTHORIZED` (401) answer the host reads.
//!
//! Messages name the rule that failed and never echo the token, a claim value or key material: they
//! reach the owner's screen and the vendor's logs.

use std::fmt;

use crate::calls::error::{ErrorCode, HostError};

/// Why an install token was refused. Every variant answers `UNAUTHORIZED` (401), except that on the
/// event route [`AuthError::KeysUnavailable`] and [`AuthError::NoKeys`] answer a retryable
/// `503 KEYS_UNAVAILABLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// No `Authorization` header, or an empty token.
    Missing,
    /// The header or token is not a well-formed `Bearer` compact JWS (the reason says which rule).
    Malformed(&'static str),
    /// The token's `alg` is `none`, `HS*` or anything else outside `RS256`, `PS256`, `ES256`, `EdDSA`.
    UnsupportedAlgorithm,
    /// The token's `alg` differs from the algorithm its key is fixed to.
    AlgorithmMismatch,
    /// No key of the host's key set matches the token's `kid` (after one refresh).
    UnknownKey,
    /// The host's key set could not be loaded, has expired or holds no usable key.
    NoKeys,
    /// The token's key is not among the keys this server has, and the key set could not be fetched
    /// again just now (unreachable, or fetched moments ago): the token may be good. On the event
    /// route this is a retryable `503 KEYS_UNAVAILABLE`, so that no delivery is lost to it.
    KeysUnavailable,
    /// The signature does not verify with the key.
    BadSignature,
    /// `exp` (plus the leeway) has passed.
    Expired,
    /// `nbf` (minus the leeway) is still ahead.
    NotYetValid,
    /// `iss` is not the configured issuer.
    WrongIssuer,
    /// `aud` does not name this extension.
    WrongAudience,
    /// A claim is missing or has the wrong JSON type (the reason names the claim).
    BadClaims(&'static str),
}

impl AuthError {
    /// The reason as a short stable name, for metrics and logs: `missing`, `malformed`,
    /// `unsupported_algorithm`, `algorithm_mismatch`, `unknown_key`, `no_keys`,
    /// `keys_unavailable`, `bad_signature`, `expired`, `not_yet_valid`, `wrong_issuer`,
    /// `wrong_audience` or `bad_claims`.
    pub fn reason(&self) -> &'static str {
        match self {
            AuthError::Missing => "missing",
            AuthError::Malformed(_) => "malformed",
            AuthError::UnsupportedAlgorithm => "unsupported_algorithm",
            AuthError::AlgorithmMismatch => "algorithm_mismatch",
            AuthError::UnknownKey => "unknown_key",
            AuthError::NoKeys => "no_keys",
            AuthError::KeysUnavailable => "keys_unavailable",
            AuthError::BadSignature => "bad_signature",
            AuthError::Expired => "expired",
            AuthError::NotYetValid => "not_yet_valid",
            AuthError::WrongIssuer => "wrong_issuer",
            AuthError::WrongAudience => "wrong_audience",
            AuthError::BadClaims(_) => "bad_claims",
        }
    }

    /// The answer to the host: `UNAUTHORIZED`, status 401, with this error's message.
    pub fn to_host_error(&self) -> HostError {
        HostError::from_code(ErrorCode::Unauthorized, self.to_string())
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("install token refused: ")?;
        match self {
            AuthError::Missing => f.write_str("no `Authorization: Bearer` token"),
            AuthError::Malformed(why) | AuthError::BadClaims(why) => f.write_str(why),
            AuthError::UnsupportedAlgorithm => {
                f.write_str("`alg` must be one of RS256, PS256, ES256, EdDSA")
            }
            AuthError::AlgorithmMismatch => {
                f.write_str("`alg` differs from the algorithm of the signing key")
            }
            AuthError::UnknownKey => {
                f.write_str("the signing key (`kid`) is not in the host's key set")
            }
            AuthError::NoKeys => f.write_str("the host's key set is unavailable"),
            AuthError::KeysUnavailable => f.write_str(
                "the signing key (`kid`) is not among the keys this server has, and the host's key set could not be fetched again just now",
            ),
            AuthError::BadSignature => f.write_str("the signature does not verify"),
            AuthError::Expired => f.write_str("the token has expired (`exp`)"),
            AuthError::NotYetValid => f.write_str("the token is not valid yet (`nbf`)"),
            AuthError::WrongIssuer => f.write_str("`iss` is not the configured issuer"),
            AuthError::WrongAudience => f.write_str("`aud` does not name this extension"),
        }
    }
}

impl std::error::Error for AuthError {}
