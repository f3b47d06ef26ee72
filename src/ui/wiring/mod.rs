//! The app's wiring: the runtime that connects the store, the socket and
//! the components, the offline copy's watcher, the view state the
//! timeline renders from, and the idle rehearsal of a streamed answer.

pub(crate) mod files;
pub(crate) mod offline;
pub(crate) mod order_edits;
pub(crate) mod rehearsal;
pub(crate) mod row_mounts;
pub(crate) mod runtime;
pub(crate) mod view_state;
