//! Progress mode: one work-in-progress bubble per running turn, shown once
//! the turn has worked for 5 s or reported a second work event (at once
//! when a request waits for the user); a label and the newest compact
//! lines. The final answer replaces it.

use std::time::Duration;

use leptos::prelude::*;

use crate::render::{
    approval_line, commentary_line, note_line, pick_label, plan_line, tool_line, Detail,
    ProgressLines,
};
use crate::settings::{LabelMode, ProgressDetail, ProgressSettings, StreamingMode};
use crate::ui::hooks::clock::{use_clock, Clock, ClockOptions};
use crate::ui::wiring::runtime::Runtime;
use crate::ui::wiring::view_state::{DraftEvent, TurnView};

/// A turn must be working this long before a single event shows a draft.
const SHOW_AFTER_MS: f64 = 5000.0;
/// The key of the plan's line among the draft's lines (row keys never
/// take this form).
const PLAN_LINE: &str = "plan";

#[component]
pub fn ProgressDraft() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let Clock { now } = use_clock(ClockOptions {
        every: Duration::from_millis(500),
    });
    let lines = move || {
        if !rt.settings.with(|s| s.streaming == StreamingMode::Progress) {
            return None;
        }
        let progress = rt.settings.with(|s| s.progress.clone());
        rt.view.turn.with(|t| {
            let t = t.as_ref()?;
            let due = t.work_count >= 2
                || (t.work_count >= 1 && now.get() - t.started_ms >= SHOW_AFTER_MS);
            let waiting = !t.waiting.is_empty();
            ((due && !t.answered) || waiting).then(|| draft_lines(t, &progress))
        })
    };
    view! {
        {move || lines().map(|lines| view! {
            <div class="msg progress-draft" data-testid="progress-draft">
                {lines.into_iter().enumerate().map(|(i, (is_label, l))| view! {
                    <div class="progress-line" class:progress-label=is_label data-line=i>{l}</div>
                }).collect_view()}
            </div>
        })}
    }
}

/// The draft's visible lines; `true` marks the label. Not inlined into the
/// component, which every thread mounts, so that the first-load split
/// (docs/build.md) can leave it out of the first load.
#[inline(never)]
fn draft_lines(turn: &TurnView, p: &ProgressSettings) -> Vec<(bool, String)> {
    let max_chars = p.max_line_chars as usize;
    let label = match p.label {
        LabelMode::Auto => Some(format!("{}…", pick_label(&turn.id))),
        LabelMode::Fixed => Some(p.label_text.clone()).filter(|l| !l.trim().is_empty()),
        LabelMode::Hidden => None,
    };
    let mut lines = match &label {
        Some(l) => ProgressLines::with_label(l, p.max_lines as usize),
        None => ProgressLines::new(p.max_lines as usize),
    };
    if p.tool_lines {
        let detail = match p.detail {
            ProgressDetail::Explain => Detail::Explain,
            ProgressDetail::Raw => Detail::Raw,
        };
        for e in &turn.events {
            match e {
                DraftEvent::Tool {
                    key,
                    emoji,
                    name,
                    preview,
                    args,
                } => lines.upsert(
                    key.as_str(),
                    tool_line(emoji.as_deref(), name, preview, args, detail, max_chars),
                ),
                DraftEvent::Note { emoji, name, note } => {
                    lines.push(note_line(emoji.as_deref(), name, note, max_chars))
                }
                DraftEvent::Commentary(text) => lines.push(commentary_line(text, max_chars)),
            }
        }
    }
    // One line that changes in place, after the work so it stays in view.
    if let Some(items) = &turn.plan {
        lines.upsert(PLAN_LINE, plan_line(items, max_chars));
    }
    // Last, so that what waits for the user never scrolls out.
    for (key, title, command) in &turn.waiting {
        lines.upsert(
            key.as_str(),
            approval_line(title, command.as_deref(), max_chars),
        );
    }
    lines
        .lines()
        .map(|l| (label.as_deref() == Some(l), l.to_string()))
        .collect()
}
