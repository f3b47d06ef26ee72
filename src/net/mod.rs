//! Talking to the gateway: the socket supervisor (browser-only) and the
//! pure pieces it uses (backoff, addresses, choice of gateway and token).

pub mod address;
pub mod backoff;
pub mod endpoint;
pub mod heartbeat;
mod received_text;
pub mod socket;

pub use address::Address;
pub use backoff::Backoff;
pub use endpoint::{plan, LinkAnswer, PageOrigin, Plan};
pub use socket::{Event, Socket, Status, Target};
