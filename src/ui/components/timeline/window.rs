//! Which rows to mount: those on screen plus some overscan, at most
//! [`MAX_ROWS`] unless the screen itself needs more (rows hidden by the
//! display settings have no height). Pure, so the rules are tested here.

use std::ops::Range;

use super::heights::Heights;
use crate::ui::wiring::order_edits::OrderEdit;

/// The most rows mounted at once, overscan included.
pub const MAX_ROWS: usize = 240;

/// The visible part of the rows, in the rows' own coordinates (0 is the top
/// of the first row).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub top: f64,
    pub height: f64,
}

/// The rows to mount for `view` with `overscan` pixels above and below.
pub fn wanted(heights: &Heights, view: Viewport, overscan: f64) -> Range<usize> {
    let n = heights.len();
    let visible =
        heights.index_at(view.top).min(n)..(heights.index_at(view.top + view.height) + 1).min(n);
    let mut range = heights.index_at(view.top - overscan).min(visible.start)
        ..(heights.index_at(view.top + view.height + overscan) + 1)
            .min(n)
            .max(visible.end);
    // Over the cap: trim the overscan, the side farther from the screen first.
    while range.len() > MAX_ROWS.max(visible.len()) {
        if visible.start - range.start > range.end - visible.end {
            range.start += 1;
        } else {
            range.end -= 1;
        }
    }
    range
}

/// The rows to mount while following the end of the thread.
pub fn at_end(heights: &Heights, view_height: f64, overscan: f64) -> Range<usize> {
    let top = (heights.total() - view_height).max(0.0);
    wanted(
        heights,
        Viewport {
            top,
            height: view_height,
        },
        overscan,
    )
}

/// The window following the end: rows within `mount` px above the screen
/// are mounted, and rows already `mounted` stay while within `keep` px
/// (more than `mount`). New rows arrive with estimated heights, and a
/// streamed answer or tool card may grow past the screen, then shrink to
/// its final text: a row dropped on that account would be on screen again
/// a frame later, mounted and laid out from scratch (a 1 MiB answer: 300+
/// ms of layout).
pub fn following(
    heights: &Heights,
    view_height: f64,
    (mount, keep): (f64, f64),
    mounted: &Range<usize>,
) -> Range<usize> {
    let new = at_end(heights, view_height, mount);
    let kept = at_end(heights, view_height, keep).start;
    // Nothing mounted reaches into the wider margin (a window elsewhere,
    // after a jump): only the rows at the end. Otherwise the mounted rows
    // within it stay, even when the rows that just arrived, by their
    // estimates alone, leave a gap between them and the end.
    if mounted.is_empty() || mounted.end <= kept {
        return new;
    }
    mounted.start.max(kept).min(new.start)..new.end
}

/// Whether `mounted` still covers what `view` needs with half the overscan
/// to spare: if so, scrolling on needs no new rows yet.
pub fn covers(heights: &Heights, mounted: &Range<usize>, view: Viewport, overscan: f64) -> bool {
    let needed = wanted(heights, view, overscan / 2.0);
    mounted.start <= needed.start && needed.end <= mounted.end
}

/// `window` after `edit`: the same rows when they are all still there,
/// shifted by what was inserted or removed before them; rows removed from
/// inside the window shrink it.
pub fn shift(window: Range<usize>, edit: OrderEdit, len: usize) -> Range<usize> {
    let OrderEdit::Splice {
        at,
        removed,
        inserted,
    } = edit
    else {
        return 0..0;
    };
    let after = at + removed;
    // Rows inserted at `at` come before the row that was there and after
    // the rows before it: a window starting at `at` moves, one ending there
    // does not.
    let start = if window.start < at {
        window.start
    } else if window.start >= after {
        window.start + inserted - removed
    } else {
        at
    };
    let end = if window.end <= at {
        window.end
    } else if window.end >= after {
        window.end + inserted - removed
    } else {
        at + inserted
    };
    let start = start.min(len);
    let end = end.clamp(start, len);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize, h: f64) -> Heights {
        Heights::from_values(vec![h; n])
    }

    #[test]
    fn mounts_the_screen_and_the_overscan() {
        let h = rows(1000, 50.0);
        let view = Viewport {
            top: 5000.0,
            height: 500.0,
        };
        assert_eq!(wanted(&h, view, 0.0), 100..111);
        assert_eq!(wanted(&h, view, 250.0), 95..116);
        assert_eq!(wanted(&h, Viewport { top: 0.0, ..view }, 250.0), 0..16);
        assert_eq!(at_end(&h, 500.0, 250.0), 985..1000);
    }

    #[test]
    fn caps_the_overscan_but_never_the_screen() {
        let h = rows(10_000, 1.0);
        let view = Viewport {
            top: 5000.0,
            height: 100.0,
        };
        let r = wanted(&h, view, 1000.0);
        assert_eq!(r.len(), MAX_ROWS);
        assert!(r.start <= 5000 && r.end >= 5101, "{r:?}");
        let tall = Viewport {
            top: 0.0,
            height: 500.0,
        };
        assert_eq!(wanted(&h, tall, 1000.0).len(), 501);
    }

    #[test]
    fn covers_leaves_the_window_alone_for_small_scrolls() {
        let h = rows(1000, 50.0);
        let view = Viewport {
            top: 5000.0,
            height: 500.0,
        };
        let w = wanted(&h, view, 500.0);
        assert!(covers(&h, &w, view, 500.0));
        let nudged = Viewport {
            top: 5100.0,
            ..view
        };
        assert!(covers(&h, &w, nudged, 500.0));
        let far = Viewport {
            top: 6000.0,
            ..view
        };
        assert!(!covers(&h, &w, far, 500.0));
    }

    #[test]
    fn following_keeps_mounted_rows_within_the_wider_margin() {
        // 30 rows of 100 px, a screen of 500, mounting 125 px above it and
        // keeping rows up to 500 px above.
        let h = rows(30, 100.0);
        let margins = (125.0, 500.0);
        assert_eq!(following(&h, 500.0, margins, &(0..0)), 23..30);
        // Rows mounted since 20 stay; since 10, the farthest go.
        assert_eq!(following(&h, 500.0, margins, &(20..28)), 20..30);
        assert_eq!(following(&h, 500.0, margins, &(10..28)), 20..30);
        // A window elsewhere (after a jump) is not stretched down to.
        assert_eq!(following(&h, 500.0, margins, &(2..8)), 23..30);
        // The burst: a huge answer, then two new rows estimated at 500 px
        // (small once laid out). Mounted with them, the answer stays.
        let h = Heights::from_values(vec![50.0, 200_000.0, 500.0, 500.0]);
        assert_eq!(at_end(&h, 700.0, 175.0), 2..4, "on the estimates alone");
        assert_eq!(following(&h, 700.0, (175.0, 2100.0), &(0..4)), 1..4);
        // Three rows arriving at once after the answer (typing, a tool card,
        // a streamed answer) fill the screen on their estimates: the
        // answer, mounted before them, still stays.
        let h = Heights::from_values(vec![50.0, 200_000.0, 500.0, 500.0, 500.0]);
        assert_eq!(at_end(&h, 700.0, 175.0), 3..5, "on the estimates alone");
        assert_eq!(following(&h, 700.0, (175.0, 2100.0), &(0..2)), 1..5);
    }

    #[test]
    fn shift_keeps_the_same_rows_through_edits() {
        let prepend = OrderEdit::Splice {
            at: 0,
            removed: 0,
            inserted: 50,
        };
        assert_eq!(shift(10..20, prepend, 150), 60..70);
        assert_eq!(shift(0..20, prepend, 150), 50..70);
        let append = OrderEdit::Splice {
            at: 100,
            removed: 0,
            inserted: 3,
        };
        assert_eq!(shift(90..100, append, 103), 90..100);
        let inside = OrderEdit::Splice {
            at: 12,
            removed: 4,
            inserted: 1,
        };
        assert_eq!(shift(10..20, inside, 97), 10..17);
        assert_eq!(shift(10..20, OrderEdit::Reset, 5), 0..0);
    }
}
