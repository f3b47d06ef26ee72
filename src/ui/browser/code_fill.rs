//! Puts rendered markdown into the page with long code blocks written a few
//! parts per animation frame: a 2,000-line block laid out at once was one
//! main-thread task of 100–230 ms on arrival. The HTML is parsed in an inert
//! `<template>`; a code block of more than [`PARTS_PER_FRAME`] parts
//! (`span.code-part`, 50 lines each, their own block boxes: see
//! markdown/src/render.rs) enters the page with its first parts, and the
//! rest follow one batch per frame, so each frame lays out only the new
//! lines.
//! Meanwhile the block is marked `data-filling`: the highlighter notes a
//! request for it there and runs once its whole text is in.

use wasm_bindgen::JsCast;

use crate::ui::browser::code_highlight::highlight_within;

/// Parts put into the page per frame: 200 lines.
const PARTS_PER_FRAME: u32 = 4;

/// How the parsed HTML goes into its parent.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Put {
    Append,
    Replace,
}

/// Puts `html` (sanitizer output) into `parent`.
pub fn put_html(parent: &web_sys::Element, html: &str, how: Put) {
    // The common case, a page without a long block, is inserted as before.
    let parts = html.matches("<span class=\"code-part\">").count();
    if parts <= PARTS_PER_FRAME as usize || put_parsed(parent, html, how).is_none() {
        match how {
            Put::Append => {
                let _ = parent.insert_adjacent_html("beforeend", html);
            }
            Put::Replace => parent.set_inner_html(html),
        }
    }
}

/// The long-block path; `None` (nothing changed) when the browser cannot
/// make a template.
fn put_parsed(parent: &web_sys::Element, html: &str, how: Put) -> Option<()> {
    let doc = parent.owner_document()?;
    let template = doc
        .create_element("template")
        .ok()?
        .dyn_into::<web_sys::HtmlTemplateElement>()
        .ok()?;
    template.set_inner_html(html);
    let content = template.content();
    let codes = content.query_selector_all("code").ok()?;
    for i in 0..codes.length() {
        let Some(code) = codes
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let rest = doc.create_document_fragment();
        while let Some(part) = code.children().item(PARTS_PER_FRAME) {
            let _ = rest.append_child(&part);
        }
        if rest.first_child().is_some() {
            let _ = code.set_attribute("data-filling", "");
            fill_later(code, rest);
        }
    }
    if how == Put::Replace {
        parent.set_inner_html("");
    }
    parent.append_child(&content).ok()?;
    Some(())
}

/// Moves the next batch of `rest` into `code` on the next frame, until all
/// of it is in; then highlights the block if that was asked meanwhile. A
/// block taken out of the page (the tail repainted) is left alone.
fn fill_later(code: web_sys::Element, rest: web_sys::DocumentFragment) {
    leptos::prelude::request_animation_frame(move || {
        if !code.is_connected() {
            return;
        }
        for _ in 0..PARTS_PER_FRAME {
            let Some(part) = rest.first_child() else {
                break;
            };
            let _ = code.append_child(&part);
        }
        if rest.first_child().is_some() {
            fill_later(code, rest);
            return;
        }
        let wanted = code.get_attribute("data-filling").as_deref() == Some("highlight");
        let _ = code.remove_attribute("data-filling");
        if let (true, Some(pre)) = (wanted, code.parent_element()) {
            highlight_within(&pre);
        }
    });
}
