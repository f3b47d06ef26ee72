//! The browser half of the app, in rooms by kind: `components` (what is
//! shown), `hooks` (behaviours installed by the app or a component),
//! `browser` (adapters over browser APIs) and `wiring` (the runtime that
//! connects the store, the socket and the components).

mod browser;
mod components;
mod hooks;
mod wiring;

pub use browser::boot::mark_booted;
pub use components::app::App;
