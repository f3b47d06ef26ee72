//! Which timeline rows and expanders show under the display settings.
//! Pure: the row view reads the signals lazily and asks these rules, so a
//! row subscribes to the running turn only where the answer depends on it.

use crate::settings::{StreamingMode, ToolDetail};

/// What a row shows, as far as display settings care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    User,
    /// An answer, `streaming` while it still grows.
    Answer {
        streaming: bool,
    },
    Commentary,
    Tool,
    Approval,
    /// A plan (§14), `running` while its turn is.
    Plan {
        running: bool,
    },
}

/// Whether a row's own body shows. In progress mode a work row (tool call,
/// commentary) folds behind its turn's expander: it shows once the reader
/// unfolded the turn, never while the turn runs (the draft shows it then).
/// `unfolded` is asked only for such rows.
pub fn row_visible(
    kind: RowKind,
    mode: StreamingMode,
    detail: ToolDetail,
    unfolded: impl FnOnce() -> bool,
) -> bool {
    match kind {
        RowKind::Answer { streaming: true } => {
            matches!(mode, StreamingMode::Partial | StreamingMode::Block)
        }
        RowKind::Tool if detail == ToolDetail::Nothing => false,
        RowKind::Tool | RowKind::Commentary if mode == StreamingMode::Progress => unfolded(),
        // The draft shows the running turn's plan as a line instead.
        RowKind::Plan { running: true } => mode != StreamingMode::Progress,
        _ => true,
    }
}

/// Whether a turn's work rows show when unfolded: `running` (asked only if
/// the reader unfolded it) says the turn is still going.
pub fn work_unfolded(expanded: bool, running: impl FnOnce() -> bool) -> bool {
    expanded && !running()
}

/// Whether the "N tool calls" expander shows before a turn's first work
/// row: in progress mode with tool cards on, once the turn that called
/// `tools` tools is over.
pub fn expander_shown(
    mode: StreamingMode,
    detail: ToolDetail,
    tools: usize,
    running: impl FnOnce() -> bool,
) -> bool {
    mode == StreamingMode::Progress && detail != ToolDetail::Nothing && tools > 0 && !running()
}

#[cfg(test)]
mod tests {
    use super::*;
    use StreamingMode::*;

    const MODES: [StreamingMode; 4] = [Off, Partial, Block, Progress];
    const DETAILS: [ToolDetail; 3] = [
        ToolDetail::Everything,
        ToolDetail::Truncated,
        ToolDetail::Nothing,
    ];

    #[test]
    fn a_streaming_answer_shows_only_in_partial_and_block_modes() {
        let streaming = RowKind::Answer { streaming: true };
        let shown: Vec<_> = MODES
            .iter()
            .map(|&m| row_visible(streaming, m, ToolDetail::Truncated, || false))
            .collect();
        assert_eq!(shown, [false, true, true, false]);
        for m in MODES {
            assert!(row_visible(
                RowKind::Answer { streaming: false },
                m,
                ToolDetail::Nothing,
                || false
            ));
        }
    }

    #[test]
    fn work_rows_fold_in_progress_mode_and_tools_hide_with_detail_nothing() {
        for d in DETAILS {
            for m in MODES {
                let tool = row_visible(RowKind::Tool, m, d, || true);
                assert_eq!(tool, d != ToolDetail::Nothing, "{m:?} {d:?}");
                let commentary = row_visible(RowKind::Commentary, m, d, || false);
                assert_eq!(commentary, m != Progress, "{m:?} {d:?}");
            }
        }
        // Outside progress mode the fold is never asked about.
        assert!(row_visible(
            RowKind::Tool,
            Partial,
            ToolDetail::Everything,
            || { panic!("asked") }
        ));
        for kind in [RowKind::User, RowKind::Approval] {
            assert!(row_visible(kind, Progress, ToolDetail::Nothing, || false));
        }
    }

    #[test]
    fn a_plan_gives_way_to_the_draft_only_while_its_turn_runs() {
        for d in DETAILS {
            for m in MODES {
                let ended = RowKind::Plan { running: false };
                assert!(row_visible(ended, m, d, || panic!("asked")));
                let running = row_visible(RowKind::Plan { running: true }, m, d, || false);
                assert_eq!(running, m != Progress, "{m:?} {d:?}");
            }
        }
    }

    #[test]
    fn a_running_turn_keeps_its_work_folded_and_its_expander_hidden() {
        assert!(work_unfolded(true, || false));
        assert!(!work_unfolded(true, || true));
        assert!(!work_unfolded(false, || panic!("asked")));
        assert!(expander_shown(Progress, ToolDetail::Truncated, 2, || false));
        assert!(!expander_shown(Progress, ToolDetail::Truncated, 2, || true));
        assert!(!expander_shown(Progress, ToolDetail::Truncated, 0, || {
            false
        }));
        assert!(!expander_shown(Progress, ToolDetail::Nothing, 2, || false));
        assert!(!expander_shown(Partial, ToolDetail::Everything, 2, || {
            false
        }));
    }
}
