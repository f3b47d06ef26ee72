//! Renders (streaming) markdown into the DOM incrementally: completed blocks
//! are appended once (a burst of them over a few frames, `render::pacing`),
//! only the unfinished tail is replaced per update. Only
//! the sanitizer's output ever reaches `innerHTML`. Code blocks are
//! highlighted once complete: when their block is appended, or once the
//! text is final for those in the tail (Mermaid blocks are drawn as
//! diagrams then, `diagrams`). The parser runs in the markdown
//! module (`markdown_module`); until that is loaded the text is shown as
//! it is.
//!
//! The benchmark's naive baselines (`?render=naive…`, see
//! [`RenderMode`](crate::render::RenderMode)) re-render the whole text into
//! `innerHTML` on each update instead.

use aria_markdown::MathOptions;
use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::render::block_tree::{self, Parent};
use crate::render::highlight::{TailHighlight, TailPaint, TailStep};
use crate::render::pacing::{Pacer, FRAME_BUDGET};
use crate::render::tail_append::Appended;
use crate::ui::browser;
use crate::ui::browser::code_fill::{put_html, Put};
use crate::ui::browser::code_highlight::highlight_within;
use crate::ui::browser::diagrams;
use crate::ui::browser::markdown_module::{MarkdownModule, Renderer};
use crate::ui::browser::math_copy;
use crate::ui::components::copy_button::copy_and_confirm;
use crate::ui::components::live_regions::Announcer;
use crate::ui::wiring::runtime::Runtime;

/// The tail's class while it holds plain text (no markdown module yet).
const PLAIN: &str = "md-plain";
/// The most text a streamed answer's view may be made with and still wait
/// a frame before showing it: a turn's first snapshots.
const STARTING_BYTES: usize = 4 * 1024;

#[component]
pub fn MarkdownView(
    #[prop(into)] text: Signal<String>,
    /// Still streaming: the tail's code blocks may be unfinished.
    #[prop(optional, into)]
    live: Signal<bool>,
    /// Set while completed blocks of a burst wait for a frame: the text
    /// is not all on the page yet.
    #[prop(optional)]
    pacing: Option<RwSignal<bool>>,
) -> impl IntoView {
    let stable = NodeRef::<Div>::new();
    let tail = NodeRef::<Div>::new();
    let module = use_context::<MarkdownModule>();
    // Made once the markdown module is ready; freed with the view.
    let renderer = StoredValue::new_local(None::<Renderer>);
    let tail_state = StoredValue::new(TailHighlight::default());
    // Completed blocks a burst brought beyond a frame's budget, and the
    // frames that put them on the page (`render::pacing`).
    let pacer = StoredValue::new(Pacer::default());
    let next_frame = RwSignal::new(0u32);
    let frame_ends = StoredValue::new(false);
    // After a frame that appended: the next one's budget is whole, and
    // it takes what waits. Registered before the runtime's next flush, so
    // it runs first in that frame.
    let on_next_frame = move || {
        if frame_ends.get_value() {
            return;
        }
        frame_ends.set_value(true);
        request_animation_frame(move || {
            frame_ends.try_set_value(false);
            pacer.try_update_value(Pacer::new_frame);
            if pacer.try_with_value(Pacer::waiting) == Some(true) {
                next_frame.try_update(|n| *n = n.wrapping_add(1));
            }
        });
    };
    let set_pacing = move |on: bool| {
        if let Some(p) = pacing.filter(|p| p.get_untracked() != on) {
            p.set(on);
        }
    };
    let naive = browser::render_mode().whole_bubble();
    // The reader's math settings; a change renders the text from scratch.
    let rt = use_context::<Runtime>();
    let math = Memo::new(move |_| {
        rt.map(|rt| {
            rt.settings.with(|s| MathOptions {
                enabled: s.math,
                single_dollar: s.math_single_dollar,
            })
        })
        .unwrap_or_default()
    });
    let rendered_with = StoredValue::new(MathOptions::default());
    // A view made at the start of a streamed answer (live, at most
    // `STARTING_BYTES` of text) shows the text from the next frame on:
    // the frame that makes a turn's rows (often with the new thread, the
    // question's echo and the typing dots, all in one burst of frames)
    // does not also lay out that text. A longer one, mounted again as it
    // scrolls back into view, shows at once (no frame without its text).
    let starting = live.get_untracked() && text.with_untracked(|t| t.len() <= STARTING_BYTES);
    let shown = RwSignal::new(!starting);
    if !shown.get_untracked() {
        request_animation_frame(move || {
            shown.try_set(true);
        });
    }

    Effect::new(move |_| {
        next_frame.track();
        let (Some(stable), Some(tail), true) = (stable.get(), tail.get(), shown.get()) else {
            return;
        };
        let live = live.get();
        let math = math.get();
        let Some(module) = module.filter(|m| m.ready()) else {
            // Not loaded (yet): the text as it is, until the module is.
            renderer.set_value(None);
            text.with(|t| show_plain(&stable, &tail, t));
            return;
        };
        if naive {
            // `None`: the module just failed; this runs again for the text.
            if let Some(html) = text.with(|t| module.to_html(t, math)) {
                let _ = tail.class_list().remove_1(PLAIN);
                tail.set_inner_html(&html);
            }
            return;
        }
        if rendered_with.get_value() != math {
            renderer.set_value(None);
            rendered_with.set_value(math);
        }
        if renderer.with_value(Option::is_none) {
            // A fresh renderer draws everything: drop the plain text.
            stable.set_text_content(None);
            tail.set_text_content(None);
            let _ = tail.class_list().remove_1(PLAIN);
            tail_state.set_value(TailHighlight::default());
            pacer.set_value(Pacer::default());
            renderer.set_value(module.renderer(math));
        }
        let rendered = text.with(|t| renderer.with_value(|r| r.as_ref().and_then(|r| r.update(t))));
        let Some(delta) = rendered else {
            return;
        };
        // Paced: a streamed answer's growth (its first text too, when the
        // view was made at its start) and what still waits once it is
        // final. A thread's history, or an answer mounted again as it
        // scrolls back into view, shows whole at once.
        let budget = pacer.with_value(|p| {
            let paced = p.waiting() || (live && (starting || p.shown() > 0));
            if paced {
                FRAME_BUDGET
            } else {
                usize::MAX
            }
        });
        let Some(paced) = pacer.try_update_value(|p| {
            p.frame(delta.stable_truncated_to, delta.stable_appended, budget)
        }) else {
            return;
        };
        if let Some(keep) = paced.keep {
            truncate_blocks(&stable, keep);
        }
        append_blocks(&stable, paced.shown, &paced.append);
        let count = paced.shown + paced.append.len();
        for chunk in last_chunks(&stable, block_tree::chunks_touched(paced.shown, count)) {
            highlight_within(&chunk);
        }
        set_pacing(!paced.tail);
        if !paced.append.is_empty() || !paced.tail {
            on_next_frame();
        }
        if !paced.tail {
            // The tail continues the blocks that wait: it comes back with
            // the last of them, a frame or a few later.
            if tail.first_child().is_some() {
                tail.set_text_content(None);
                tail_state.set_value(TailHighlight::default());
            }
            return;
        }
        let step = tail_state
            .try_update_value(|t| t.step(&delta.tail_html, live))
            .unwrap_or(TailStep {
                paint: TailPaint::Replace,
                highlight: false,
            });
        match step.paint {
            TailPaint::Keep => {}
            TailPaint::Append(added) if append_text(&tail, &added) => {}
            _ => put_html(&tail, &delta.tail_html, Put::Replace),
        }
        if step.highlight {
            highlight_within(&tail);
        }
    });

    // Its diagrams' images leave the page with it.
    on_cleanup(diagrams::release_later);

    let say = use_context::<Announcer>();
    view! {
        <div class="markdown" on:click=move |ev| on_click(ev, say)
            on:keydown=move |ev| math_copy::on_key(ev, say) on:copy=math_copy::on_copy>
            <div class="md-stable" node_ref=stable></div>
            <div class="md-tail" node_ref=tail></div>
        </div>
    }
}

/// The markdown's source as text, kept as written (`white-space: pre-wrap`).
fn show_plain(stable: &web_sys::HtmlElement, tail: &web_sys::HtmlElement, text: &str) {
    stable.set_text_content(None);
    let _ = tail.class_list().add_1(PLAIN);
    tail.set_text_content(Some(text));
}

/// Appends the added text to the element `path` leads to from the tail,
/// if that element's last child is a text node and no long code block is
/// still being filled in (its DOM is not all of the HTML yet); `false` if
/// it did not.
fn append_text(tail: &web_sys::HtmlElement, added: &Appended) -> bool {
    if tail
        .query_selector("[data-filling]")
        .ok()
        .flatten()
        .is_some()
    {
        return false;
    }
    let mut el: web_sys::Element = tail.clone().into();
    for name in &added.path {
        match el.last_element_child() {
            Some(child) if child.tag_name().eq_ignore_ascii_case(name) => el = child,
            _ => return false,
        }
    }
    match el.last_child().map(|n| n.dyn_into::<web_sys::Text>()) {
        Some(Ok(text)) => text.append_data(&added.text).is_ok(),
        _ => false,
    }
}

/// Keeps the first `keep` blocks of the stable list (`block_tree`).
fn truncate_blocks(stable: &web_sys::HtmlElement, keep: usize) {
    let kept = block_tree::kept(keep);
    keep_children(stable, kept.groups);
    if let Some(group) = stable.last_element_child() {
        keep_children(&group, kept.chunks_in_last_group);
        if let Some(chunk) = group.last_element_child() {
            keep_children(&chunk, kept.blocks_in_last_chunk);
        }
    }
}

fn keep_children(el: &web_sys::Element, keep: usize) {
    while el.child_element_count() as usize > keep {
        match el.last_element_child() {
            Some(last) => last.remove(),
            None => return,
        }
    }
}

/// Appends completed blocks after the `shown` ones: into the last chunk,
/// the last group and new groups (`block_tree`), one HTML parse for each.
fn append_blocks(stable: &web_sys::HtmlElement, shown: usize, blocks: &[String]) {
    for (parent, html) in block_tree::append_html(shown, blocks) {
        let group = || stable.last_element_child();
        let into = match parent {
            Parent::Stable => Some(stable.clone().into()),
            Parent::LastGroup => group(),
            Parent::LastChunk => group().and_then(|g| g.last_element_child()),
        };
        if let Some(into) = into {
            put_html(&into, &html, Put::Append);
        }
    }
}

/// The last `n` chunks of the stable list, in document order (the worker
/// answers highlight requests in order). Only those an update filled or
/// made are searched for code: searching the whole answer would walk
/// every element of a long one on each streamed update.
fn last_chunks(stable: &web_sys::HtmlElement, n: usize) -> Vec<web_sys::Element> {
    let mut chunks = Vec::with_capacity(n);
    let mut group = stable.last_element_child();
    while let (Some(g), true) = (&group, chunks.len() < n) {
        let mut chunk = g.last_element_child();
        while let (Some(c), true) = (chunk, chunks.len() < n) {
            chunk = c.previous_element_sibling();
            chunks.push(c);
        }
        group = g.previous_element_sibling();
    }
    chunks.reverse();
    chunks
}

/// The rendered HTML's buttons: image placeholders, code and formula copy
/// buttons, a diagram's Source toggle.
fn on_click(ev: web_sys::MouseEvent, say: Option<Announcer>) {
    let Some(button) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| {
            e.closest("button.md-img, button.code-copy, button.math-copy, button.diagram-toggle")
                .ok()
                .flatten()
        })
    else {
        return;
    };
    if button.class_list().contains("code-copy") {
        copy_code(button, say);
    } else if button.class_list().contains("math-copy") {
        math_copy::copy_formula(button, say);
    } else if button.class_list().contains("diagram-toggle") {
        diagrams::toggle_source(button);
    } else {
        load_image(button);
    }
}

/// Copies the plain text of the code block the button heads.
fn copy_code(button: web_sys::Element, say: Option<Announcer>) {
    let code = button
        .closest(".code-block")
        .ok()
        .flatten()
        .and_then(|b| b.query_selector("code").ok().flatten())
        .and_then(|c| c.text_content());
    if let Some(code) = code {
        copy_and_confirm(button, &code, say);
    }
}

/// Remote images are placeholders until clicked: an image URL can carry
/// data out, so nothing is fetched without the reader's consent.
fn load_image(button: web_sys::Element) {
    let Some(src) = button.get_attribute("data-src") else {
        return;
    };
    if !(src.starts_with("https://") || src.starts_with("http://")) {
        return;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(img) = doc.create_element("img") else {
        return;
    };
    let _ = img.set_attribute("src", &src);
    let _ = img.set_attribute("referrerpolicy", "no-referrer");
    let _ = img.set_attribute("loading", "lazy");
    let alt = button.text_content().unwrap_or_default();
    let _ = img.set_attribute("alt", alt.trim_start_matches("🖼 Load image: "));
    let _ = button.replace_with_with_node_1(&img);
}
