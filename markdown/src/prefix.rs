//! How much two snapshots of a streamed text share: a snapshot repeats all
//! of the text before it, so every update compares the whole text once on
//! each side of the bridge to the markdown module. In wasm a slice
//! comparison is `memcmp` from compiler-builtins, a loop over single
//! bytes, which at 100 KiB was a visible part of each late update; this
//! compares eight bytes at a time.

/// The length of the common prefix of `a` and `b`, in bytes.
pub fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    const WORD: usize = 8;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut same = 0;
    for (x, y) in a.chunks_exact(WORD).zip(b.chunks_exact(WORD)) {
        let diff = word(x) ^ word(y);
        if diff != 0 {
            // Little-endian: the first differing byte is the lowest one.
            return same + (diff.trailing_zeros() / 8) as usize;
        }
        same += WORD;
    }
    same + a[same..]
        .iter()
        .zip(&b[same..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Eight bytes (the caller's chunks are exactly that long) as one number.
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// How much of snapshot `next` is unchanged from `prev`: the length of
/// their common prefix, at a char boundary of both. A renderer in another
/// wasm module is sent only `next[len..]`.
pub fn unchanged_prefix_len(prev: &str, next: &str) -> usize {
    next.floor_char_boundary(common_prefix_len(prev.as_bytes(), next.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain byte loop this replaces.
    fn bytewise(a: &[u8], b: &[u8]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }

    #[test]
    fn agrees_with_a_byte_by_byte_comparison_at_every_place() {
        let base: Vec<u8> = (0..100u8).map(|i| b'a' + i % 26).collect();
        for len in 0..base.len() {
            for at in 0..=len {
                let mut other = base[..len].to_vec();
                if at < len {
                    other[at] ^= 0x20;
                }
                for (a, b) in [(&base[..len], &other[..]), (&base[..], &other[..])] {
                    assert_eq!(common_prefix_len(a, b), bytewise(a, b), "len {len} at {at}");
                    assert_eq!(common_prefix_len(b, a), bytewise(a, b), "len {len} at {at}");
                }
            }
        }
    }

    #[test]
    fn the_unchanged_prefix_ends_at_a_char_boundary_of_both() {
        assert_eq!(unchanged_prefix_len("", "abc"), 0);
        assert_eq!(unchanged_prefix_len("ab", "abc"), 2);
        assert_eq!(unchanged_prefix_len("abc", "abc"), 3);
        assert_eq!(unchanged_prefix_len("abX", "abc"), 2);
        assert_eq!(unchanged_prefix_len("abc", "ab"), 2);
        // "é" and "è" share their first byte: the char is not unchanged.
        assert_eq!(unchanged_prefix_len("aé", "aè"), 1);
        assert_eq!(unchanged_prefix_len("aé", "aé!"), 3);
        // A multi-byte char cut by an eight-byte word.
        let prev = "1234567é and more";
        let next = "1234567è and more";
        assert_eq!(unchanged_prefix_len(prev, next), 7);
    }
}
