//! Highlights the complete code blocks of rendered markdown: diffs right
//! here, other languages through a Web Worker running highlight.js
//! (`js/highlight-worker.js`, started on first use, so the first load does
//! not carry it). Each `code[data-lang]` is handled once and marked with
//! `data-hl`; its content is replaced only when the tokens add up to its
//! text, by HTML built from escaped tokens ([`render::highlight`]), a
//! chunk of lines per task so that a long block never blocks the page.

use std::cell::RefCell;
use std::time::Duration;

use leptos::prelude::set_timeout;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::render::highlight::{
    chunk_ends, chunk_html, classify, diff_tokens, grammar, tokens_from_lengths, Grammar,
};

/// The worker script, relative to the page (dist/hl/, built by
/// scripts/bundle-highlighter).
const WORKER_URL: &str = "hl/worker.js";
/// Lines put in place per task: some hundred spans, a few milliseconds.
const LINES_PER_TASK: usize = 100;

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
        let lang = code.get_attribute("data-lang").unwrap_or_default();
        let text = code.text_content().unwrap_or_default();
        match grammar(&lang) {
            Some(Grammar::Diff) => {
                let tokens = classify(&text, &diff_tokens(&text));
                apply(code, text, tokens);
            }
            Some(Grammar::Worker(name)) => WORKER.with(|w| w.borrow_mut().post(code, name, text)),
            None => mark(&code, "plain"),
        }
    }
}

fn mark(code: &web_sys::Element, state: &str) {
    let _ = code.set_attribute("data-hl", state);
}

/// Tokens of a block: class and end offset ([`classify`]).
type Tokens = Vec<(Option<&'static str>, usize)>;

/// Replaces `code`'s plain `text` by its highlighted HTML. A big block
/// goes a chunk per task, each built in its task, from the end up: the
/// plain text node only loses its end each time, so the browser keeps the
/// layout of the text before it.
fn apply(code: web_sys::Element, text: String, tokens: Option<Tokens>) {
    let Some(tokens) = tokens else {
        mark(&code, "plain");
        return;
    };
    let mut ends = chunk_ends(&text, LINES_PER_TASK);
    let plain = code
        .first_child()
        .filter(|_| code.child_nodes().length() == 1)
        .and_then(|n| n.dyn_into::<web_sys::CharacterData>().ok());
    let Some(plain) = plain.filter(|_| ends.len() > 1) else {
        code.set_inner_html(&chunk_html(&text, &tokens, 0, text.len()));
        mark(&code, "done");
        return;
    };
    ends.insert(0, 0);
    put_chunks(code, plain, text, tokens, ends);
}

/// Puts the chunk `ends[n-2]..ends[n-1]` in place, then the one before it
/// in the next task.
fn put_chunks(
    code: web_sys::Element,
    plain: web_sys::CharacterData,
    text: String,
    tokens: Tokens,
    mut ends: Vec<usize>,
) {
    let (Some(end), Some(&start)) = (ends.pop(), ends.last()) else {
        plain.remove();
        mark(&code, "done");
        return;
    };
    let keep = text.get(..start).map_or(0, |t| t.encode_utf16().count());
    let _ = plain.delete_data(keep as u32, u32::MAX);
    let html = format!(
        "<span class=\"hl-chunk\">{}</span>",
        chunk_html(&text, &tokens, start, end)
    );
    let _ = match code.first_element_child() {
        Some(first) => first.insert_adjacent_html("beforebegin", &html),
        None => code.insert_adjacent_html("beforeend", &html),
    };
    set_timeout(
        move || put_chunks(code, plain, text, tokens, ends),
        Duration::ZERO,
    );
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
    let tokens = scopes.zip(lengths).and_then(|(scopes, lengths)| {
        classify(&text, &tokens_from_lengths(&text, &scopes, &lengths)?)
    });
    apply(code, text, tokens);
}
