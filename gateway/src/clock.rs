//! Wall-clock time in the protocol's unit.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch (`ts`, `created_at`, `updated_at`).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        // A clock before 1970 is a broken clock; 0 keeps the frames valid.
        .unwrap_or(0)
}
