//! Highlights the complete code blocks of rendered markdown: diffs right
//! here, other languages through a Web Worker running highlight.js
//! (`js/highlight-worker.js`, started on first use, so the first load does
//! not carry it). Each `code[data-lang]` is handled once and marked with
//! `data-hl`; the result replaces its content only when the tokens add up
//! to its text, as HTML built from escaped tokens ([`render::highlight`]).

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::render::highlight::{diff_tokens, grammar, tokens_html, Grammar};

/// The worker script, relative to the page (dist/hl/, built by
/// scripts/bundle-highlighter).
const WORKER_URL: &str = "hl/worker.js";

/// Highlights the not yet handled code blocks inside `root`.
pub fn highlight_within(root: &web_sys::Element) {
    let Ok(blocks) = root.query_selector_all("code[data-lang]:not([data-hl])") else {
        return;
    };
    for i in 0..blocks.length() {
        let Some(code) = blocks.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else {
            continue;
        };
        let lang = code.get_attribute("data-lang").unwrap_or_default();
        let text = code.text_content().unwrap_or_default();
        match grammar(&lang) {
            Some(Grammar::Diff) => apply(&code, tokens_html(&text, &diff_tokens(&text))),
            Some(Grammar::Worker(name)) => WORKER.with(|w| w.borrow_mut().post(code, name, text)),
            None => mark(&code, "plain"),
        }
    }
}

fn apply(code: &web_sys::Element, html: Option<String>) {
    match html {
        Some(html) => {
            code.set_inner_html(&html);
            mark(code, "done");
        }
        None => mark(code, "plain"),
    }
}

fn mark(code: &web_sys::Element, state: &str) {
    let _ = code.set_attribute("data-hl", state);
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
    pending: HashMap<u32, (web_sys::Element, String)>,
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
            self.pending.insert(id, (code, text));
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
}

fn start_worker() -> Option<web_sys::Worker> {
    let worker = web_sys::Worker::new(WORKER_URL).ok()?;
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_answer);
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // Lives as long as the page's one worker.
    on_message.forget();
    Some(worker)
}

/// `[id, [scope, text, …] | null]` from the worker.
fn on_answer(ev: web_sys::MessageEvent) {
    let answer = js_sys::Array::from(&ev.data());
    let Some(id) = answer.get(0).as_f64() else {
        return;
    };
    let Some((code, text)) = WORKER.with(|w| w.borrow_mut().pending.remove(&(id as u32))) else {
        return;
    };
    let html = answer.get(1).dyn_into::<js_sys::Array>().ok().and_then(|flat| {
        let flat: Vec<String> = flat.iter().filter_map(|v| v.as_string()).collect();
        let pairs: Vec<(&str, &str)> = flat
            .chunks_exact(2)
            .map(|p| (p[0].as_str(), p[1].as_str()))
            .collect();
        tokens_html(&text, &pairs)
    });
    apply(&code, html);
}
