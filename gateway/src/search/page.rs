//! Paging of `search.results` (§10): the order key of an indexed item, the
//! opaque cursor that carries it, and the clamped `limit`.
//!
//! Hits come newest first by `ts`. Each indexed item gets a key that sorts
//! like (`ts`, order of indexing), newest first: the time left until the
//! largest `ts` in the high bits, a count-down of the items of the same
//! millisecond in the low [`TIE_BITS`]. The key is the FTS5 rowid, so FTS5
//! itself yields matches in that order (ascending, its fastest) and a page
//! stops after `limit` hits instead of sorting every match.

use aria_protocol::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};

/// Low bits of a key: room for 2^20 items logged in one millisecond.
pub const TIE_BITS: u32 = 20;
/// Largest `ts` a key can hold (year 2248); later ones share it.
const MAX_KEY_TS: i64 = i64::MAX >> TIE_BITS;
const CURSOR_PREFIX: char = 'k';

/// The range of keys an item with this `ts` may take: `(first, last)`.
/// The first item of a millisecond takes `last`, later ones count down.
pub fn key_range(ts: i64) -> (i64, i64) {
    let first = (MAX_KEY_TS - ts.clamp(0, MAX_KEY_TS)) << TIE_BITS;
    (first, first | ((1 << TIE_BITS) - 1))
}

/// `limit` clamped to 1..=50 (default 20).
pub fn clamp_limit(limit: Option<u32>) -> u32 {
    limit
        .unwrap_or(DEFAULT_SEARCH_LIMIT)
        .clamp(1, MAX_SEARCH_LIMIT)
}

/// The cursor of a next page that starts after `key`.
pub fn encode_cursor(key: i64) -> String {
    format!("{CURSOR_PREFIX}{key:016x}")
}

/// The key a cursor carries; `None` for anything this gateway did not make
/// (the caller answers `bad_request`).
pub fn decode_cursor(cursor: &str) -> Option<i64> {
    let hex = cursor.strip_prefix(CURSOR_PREFIX)?;
    if hex.len() != 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let key = u64::from_str_radix(hex, 16).ok()?;
    i64::try_from(key).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_items_get_smaller_keys() {
        let (older_first, older_last) = key_range(1_700_000_000_000);
        let (newer_first, newer_last) = key_range(1_700_000_000_001);
        assert!(newer_first < newer_last && newer_last < older_first);
        assert_eq!(older_last - older_first, (1 << TIE_BITS) - 1);
        // Out-of-range times are clamped, never overflow.
        assert_eq!(key_range(-5).1, i64::MAX);
        assert_eq!(key_range(i64::MAX).0, 0);
        assert_eq!(key_range(-5), key_range(0));
    }

    #[test]
    fn limit_is_clamped() {
        assert_eq!(clamp_limit(None), 20);
        assert_eq!(clamp_limit(Some(0)), 1);
        assert_eq!(clamp_limit(Some(7)), 7);
        assert_eq!(clamp_limit(Some(50)), 50);
        assert_eq!(clamp_limit(Some(u32::MAX)), 50);
    }

    #[test]
    fn cursor_round_trips_and_forgeries_are_rejected() {
        for key in [0, 1, 1_782_000_000_000 << TIE_BITS, i64::MAX] {
            assert_eq!(decode_cursor(&encode_cursor(key)), Some(key));
        }
        for forged in [
            "",
            "k",
            "x0000000000000001",
            "k000000000000001",
            "k00000000000000001",
            "k+000000000000001",
            "k-000000000000001",
            "kffffffffffffffff",
            "k00000000000000zz",
            "k00000000000000é",
            "' OR 1=1 --",
        ] {
            assert_eq!(decode_cursor(forged), None, "{forged:?}");
        }
    }
}
