//! The branch state of one thread (§12): the `branch_rev` its rows were
//! read at and the `branch` of each loaded item, checked as it arrives.

use std::collections::BTreeMap;

use crate::protocol::Branch;

/// The branch state of one thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Branches {
    /// The `branch_rev` the loaded rows were read at (`None` before the
    /// first page, or from a gateway without branches).
    pub rev: Option<u64>,
    /// The `branch` of each loaded item that has one, by seq.
    pub at: BTreeMap<u64, Branch>,
    /// A `branch.select` is in flight (its refusal names only the thread).
    pub selecting: bool,
}

impl Branches {
    /// Keeps the `branch` an item `seq` arrived with (or its absence). A
    /// user message is a node of one item: its own `seq` must be the one
    /// its branch lists for it.
    pub(super) fn note(&mut self, seq: u64, branch: Option<&Branch>, user: bool) {
        let own = |b: &Branch| {
            usize::try_from(b.index)
                .ok()
                .and_then(|i| b.siblings.get(i))
                .copied()
        };
        match branch.filter(|b| b.fits(seq) && (!user || own(b) == Some(seq))) {
            Some(b) => {
                self.at.insert(seq, b.clone());
            }
            None => {
                self.at.remove(&seq);
            }
        }
    }
}
