//! How much of a streamed answer's completed blocks one frame puts on the
//! page. Snapshots come in bursts: a turn's first ones while its rows are
//! made, several at once after the page was busy or on a slow CPU. A frame
//! that appends a whole burst lays out and paints several updates' worth
//! at once, so a frame appends blocks up to a budget of HTML and the rest
//! wait for the next frames. The unfinished tail continues the last
//! waiting block, so it is shown only once none wait.

use std::collections::VecDeque;

/// The block HTML a frame appends at most (one block always): about two
/// snapshots of the benchmark's fast stream, 1 KiB of markdown every
/// 10 ms, which is 2.8 KiB of HTML (3.4 KiB with formulas).
pub const FRAME_BUDGET: usize = 6 * 1024;

/// Completed blocks between the renderer and the page.
#[derive(Debug, Default)]
pub struct Pacer {
    /// Blocks on the page.
    shown: usize,
    /// Completed blocks not on the page yet, in order.
    waiting: VecDeque<String>,
    /// HTML appended since the frame began ([`Pacer::new_frame`]): a view
    /// may be updated twice in a frame, and the budget is the frame's.
    used: usize,
}

/// What one frame does to the page.
#[derive(Debug, PartialEq, Eq)]
pub struct Step {
    /// Keep only this many blocks first: the renderer revised a shown one.
    pub keep: Option<usize>,
    /// Blocks on the page before `append`.
    pub shown: usize,
    /// Blocks to append, in order.
    pub append: Vec<String>,
    /// No block waits: the tail may be shown.
    pub tail: bool,
}

impl Pacer {
    /// This frame's part of the renderer's update: it kept its first
    /// `kept` blocks (`None`: all of them) and completed `appended`; the
    /// frame appends at most `budget` bytes of HTML, and at least one
    /// block.
    pub fn frame(&mut self, kept: Option<usize>, appended: Vec<String>, budget: usize) -> Step {
        let mut keep = None;
        if let Some(k) = kept {
            if k >= self.shown {
                self.waiting.truncate(k - self.shown);
            } else {
                self.waiting.clear();
                self.shown = k;
                keep = Some(k);
            }
        }
        self.waiting.extend(appended);
        let shown = self.shown;
        let mut append = Vec::new();
        while let Some(next) = self.waiting.front() {
            if self.used > 0 && self.used.saturating_add(next.len()) > budget {
                break;
            }
            self.used += next.len().max(1);
            append.extend(self.waiting.pop_front());
        }
        self.shown += append.len();
        Step {
            keep,
            shown,
            append,
            tail: self.waiting.is_empty(),
        }
    }

    /// A new frame: its budget is whole again.
    pub fn new_frame(&mut self) {
        self.used = 0;
    }

    /// Blocks on the page.
    pub fn shown(&self) -> usize {
        self.shown
    }

    /// Whether blocks wait for a frame.
    pub fn waiting(&self) -> bool {
        !self.waiting.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn blocks_within_the_budget_go_at_once_with_the_tail() {
        let mut p = Pacer::default();
        let step = p.frame(None, blocks(&["aa", "bb"]), 10);
        assert_eq!(
            step,
            Step {
                keep: None,
                shown: 0,
                append: blocks(&["aa", "bb"]),
                tail: true
            }
        );
        assert!(!p.waiting());
    }

    #[test]
    fn a_burst_is_spread_over_frames_and_the_tail_waits_for_the_last() {
        let mut p = Pacer::default();
        let first = p.frame(None, blocks(&["aaaa", "bbbb", "cccc", "dddd"]), 8);
        assert_eq!(first.append, blocks(&["aaaa", "bbbb"]));
        assert!(!first.tail);
        assert!(p.waiting());
        // The next frame: no new block, the rest of the budget's worth.
        p.new_frame();
        let second = p.frame(None, Vec::new(), 8);
        assert_eq!(
            (second.shown, second.append.clone()),
            (2, blocks(&["cccc", "dddd"]))
        );
        assert!(second.tail);
        assert!(!p.waiting());
        // Nothing left: nothing appended, the tail shown.
        p.new_frame();
        let third = p.frame(None, Vec::new(), 8);
        assert_eq!(
            (third.shown, third.append.is_empty(), third.tail),
            (4, true, true)
        );
    }

    #[test]
    fn one_block_goes_even_when_it_is_over_the_budget() {
        let mut p = Pacer::default();
        let step = p.frame(None, blocks(&["a long block", "b"]), 4);
        assert_eq!(step.append, blocks(&["a long block"]));
        assert!(!step.tail);
        p.new_frame();
        assert_eq!(p.frame(None, Vec::new(), 4).append, blocks(&["b"]));
    }

    #[test]
    fn new_blocks_queue_behind_the_waiting_ones() {
        let mut p = Pacer::default();
        p.frame(None, blocks(&["aaaa", "bbbb", "cccc"]), 4);
        p.new_frame();
        let step = p.frame(None, blocks(&["dddd"]), 8);
        assert_eq!((step.shown, step.append), (1, blocks(&["bbbb", "cccc"])));
        p.new_frame();
        assert_eq!(p.frame(None, Vec::new(), 8).append, blocks(&["dddd"]));
    }

    #[test]
    fn a_revision_of_waiting_blocks_drops_them_without_touching_the_page() {
        let mut p = Pacer::default();
        p.frame(None, blocks(&["aaaa", "bbbb", "cccc"]), 4);
        // The renderer kept 2 of its 3 blocks: "cccc" never reaches the page.
        p.new_frame();
        let step = p.frame(Some(2), blocks(&["CCCC"]), 8);
        assert_eq!(step.keep, None);
        assert_eq!((step.shown, step.append), (1, blocks(&["bbbb", "CCCC"])));
    }

    #[test]
    fn a_revision_of_shown_blocks_cuts_the_page_and_drops_what_waited() {
        let mut p = Pacer::default();
        p.frame(None, blocks(&["aaaa", "bbbb", "cccc", "dddd"]), 8);
        p.new_frame();
        let step = p.frame(Some(1), blocks(&["BBBB"]), 8);
        assert_eq!(
            step,
            Step {
                keep: Some(1),
                shown: 1,
                append: blocks(&["BBBB"]),
                tail: true
            }
        );
    }

    #[test]
    fn two_updates_in_one_frame_share_its_budget() {
        let mut p = Pacer::default();
        assert_eq!(
            p.frame(None, blocks(&["aaaa"]), 8).append,
            blocks(&["aaaa"])
        );
        // A second update in the same frame: only what is left of the budget.
        let step = p.frame(None, blocks(&["bbbb", "cccc"]), 8);
        assert_eq!((step.shown, step.append), (1, blocks(&["bbbb"])));
        assert!(p.waiting());
        // Budget spent: a third update appends nothing, not even one block.
        let step = p.frame(None, Vec::new(), 8);
        assert!(step.append.is_empty() && !step.tail);
        p.new_frame();
        assert_eq!(p.frame(None, Vec::new(), 8).append, blocks(&["cccc"]));
    }

    #[test]
    fn without_a_budget_everything_goes_at_once() {
        let mut p = Pacer::default();
        let many: Vec<String> = (0..1000).map(|i| format!("<p>{i}</p>")).collect();
        let step = p.frame(None, many.clone(), usize::MAX);
        assert_eq!(step.append, many);
        assert!(step.tail);
    }
}
