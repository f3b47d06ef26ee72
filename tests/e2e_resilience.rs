//! Resilience and security tests in the browser: the real client against
//! a real gateway behind a TCP proxy that plays the network (cuts, dead
//! paths, restarts), or against a scripted fake gateway that sends hostile
//! content and malformed frames.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_resilience
//! ```
//!
//! | File | Proves |
//! |---|---|
//! | `supervisor.rs` | backoff with jitter, status and "retry now", heartbeat, handshake timeout, unauthorized / wrong protocol stop retrying |
//! | `pending_sends.rs` | offline sends are pending, survive a reload, are sent exactly once; rejected sends show the error and retry |
//! | `resume.rs` | a running turn resumes live after a dropped socket, a gateway killed and restarted, a page reload |
//! | `hostile.rs` | hostile text is inert everywhere it is shown; nothing remote is fetched |
//! | `csp.rs` | the Content-Security-Policy is strict and a full turn runs without a violation |
//! | `adversarial.rs` | malformed, out-of-order, huge and bursty frames: no panic, state intact, UI responsive |
//! | `markdown_module.rs` | the markdown module is fetched after the app's wasm; without it answers show as text |
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_resilience {
    mod adversarial;
    mod csp;
    mod hostile;
    mod markdown_module;
    mod pending_sends;
    mod resume;
    mod supervisor;
}
