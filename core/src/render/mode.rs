//! How streamed answers reach the screen. The app always renders
//! incrementally; `?render=` in the page URL selects the benchmark's
//! baselines (`scripts/bench`), so that they run in the very same build.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderMode {
    /// Completed markdown blocks are rendered once and kept, only the open
    /// tail is re-rendered, and the view updates at most once per frame.
    Incremental,
    /// `?render=naive`: the whole bubble re-parsed and replaced on every
    /// `message.update`, the way a UI that re-renders per token works.
    Naive,
    /// `?render=naive-per-frame`: the whole bubble re-parsed and replaced,
    /// but snapshots still coalesced to one render per frame (what
    /// incremental markdown alone saves).
    NaivePerFrame,
}

impl RenderMode {
    /// The mode for the value of `?render=` (anything unknown: incremental).
    pub fn from_param(value: Option<&str>) -> RenderMode {
        match value {
            Some("naive") => RenderMode::Naive,
            Some("naive-per-frame") => RenderMode::NaivePerFrame,
            _ => RenderMode::Incremental,
        }
    }

    /// Whether each update re-renders the whole bubble.
    pub fn whole_bubble(self) -> bool {
        self != RenderMode::Incremental
    }

    /// Whether view updates wait for the next animation frame (so that
    /// snapshots arriving within one frame are rendered once).
    pub fn coalesces(self) -> bool {
        self != RenderMode::Naive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_baselines_leave_incremental_rendering() {
        assert_eq!(RenderMode::from_param(None), RenderMode::Incremental);
        for other in ["", "fast", "NAIVE", "naive ", "naive-per-update"] {
            assert_eq!(RenderMode::from_param(Some(other)), RenderMode::Incremental);
        }
        let naive = RenderMode::from_param(Some("naive"));
        assert!(naive.whole_bubble() && !naive.coalesces());
        let per_frame = RenderMode::from_param(Some("naive-per-frame"));
        assert!(per_frame.whole_bubble() && per_frame.coalesces());
        assert!(!RenderMode::Incremental.whole_bubble() && RenderMode::Incremental.coalesces());
    }
}
