//! Gives the heap memory that dropped devices freed back to the system.
//! glibc's allocator keeps freed memory in its arenas (one per thread that
//! allocated), so after a burst (a lagging device's full queue, a storm of
//! sockets) the gateway's resident size would stay at its peak. A few
//! seconds after devices went away, one trim returns what is free.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long after a release the trim waits, so that a storm of closes
/// costs one trim.
const AFTER_RELEASE: Duration = Duration::from_secs(3);

static RELEASED_SINCE_TRIM: AtomicBool = AtomicBool::new(false);

/// A device's queue or connection was dropped: its buffers are freed.
pub fn released() {
    RELEASED_SINCE_TRIM.store(true, Ordering::Relaxed);
}

/// Trims the heap after releases, for as long as the server runs (the
/// caller drops this future with it).
pub async fn trim_after_releases() {
    loop {
        tokio::time::sleep(AFTER_RELEASE).await;
        if RELEASED_SINCE_TRIM.swap(false, Ordering::Relaxed) {
            // Walks every arena under its lock: off the async threads.
            let _ = tokio::task::spawn_blocking(trim).await;
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim takes no pointers and only returns glibc's own
    // free pages under the allocator's locks; any thread may call it.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators return memory by themselves, or have no such call.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}
