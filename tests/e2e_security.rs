//! Browser tests of the client's side of token safety: a token goes only to
//! the gateway it was saved for, a crafted `?gateway=` link waits for the
//! user's yes (and then gets no token), a token over plain `ws://` to
//! another machine needs a yes too, and the app refuses to run in a frame.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_security
//! ```
//!
//! | File | Proves |
//! |---|---|
//! | `links.rs` | links to another gateway (ws:, http:, upper case, localhost, encoded, with a deep link) ask first; that gateway never sees the saved token; no keeps the page's own gateway; the dialog is a real modal |
//! | `tokens.rs` | a v1 global token migrates to its gateway; Settings list each token with its gateway; Forget removes it |
//! | `plaintext.rs` | a token to a non-loopback `ws://` host waits for a yes; the badge says "not encrypted" |
//! | `frame.rs` | inside another origin's frame the app says why and does not connect |
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_security {
    mod frame;
    mod links;
    mod plaintext;
    mod tokens;
}
