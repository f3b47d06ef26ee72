//! The outbox: the SQLite log and the hub behind one lock.
//!
//! Appending an item and publishing its frame happen under the same mutex,
//! so live frames leave in `seq` order and a device joining sees a channel
//! list consistent with the frames that follow its `ready`. Searches read
//! through their own connection, outside that lock.

use std::sync::{Arc, Mutex, PoisonError};

use crate::hub::Hub;
use crate::search::reader::SearchReader;
use crate::store::{Store, StoreError};

pub struct Outbox {
    store: Mutex<Store>,
    search: Arc<SearchReader>,
    hub: Hub,
}

impl Outbox {
    pub fn new(store: Store) -> Self {
        Self {
            search: Arc::new(SearchReader::new(store.path().to_path_buf())),
            store: Mutex::new(store),
            hub: Hub::default(),
        }
    }

    /// The log's search connection (not behind the store lock).
    pub fn search_reader(&self) -> &Arc<SearchReader> {
        &self.search
    }

    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// Runs `f` with the store and the hub on the blocking pool (SQLite calls
    /// block), holding the store lock for the whole of `f`.
    pub async fn run<T, F>(self: &Arc<Self>, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Store, &Hub) -> Result<T, StoreError> + Send + 'static,
    {
        let this = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let mut store = this.store.lock().unwrap_or_else(PoisonError::into_inner);
            f(&mut store, &this.hub)
        })
        .await
        .map_err(|e| StoreError::Worker(e.to_string()))?
    }
}
