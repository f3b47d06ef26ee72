//! The markdown module's exports, for the client's bridge
//! (`src/ui/browser/markdown_module.rs`, which declares the same names). Each
//! export takes and returns plain strings and numbers: the two wasm
//! modules share no memory, only JS values.

use aria_markdown::{IncrementalMarkdown, MathOptions};
use wasm_bindgen::prelude::*;

/// Markdown → safe HTML in one go (the benchmark's naive baselines), with
/// the reader's math settings.
#[wasm_bindgen(js_name = toHtml)]
pub fn to_html(markdown: &str, math: bool, single_dollar: bool) -> String {
    aria_markdown::to_html_with(markdown, math_options(math, single_dollar))
}

fn math_options(enabled: bool, single_dollar: bool) -> MathOptions {
    MathOptions {
        enabled,
        single_dollar,
    }
}

/// Markdown → its words without markup (screen-reader announcements).
#[wasm_bindgen(js_name = plainText)]
pub fn plain_text(markdown: &str) -> String {
    aria_markdown::plain_text(markdown)
}

/// One message's streaming renderer, with the last snapshot's text: each
/// update sends only what changed (a snapshot repeats all the text before
/// it, and copying 100 KiB into this module on every frame was a fifth of a
/// long stream's main-thread time).
#[wasm_bindgen]
pub struct Renderer {
    markdown: IncrementalMarkdown,
    text: String,
}

/// A renderer for a new message, with the reader's math settings.
#[wasm_bindgen]
pub fn renderer(math: bool, single_dollar: bool) -> Renderer {
    Renderer {
        markdown: IncrementalMarkdown::with_math(math_options(math, single_dollar)),
        text: String::new(),
    }
}

#[wasm_bindgen]
impl Renderer {
    /// Renders the snapshot made of the last one's first `same` bytes and
    /// then `rest` (`same` from `aria_markdown::unchanged_prefix_len`). The
    /// answer is an array: `[stable blocks to keep (-1: all), tail HTML,
    /// ...HTML of the blocks appended]`.
    pub fn update(&mut self, same: usize, rest: &str) -> Vec<JsValue> {
        let same = self.text.floor_char_boundary(same);
        self.text.truncate(same);
        self.text.push_str(rest);
        let delta = self.markdown.update(&self.text);
        let keep = delta.stable_truncated_to.map_or(-1.0, |k| k as f64);
        let mut out = Vec::with_capacity(2 + delta.stable_appended.len());
        out.push(JsValue::from_f64(keep));
        out.push(JsValue::from_str(&delta.tail_html));
        out.extend(delta.stable_appended.iter().map(|b| JsValue::from_str(b)));
        out
    }
}
