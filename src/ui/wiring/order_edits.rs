//! How the open thread's key list changed, as splices, for views that keep
//! per-row bookkeeping in step with it (the timeline's row heights). Pure:
//! the view state writes the log, the virtual list reads it.

use crate::store::RowKey;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderEdit {
    /// The `removed` keys from index `at` on were replaced by `inserted`
    /// other keys; everything else kept its place.
    Splice {
        at: usize,
        removed: usize,
        inserted: usize,
    },
    /// Another thread: nothing carries over.
    Reset,
}

/// Edits kept for a consumer that fell behind before they collapse into a
/// `Reset` (the timeline takes them every sync, so this never fills).
const MAX_PENDING_EDITS: usize = 64;

/// The edits not yet taken, oldest first.
#[derive(Debug, Default)]
pub struct EditLog(Vec<OrderEdit>);

impl EditLog {
    pub fn push(&mut self, edit: OrderEdit) {
        if edit == OrderEdit::Reset || self.0.len() >= MAX_PENDING_EDITS {
            self.0.clear();
            self.0.push(OrderEdit::Reset);
        } else {
            self.0.push(edit);
        }
    }

    pub fn take(&mut self) -> Vec<OrderEdit> {
        std::mem::take(&mut self.0)
    }
}

/// One splice that turns `old` into `new`: the length of the common
/// prefix, how many old keys follow it before the common suffix, and the
/// new keys that replace them. One pass of comparisons, no allocation but
/// the inserted keys.
pub fn splice<'a, I>(old: &[RowKey], new: impl Fn() -> I) -> (usize, usize, Vec<RowKey>)
where
    I: DoubleEndedIterator<Item = &'a RowKey> + ExactSizeIterator,
{
    let new_len = new().len();
    let prefix = old.iter().zip(new()).take_while(|(a, b)| a == b).count();
    let suffix = old
        .iter()
        .rev()
        .zip(new().rev())
        .take(old.len().min(new_len) - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    let inserted = new()
        .skip(prefix)
        .take(new_len - prefix - suffix)
        .cloned()
        .collect();
    (prefix, old.len() - prefix - suffix, inserted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &str) -> Vec<RowKey> {
        s.chars().map(|c| RowKey::message(&c.to_string())).collect()
    }

    /// Applying the splice to `old` gives `new`, and the splice is minimal
    /// around the common prefix and suffix.
    fn check(old: &str, new: &str, expect: (usize, usize, &str)) {
        let (old, new) = (keys(old), keys(new));
        let (at, removed, inserted) = splice(&old, || new.iter());
        assert_eq!(
            (at, removed, inserted.clone()),
            (expect.0, expect.1, keys(expect.2))
        );
        let mut applied = old.clone();
        applied.splice(at..at + removed, inserted);
        assert_eq!(applied, new);
    }

    #[test]
    fn splices_cover_appends_prepends_moves_and_repeats() {
        check("abc", "abcde", (3, 0, "de"));
        check("cde", "abcde", (0, 0, "ab"));
        check("abcde", "abde", (2, 1, ""));
        check("abc", "acb", (1, 2, "cb"));
        check("aaa", "aa", (2, 1, ""));
        check("", "ab", (0, 0, "ab"));
        check("ab", "", (0, 2, ""));
        check("ab", "ab", (2, 0, ""));
    }

    #[test]
    fn a_log_that_fills_or_resets_collapses_into_one_reset() {
        let mut log = EditLog::default();
        let edit = OrderEdit::Splice {
            at: 0,
            removed: 0,
            inserted: 1,
        };
        log.push(edit);
        log.push(edit);
        assert_eq!(log.take(), vec![edit, edit]);
        assert!(log.take().is_empty());
        log.push(edit);
        log.push(OrderEdit::Reset);
        assert_eq!(log.take(), vec![OrderEdit::Reset]);
        for _ in 0..=MAX_PENDING_EDITS {
            log.push(edit);
        }
        assert_eq!(log.take(), vec![OrderEdit::Reset]);
    }
}
