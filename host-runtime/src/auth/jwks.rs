//! The host's key set (JWKS): which entries may verify install tokens, the one algorithm each is fixed
//! to, and finding the key for a token.
//!
//! The algorithm is fixed by the key, never by the token header alone:
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
use ring::signature::{self as sig, RsaPublicKeyComponents, UnparsedPublicKey};
use serde_json::{Map, Value};

use super::AuthError;
use super::token::Algorithm;

/// Which key signed a token: its `kid`, its algorithm and its public material (base64url). A cached
/// verified token stays valid only while a key with the same identity is in the set.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct KeyId {
    pub(crate) kid: Option<String>,
    pub(crate) alg: Algorithm,
    material: String,
}

/// One usable key, its public material decoded once when the key set is read.
pub(crate) struct VerifyKey {
    pub(crate) id: KeyId,
    public: PublicKey,
}

/// The public key of one entry, each fixed to its one algorithm.
///
/// RSA and P-256 signatures are verified with `ring` (already in every build through rustls; 7x faster
/// than the pure-Rust `rsa` crate for RS256 and 5x faster than `p256` for ES256 on the machine measured)
/// and Ed25519 with `ed25519-dalek`, which measured 13 % faster than `ring` for it. Material is decoded
/// once, when the key set is read.
enum PublicKey {
    Rs256(RsaPublicKeyComponents<Vec<u8>>),
    Ps256(RsaPublicKeyComponents<Vec<u8>>),
    /// The uncompressed SEC1 point, `0x04 || x || y`.
    Es256(UnparsedPublicKey<Vec<u8>>),
    Ed25519(ed25519_dalek::VerifyingKey),
}

impl VerifyKey {
    /// Whether `signature` (the decoded third segment) signs `message` (`header.payload`) with this
    /// key's algorithm. ES256 signatures are the 64-byte `r || s` of JWS, not DER.
    pub(crate) fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        match &self.public {
            PublicKey::Rs256(key) => key
                .verify(&sig::RSA_PKCS1_2048_8192_SHA256, message, signature)
                .is_ok(),
            PublicKey::Ps256(key) => key
                .verify(&sig::RSA_PSS_2048_8192_SHA256, message, signature)
                .is_ok(),
            PublicKey::Es256(key) => key.verify(message, signature).is_ok(),
            PublicKey::Ed25519(key) => ed25519_dalek::Signature::from_slice(signature)
                .is_ok_and(|s| key.verify_strict(message, &s).is_ok()),
        }
    }

    /// A signature of this key's form that no key makes and that gets through every check the
    /// libraries make before their arithmetic, so that checking it runs the whole verification and
    /// fails only at its last comparison. (Zeros would not: ring refuses a zero RSA signature and
    /// a zero ECDSA `r` or `s` at once, and Ed25519's all-zero `R` is a point of small order, which
    /// `verify_strict` refuses before hashing anything.)
    fn unverifiable_signature(&self) -> Vec<u8> {
        match &self.public {
            // 1, as a big-endian integer as long as the modulus: within [1, n).
            PublicKey::Rs256(key) | PublicKey::Ps256(key) => one_be(key.n.len()),
            // r = s = 1: both within [1, n) of P-256.
            PublicKey::Es256(_) => [one_be(32), one_be(32)].concat(),
            // R the key's own point (of large order, or the key is refused before hashing
            // anyway), s = 0 (canonical).
            PublicKey::Ed25519(key) => [key.to_bytes(), [0; 32]].concat(),
        }
    }

    /// A token that names this key and carries a signature of the right form that no key makes:
    /// checking it runs the whole check, the signature's arithmetic included, which refuses it.
    pub(crate) fn unverifiable_token(&self) -> String {
        let mut header = Map::new();
        header.insert("alg".into(), self.id.alg.name().into());
        if let Some(kid) = &self.id.kid {
            header.insert("kid".into(), kid.clone().into());
        }
        header.insert("typ".into(), "JWT".into());
        let header = URL_SAFE_NO_PAD.encode(Value::Object(header).to_string());
        let signature = URL_SAFE_NO_PAD.encode(self.unverifiable_signature());
        // The payload is never read: the signature is checked first.
        format!("{header}.e30.{signature}")
    }
}

/// 1 as a big-endian integer of `len` bytes.
fn one_be(len: usize) -> Vec<u8> {
    let mut one = vec![0; len];
    if let Some(last) = one.last_mut() {
        *last = 1;
    }
    one
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

    /// For each algorithm, the first key that a token naming it (by its `kid`, or by none) finds
    /// in this set. A key no token finds (without a `kid`, beside another of its algorithm) is
    /// skipped: a token meant for it would have the keys fetched again.
    pub(crate) fn one_per_algorithm(&self) -> Vec<Arc<VerifyKey>> {
        let mut picked: Vec<Arc<VerifyKey>> = Vec::new();
        for key in &self.keys {
            let found = self
                .find(key.id.alg, key.id.kid.as_deref())
                .is_ok_and(|k| Arc::ptr_eq(&k, key));
            if found && !picked.iter().any(|k| k.id.alg == key.id.alg) {
                picked.push(Arc::clone(key));
            }
        }
        picked
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

/// The entry as a usable key, or `None` for an entry that must be ignored.
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
    let (public, material) = match text(entry, "kty")? {
        "RSA" => rsa(entry)?,
        "EC" => p256(entry)?,
        "OKP" => ed25519(entry)?,
        _ => return None,
    };
    let alg = match public {
        PublicKey::Rs256(_) => Algorithm::RS256,
        PublicKey::Ps256(_) => Algorithm::PS256,
        PublicKey::Es256(_) => Algorithm::ES256,
        PublicKey::Ed25519(_) => Algorithm::EdDSA,
    };
    Some(VerifyKey {
        id: KeyId {
            kid,
            alg,
            material: material.join("."),
        },
        public,
    })
}

/// Whether an ignored key (`kid`, `bits`) is seen for the first time in this process: each is
/// warned about once, not on every refresh of the key set (the first 256 are remembered).
fn first_sighting(kid: &str, bits: usize) -> bool {
    static SEEN: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<String>>> =
        std::sync::OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    let mut seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = format!("{kid}/{bits}");
    if seen.contains(&key) {
        return false;
    }
    if seen.len() < 256 {
        seen.insert(key);
    }
    true
}

/// The smallest RSA modulus accepted, in bits. Shorter keys are factorable (512 bits in hours) or
/// deprecated (1,024 bits); a token signed with one could be forged.
pub(crate) const RSA_MIN_BITS: usize = 2048;
/// The largest RSA modulus accepted, in bits (what `ring` verifies).
pub(crate) const RSA_MAX_BITS: usize = 8192;

/// `kty: RSA`: RS256 unless `alg` says PS256; any other `alg` is not for signing tokens. The modulus
/// must be 2,048 to 8,192 bits and the exponent odd, at least 3 and below 2^33 (what `ring` accepts);
/// a weaker key is ignored, with a warning, so no token signed with it is ever accepted.
fn rsa(entry: &Map<String, Value>) -> Option<(PublicKey, Vec<&str>)> {
    let pss = match entry.get("alg") {
        None => false,
        Some(a) if a == "RS256" => false,
        Some(a) if a == "PS256" => true,
        Some(_) => return None,
    };
    let (n, e) = (text(entry, "n")?, text(entry, "e")?);
    let (n_bytes, e_bytes) = (decoded(n)?, decoded(e)?);
    let n_bytes = without_leading_zeros(&n_bytes);
    let e_bytes = without_leading_zeros(&e_bytes);
    // An empty (or all-zero) modulus has no bits; the first byte left is not zero.
    let bits = n_bytes
        .first()
        .map_or(0, |b| n_bytes.len() * 8 - b.leading_zeros() as usize);
    if !(RSA_MIN_BITS..=RSA_MAX_BITS).contains(&bits) {
        let kid = text(entry, "kid").unwrap_or("");
        if first_sighting(kid, bits) {
            tracing::warn!(
                kid,
                bits,
                "key set entry ignored: an RSA key must have 2,048 to 8,192 bits"
            );
        } else {
            tracing::debug!(kid, bits, "key set entry ignored again: RSA key size");
        }
        return None;
    }
    let exponent = e_bytes.iter().try_fold(0u64, |acc, b| {
        acc.checked_mul(256).map(|a| a | u64::from(*b))
    });
    if !exponent.is_some_and(|e| e >= 3 && e % 2 == 1 && e < 1 << 33) {
        return None;
    }
    let key = RsaPublicKeyComponents {
        n: n_bytes.to_vec(),
        e: e_bytes.to_vec(),
    };
    let public = if pss {
        PublicKey::Ps256(key)
    } else {
        PublicKey::Rs256(key)
    };
    Some((public, vec![n, e]))
}

fn without_leading_zeros(bytes: &[u8]) -> &[u8] {
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    &bytes[zeros..]
}

/// `kty: EC` on P-256 only: ES256, with 32-byte coordinates. Whether the point lies on the curve is
/// checked by `ring` at each verification: a key off the curve verifies nothing.
fn p256(entry: &Map<String, Value>) -> Option<(PublicKey, Vec<&str>)> {
    if text(entry, "crv")? != "P-256" || !alg_absent_or(entry, "ES256") {
        return None;
    }
    let (x, y) = (text(entry, "x")?, text(entry, "y")?);
    let x_bytes: [u8; 32] = decoded(x)?.try_into().ok()?;
    let y_bytes: [u8; 32] = decoded(y)?.try_into().ok()?;
    let mut point = Vec::with_capacity(65);
    point.push(0x04);
    point.extend_from_slice(&x_bytes);
    point.extend_from_slice(&y_bytes);
    let key = UnparsedPublicKey::new(&sig::ECDSA_P256_SHA256_FIXED, point);
    Some((PublicKey::Es256(key), vec![x, y]))
}

/// `kty: OKP` on Ed25519 only: EdDSA, with a 32-byte public key that is a valid point.
fn ed25519(entry: &Map<String, Value>) -> Option<(PublicKey, Vec<&str>)> {
    if text(entry, "crv")? != "Ed25519" || !alg_absent_or(entry, "EdDSA") {
        return None;
    }
    let x = text(entry, "x")?;
    let bytes: [u8; 32] = decoded(x)?.try_into().ok()?;
    let key = ed25519_dalek::VerifyingKey::from_bytes(&bytes).ok()?;
    Some((PublicKey::Ed25519(key), vec![x]))
}

fn text<'a>(entry: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    entry.get(name).and_then(Value::as_str)
}

fn alg_absent_or(entry: &Map<String, Value>, alg: &str) -> bool {
    entry.get("alg").is_none_or(|a| a == alg)
}

fn decoded(b64: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(b64).ok()
}

#[cfg(test)]
mod sighting_tests {
    use super::{KeySet, first_sighting};

    #[test]
    fn an_rsa_key_without_a_modulus_is_ignored_not_a_panic() {
        // Found by the token fuzz target: `"n": ""` underflowed the bit count (a panic where
        // overflow checks are on, as in debug builds).
        for n in ["", "AA", "AAAA"] {
            let document = serde_json::json!({ "keys": [
                { "kty": "RSA", "n": n, "e": "AQAB", "kid": format!("empty-{n}") },
            ] });
            let keys = KeySet::from_document(&document).expect("a key set");
            assert_eq!(keys.len(), 0, "{n:?}");
        }
    }

    #[test]
    fn an_ignored_key_is_warned_about_once() {
        assert!(first_sighting("weak-once", 1024));
        assert!(!first_sighting("weak-once", 1024));
        assert!(
            first_sighting("weak-once", 512),
            "another size is another key"
        );
    }
}
