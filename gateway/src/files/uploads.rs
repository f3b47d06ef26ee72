//! The uploads in progress, by device and `upload_id`: bounded in number
//! (the one untouched the longest makes room) and in age (expired ones are
//! swept), each holding its bytes in the temporary area until it ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::quota::Quota;
use super::upload::Upload;

/// A device's upload: the `upload_id` is the device's own, so two devices
/// never share (or take over) one.
pub type Key = (String, String);

pub type Slot = Arc<tokio::sync::Mutex<Upload>>;

struct Entry {
    upload: Slot,
    touched: Instant,
}

pub struct Uploads {
    entries: Mutex<HashMap<Key, Entry>>,
    max: usize,
    expiry: Duration,
}

impl Uploads {
    pub fn new(max: usize, expiry: Duration) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            max,
            expiry,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The upload under `key`, marked as used now.
    pub fn get(&self, key: &Key, now: Instant) -> Option<Slot> {
        let mut entries = self.lock();
        let entry = entries.get_mut(key)?;
        entry.touched = now;
        Some(Arc::clone(&entry.upload))
    }

    /// Adds an upload, replacing any under the same key, after sweeping
    /// expired ones and making room.
    pub fn insert(&self, key: Key, upload: Upload, now: Instant, quota: &Quota) -> Slot {
        let slot = Arc::new(tokio::sync::Mutex::new(upload));
        let mut entries = self.lock();
        sweep(&mut entries, now, self.expiry, quota);
        if let Some(old) = entries.remove(&key) {
            close(&old.upload, quota);
        }
        while entries.len() >= self.max {
            if !evict_oldest(&mut entries, quota) {
                break;
            }
        }
        entries.insert(
            key,
            Entry {
                upload: Arc::clone(&slot),
                touched: now,
            },
        );
        slot
    }

    /// Removes the upload under `key` if it is still `slot` (the caller
    /// holds its lock and closes it).
    pub fn remove(&self, key: &Key, slot: &Slot) {
        let mut entries = self.lock();
        if entries
            .get(key)
            .is_some_and(|e| Arc::ptr_eq(&e.upload, slot))
        {
            entries.remove(key);
        }
    }

    /// Drops the upload under `key`, if any (its file is stored already).
    pub fn discard(&self, key: &Key, quota: &Quota) {
        let mut entries = self.lock();
        if let Some(entry) = entries.get(key) {
            if close(&entry.upload, quota) {
                entries.remove(key);
            }
        }
    }

    /// Drops every upload untouched for longer than the expiry.
    pub fn sweep(&self, now: Instant, quota: &Quota) {
        sweep(&mut self.lock(), now, self.expiry, quota);
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Closes an upload unless a chunk is being written to it right now (then
/// it stays: it is in use, so not the one to drop).
fn close(slot: &Slot, quota: &Quota) -> bool {
    match slot.try_lock() {
        Ok(mut upload) => {
            quota.release(upload.close());
            true
        }
        Err(_) => false,
    }
}

fn sweep(entries: &mut HashMap<Key, Entry>, now: Instant, expiry: Duration, quota: &Quota) {
    entries.retain(|_, e| {
        now.saturating_duration_since(e.touched) < expiry || !close(&e.upload, quota)
    });
}

/// Drops the upload untouched the longest that is not busy; `false` if all are busy.
fn evict_oldest(entries: &mut HashMap<Key, Entry>, quota: &Quota) -> bool {
    let mut by_age: Vec<(&Key, Instant)> = entries.iter().map(|(k, e)| (k, e.touched)).collect();
    by_age.sort_by_key(|(_, touched)| *touched);
    let victim = by_age
        .into_iter()
        .map(|(k, _)| k.clone())
        .find(|k| entries.get(k).is_some_and(|e| close(&e.upload, quota)));
    match victim {
        Some(key) => {
            entries.remove(&key);
            true
        }
        None => false,
    }
}

#[cfg(test)]
#[path = "uploads_tests.rs"]
mod tests;
