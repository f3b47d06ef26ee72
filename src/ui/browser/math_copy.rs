//! Copying formulas as their LaTeX: a display formula's copy button, and
//! any selection that holds formulas (the browser would copy MathML's
//! laid-out symbols, which read back as nonsense). Each `<math>` carries
//! its LaTeX in `alttext` (written by the markdown module).

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
