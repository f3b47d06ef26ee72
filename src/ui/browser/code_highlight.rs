//! Highlights the complete code blocks of rendered markdown: diffs right
//! here, other languages through a Web Worker running highlight.js
//! (`js/highlight-worker.js`, started at idle once the app runs, or by the
//! first block that needs it, so the first load does not carry it);
//! Mermaid blocks go to [`diagrams`]. Each `code[data-lang]` is handled once and marked with
//! `data-hl`; its content is replaced only when the tokens add up to its
//! text, by HTML built from escaped tokens ([`render::highlight`]), one
//! part of the block per animation frame: the worker's answer is decoded
//! part by part too, so a long block never makes a long task.

use std::cell::RefCell;

use leptos::prelude::request_animation_frame;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::render::diagram::is_diagram;
use crate::render::highlight::{classify, diff_tokens, grammar, AnswerWalk, Grammar, PartTokens};
use crate::ui::browser::diagrams;

/// The worker script, relative to the page (dist/hl/, built by
/// scripts/bundle-highlighter).
const WORKER_URL: &str = "hl/worker.js";

/// Highlights the not yet handled code blocks inside `root`.
pub fn highlight_within(root: &web_sys::Element) {
    let Ok(blocks) = root.query_selector_all("code[data-lang]:not([data-hl])") else {
        return;
    };
    for i in 0..blocks.length() {
        let Some(code) = blocks
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        if code.has_attribute("data-filling") {
            // Not all of its text is in yet (`code_fill`): highlighted then.
            let _ = code.set_attribute("data-filling", "highlight");
            continue;
        }
        let lang = code.get_attribute("data-lang").unwrap_or_default();
        if is_diagram(&lang) {
            // Complete, like every block handled here: drawn, not coloured.
            mark(&code, "diagram");
            diagrams::draw(code);
            continue;
        }
        let text = code.text_content().unwrap_or_default();
        match grammar(&lang) {
            Some(Grammar::Diff) => {
                let tokens = classify(&text, &diff_tokens(&text)).map(PartTokens::Ready);
                apply(code, text, tokens);
            }
            Some(Grammar::Worker(name)) => WORKER.with(|w| w.borrow_mut().post(code, name, text)),
            None => mark(&code, "plain"),
        }
    }
}

/// Starts the worker ahead of the first code block (called at idle once
/// the app runs): its highlight.js, 228 KB of script, is compiled then, not
/// while the first streamed answer needs the machine's other core. A first
/// request compiles a common grammar too; no block waits for its answer,
/// which is dropped.
pub fn warm_up() {
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        let id = w.next_id;
        w.next_id = w.next_id.wrapping_add(1);
        if let Some(worker) = w.worker() {
            let msg = js_sys::Array::of3(&id.into(), &"rust".into(), &"fn main() {}".into());
            let _ = worker.post_message(&msg);
        }
    });
}

fn mark(code: &web_sys::Element, state: &str) {
    let _ = code.set_attribute("data-hl", state);
}

/// Replaces `code`'s plain `text` by its highlighted HTML, one part of the
/// block (`span.code-part`, 50 lines, its own block box: see
/// markdown/src/render.rs) per frame, so that a frame styles and lays out
/// only that part's spans.
fn apply(code: web_sys::Element, text: String, tokens: Option<PartTokens>) {
    let Some(tokens) = tokens else {
        mark(&code, "plain");
        return;
    };
    request_animation_frame(move || put_parts(code, text, tokens, 0, 0));
}

/// Highlights part `index`, which starts at byte `start` of `text`, then
/// the next one on the next frame. A block taken out of the page (its
/// message repainted) is left alone.
fn put_parts(
    code: web_sys::Element,
    text: String,
    mut tokens: PartTokens,
    index: u32,
    start: usize,
) {
    if !code.is_connected() {
        return;
    }
    let Some(part) = code.children().item(index) else {
        mark(&code, "done");
        return;
    };
    let end = start + part.text_content().map_or(0, |t| t.len());
    let Some(html) = tokens.part_html(&text, start, end) else {
        mark(&code, "plain");
        return;
    };
    part.set_inner_html(&html);
    request_animation_frame(move || put_parts(code, text, tokens, index + 1, end));
}

thread_local! {
    static WORKER: RefCell<Highlighter> = RefCell::new(Highlighter::default());
}

/// The worker and the blocks waiting for its answer, by request id.
#[derive(Default)]
struct Highlighter {
    worker: Option<web_sys::Worker>,
    /// Set when the worker could not be started: blocks stay plain.
    failed: bool,
    pending: Vec<(u32, web_sys::Element, String)>,
    next_id: u32,
}

impl Highlighter {
    fn post(&mut self, code: web_sys::Element, grammar: &str, text: String) {
        let Some(worker) = self.worker() else {
            mark(&code, "plain");
            return;
        };
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let msg = js_sys::Array::of3(&id.into(), &grammar.into(), &text.as_str().into());
        if worker.post_message(&msg).is_ok() {
            mark(&code, "pending");
            self.pending.push((id, code, text));
        } else {
            mark(&code, "plain");
        }
    }

    fn worker(&mut self) -> Option<web_sys::Worker> {
        if self.worker.is_none() && !self.failed {
            self.worker = start_worker();
            self.failed = self.worker.is_none();
        }
        self.worker.clone()
    }

    fn take(&mut self, id: u32) -> Option<(web_sys::Element, String)> {
        let at = self.pending.iter().position(|p| p.0 == id)?;
        let (_, code, text) = self.pending.swap_remove(at);
        Some((code, text))
    }
}

fn start_worker() -> Option<web_sys::Worker> {
    let worker = web_sys::Worker::new(WORKER_URL).ok()?;
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_answer);
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // Lives as long as the page's one worker.
    on_message.forget();
    Some(worker)
}

/// `[id, scopes joined by "\n", Uint32Array of UTF-16 lengths]`, or nulls
/// when highlight.js failed.
fn on_answer(ev: web_sys::MessageEvent) {
    let answer = js_sys::Array::from(&ev.data());
    let Some(id) = answer.get(0).as_f64() else {
        return;
    };
    let Some((code, text)) = WORKER.with(|w| w.borrow_mut().take(id as u32)) else {
        return;
    };
    let scopes = answer.get(1).as_string();
    let lengths = answer
        .get(2)
        .dyn_into::<js_sys::Uint32Array>()
        .ok()
        .map(|a| a.to_vec());
    // Checked against the text here; decoded part by part in `put_parts`.
    let tokens = scopes
        .zip(lengths)
        .and_then(|(scopes, lengths)| AnswerWalk::new(&text, scopes, lengths))
        .map(PartTokens::Answer);
    apply(code, text, tokens);
}
