//! Interview data at rest in the key-value store, sealed with the interview's
//! own key, so that erasing an interview can make every copy of it unreadable
//! (crypto-shredding: docs/interviews.md, "Erasure").
//!
//! The key-value store keeps what the service deletes: Spin's default store is
//! a SQLite file whose free pages hold deleted values, and Redis may hold them
//! in an RDB or AOF file, neither of which the service can scrub. So every
//! recording chunk is sealed before it is stored, with XChaCha20-Poly1305 (an
//! AEAD: confidentiality and integrity) under a random 256-bit key that exists
//! only in the interview's SQLite row ([`DataKey`]). Erasure deletes the key
//! first, then the chunks: a copy the store kept is then noise.
//!
//! A sealed value is `version (1 byte) | nonce (24 bytes) | ciphertext | tag
//! (16 bytes)`; the nonce is random (192 bits: no bookkeeping, no risk of
//! reuse), and the blob's key-value key is the associated data, so a chunk
//! moved under another key, or to another interview, does not open.

use platform::error::{ApiError, ApiResult};
use files_core::BlobStore;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{Key, Tag, XChaCha20Poly1305, XNonce};

/// The first byte of every sealed value: XChaCha20-Poly1305 as described above.
const VERSION: u8 = 1;
const NONCE_BYTES: usize = 24;
const TAG_BYTES: usize = 16;
/// What sealing adds to a value.
pub const OVERHEAD: usize = 1 + NONCE_BYTES + TAG_BYTES;

/// An interview's data key: 32 random bytes, stored only in its SQLite row.
#[derive(Clone, PartialEq, Eq)]
pub struct DataKey([u8; 32]);

impl DataKey {
    /// A fresh key from the host's randomness.
    pub fn generate() -> DataKey {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).expect("the host provides randomness");
        DataKey(bytes)
    }

    /// The key as stored (a BLOB of 32 bytes); anything else is no key.
    pub fn from_stored(bytes: &[u8]) -> Option<DataKey> {
        bytes.try_into().ok().map(DataKey)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(Key::from_slice(&self.0))
    }
}

/// Never printed: a key in a log line would be a copy the erasure cannot reach.
impl std::fmt::Debug for DataKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DataKey(..)")
    }
}

/// How an interview's blobs are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sealing {
    /// Sealed with this key: every interview started since keys exist.
    Key(DataKey),
    /// As they came: an interview started before (its row has no key).
    Plain,
}

impl Sealing {
    /// The sealing of a stored interview row's key column.
    pub fn of_stored(key: Option<&[u8]>) -> Sealing {
        match key.and_then(DataKey::from_stored) {
            Some(key) => Sealing::Key(key),
            None => Sealing::Plain,
        }
    }
}

/// `value` sealed under `key`, bound to `label` (the key-value key it is stored
/// under). Sealed in place in the buffer it is returned in: one allocation.
pub fn seal(key: &DataKey, label: &str, value: &[u8]) -> Vec<u8> {
    let mut nonce = [0u8; NONCE_BYTES];
    getrandom::fill(&mut nonce).expect("the host provides randomness");
    let mut out = Vec::with_capacity(OVERHEAD + value.len());
    out.push(VERSION);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(value);
    let tag = key
        .cipher()
        .encrypt_in_place_detached(XNonce::from_slice(&nonce), label.as_bytes(), &mut out[1 + NONCE_BYTES..])
        .expect("XChaCha20-Poly1305 seals any value that fits in memory");
    out.extend_from_slice(&tag);
    out
}

/// The value [`seal`] sealed under `key` and `label`, opened in the buffer
/// it came in. Any other bytes (another key, another label, a changed byte,
/// a truncation) are an internal error: stored data that is not what the
/// service wrote.
pub fn open(key: &DataKey, label: &str, mut sealed: Vec<u8>) -> ApiResult<Vec<u8>> {
    let refused = || ApiError::internal(anyhow::anyhow!("the sealed blob {label} does not open with its interview's key"));
    if sealed.len() < OVERHEAD || sealed[0] != VERSION {
        return Err(refused());
    }
    let body_end = sealed.len() - TAG_BYTES;
    let (head, rest) = sealed.split_at_mut(1 + NONCE_BYTES);
    let (body, tag) = rest.split_at_mut(body_end - head.len());
    key.cipher()
        .decrypt_in_place_detached(XNonce::from_slice(&head[1..]), label.as_bytes(), body, Tag::from_slice(tag))
        .map_err(|_| refused())?;
    sealed.truncate(body_end);
    sealed.drain(..1 + NONCE_BYTES);
    Ok(sealed)
}

/// A blob store through which one interview's blobs are put sealed and read
/// opened (plain for an interview without a key); deleting is deleting.
pub struct Sealed<S: BlobStore> {
    blobs: S,
    sealing: Sealing,
}

impl<S: BlobStore> Sealed<S> {
    pub fn new(blobs: S, sealing: Sealing) -> Sealed<S> {
        Sealed { blobs, sealing }
    }
}

impl<S: BlobStore> BlobStore for Sealed<S> {
    fn put(&self, key: &str, value: &[u8]) -> ApiResult<()> {
        match &self.sealing {
            Sealing::Key(data_key) => self.blobs.put(key, &seal(data_key, key, value)),
            Sealing::Plain => self.blobs.put(key, value),
        }
    }

    fn get(&self, key: &str) -> ApiResult<Option<Vec<u8>>> {
        let stored = self.blobs.get(key)?;
        match (&self.sealing, stored) {
            (Sealing::Key(data_key), Some(sealed)) => open(data_key, key, sealed).map(Some),
            (_, stored) => Ok(stored),
        }
    }

    fn delete(&self, key: &str) -> ApiResult<()> {
        self.blobs.delete(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_with_its_key_and_label_only() {
        let key = DataKey::generate();
        let value = b"Hello, my voice".repeat(1000);
        let sealed = seal(&key, "recording:a:audio:0:n", &value);
        assert_eq!(sealed.len(), value.len() + OVERHEAD);
        assert_eq!(open(&key, "recording:a:audio:0:n", sealed.clone()).unwrap(), value);
        // The plain text is nowhere in the sealed bytes.
        assert!(!sealed.windows(15).any(|w| w == b"Hello, my voice"));
        // Another key, another label (a chunk moved), a changed byte, a cut: refused.
        assert!(open(&DataKey::generate(), "recording:a:audio:0:n", sealed.clone()).is_err());
        assert!(open(&key, "recording:a:audio:1:n", sealed.clone()).is_err());
        let mut changed = sealed.clone();
        changed[40] ^= 1;
        assert!(open(&key, "recording:a:audio:0:n", changed).is_err());
        assert!(open(&key, "recording:a:audio:0:n", sealed[..sealed.len() - 1].to_vec()).is_err());
        assert!(open(&key, "recording:a:audio:0:n", Vec::new()).is_err());
        assert!(open(&key, "recording:a:audio:0:n", vec![VERSION; OVERHEAD]).is_err());
        // An empty value seals and opens too.
        assert_eq!(open(&key, "e", seal(&key, "e", b"")).unwrap(), b"");
    }

    #[test]
    fn every_seal_has_its_own_nonce_and_keys_differ() {
        let key = DataKey::generate();
        assert_ne!(seal(&key, "k", b"same"), seal(&key, "k", b"same"));
        assert_ne!(DataKey::generate(), key);
        assert_eq!(format!("{key:?}"), "DataKey(..)", "a key is never printed");
    }

    #[test]
    fn stored_keys_are_32_bytes_or_none() {
        let key = DataKey::generate();
        assert_eq!(Sealing::of_stored(Some(key.as_bytes())), Sealing::Key(key));
        assert_eq!(Sealing::of_stored(Some(&[1; 31])), Sealing::Plain);
        assert_eq!(Sealing::of_stored(None), Sealing::Plain);
    }

    use files_core::blob::MemoryBlobs as Blobs;

    #[test]
    fn a_sealed_store_keeps_only_sealed_bytes() {
        let blobs = Blobs::default();
        let key = DataKey::generate();
        let sealed = Sealed::new(&blobs, Sealing::Key(key.clone()));
        sealed.put("c", b"spoken words").unwrap();
        assert_eq!(sealed.get("c").unwrap().as_deref(), Some(&b"spoken words"[..]));
        let stored = blobs.get("c").unwrap().unwrap();
        assert_ne!(stored, b"spoken words");
        assert_eq!(open(&key, "c", stored.clone()).unwrap(), b"spoken words");
        // Without the key, the stored bytes are all there is.
        assert_eq!(Sealed::new(&blobs, Sealing::Plain).get("c").unwrap(), Some(stored));
        assert_eq!(sealed.get("missing").unwrap(), None);
        sealed.delete("c").unwrap();
        assert!(blobs.0.borrow().is_empty());
        // An interview without a key: stored as it came.
        Sealed::new(&blobs, Sealing::Plain).put("p", b"old").unwrap();
        assert_eq!(blobs.get("p").unwrap().as_deref(), Some(&b"old"[..]));
    }
}
