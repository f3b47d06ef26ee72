//! Browser tests of search and of opening any item in place, against the
//! scripted fake gateway (§6 `around`, §10
//! search from its logs), and against the reference gateway.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_search
//! ```
//!
//! | File | Proves |
//! |---|---|
//! | `search.rs` | hits as you type, words marked, hostile snippets inert text, More results, arrow keys + Enter open a hit in place, Escape clears, "unavailable" on a gateway without search |
//! | `real_gateway.rs` | the reference gateway (FTS5, `around`, a seeded 5,000-item thread): a hit opens its item in place, Jump to latest, a hostile message searched stays text |
//! | `jump.rs` | a deep link into a 5,000-item thread shows the item marked after one `around` round trip; two-way paging shows every seq once, in order; live frames wait for Jump to latest; a gateway that ignores `around` falls back with a notice |
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_search {
    mod jump;
    mod real_gateway;
    mod search;
}
