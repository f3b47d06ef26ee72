//! Per-connection token bucket for client frames.

use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct TokenBucket {
    per_sec: f64,
    capacity: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(per_sec: f64, capacity: f64, now: Instant) -> Self {
        Self {
            per_sec,
            capacity,
            tokens: capacity,
            last: now,
        }
    }

    /// Tokens at `now`, without taking any.
    fn tokens_at(&self, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        (self.tokens + elapsed * self.per_sec).min(self.capacity)
    }

    /// How long from `now` until there is a token to take.
    pub fn time_to_token(&self, now: Instant) -> Duration {
        Duration::from_secs_f64(((1.0 - self.tokens_at(now)) / self.per_sec).max(0.0))
    }

    /// Whether the bucket has refilled completely by `now`.
    pub fn is_full(&self, now: Instant) -> bool {
        self.tokens_at(now) >= self.capacity
    }

    /// Takes one token if there is one; refills for the time since last call.
    pub fn try_take(&mut self, now: Instant) -> bool {
        self.tokens = self.tokens_at(now);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAMES_PER_SEC: f64 = 20.0;
    const BURST: f64 = 60.0;

    #[test]
    fn burst_then_refill() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(FRAMES_PER_SEC, BURST, t0);
        let taken = (0..100).filter(|_| bucket.try_take(t0)).count();
        assert_eq!(taken, 60);
        assert!(!bucket.try_take(t0));
        // 20 per second: 50 ms gives one more frame.
        assert!(bucket.try_take(t0 + Duration::from_millis(50)));
        let t50 = t0 + Duration::from_millis(50);
        assert!(!bucket.try_take(t50));
        let wait = bucket.time_to_token(t50);
        assert!(wait > Duration::from_millis(49) && wait <= Duration::from_millis(50));
        assert!(bucket.time_to_token(t50 + wait).is_zero());
        assert!(!bucket.is_full(t50 + Duration::from_millis(2900)));
        assert!(bucket.is_full(t50 + Duration::from_secs(3)));
    }

    #[test]
    fn refill_is_capped_at_capacity() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(FRAMES_PER_SEC, BURST, t0);
        let later = t0 + Duration::from_secs(3600);
        let taken = (0..100).filter(|_| bucket.try_take(later)).count();
        assert_eq!(taken, 60);
    }

    #[test]
    fn clock_going_backwards_does_not_panic_or_refill() {
        let t0 = Instant::now() + Duration::from_secs(10);
        let mut bucket = TokenBucket::new(1.0, 1.0, t0);
        assert!(bucket.try_take(t0));
        assert!(!bucket.try_take(t0 - Duration::from_secs(5)));
    }
}
