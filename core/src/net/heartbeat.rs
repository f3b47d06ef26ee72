//! The heartbeat's bookkeeping (protocol §2): a ping every period, and the
//! socket counts as dead once two pings in a row went unanswered. Pure, so
//! the rule is tested on the host; the supervisor owns the timer.

/// Unanswered pings after which the socket is dead.
pub const MAX_MISSED_PONGS: u32 = 2;

/// What to do on a heartbeat tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beat {
    /// Send a ping.
    Ping,
    /// Too many pings went unanswered: give the socket up.
    Dead,
}

#[derive(Debug, Clone, Default)]
pub struct Heartbeat {
    missed: u32,
}

impl Heartbeat {
    /// One period passed.
    pub fn tick(&mut self) -> Beat {
        if self.missed >= MAX_MISSED_PONGS {
            return Beat::Dead;
        }
        self.missed += 1;
        Beat::Ping
    }

    /// A pong arrived: the socket is alive.
    pub fn pong(&mut self) {
        self.missed = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_after_two_unanswered_pings_not_one() {
        let mut h = Heartbeat::default();
        assert_eq!(h.tick(), Beat::Ping);
        assert_eq!(h.tick(), Beat::Ping);
        assert_eq!(h.tick(), Beat::Dead);
        assert_eq!(h.tick(), Beat::Dead);
    }

    #[test]
    fn a_pong_keeps_it_alive() {
        let mut h = Heartbeat::default();
        for _ in 0..10 {
            assert_eq!(h.tick(), Beat::Ping);
            assert_eq!(h.tick(), Beat::Ping);
            h.pong();
        }
    }
}
