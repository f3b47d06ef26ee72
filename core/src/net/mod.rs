//! Talking to the gateway, the decisions only: backoff, addresses, which
//! gateway and token to use, heartbeat timing. The socket that carries them
//! out is the browser app's (`aria-web`'s `net::socket`).

pub mod address;
pub mod backoff;
pub mod endpoint;
pub mod heartbeat;

pub use address::Address;
pub use backoff::Backoff;
pub use endpoint::{plan, LinkAnswer, PageOrigin, Plan};
