//! Talking to the gateway: the socket supervisor (browser-only) and the
//! pure pieces it uses (backoff, choice of address).

pub mod backoff;
pub mod endpoint;
pub mod heartbeat;
pub mod socket;

pub use backoff::Backoff;
pub use endpoint::{gateway_url, PageOrigin};
pub use socket::{Event, Socket, Status, Target};
