//! Exports `ed25519(n)`, `es256(n)` and `rs256(n)`: each checks `n` signatures of the form the
//! warm-up's tokens carry (host-runtime's `unverifiable_signature`) against a valid key of its
//! algorithm and returns how many verified (none).

use std::hint::black_box;

use ring::signature as sig;

/// Ed25519's base point, compressed: the key here (of large order), and so the warm-up's `R`,
/// which is the key's own point.
const BASE_POINT: [u8; 32] = {
    let mut point = [0x66; 32];
    point[0] = 0x58;
    point
};

/// The generator of P-256, uncompressed: a valid public key.
const P256_G: [u8; 65] = [
    0x04, 0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40,
    0xf2, 0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2,
    0x96, 0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e,
    0x16, 0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51,
    0xf5,
];

fn one_be(len: usize) -> Vec<u8> {
    let mut one = vec![0; len];
    one[len - 1] = 1;
    one
}

/// `n` Ed25519 checks: `R` the key's own point, `s` = 0.
#[unsafe(no_mangle)]
pub extern "C" fn ed25519(n: u32) -> u32 {
    let key = ed25519_dalek::VerifyingKey::from_bytes(&BASE_POINT).expect("a valid point");
    let mut bytes = [0; 64];
    bytes[..32].copy_from_slice(&BASE_POINT);
    let signature = ed25519_dalek::Signature::from_bytes(&bytes);
    (0..n)
        .filter(|i| {
            key.verify_strict(black_box(&i.to_be_bytes()), &signature)
                .is_ok()
        })
        .count() as u32
}

/// `n` ES256 checks: `r` = `s` = 1.
#[unsafe(no_mangle)]
pub extern "C" fn es256(n: u32) -> u32 {
    let key = sig::UnparsedPublicKey::new(&sig::ECDSA_P256_SHA256_FIXED, P256_G);
    let signature = [one_be(32), one_be(32)].concat();
    (0..n)
        .filter(|i| key.verify(black_box(&i.to_be_bytes()), &signature).is_ok())
        .count() as u32
}

/// `n` RS256 checks against a 2048-bit odd modulus: the signature 1.
#[unsafe(no_mangle)]
pub extern "C" fn rs256(n: u32) -> u32 {
    let mut modulus = vec![0xc7; 256];
    modulus[255] = 0x0b;
    let key = sig::RsaPublicKeyComponents {
        n: modulus,
        e: vec![1, 0, 1],
    };
    let signature = one_be(256);
    (0..n)
        .filter(|i| {
            key.verify(
                &sig::RSA_PKCS1_2048_8192_SHA256,
                black_box(&i.to_be_bytes()),
                &signature,
            )
            .is_ok()
        })
        .count() as u32
}
