//! Content and fragment digests.

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A `Hasher` that feeds SHA-256, so any `Hash` value gets a 32-byte digest. Deterministic for
/// one build of DocForge; a different build may only cause extra (never missed) rewrites,
/// because the index compares digests for equality only.
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn finish(&self) -> u64 {
        unreachable!("use finalize")
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

pub fn fragment_digest<T: Hash>(value: &T) -> [u8; 32] {
    let mut h = ShaHasher(Sha256::new());
    value.hash(&mut h);
    h.0.finalize().into()
}
