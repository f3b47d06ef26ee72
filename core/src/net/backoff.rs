//! Reconnect delays: exponential with jitter, first retry under a second,
//! capped at 15 s, so a restarted gateway is not hit by every tab at once.

const BASE_MS: f64 = 500.0;
const CAP_MS: f64 = 15_000.0;

#[derive(Debug, Clone, Default)]
pub struct Backoff {
    attempt: u32,
}

impl Backoff {
    /// The next delay in ms. `jitter` is a random number in `[0, 1)`: the
    /// delay lands in the upper half of the exponential step.
    pub fn next_delay_ms(&mut self, jitter: f64) -> u32 {
        let step = (BASE_MS * 2f64.powi(self.attempt.min(16) as i32)).min(CAP_MS);
        self.attempt = self.attempt.saturating_add(1);
        let jitter = if jitter.is_finite() {
            jitter.clamp(0.0, 1.0)
        } else {
            0.5
        };
        (step * (0.5 + 0.5 * jitter)) as u32
    }

    /// A connection succeeded: start over.
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_then_caps() {
        let mut b = Backoff::default();
        let first = b.next_delay_ms(0.999);
        assert!(first < 1000, "first retry under a second: {first}");
        let delays: Vec<u32> = (0..10).map(|_| b.next_delay_ms(0.999)).collect();
        assert!(delays.windows(2).all(|w| w[0] <= w[1]));
        assert!(delays.iter().all(|d| *d <= 15_000));
        assert!(*delays.last().unwrap() > 14_000);
    }

    #[test]
    fn jitter_spreads_and_reset_restarts() {
        let mut a = Backoff::default();
        let mut b = Backoff::default();
        for _ in 0..3 {
            a.next_delay_ms(0.0);
            b.next_delay_ms(0.0);
        }
        assert!(a.next_delay_ms(0.0) < b.next_delay_ms(0.99));
        a.reset();
        assert!(a.next_delay_ms(f64::NAN) < 1000);
    }
}
