//! Failed `hello` tokens counted per client address, so a token cannot be
//! guessed quickly: after [`MAX_FAILURES`] in [`WINDOW`] every `hello` from
//! that address is refused, even with the right token, until the oldest of
//! those failures is a window old.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong tokens an address may send per [`WINDOW`].
pub const MAX_FAILURES: usize = 10;
pub const WINDOW: Duration = Duration::from_secs(60);
/// Addresses tracked at once; past it, addresses whose failures have all
/// expired are forgotten first, then the one idle longest.
const MAX_TRACKED: usize = 4096;

#[derive(Debug, Default)]
pub struct HelloThrottle {
    failures: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

/// What became of one `hello`'s token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    Accepted,
    /// Wrong, and counted.
    Refused,
    /// Not even checked: the address used up its failures for now.
    Blocked,
}

impl HelloThrottle {
    /// Checks a token from `ip` with `token_ok`, unless `ip` is blocked.
    /// One lock around both, so parallel connections cannot all slip past
    /// the limit before any failure is counted.
    pub fn attempt(&self, ip: IpAddr, now: Instant, token_ok: impl FnOnce() -> bool) -> Attempt {
        let mut failures = self.lock();
        if let Some(times) = failures.get_mut(&address_key(ip)) {
            expire(times, now);
            if times.len() >= MAX_FAILURES {
                return Attempt::Blocked;
            }
        }
        if token_ok() {
            return Attempt::Accepted;
        }
        if failures.len() >= MAX_TRACKED && !failures.contains_key(&address_key(ip)) {
            make_room(&mut failures, now);
        }
        let times = failures.entry(address_key(ip)).or_default();
        times.push_back(now);
        Attempt::Refused
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, VecDeque<Instant>>> {
        // The map stays consistent even if a holder panicked.
        self.failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Forgets addresses whose failures have all expired, or else the one
/// idle longest.
fn make_room(failures: &mut HashMap<IpAddr, VecDeque<Instant>>, now: Instant) {
    failures.retain(|_, times| {
        expire(times, now);
        !times.is_empty()
    });
    if failures.len() >= MAX_TRACKED {
        let idlest = failures
            .iter()
            .min_by_key(|(_, times)| times.back().copied())
            .map(|(ip, _)| *ip);
        if let Some(idlest) = idlest {
            failures.remove(&idlest);
        }
    }
}

/// IPv6 clients usually own a whole /64: count per prefix, not per address.
pub(crate) fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::from(segments)
            }
        },
    }
}

fn expire(times: &mut VecDeque<Instant>, now: Instant) {
    while times
        .front()
        .is_some_and(|t| now.saturating_duration_since(*t) >= WINDOW)
    {
        times.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    fn fail(throttle: &HelloThrottle, ip: IpAddr, at: Instant) -> Attempt {
        throttle.attempt(ip, at, || false)
    }

    fn good(throttle: &HelloThrottle, ip: IpAddr, at: Instant) -> Attempt {
        throttle.attempt(ip, at, || true)
    }

    #[test]
    fn blocks_after_the_limit_until_the_window_passes() {
        let throttle = HelloThrottle::default();
        let (a, t0) = (ip("10.0.0.1"), Instant::now());
        for i in 0..MAX_FAILURES {
            let at = t0 + Duration::from_secs(i as u64);
            assert_eq!(fail(&throttle, a, at), Attempt::Refused, "failure {i}");
        }
        let t10 = t0 + Duration::from_secs(10);
        assert_eq!(
            good(&throttle, a, t10),
            Attempt::Blocked,
            "even the right token"
        );
        assert_eq!(
            fail(&throttle, a, t10),
            Attempt::Blocked,
            "not checked, not counted"
        );
        assert_eq!(good(&throttle, ip("10.0.0.2"), t0), Attempt::Accepted);
        let almost = t0 + WINDOW - Duration::from_millis(1);
        assert_eq!(good(&throttle, a, almost), Attempt::Blocked);
        // The first failure expires: one more try, and a failure blocks again.
        let later = t0 + WINDOW;
        assert_eq!(fail(&throttle, a, later), Attempt::Refused);
        assert_eq!(good(&throttle, a, later), Attempt::Blocked);
        assert_eq!(good(&throttle, a, later + WINDOW), Attempt::Accepted);
    }

    #[test]
    fn successes_do_not_count() {
        let throttle = HelloThrottle::default();
        let (a, t0) = (ip("10.0.0.1"), Instant::now());
        for _ in 0..3 * MAX_FAILURES {
            assert_eq!(good(&throttle, a, t0), Attempt::Accepted);
        }
        for _ in 0..MAX_FAILURES - 1 {
            fail(&throttle, a, t0);
        }
        assert_eq!(good(&throttle, a, t0), Attempt::Accepted);
    }

    #[test]
    fn ipv6_counts_per_64_and_mapped_v4_as_v4() {
        let throttle = HelloThrottle::default();
        let t0 = Instant::now();
        for i in 0..MAX_FAILURES {
            fail(&throttle, ip(&format!("2001:db8:1:2::{i:x}")), t0);
        }
        assert_eq!(
            good(&throttle, ip("2001:db8:1:2:ffff::1"), t0),
            Attempt::Blocked
        );
        assert_eq!(
            good(&throttle, ip("2001:db8:1:3::1"), t0),
            Attempt::Accepted
        );
        for _ in 0..MAX_FAILURES {
            fail(&throttle, ip("::ffff:10.0.0.9"), t0);
        }
        assert_eq!(good(&throttle, ip("10.0.0.9"), t0), Attempt::Blocked);
    }

    #[test]
    fn memory_stays_bounded() {
        let throttle = HelloThrottle::default();
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED as u32 + 100) {
            fail(&throttle, IpAddr::from(i.to_be_bytes()), t0);
        }
        assert!(throttle.lock().len() <= MAX_TRACKED);
    }
}
