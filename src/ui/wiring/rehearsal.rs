//! Rehearses a turn while the page is idle, once the markdown module is
//! ready and the deferred part is linked: a made-up question is sent and
//! its answer decoded and applied in a scratch store (`store::rehearse`),
//! whose changes go to a scratch view state; then the question's bubble
//! goes from sending to sent, and the answer streams, a snapshot per idle
//! period, into its bubble; neither bubble is ever attached to the page,
//! and both are dropped. The browser compiles each wasm function on its
//! first call (and each function of the glue): a page's first turn paid
//! that in its first updates (bench/README.md, "The first update of a
//! page").
//! Nothing of it is seen, announced or kept.
//!
//! A build that is not split never rehearses (`when_deferred_linked`): the
//! split's profile, which runs one, leaves the rehearsal's code in the
//! deferred part, where the code it warms is.

use leptos::prelude::*;
use leptos::tachys::view::any_view::AnyViewState;

use crate::store::{self, rehearsal, Answer, Row, RowBody, RowKey, SendState, UserMessage};
use crate::ui::browser;
use crate::ui::browser::boot::when_deferred_linked;
use crate::ui::browser::markdown_module::{MarkdownModule, WARM_UP};
use crate::ui::components::answer_bubble::AnswerBubble;
use crate::ui::components::user_bubble::UserBubble;
use crate::ui::wiring::view_state::ViewState;

/// Snapshots the made-up answer streams in.
const SNAPSHOTS: usize = 4;
/// The performance mark once it is over (for the tests and the bench).
const DONE_MARK: &str = "aria-rehearsed";

/// Starts the rehearsal once the deferred part is linked and `module` is
/// ready. Call it where the bubbles' context (the runtime, the markdown
/// module) is provided: they are made under the current owner. All
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

/// The scratch store's part, its changes synced into a scratch view
/// state as the runtime syncs the real one; the bubbles in the next idle
/// period.
fn rehearse(owner: Owner) {
    let scratch = owner.child();
    let view = scratch.with(ViewState::new);
    drop(store::rehearse(WARM_UP, SNAPSHOTS, |store, changes| {
        scratch.with(|| view.sync(store, changes));
    }));
    scratch.cleanup();
    browser::when_idle(move || {
        if let Some(bubbles) = Bubbles::mount(&owner) {
            next(bubbles, 1);
        }
    });
}

/// The bubbles, detached from the page, and what their rows show.
struct Bubbles {
    owner: Owner,
    _view: AnyViewState,
    question: RwSignal<Row>,
    answer: RwSignal<Row>,
}

impl Bubbles {
    /// A question being sent and a streaming answer with no text yet,
    /// under a child of `owner`, in an element that is not in the page.
    fn mount(owner: &Owner) -> Option<Bubbles> {
        let el = web_sys::window()?.document()?.create_element("div").ok()?;
        let owner = owner.child();
        let row = |key: &str, body| Row {
            key: RowKey::message(key),
            seq: None,
            turn: None,
            ts: 0,
            body,
        };
        let (question, answer) = owner.with(|| {
            let question = RowBody::User(UserMessage {
                text: rehearsal::QUESTION.to_string(),
                message_id: None,
                client_msg_id: Some(rehearsal::CLIENT_MSG.to_string()),
                send: SendState::Pending,
                files: Box::default(),
            });
            let answer = RowBody::Assistant(Answer {
                streaming: true,
                ..Answer::default()
            });
            (
                RwSignal::new(row(rehearsal::QUESTION_ID, question)),
                RwSignal::new(row(rehearsal::ANSWER_ID, answer)),
            )
        });
        let mut view = owner.with(|| {
            untrack(|| {
                view! { <UserBubble row=question /><AnswerBubble row=answer /> }
                    .into_any()
                    .build()
            })
        });
        view.mount(&el, None);
        Some(Bubbles {
            owner,
            _view: view,
            question,
            answer,
        })
    }

    /// The question, echoed: logged, so it can be edited.
    fn sent(&self) {
        self.question.update(|r| {
            r.seq = Some(1);
            if let RowBody::User(u) = &mut r.body {
                u.message_id = Some(rehearsal::QUESTION_ID.to_string());
                u.send = SendState::Delivered;
            }
        });
    }
}

/// Snapshot `n` of the answer in the next idle period (one each: the
/// first calls compile, and an idle period is at most 50 ms); after the
/// last, the answer finishes, and then the bubbles go.
fn next(bubbles: Bubbles, n: usize) {
    browser::when_idle(move || {
        if n > SNAPSHOTS + 1 {
            bubbles.owner.cleanup();
            if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
                let _ = performance.mark(DONE_MARK);
            }
            return;
        }
        if n == 1 {
            bubbles.sent();
        }
        bubbles.answer.update(|r| {
            if let RowBody::Assistant(a) = &mut r.body {
                let cut = WARM_UP.len() * n.min(SNAPSHOTS) / SNAPSHOTS;
                a.text = WARM_UP.get(..cut).unwrap_or(WARM_UP).to_string();
                a.streaming = n <= SNAPSHOTS;
            }
        });
        next(bubbles, n + 1);
    });
}
