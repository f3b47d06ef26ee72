//! Which threads' pages are kept: the [`MAX_THREADS`] opened last. Opening
//! one more evicts the one opened longest ago.

use super::record::{Recent, MAX_THREADS};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recency {
    /// Most recently opened first.
    recent: Vec<Recent>,
}

impl Recency {
    /// From a kept index (bounded already, but duplicates are dropped).
    pub fn from_kept(kept: Vec<Recent>) -> Recency {
        let mut r = Recency::default();
        for entry in kept.into_iter().take(MAX_THREADS) {
            if !r.contains(&entry.channel_id) {
                r.recent.push(entry);
            }
        }
        r
    }

    pub fn contains(&self, channel_id: &str) -> bool {
        self.recent.iter().any(|r| r.channel_id == channel_id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.recent.iter().map(|r| r.channel_id.as_str())
    }

    pub fn entries(&self) -> &[Recent] {
        &self.recent
    }

    /// A thread was opened: it moves to the front. Returns the thread
    /// evicted to make room, if any.
    pub fn opened(&mut self, channel_id: &str, now_ms: f64) -> Option<String> {
        self.recent.retain(|r| r.channel_id != channel_id);
        self.recent.insert(
            0,
            Recent {
                channel_id: channel_id.to_string(),
                opened_ms: now_ms,
            },
        );
        (self.recent.len() > MAX_THREADS)
            .then(|| self.recent.pop().map(|r| r.channel_id))
            .flatten()
    }

    /// Forgets the threads `exists` says are gone; returns them.
    pub fn retain(&mut self, exists: impl Fn(&str) -> bool) -> Vec<String> {
        let (kept, gone): (Vec<Recent>, Vec<Recent>) = std::mem::take(&mut self.recent)
            .into_iter()
            .partition(|r| exists(&r.channel_id));
        self.recent = kept;
        gone.into_iter().map(|r| r.channel_id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_opened_longest_ago_is_evicted() {
        let mut r = Recency::default();
        for i in 0..MAX_THREADS {
            assert_eq!(r.opened(&format!("c{i}"), i as f64), None);
        }
        // Opening c0 again makes c1 the oldest.
        assert_eq!(r.opened("c0", 100.0), None);
        assert_eq!(r.opened("new", 101.0), Some("c1".to_string()));
        assert_eq!(r.entries().len(), MAX_THREADS);
        assert_eq!(r.ids().next(), Some("new"));
        assert!(r.contains("c0") && !r.contains("c1"));
    }

    #[test]
    fn reopening_does_not_duplicate() {
        let mut r = Recency::default();
        r.opened("a", 1.0);
        r.opened("b", 2.0);
        r.opened("a", 3.0);
        assert_eq!(r.ids().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(r.entries()[0].opened_ms, 3.0);
    }

    #[test]
    fn a_kept_list_is_bounded_and_deduplicated() {
        let kept = (0..MAX_THREADS + 3)
            .map(|i| Recent {
                channel_id: format!("c{}", i % (MAX_THREADS - 1)),
                opened_ms: 0.0,
            })
            .collect();
        let r = Recency::from_kept(kept);
        assert_eq!(r.entries().len(), MAX_THREADS - 1);
    }

    #[test]
    fn threads_that_are_gone_are_forgotten() {
        let mut r = Recency::default();
        r.opened("a", 1.0);
        r.opened("b", 2.0);
        assert_eq!(r.retain(|id| id == "a"), ["b"]);
        assert_eq!(r.ids().collect::<Vec<_>>(), ["a"]);
    }
}
