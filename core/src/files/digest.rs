//! SHA-256 fed in slices, for browsers without SubtleCrypto (a page over
//! plain `http://` on a LAN address): the app hashes one slice per task so
//! that a large file causes no long task.

use sha2::{Digest, Sha256};

#[derive(Default, Clone)]
pub struct Sha256Stream(Sha256);

impl Sha256Stream {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest as §13 writes it: lowercase hex.
    pub fn finish(self) -> String {
        hex(&self.0.finalize())
    }
}

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_give_the_digest_of_the_whole() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
        let mut whole = Sha256Stream::new();
        whole.update(&bytes);
        let mut parts = Sha256Stream::new();
        for slice in bytes.chunks(4096) {
            parts.update(slice);
        }
        assert_eq!(whole.finish(), parts.finish());
    }

    #[test]
    fn known_digests() {
        assert_eq!(
            Sha256Stream::new().finish(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let mut s = Sha256Stream::new();
        s.update(b"abc");
        let hexed = s.finish();
        assert_eq!(
            hexed,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(crate::protocol::is_sha256_hex(&hexed));
    }

    #[test]
    fn hex_is_lowercase_and_padded() {
        assert_eq!(hex(&[0, 0x0f, 0xab, 0xff]), "000fabff");
    }
}
