//! Talking to the gateway: the socket supervisor (browser-only) over the
//! pure decisions of `aria_core::net` (backoff, addresses, choice of gateway
//! and token, heartbeat).

mod received_text;
pub mod socket;

pub use aria_core::net::*;
pub use socket::{Event, Socket, Status, Target};
