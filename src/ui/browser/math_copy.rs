//! Copying formulas as their LaTeX: a display formula's copy button, a
//! focused formula's keys (Enter, or Ctrl+C / ⌘C with nothing selected),
//! and any selection that holds formulas (the browser would copy MathML's
//! laid-out symbols, which read back as nonsense). Each `<math>` carries
//! its LaTeX in `alttext` (written by the markdown module, which makes
//! inline formulas focusable and display formulas' boxes too).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::components::copy_button::copy_and_confirm;
use crate::ui::components::live_regions::Announcer;

/// Copies the LaTeX of the display formula whose copy button this is.
pub fn copy_formula(button: web_sys::Element, say: Option<Announcer>) {
    let latex = button
        .closest(".math-display")
        .ok()
        .flatten()
        .and_then(|b| b.query_selector("math").ok().flatten())
        .and_then(|m| m.get_attribute("alttext"));
    if let Some(latex) = latex {
        copy_and_confirm(button, &latex, say);
    }
}

/// A key on a focused formula (`.math-inline` or `.math-display`, not
/// its copy button, whose Enter is the button's): Enter, or Ctrl+C / ⌘C
/// with nothing selected, copies its LaTeX and says so; a display formula
/// shows it on its button.
pub fn on_key(ev: web_sys::KeyboardEvent, say: Option<Announcer>) {
    let key = ev.key();
    let command = (ev.ctrl_key() || ev.meta_key()) && !ev.alt_key() && !ev.shift_key();
    let copy_key = (key == "Enter" && !command && !ev.alt_key() && !ev.shift_key())
        || (command && key.eq_ignore_ascii_case("c") && nothing_selected());
    if !copy_key {
        return;
    }
    let Some(formula) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .filter(|t| t.matches(".math-inline, .math-display").unwrap_or(false))
    else {
        return;
    };
    let Some(latex) = formula
        .query_selector("math")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("alttext"))
    else {
        return;
    };
    ev.prevent_default();
    match formula.query_selector(".math-copy").ok().flatten() {
        Some(button) => copy_and_confirm(button, &latex, say),
        None => copy_and_say(&latex, say),
    }
}

/// Copies `text` and says the outcome (an inline formula has no button to
/// show it on).
fn copy_and_say(text: &str, say: Option<Announcer>) {
    let Some(written) = crate::ui::browser::copy_to_clipboard(text) else {
        return;
    };
    let settled = Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| {
        if let Some(say) = say {
            say.polite(if v.is_undefined() {
                "LaTeX copied"
            } else {
                "Copy failed"
            });
        }
    });
    let _ = written.then2(&settled, &settled);
    // Called once, by the promise; a few bytes per copy.
    settled.forget();
}

fn nothing_selected() -> bool {
    web_sys::window()
        .and_then(|w| w.get_selection().ok().flatten())
        .is_none_or(|s| s.is_collapsed())
}

/// A copy inside an answer: when the selection holds formulas, the text
/// copied has each one as its delimited LaTeX (`$…$`, `$$…$$`) and no
/// copy-button labels; otherwise the browser copies as usual.
pub fn on_copy(ev: web_sys::ClipboardEvent) {
    let Some(text) = selection_as_latex() else {
        return;
    };
    if let Some(data) = ev.clipboard_data() {
        if data.set_data("text/plain", &text).is_ok() {
            ev.prevent_default();
        }
    }
}

/// The selection's text with formulas as LaTeX; `None` if it holds none.
fn selection_as_latex() -> Option<String> {
    let selection = web_sys::window()?.get_selection().ok()??;
    if selection.range_count() == 0 {
        return None;
    }
    let mut text = String::new();
    let mut any = false;
    for i in 0..selection.range_count() {
        let range = selection.get_range_at(i).ok()?;
        // A selection inside one formula copies all of its LaTeX.
        if let Some(math) = formula_around(&range) {
            text.push_str(&delimited(&math));
            any = true;
            continue;
        }
        let fragment = range.clone_contents().ok()?;
        let formulas = fragment.query_selector_all("math").ok()?;
        for j in 0..formulas.length() {
            let Some(math) = formulas
                .item(j)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            any = true;
            let doc = web_sys::window()?.document()?;
            let _ = math.replace_with_with_node_1(&doc.create_text_node(&delimited(&math)));
        }
        if let Ok(buttons) = fragment.query_selector_all("button") {
            for j in 0..buttons.length() {
                if let Some(b) = buttons
                    .item(j)
                    .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                {
                    b.remove();
                }
            }
        }
        text.push_str(&fragment.text_content().unwrap_or_default());
    }
    any.then_some(text)
}

/// The `<math>` a range lies inside, if any.
fn formula_around(range: &web_sys::Range) -> Option<web_sys::Element> {
    let node = range.common_ancestor_container().ok()?;
    let element = match node.dyn_ref::<web_sys::Element>() {
        Some(e) => e.clone(),
        None => node.parent_element()?,
    };
    element.closest("math").ok()?
}

/// A formula's LaTeX with the delimiters of its kind.
fn delimited(math: &web_sys::Element) -> String {
    let latex = math.get_attribute("alttext").unwrap_or_default();
    let delimiter = if math.get_attribute("display").as_deref() == Some("block") {
        "$$"
    } else {
        "$"
    };
    format!("{delimiter}{latex}{delimiter}")
}
