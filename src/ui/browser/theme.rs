//! The colour theme chosen in Settings.

/// Sets `data-theme` on `<html>`; CSS follows the system when it is absent.
pub fn apply_theme(theme: Option<&str>) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    let _ = match theme {
        Some(t) => root.set_attribute("data-theme", t),
        None => root.remove_attribute("data-theme"),
    };
}
