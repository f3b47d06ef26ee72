//! Per-connection rate limit of client frames: a token bucket, and reading
//! a connection that floods past it only at its limit.

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

/// One connection's frame limit. A connection refused more than a burst
/// of frames in a row is then read no faster than its limit until its
/// bucket is full again: the rest of its flood waits in its own socket
/// buffers (and its sends block), so a flood, of frames of a mebibyte too,
/// costs the gateway no more than a client sending at the limit.
#[derive(Debug, Clone)]
pub struct FrameLimit {
    bucket: TokenBucket,
    burst: u32,
    refused_in_a_row: u32,
    throttled: bool,
}

impl FrameLimit {
    pub fn new(per_sec: u32, burst: u32, now: Instant) -> Self {
        Self {
            bucket: TokenBucket::new(f64::from(per_sec), f64::from(burst), now),
            burst,
            refused_in_a_row: 0,
            throttled: false,
        }
    }

    /// Takes a token for one frame; `false` when the frame is over the limit.
    pub fn try_take(&mut self, now: Instant) -> bool {
        let taken = self.bucket.try_take(now);
        if taken {
            self.refused_in_a_row = 0;
        } else {
            self.refused_in_a_row += 1;
            self.throttled |= self.refused_in_a_row > self.burst;
        }
        taken
    }

    /// How long to wait before reading the next frame: zero, unless the
    /// connection flooded and its bucket has not refilled since.
    pub fn pause(&mut self, now: Instant) -> Duration {
        if self.throttled && self.bucket.is_full(now) {
            self.throttled = false;
        }
        if self.throttled {
            self.bucket.time_to_token(now)
        } else {
            Duration::ZERO
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
    fn a_flood_is_read_at_the_limit_until_the_bucket_refills() {
        let t0 = Instant::now();
        let mut limit = FrameLimit::new(20, 3, t0);
        let taken = (0..6).filter(|_| limit.try_take(t0)).count();
        assert_eq!(taken, 3);
        assert!(limit.pause(t0).is_zero(), "three refused: not a flood yet");
        assert!(!limit.try_take(t0), "the fourth refused in a row");
        let pause = limit.pause(t0);
        assert!(pause > Duration::from_millis(49) && pause <= Duration::from_millis(50));
        // Read at the limit: one frame per token, no pause once one is due.
        let t50 = t0 + pause;
        assert!(limit.pause(t50).is_zero());
        assert!(limit.try_take(t50));
        assert!(!limit.pause(t50).is_zero(), "still throttled");
        // A full bucket again: back to bursts.
        let later = t50 + Duration::from_secs(1);
        assert!(limit.pause(later).is_zero());
        assert_eq!((0..5).filter(|_| limit.try_take(later)).count(), 3);
        assert!(limit.pause(later).is_zero());
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
