//! Offline reading, the pure part: what is kept of a gateway's threads
//! (its list and the newest pages of the threads opened last), in which
//! records, and when they are written. `src/ui/wiring/offline.rs` keeps the records
//! in IndexedDB; `store/offline.rs` starts from them and reconciles them
//! with the gateway.

mod cache;
mod item;
mod recency;
mod record;

pub use cache::{OfflineCache, OfflineView, Summary, Writes};
pub use item::item_of;
pub use recency::Recency;
pub use record::{gateway_range, index_key, thread_key, Index, Recent, ThreadRecord};
pub use record::{MAX_ITEMS, MAX_LISTED, MAX_THREADS, VERSION};
