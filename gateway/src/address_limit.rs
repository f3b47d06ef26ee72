//! Open sockets counted per client address, so one address cannot hold
//! every file descriptor and byte of memory the gateway has: past the limit
//! a new socket is answered and closed at once.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::hello_throttle::address_key;

#[derive(Debug)]
pub struct AddressLimit {
    /// Most sockets one address may hold; 0 is no limit.
    max: usize,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One counted socket; dropping it frees its place.
#[derive(Debug)]
pub struct SocketSlot {
    key: IpAddr,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl AddressLimit {
    pub fn new(max: usize) -> Self {
        Self {
            max,
            open: Arc::default(),
        }
    }

    pub fn max(&self) -> usize {
        self.max
    }

    /// A place for one more socket from `ip`, or `None` when it holds the
    /// most it may.
    pub fn open(&self, ip: IpAddr) -> Option<SocketSlot> {
        let key = address_key(ip);
        let mut open = lock(&self.open);
        let count = open.entry(key).or_default();
        if self.max > 0 && *count >= self.max {
            return None;
        }
        *count += 1;
        Some(SocketSlot {
            key,
            open: Arc::clone(&self.open),
        })
    }
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let mut open = lock(&self.open);
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

fn lock(open: &Mutex<HashMap<IpAddr, usize>>) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
    // Plain counters stay usable even if a holder panicked.
    open.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn an_address_holds_at_most_max_and_a_closed_socket_frees_its_place() {
        let limit = AddressLimit::new(2);
        let a = limit.open(ip("10.0.0.1")).expect("first");
        let _b = limit.open(ip("10.0.0.1")).expect("second");
        assert!(limit.open(ip("10.0.0.1")).is_none());
        assert!(limit.open(ip("10.0.0.2")).is_some(), "others unaffected");
        drop(a);
        assert!(limit.open(ip("10.0.0.1")).is_some());
    }

    #[test]
    fn ipv6_counts_per_64_and_zero_is_no_limit() {
        let limit = AddressLimit::new(1);
        let _a = limit.open(ip("2001:db8::1")).expect("first");
        assert!(limit.open(ip("2001:db8::2")).is_none());
        let open = AddressLimit::new(0);
        let slots: Vec<_> = (0..1000).filter_map(|_| open.open(ip("::1"))).collect();
        assert_eq!(slots.len(), 1000);
        drop(slots);
        assert!(lock(&open.open).is_empty(), "counts are forgotten at zero");
    }
}
