//! The disk quota of the file store: bytes of stored files plus bytes of
//! uploads in progress, reserved before they are written.

use std::sync::atomic::{AtomicU64, Ordering};

pub struct Quota {
    limit: u64,
    used: AtomicU64,
}

impl Quota {
    pub fn new(limit: u64, used: u64) -> Self {
        Self {
            limit,
            used: AtomicU64::new(used),
        }
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Takes `n` bytes if they fit under the limit.
    pub fn reserve(&self, n: u64) -> bool {
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                used.checked_add(n).filter(|total| *total <= self.limit)
            })
            .is_ok()
    }

    /// Gives back `n` reserved bytes (an upload dropped, or bytes that were
    /// stored already).
    pub fn release(&self, n: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                Some(used.saturating_sub(n))
            });
    }

    #[cfg(test)]
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_stop_at_the_limit_and_come_back() {
        let quota = Quota::new(100, 40);
        assert!(quota.reserve(60));
        assert!(!quota.reserve(1));
        quota.release(10);
        assert!(quota.reserve(10));
        assert!(!quota.reserve(u64::MAX), "no overflow");
        quota.release(1000);
        assert_eq!(quota.used(), 0);
    }
}
