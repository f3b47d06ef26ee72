//! A hash map for the store's id-keyed tables (channels, rows).
//!
//! std's default SipHash guards against keys chosen to collide; here the keys
//! are ids the gateway assigns (the reader's gateway, not model output), and
//! hashing them with SipHash was a measurable share of applying a frame. This
//! is the multiply-rotate hash rustc uses for its own tables (FxHash), with
//! a finalizer.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            self.add(u64::from_le_bytes(w));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // The last byte is free (the rest is shorter than a word): its
            // length goes there, so that `a` and `a\0` differ.
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            w[7] = rest.len() as u8;
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// The multiply only carries input bits upwards, so the low bits (the
    /// table index) would hardly depend on the id's later bytes: a final
    /// mix (MurmurHash3's) spreads every bit over the whole word.
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, BuildHasherDefault};

    fn hash(s: &str) -> u64 {
        BuildHasherDefault::<IdHasher>::default().hash_one(s)
    }

    #[test]
    fn ids_that_differ_anywhere_hash_apart() {
        let ids = [
            "t:turn_1:1",
            "t:turn_1:2",
            "t:turn_2:1",
            "msg_1",
            "msg_1\0",
            "",
            "a",
            "b",
        ];
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                assert_ne!(hash(a), hash(b), "{a:?} and {b:?}");
            }
        }
        // The same id hashes the same, so lookups find it.
        assert_eq!(hash("msg_42"), hash(&String::from("msg_42")));
    }

    #[test]
    fn low_bits_spread_over_similar_ids() {
        // The table index is the hash's low bits: ids differing in one
        // middle byte must not pile into a few buckets.
        let mut buckets = std::collections::HashSet::new();
        for i in 0..1024 {
            buckets.insert(hash(&format!("t:turn_{i:04}:1")) & 1023);
        }
        assert!(
            buckets.len() > 500,
            "{} of 1024 buckets used",
            buckets.len()
        );
    }

    #[test]
    fn a_map_of_many_ids_finds_each() {
        let mut map = IdMap::default();
        for i in 0..10_000 {
            map.insert(format!("msg_{i}"), i);
        }
        assert!((0..10_000).all(|i| map.get(&format!("msg_{i}")) == Some(&i)));
    }
}
