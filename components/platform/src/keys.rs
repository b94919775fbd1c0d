//! Secrets the service issues: generated from 32 random bytes, shown once,
//! stored only as SHA-256 digests, compared in constant time.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Tenant API keys start with this, so leaked keys are easy to recognise in scans.
pub const TENANT_KEY_PREFIX: &str = "irs_";

/// A fresh random secret: `prefix` + base64url(32 random bytes).
pub fn generate_secret(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the host provides randomness");
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// Lower-case hex SHA-256 of a secret, as stored (the digest's own `LowerHex`).
pub fn hash_secret(secret: &str) -> String {
    format!("{:x}", Sha256::digest(secret.as_bytes()))
}

/// Whether `secret` hashes to `stored_hash`, without leaking where they differ.
pub fn secret_matches(secret: &str, stored_hash: &str) -> bool {
    constant_time_eq(hash_secret(secret).as_bytes(), stored_hash.as_bytes())
}

/// Constant-time equality for equal-length inputs (length itself is not secret).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_are_prefixed_long_and_distinct() {
        let a = generate_secret(TENANT_KEY_PREFIX);
        let b = generate_secret(TENANT_KEY_PREFIX);
        assert!(a.starts_with("irs_"));
        // 32 bytes in unpadded base64url are 43 characters.
        assert_eq!(a.len(), 4 + 43);
        assert!(a[4..].chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_ne!(a, b);
    }

    #[test]
    fn hashing_is_sha256_hex() {
        assert_eq!(
            hash_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn matching_accepts_only_the_original() {
        let key = generate_secret(TENANT_KEY_PREFIX);
        let stored = hash_secret(&key);
        assert!(secret_matches(&key, &stored));
        assert!(!secret_matches(&format!("{key}x"), &stored));
        assert!(!secret_matches("", &stored));
    }

    #[test]
    fn constant_time_eq_checks_length_and_content() {
        assert!(constant_time_eq(b"same", b"same"));
        assert!(!constant_time_eq(b"same", b"sane"));
        assert!(!constant_time_eq(b"same", b"same!"));
    }
}
