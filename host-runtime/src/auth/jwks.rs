//! The host's key set (JWKS): which entries may verify install tokens, the one algorithm each is fixed
//! to, and finding the key for a token.
//!
//! D1 fixes the algorithm by the key, never by the token header alone:
//!
//! | entry | algorithm |
//! |---|---|
//! | `kty: RSA`, `alg` absent or `RS256` | `RS256` |
//! | `kty: RSA`, `alg: PS256` | `PS256` |
//! | `kty: EC`, `crv: P-256`, `alg` absent or `ES256` | `ES256` |
//! | `kty: OKP`, `crv: Ed25519`, `alg` absent or `EdDSA` | `EdDSA` |
//!
//! Every other entry is ignored, never used: `kty: oct` (a symmetric secret), other curves and
//! algorithms, entries whose `use` is not `sig`, a non-string `kid`, and key material of the wrong size
//! (an Ed25519 `x` that is not 32 bytes would otherwise reach a slice in the verifier).

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value, json};

use super::AuthError;

/// Which key signed a token: its `kid`, its algorithm and its public material (base64url). A cached
/// verified token stays valid only while a key with the same identity is in the set.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct KeyId {
    pub(crate) kid: Option<String>,
    pub(crate) alg: Algorithm,
    material: String,
}

/// One usable key, ready for `jsonwebtoken::decode`.
pub(crate) struct VerifyKey {
    pub(crate) id: KeyId,
    pub(crate) decoding: DecodingKey,
    /// `Validation::new(alg)` with every claim check of `jsonwebtoken` off: D1's checks are ours.
    pub(crate) validation: Validation,
}

/// The usable keys of one key set document.
#[derive(Default)]
pub(crate) struct KeySet {
    keys: Vec<Arc<VerifyKey>>,
}

impl KeySet {
    /// Reads a JWKS document `{"keys": [...]}`, keeping the usable entries. A document of another shape
    /// is an error; a document whose entries are all unusable is an empty set.
    pub(crate) fn from_document(document: &Value) -> Result<KeySet, &'static str> {
        let Some(entries) = document.get("keys").and_then(Value::as_array) else {
            return Err("the key set is not a JSON object with a `keys` array");
        };
        let keys: Vec<Arc<VerifyKey>> = entries
            .iter()
            .filter_map(usable_key)
            .map(Arc::new)
            .collect();
        if keys.len() < entries.len() {
            tracing::debug!(
                ignored = entries.len() - keys.len(),
                "key set entries ignored (unsupported type, algorithm, use or material)"
            );
        }
        Ok(KeySet { keys })
    }

    /// The number of usable keys.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether a key with this identity is in the set.
    pub(crate) fn contains(&self, id: &KeyId) -> bool {
        self.keys.iter().any(|k| k.id == *id)
    }

    /// The key for a token with header `alg` and `kid`.
    ///
    /// With a `kid`: the key with that `kid`, which must be fixed to `alg`. Without one: the only key
    /// fixed to `alg`, if there is exactly one.
    pub(crate) fn find(
        &self,
        alg: Algorithm,
        kid: Option<&str>,
    ) -> Result<Arc<VerifyKey>, AuthError> {
        if self.keys.is_empty() {
            return Err(AuthError::NoKeys);
        }
        let found = match kid {
            Some(kid) => {
                let mut named = self
                    .keys
                    .iter()
                    .filter(|k| k.id.kid.as_deref() == Some(kid))
                    .peekable();
                if named.peek().is_none() {
                    return Err(AuthError::UnknownKey);
                }
                named
                    .find(|k| k.id.alg == alg)
                    .ok_or(AuthError::AlgorithmMismatch)?
            }
            None => {
                let mut of_alg = self.keys.iter().filter(|k| k.id.alg == alg);
                match (of_alg.next(), of_alg.next()) {
                    (Some(only), None) => only,
                    _ => return Err(AuthError::UnknownKey),
                }
            }
        };
        Ok(Arc::clone(found))
    }
}

/// The entry as a usable key, or `None` when D1 says to ignore it.
fn usable_key(entry: &Value) -> Option<VerifyKey> {
    let entry = entry.as_object()?;
    if entry.get("use").is_some_and(|u| u != "sig") {
        return None;
    }
    let kid = match entry.get("kid") {
        None => None,
        Some(Value::String(kid)) => Some(kid.clone()),
        Some(_) => return None,
    };
    let (alg, jwk) = match text(entry, "kty")? {
        "RSA" => rsa(entry)?,
        "EC" => p256(entry)?,
        "OKP" => ed25519(entry)?,
        _ => return None,
    };
    let decoding = serde_json::from_value::<Jwk>(jwk.clone())
        .ok()
        .and_then(|jwk| DecodingKey::from_jwk(&jwk).ok())?;
    let material = ["n", "e", "x", "y"]
        .iter()
        .filter_map(|m| jwk.get(m).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(".");
    Some(VerifyKey {
        id: KeyId { kid, alg, material },
        decoding,
        validation: validation(alg),
    })
}

/// `kty: RSA`: RS256 unless `alg` says PS256; any other `alg` is not for signing tokens.
fn rsa(entry: &Map<String, Value>) -> Option<(Algorithm, Value)> {
    let alg = match entry.get("alg") {
        None => Algorithm::RS256,
        Some(a) if a == "RS256" => Algorithm::RS256,
        Some(a) if a == "PS256" => Algorithm::PS256,
        Some(_) => return None,
    };
    let (n, e) = (text(entry, "n")?, text(entry, "e")?);
    if decoded_len(n)? == 0 || decoded_len(e)? == 0 {
        return None;
    }
    Some((alg, json!({ "kty": "RSA", "n": n, "e": e })))
}

/// `kty: EC` on P-256 only: ES256, with 32-byte coordinates.
fn p256(entry: &Map<String, Value>) -> Option<(Algorithm, Value)> {
    if text(entry, "crv")? != "P-256" || !alg_absent_or(entry, "ES256") {
        return None;
    }
    let (x, y) = (text(entry, "x")?, text(entry, "y")?);
    if decoded_len(x)? != 32 || decoded_len(y)? != 32 {
        return None;
    }
    Some((
        Algorithm::ES256,
        json!({ "kty": "EC", "crv": "P-256", "x": x, "y": y }),
    ))
}

/// `kty: OKP` on Ed25519 only: EdDSA, with a 32-byte public key that is a valid point.
fn ed25519(entry: &Map<String, Value>) -> Option<(Algorithm, Value)> {
    if text(entry, "crv")? != "Ed25519" || !alg_absent_or(entry, "EdDSA") {
        return None;
    }
    let x = text(entry, "x")?;
    let bytes: [u8; 32] = URL_SAFE_NO_PAD.decode(x).ok()?.try_into().ok()?;
    ed25519_dalek::VerifyingKey::from_bytes(&bytes).ok()?;
    Some((
        Algorithm::EdDSA,
        json!({ "kty": "OKP", "crv": "Ed25519", "x": x }),
    ))
}

fn validation(alg: Algorithm) -> Validation {
    let mut v = Validation::new(alg);
    v.validate_exp = false;
    v.validate_nbf = false;
    v.validate_aud = false;
    v.required_spec_claims.clear();
    v
}

fn text<'a>(entry: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    entry.get(name).and_then(Value::as_str)
}

fn alg_absent_or(entry: &Map<String, Value>, alg: &str) -> bool {
    entry.get("alg").is_none_or(|a| a == alg)
}

fn decoded_len(b64: &str) -> Option<usize> {
    URL_SAFE_NO_PAD.decode(b64).ok().map(|b| b.len())
}
