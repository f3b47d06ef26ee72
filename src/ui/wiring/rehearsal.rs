//! Rehearses a streamed answer while the page is idle, once the markdown
//! module is ready and the deferred part is linked: a made-up answer is
//! decoded and applied to a scratch store (`store::rehearse`), then
//! streamed, a snapshot per idle period, into an answer bubble that is
//! never attached to the page, and dropped. The browser compiles each
//! wasm function on its first call (and each function of the glue): a
//! page's first streamed answer paid that in its first update, twice the
//! cost of the others (bench/README.md, "The first update of a page").
//! Nothing of it is seen, announced or kept.
//!
//! A build that is not split never rehearses (`when_deferred_linked`): the
//! split's profile, which runs one, leaves the rehearsal's code in the
//! deferred part, where the code it warms is.

use leptos::prelude::*;
use leptos::tachys::view::any_view::AnyViewState;

use crate::store::{self, Answer, Row, RowBody, RowKey};
use crate::ui::browser;
use crate::ui::browser::boot::when_deferred_linked;
use crate::ui::browser::markdown_module::{MarkdownModule, WARM_UP};
use crate::ui::components::answer_bubble::AnswerBubble;

/// Snapshots the made-up answer streams in.
const SNAPSHOTS: usize = 4;
/// The performance mark once it is over (for the tests and the bench).
const DONE_MARK: &str = "aria-rehearsed";

/// Starts the rehearsal once the deferred part is linked and `module` is
/// ready. Call it where the bubble's context (the runtime, the markdown
/// module) is provided: the bubble is made under the current owner. All
/// but this call is deferred code (the first load stays as small).
pub fn rehearse_when_ready(module: MarkdownModule) {
    let Some(owner) = Owner::current() else {
        return;
    };
    when_deferred_linked(move || {
        owner.clone().with(|| {
            Effect::new(move |started: Option<bool>| {
                if started == Some(true) || !module.ready() {
                    return started.unwrap_or(false);
                }
                let owner = owner.clone();
                browser::when_idle(move || rehearse(owner));
                true
            });
        });
    });
}

/// The scratch store's part; the bubble in the next idle period.
fn rehearse(owner: Owner) {
    drop(store::rehearse(WARM_UP, SNAPSHOTS));
    browser::when_idle(move || {
        if let Some(bubble) = Bubble::mount(&owner) {
            next(bubble, 1);
        }
    });
}

/// The bubble, detached from the page, and what its row shows.
struct Bubble {
    owner: Owner,
    _view: AnyViewState,
    row: RwSignal<Row>,
}

impl Bubble {
    /// A streaming answer with no text yet, under a child of `owner`, in
    /// an element that is not in the page.
    fn mount(owner: &Owner) -> Option<Bubble> {
        let el = web_sys::window()?.document()?.create_element("div").ok()?;
        let owner = owner.child();
        let row = owner.with(|| {
            RwSignal::new(Row {
                key: RowKey::message("rehearsal"),
                seq: None,
                turn: None,
                ts: 0,
                body: RowBody::Assistant(Answer {
                    streaming: true,
                    ..Answer::default()
                }),
            })
        });
        let mut view = owner.with(|| untrack(|| view! { <AnswerBubble row /> }.into_any().build()));
        view.mount(&el, None);
        Some(Bubble {
            owner,
            _view: view,
            row,
        })
    }
}

/// Snapshot `n` of the answer in the next idle period (one each: the
/// first calls compile, and an idle period is at most 50 ms); after the
/// last, the answer finishes, and then the bubble goes.
fn next(bubble: Bubble, n: usize) {
    browser::when_idle(move || {
        if n > SNAPSHOTS + 1 {
            bubble.owner.cleanup();
            if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
                let _ = performance.mark(DONE_MARK);
            }
            return;
        }
        bubble.row.update(|r| {
            if let RowBody::Assistant(a) = &mut r.body {
                let cut = WARM_UP.len() * n.min(SNAPSHOTS) / SNAPSHOTS;
                a.text = WARM_UP.get(..cut).unwrap_or(WARM_UP).to_string();
                a.streaming = n <= SNAPSHOTS;
            }
        });
        next(bubble, n + 1);
    });
}
