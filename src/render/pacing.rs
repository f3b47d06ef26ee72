//! How much of a streamed answer the next frame shows. A frame's cost is
//! the browser laying out and painting the text it adds, so after a slow
//! frame the snapshots that piled up meanwhile are let in over a few frames
//! instead of all at once (which would make the next frame slow in turn).

/// New text (bytes of markdown) one frame adds at most, unless a backlog
/// needs more: above a fast stream's rate (100 KiB/s is about 1.7 KiB per
/// frame at 60 Hz), so a stream that keeps its pace is never held back.
pub const FRAME_BYTES: usize = 2048;

/// Each frame shows at least this share of the backlog (its inverse): a
/// stream faster than [`FRAME_BYTES`] per frame is followed a few frames
/// behind, never further, and a backlog shrinks geometrically.
pub const BACKLOG_SHARE: usize = 4;

/// End (a byte offset) of the prefix of `text` to show when the first
/// `shown` bytes are on screen: `text.len()` once caught up. A cut is only
/// made after a blank line, where a block ends, so a frame never shows
/// part of a paragraph that the next frame lays out again; with no blank
/// line in reach (one long block) all of the text is shown.
pub fn next_end(text: &str, shown: usize) -> usize {
    let backlog = text.len().saturating_sub(shown);
    let step = FRAME_BYTES.max(backlog.div_ceil(BACKLOG_SHARE));
    if backlog <= step {
        return text.len();
    }
    let reach = text.as_bytes().get(shown..shown + step).unwrap_or_default();
    match reach.windows(2).rposition(|w| w == b"\n\n") {
        Some(blank) => shown + blank + 2,
        None => text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A paragraph of about 330 bytes and the blank line after it.
    fn paragraphs(count: usize) -> String {
        format!("{}\n\n", "word ".repeat(66)).repeat(count)
    }

    #[test]
    fn a_stream_within_the_frame_budget_is_shown_whole() {
        let text = paragraphs(30);
        assert_eq!(next_end(&text, text.len() - FRAME_BYTES), text.len());
        assert_eq!(next_end(&text, text.len()), text.len());
        // Shorter than what was shown (a rewrite): all of it.
        assert_eq!(next_end("short", 100), 5);
    }

    #[test]
    fn a_backlog_comes_in_steps_that_end_after_a_blank_line() {
        let text = paragraphs(100); // 33,200 bytes
        let end = next_end(&text, 0);
        // A quarter of the backlog, cut back to the last paragraph's end.
        assert_eq!(end, 25 * 332);
        assert!(text[..end].ends_with("\n\n"));
        let next = next_end(&text, end);
        assert!(next > end && text[..next].ends_with("\n\n"));
    }

    #[test]
    fn one_long_block_is_never_cut() {
        // A 1 MiB paragraph: showing part of it would lay it out again in
        // every frame until it is whole.
        let text = format!("start\n\n{}", "long line\n".repeat(100_000));
        let end = next_end(&text, 0);
        assert_eq!(end, 7, "the short block before it first");
        assert_eq!(next_end(&text, end), text.len());
    }

    #[test]
    fn every_frame_shows_a_share_of_the_backlog_until_caught_up() {
        for count in [8, 30, 300, 3_000] {
            let text = paragraphs(count);
            let mut shown = 0;
            let mut frames = 0;
            while shown < text.len() {
                let end = next_end(&text, shown);
                let backlog = text.len() - shown;
                // The step, less at most one paragraph for the cut.
                let step = FRAME_BYTES.max(backlog.div_ceil(BACKLOG_SHARE));
                assert!(
                    end - shown + 332 > step.min(backlog),
                    "at {shown} of {count}"
                );
                shown = end;
                frames += 1;
            }
            // A quarter less per frame: 1 MiB in well under a second.
            assert!(frames <= 30, "{count} paragraphs took {frames} frames");
        }
    }
}
