//! Pure text → HTML and text → text helpers (no DOM; host-tested).

/// What an approval card's buttons and outcome line say.
pub mod approval;
/// Where a streamed answer's completed blocks go: chunks in groups.
pub mod block_tree;
/// Mermaid diagrams: limits, the image's text alternative, error lines.
pub mod diagram;
/// A thread as a Markdown or JSON file, built page by page.
pub mod export;
/// Durations, token counts, argument JSON and previews for display.
pub mod format;
/// Code block highlighting from tokens: languages, classes, diffs.
pub mod highlight;
/// Incremental rendering, or one of the benchmark's naive baselines.
pub mod mode;
/// How much of a burst of completed blocks one frame appends.
pub mod pacing;
/// A plan's count and its progress-draft line.
pub mod plan_line;
/// Progress-draft labels and one-line tool/note/commentary formatting.
pub mod progress;
/// The inline `💭 **Reasoning:**` prefix split.
pub mod reasoning;
/// Whether a streamed tail's new HTML only added text at its end.
pub mod tail_append;

/// The one thread-preview rule, for the client's own previews and those a
/// gateway sends; written in the protocol crate so the reference gateway
/// stores the same (protocol.md §11).
pub use crate::protocol::thread_preview;
pub use aria_markdown::completed_prefix_len;
pub use format::{args_pretty, duration, px, short_preview, tokens};
pub use mode::RenderMode;
pub use plan_line::{plan_line, PlanCount};
pub use progress::{
    approval_line, commentary_line, note_line, pick_label, tool_line, truncate_line, Detail,
    ProgressLines, LABEL_POOL,
};
pub use reasoning::{pending_inline_reasoning, should_start_collapsed, split_inline_reasoning};
