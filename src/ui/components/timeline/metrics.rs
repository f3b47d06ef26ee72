//! Where the scroller stood when layout was last read, and what follows
//! from it: the viewport in the rows' coordinates, whether the reader is
//! near either end, and how far beyond the screen rows stay mounted.

use super::window::Viewport;

/// Distance from the bottom (px) that still counts as "at the bottom".
const BOTTOM_SLACK: f64 = 48.0;

/// Where the scroller stood when layout was last read.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Metrics {
    pub(super) scroll_top: f64,
    pub(super) client_height: f64,
    pub(super) scroll_height: f64,
    /// The top of the screen in the rows' coordinates.
    pub(super) view_top: f64,
}

impl Metrics {
    pub(super) fn viewport(&self) -> Viewport {
        Viewport {
            top: self.view_top,
            height: self.client_height,
        }
    }

    /// Older rows are wanted within two screens of the top.
    pub(super) fn near_top(&self) -> bool {
        self.scroll_top < 2.0 * self.client_height.max(300.0)
    }

    /// Newer rows (of a window short of the end) within two of the bottom.
    pub(super) fn near_bottom(&self) -> bool {
        self.scroll_height - self.scroll_top - self.client_height
            < 2.0 * self.client_height.max(300.0)
    }

    pub(super) fn at_bottom(&self) -> bool {
        self.scroll_height - self.scroll_top - self.client_height <= BOTTOM_SLACK
    }

    /// Rows kept mounted beyond each edge of the screen: a screenful, so a
    /// fling has rows to land on.
    pub(super) fn overscan(&self) -> f64 {
        self.client_height.max(400.0)
    }

    /// Following the end, only rows above can come into view, and a scroll
    /// up mounts more in the same frame: a quarter screen is enough, and
    /// keeps the first paint of a thread and bursts of new rows cheap.
    pub(super) fn overscan_at_end(&self) -> f64 {
        self.overscan() / 4.0
    }

    /// Following, rows already mounted stay while within three screens
    /// above it (see `window::following`): a streamed answer or tool card
    /// that grows past a screen and then shrinks to its final text (a burst
    /// ending) brings back the rows it pushed up without mounting them
    /// again, which for a 1 MiB answer is 300 ms of layout.
    pub(super) fn keep_at_end(&self) -> f64 {
        3.0 * self.overscan()
    }
}
