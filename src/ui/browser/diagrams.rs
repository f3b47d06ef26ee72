//! Mermaid code blocks drawn as diagrams: a complete ```mermaid block
//! (the highlighter hands it over, so a block still streaming stays code)
//! is sent to the renderer frame (`diagram_frame`), and its drawing shown as
//! an `<img>` from a `blob:` URL (a PNG the frame rasterized, else the SVG):
//! an image runs no script and fetches nothing, and the SVG never enters
//! the page's DOM. The block keeps its source
//! (hidden while the diagram shows; the head's Source button toggles it,
//! its Copy button copies it). A diagram that fails shows its source with
//! Mermaid's message and the line it names marked. Diagrams are drawn
//! again when the theme changes; blob URLs are revoked once their image
//! has left the page.

use std::cell::RefCell;

use wasm_bindgen::{JsCast, JsValue};

use crate::render::diagram::{alt_text, check_source, Refusal};
use crate::ui::browser::diagram_frame::{self, dark_theme, Answer, Drawing};

/// The block's state, on `.code-block[data-diagram]`: `pending`, `drawn`,
/// `source` (drawn, the source shown instead) or `failed`. Which of the
/// image and the source shows is the `hidden` attribute's business: no
/// style of its own reaches the first load.
const STATE: &str = "data-diagram";

/// Draws the diagram of `code` (a complete `code[data-lang=mermaid]`).
pub fn draw(code: web_sys::Element) {
    let Some(block) = code.closest(".code-block").ok().flatten() else {
        return;
    };
    let source = code.text_content().unwrap_or_default();
    if let Err(refusal) = check_source(&source) {
        show_failure(&block, &code, &refusal);
        return;
    }
    set_state(&block, "pending");
    WATCHING.with(|w| {
        if !w.replace(true) {
            diagram_frame::on_theme_change(redraw_all);
        }
    });
    request(block, code, source);
}

fn request(block: web_sys::Element, code: web_sys::Element, source: String) {
    let dark = dark_theme();
    let asked = source.clone();
    diagram_frame::draw(&asked, move |answer| {
        if !block.is_connected() {
            return;
        }
        match answer {
            Answer::Drawn {
                drawing,
                title,
                description,
            } => {
                let alt = alt_text(&source, title.as_deref(), description.as_deref());
                show_image(&block, &drawing, &alt, dark);
            }
            Answer::Failed(message) => {
                show_failure(&block, &code, &Refusal::failed(&source, &message))
            }
        }
    });
}

/// Puts the drawing into the block's image (made on the first drawing),
/// and the Source toggle into its head.
fn show_image(block: &web_sys::Element, drawing: &Drawing, alt: &str, dark: bool) -> Option<()> {
    let url = blob_url(drawing)?;
    let doc = block.owner_document()?;
    let img = match block.query_selector("img.diagram-img").ok()? {
        Some(img) => img,
        None => {
            let figure = doc.create_element("div").ok()?;
            figure.set_class_name("diagram");
            let img = doc.create_element("img").ok()?;
            img.set_class_name("diagram-img");
            figure.append_child(&img).ok()?;
            let pre = block.query_selector("pre").ok()??;
            block.insert_before(&figure, Some(&pre)).ok()?;
            add_toggle(block, &doc)?;
            img
        }
    };
    let _ = img.set_attribute("alt", alt);
    let _ = img.set_attribute("data-theme", if dark { "dark" } else { "light" });
    release(&img);
    match drawing {
        // Its CSS size is its pixels over their density.
        Drawing::Png(_, density) => {
            let _ = img.remove_attribute("src");
            let _ = img.set_attribute("srcset", &format!("{url} {density:.4}x"));
        }
        Drawing::Svg(_) => {
            let _ = img.remove_attribute("srcset");
            let _ = img.set_attribute("src", &url);
        }
    }
    BLOBS.with(|b| b.borrow_mut().push((url, img)));
    if block.get_attribute(STATE).as_deref() != Some("source") {
        set_state(block, "drawn");
    }
    Some(())
}

/// Sets the block's state and shows the image or the source by it.
fn set_state(block: &web_sys::Element, state: &str) {
    let _ = block.set_attribute(STATE, state);
    let hide = |selector: &str, hidden: bool| {
        if let Some(el) = block.query_selector(selector).ok().flatten() {
            let _ = el.toggle_attribute_with_force("hidden", hidden);
        }
    };
    hide("pre", state == "drawn");
    hide(".diagram", state != "drawn");
}

/// The head's button that shows the source instead of the diagram (and
/// back); the markdown view's click handler calls [`toggle_source`].
fn add_toggle(block: &web_sys::Element, doc: &web_sys::Document) -> Option<()> {
    let head = block.query_selector(".code-head").ok()??;
    let button = doc.create_element("button").ok()?;
    let _ = button.set_attribute("type", "button");
    // Styled as the head's other button.
    button.set_class_name("copy-button diagram-toggle");
    let _ = button.set_attribute("aria-pressed", "false");
    button.set_text_content(Some("Source"));
    let copy = head.query_selector(".code-copy").ok().flatten();
    head.insert_before(&button, copy.as_ref().map(|c| c.unchecked_ref()))
        .ok()?;
    Some(())
}

/// Shows the diagram's source instead of its image, or back.
pub fn toggle_source(button: web_sys::Element) {
    let Some(block) = button.closest(".code-block").ok().flatten() else {
        return;
    };
    let showing_source = block.get_attribute(STATE).as_deref() == Some("source");
    let (state, pressed) = if showing_source {
        ("drawn", "false")
    } else {
        ("source", "true")
    };
    set_state(&block, state);
    let _ = button.set_attribute("aria-pressed", pressed);
}

/// The source with Mermaid's message above it and the line it names
/// marked (the code's text stays the same, so Copy copies the source).
fn show_failure(block: &web_sys::Element, code: &web_sys::Element, refusal: &Refusal) {
    let Some(doc) = block.owner_document() else {
        return;
    };
    if let Some(img) = block.query_selector("img.diagram-img").ok().flatten() {
        release(&img);
    }
    if let Some(figure) = block.query_selector(".diagram").ok().flatten() {
        figure.remove();
    }
    set_state(block, "failed");
    if let Some(toggle) = block.query_selector(".diagram-toggle").ok().flatten() {
        toggle.remove();
    }
    let note = match block.query_selector(".diagram-error").ok().flatten() {
        Some(note) => note,
        None => {
            let Ok(note) = doc.create_element("p") else {
                return;
            };
            note.set_class_name("diagram-error");
            let _ = note.set_attribute("role", "note");
            if let Some(pre) = block.query_selector("pre").ok().flatten() {
                let _ = block.insert_before(&note, Some(&pre));
            }
            note
        }
    };
    note.set_text_content(Some(&refusal.note()));
    if let Some(line) = refusal.line() {
        mark_line(&doc, code, line);
    }
}

/// Rewrites `code` as text with its 1-based `line` in a `<mark>` (the last
/// line when Mermaid names one past the end, as it does for an unexpected
/// end of input).
fn mark_line(doc: &web_sys::Document, code: &web_sys::Element, line: usize) {
    let text = code.text_content().unwrap_or_default();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(0);
    let at = (line - 1).min(last);
    let Ok(mark) = doc.create_element("mark") else {
        return;
    };
    mark.set_class_name("diagram-error-line");
    let Some(marked) = lines.get(at) else {
        return;
    };
    mark.set_text_content(Some(marked));
    code.set_text_content(Some(&lines[..at].concat()));
    let _ = code.append_child(&mark);
    let after = lines[at + 1..].concat();
    if !after.is_empty() {
        let _ = code.append_child(&doc.create_text_node(&after));
    }
}

fn blob_url(drawing: &Drawing) -> Option<String> {
    let (part, kind): (JsValue, _) = match drawing {
        Drawing::Png(bytes, _) => (bytes.into(), "image/png"),
        Drawing::Svg(svg) => (svg.into(), "image/svg+xml"),
    };
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(kind);
    let blob = web_sys::Blob::new_with_buffer_source_sequence_and_options(
        &js_sys::Array::of1(&part),
        &options,
    )
    .ok()?;
    web_sys::Url::create_object_url_with_blob(&blob).ok()
}

/// Revokes the blob URLs `img` has shown.
fn release(img: &web_sys::Element) {
    BLOBS.with(|b| {
        b.borrow_mut().retain(|(url, shown_by)| {
            let keep = shown_by != img;
            if !keep {
                let _ = web_sys::Url::revoke_object_url(url);
            }
            keep
        })
    });
}

/// Revokes, once the current task is done, the blob URLs whose image has
/// left the page: the markdown view calls this when it is disposed (its
/// row unmounted), before its elements are removed. A page without
/// diagrams only reads a flag.
pub fn release_later() {
    if !BLOBS.with(|b| b.borrow().is_empty()) {
        leptos::prelude::set_timeout(release_unmounted, std::time::Duration::ZERO);
    }
}

/// Revokes the blob URLs whose image has left the page (its row
/// unmounted, its answer repainted).
fn release_unmounted() {
    BLOBS.with(|b| {
        b.borrow_mut().retain(|(url, img)| {
            let keep = img.is_connected();
            if !keep {
                let _ = web_sys::Url::revoke_object_url(url);
            }
            keep
        })
    });
}

/// Draws every diagram on the page again whose image is not in the
/// page's current theme.
fn redraw_all() {
    release_unmounted();
    let theme = if dark_theme() { "dark" } else { "light" };
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(images) = doc.query_selector_all("img.diagram-img") else {
        return;
    };
    for i in 0..images.length() {
        let Some(img) = images
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        if img.get_attribute("data-theme").as_deref() == Some(theme) {
            continue;
        }
        let block = img.closest(".code-block").ok().flatten();
        let code = block
            .as_ref()
            .and_then(|b| b.query_selector("code").ok().flatten());
        if let (Some(block), Some(code)) = (block, code) {
            let source = code.text_content().unwrap_or_default();
            request(block, code, source);
        }
    }
}

thread_local! {
    /// Each live blob URL and the image showing it.
    static BLOBS: RefCell<Vec<(String, web_sys::Element)>> = const { RefCell::new(Vec::new()) };
    /// Whether theme changes are watched (from the first diagram on).
    static WATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
