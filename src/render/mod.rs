//! Pure text → HTML and text → text helpers (no DOM; host-tested).

/// A thread as a Markdown or JSON file, built page by page.
pub mod export;
/// Durations, token counts, argument JSON and previews for display.
pub mod format;
/// Code block highlighting from tokens: languages, classes, diffs.
pub mod highlight;
/// Streaming markdown: completed blocks are kept, only the tail re-renders.
pub mod incremental;
/// Markdown → HTML that is safe for `inner_html` (raw HTML escaped, link
/// schemes allow-listed, images click-to-load).
pub mod markdown;
/// Incremental rendering, or one of the benchmark's naive baselines.
pub mod mode;
/// Progress-draft labels and one-line tool/note/commentary formatting.
pub mod progress;
/// The inline `💭 **Reasoning:**` prefix split.
pub mod reasoning;
/// Which link and image URLs rendered markdown may carry.
pub mod url_policy;
/// Hostile markdown inputs, kept with the browser suites' support code.
#[cfg(test)]
#[path = "../../tests/support/xss_corpus.rs"]
mod xss_corpus;

/// The one thread-preview rule, for the client's own previews and those a
/// gateway sends; written in the protocol crate so the reference gateway
/// stores the same (protocol.md §11).
pub use crate::protocol::thread_preview;
pub use format::{args_pretty, duration, short_preview, tokens};
pub use incremental::{completed_prefix_len, IncrementalMarkdown, RenderDelta};
pub use markdown::to_html;
pub use mode::RenderMode;
pub use progress::{
    approval_line, commentary_line, note_line, pick_label, tool_line, truncate_line, Detail,
    ProgressLines, LABEL_POOL,
};
pub use reasoning::{pending_inline_reasoning, should_start_collapsed, split_inline_reasoning};
