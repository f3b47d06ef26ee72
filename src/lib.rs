//! aria-web: a chat client for AI-agent gateways (Leptos, compiled to wasm).
//!
//! Data flows one way: socket text → `protocol` decode → `store::Store::apply`
//! → reactive view state → `ui` components. Everything that needs no
//! browser is the `aria-core` crate, re-exported here under the same paths;
//! this crate is the socket (`net`) and what is on screen (`ui`).

pub use aria_core::{
    announce, app_update, attention, deep_link, display, export, files, offline, protocol, render,
    search, settings, shortcuts, store,
};

pub mod net;
pub mod ui;
