//! The page's two live regions, and nothing else on it is one: polite for
//! a finished answer (once, when complete: the streaming text itself is
//! not live), approval requests and connection changes; assertive for
//! failed tools, failed sends and error notices. They sit outside the app's
//! box, which turns inert under a dialog (inert content is not announced).

use std::collections::HashSet;

use leptos::prelude::*;

use crate::announce::{self, FailureWatch};
use crate::net::Status;
use crate::store::{RowBody, SendState, ToolState};
use crate::ui::browser::markdown_module::MarkdownModule;
use crate::ui::wiring::runtime::Runtime;

/// Puts text into the live regions. [`App`](crate::ui::components::app::App) makes the one
/// of the page and provides it as context, so controls (copy buttons) can
/// speak through the same regions.
#[derive(Clone, Copy)]
pub struct Announcer {
    polite: RwSignal<String>,
    assertive: RwSignal<String>,
}

impl Announcer {
    pub fn new() -> Self {
        Self {
            polite: RwSignal::new(String::new()),
            assertive: RwSignal::new(String::new()),
        }
    }

    pub fn polite(&self, text: &str) {
        say(self.polite, text);
    }

    fn assertive(&self, text: &str) {
        say(self.assertive, text);
    }
}

/// The same words twice are still a change of the region's text (a
/// trailing no-break space), so they are heard twice.
fn say(region: RwSignal<String>, text: &str) {
    let next = if region.with_untracked(|r| r.trim_end_matches('\u{a0}') == text) {
        format!("{text}\u{a0}")
    } else {
        text.to_string()
    };
    region.set(next);
}

#[component]
pub fn LiveRegions() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let announcer = expect_context::<Announcer>();
    watch_turns(rt, announcer);
    watch_failures(rt, announcer);
    watch_notices(rt, announcer);
    watch_connection(rt, announcer);
    view! {
        <div class="visually-hidden" aria-live="polite" data-testid="live-polite">{move || announcer.polite.get()}</div>
        <div class="visually-hidden" aria-live="assertive" data-testid="live-assertive">{move || announcer.assertive.get()}</div>
    }
}

/// The open thread's turn ended: its newest answer, once. A new request
/// for approval: its title.
fn watch_turns(rt: Runtime, say: Announcer) {
    let markdown = use_context::<MarkdownModule>();
    Effect::new(
        move |prev: Option<(Option<String>, Option<String>, usize)>| {
            let active = rt.view.active.get();
            let (turn, waiting) = rt.view.turn.with(|t| {
                (
                    t.as_ref().map(|t| t.id.clone()),
                    t.as_ref().map_or(0, |t| t.waiting.len()),
                )
            });
            if let Some((was_active, was_turn, was_waiting)) = prev {
                let same_thread = was_active == active;
                if same_thread && was_turn.is_some() && was_turn != turn {
                    if let Some((text, more)) = newest_answer_start(rt) {
                        // Its words without markup, once the markdown
                        // module can say them; its source until then.
                        let plain = markdown.and_then(|m| m.plain_text(&text)).unwrap_or(text);
                        say.polite(&announce::answer(&plain, more));
                    }
                }
                if same_thread && waiting > was_waiting {
                    let title = rt.view.turn.with_untracked(|t| {
                        t.as_ref()
                            .and_then(|t| t.waiting.last().map(|w| w.1.clone()))
                            .unwrap_or_default()
                    });
                    say.polite(&format!("The agent asks for your approval: {title}"));
                }
            }
            (active, turn, waiting)
        },
    );
}

/// The start of the newest answer's source ([`announce::source_start`]).
fn newest_answer_start(rt: Runtime) -> Option<(String, bool)> {
    rt.view.order.with_untracked(|o| {
        o.iter().rev().find_map(|k| {
            rt.view.row(k)?.with_untracked(|r| match &r.body {
                RowBody::Assistant(a) => {
                    let (start, more) = announce::source_start(&a.text);
                    Some((start.to_string(), more))
                }
                _ => None,
            })
        })
    })
}

/// Tools and sends of the open thread that fail from now on. Only tool
/// and user rows are read (tracked), so a streaming answer costs nothing.
fn watch_failures(rt: Runtime, say: Announcer) {
    let watch = StoredValue::new_local(FailureWatch::default());
    Effect::new(move |prev_active: Option<Option<String>>| {
        let active = rt.view.active.get();
        if prev_active.is_some_and(|p| p != active) {
            watch.update_value(FailureWatch::reset);
        }
        let mut rows = Vec::new();
        let mut texts = Vec::new();
        rt.view.order.with(|o| {
            for key in o {
                let Some(row) = rt.view.row(key) else {
                    continue;
                };
                let watched =
                    row.with_untracked(|r| matches!(r.body, RowBody::Tool(_) | RowBody::User(_)));
                if !watched {
                    continue;
                }
                let (failed, text) = row.with(|r| match &r.body {
                    RowBody::Tool(t) => (
                        t.state == ToolState::Failed,
                        format!("Tool {} failed.", t.name),
                    ),
                    RowBody::User(u) => match &u.send {
                        SendState::Failed(why) => {
                            (true, format!("Your message was not sent: {why}"))
                        }
                        _ => (false, String::new()),
                    },
                    _ => (false, String::new()),
                });
                rows.push((key.to_string(), failed));
                texts.push(text);
            }
        });
        let live = rt.view.turn.with_untracked(Option::is_some);
        let news = watch
            .try_update_value(|w| w.update(&rows, live))
            .unwrap_or_default();
        for key in news {
            if let Some(i) = rows.iter().position(|(k, _)| *k == key) {
                say.assertive(&texts[i]);
            }
        }
        active
    });
}

/// Error notices, each once as it appears.
fn watch_notices(rt: Runtime, say: Announcer) {
    Effect::new(move |seen: Option<HashSet<u64>>| {
        let notices = rt.view.notices.get();
        let ids = notices.iter().map(|n| n.id).collect::<HashSet<_>>();
        for n in &notices {
            if seen.as_ref().is_some_and(|s| !s.contains(&n.id)) {
                say.assertive(&n.text);
            }
        }
        ids
    });
}

/// The connection's state, when it changes kind (not the retry countdown).
fn watch_connection(rt: Runtime, say: Announcer) {
    Effect::new(move |prev: Option<std::mem::Discriminant<Status>>| {
        let status = rt.view.status.get();
        let kind = std::mem::discriminant(&status);
        if prev.is_some_and(|p| p != kind) {
            let text = match &status {
                Status::Connecting => "Connecting…".to_string(),
                Status::Connected => "Connected.".to_string(),
                Status::Reconnecting { .. } => "Connection lost. Reconnecting…".to_string(),
                Status::Offline(why) => format!("Offline: {why}"),
                Status::Unauthorized(why) => format!("Not authorized: {why}"),
                Status::Unsupported(why) => format!("Incompatible gateway: {why}"),
                Status::Held(why) => format!("Not connected: {why}"),
            };
            say.polite(&text);
        }
        kind
    });
}
