//! The keyboard shortcuts dialog (`?`): a modal `<dialog>`, so the page
//! behind it is inert and Escape closes it; the focus goes back to where
//! it was.

use leptos::html::Dialog;
use leptos::prelude::*;

use crate::shortcuts::HELP;
use crate::ui::browser;

#[component]
pub fn ShortcutHelp(open: RwSignal<bool>) -> impl IntoView {
    let dialog = NodeRef::<Dialog>::new();
    let back_to = StoredValue::new_local(None::<web_sys::HtmlElement>);
    Effect::new(move |_| {
        let want = open.get();
        let Some(d) = dialog.get() else { return };
        if want && !d.open() {
            back_to.set_value(browser::focused());
            let _ = d.show_modal();
        } else if !want && d.open() {
            d.close();
        }
    });
    // Closed by Escape, the button or `open`: give the focus back, unless
    // it is already somewhere (the `close` event comes a task after the
    // close, when the reader may have moved on). A dialog open again by
    // then (`?` pressed at once) is left open.
    let on_close = move |_| {
        if dialog.get_untracked().is_some_and(|d| d.open()) {
            return;
        }
        open.set(false);
        browser::refocus(back_to.try_update_value(Option::take).flatten());
    };
    view! {
        // Escape's `cancel` comes before the close: `open` follows at once,
        // so that a `?` before the `close` event opens it again.
        <dialog class="shortcut-help" data-testid="shortcut-help" node_ref=dialog
            aria-labelledby="shortcut-help-title" on:cancel=move |_: web_sys::Event| open.set(false)
            on:close=on_close>
            <header class="settings-head">
                <h2 id="shortcut-help-title">"Keyboard shortcuts"</h2>
                <button type="button" class="icon-button" aria-label="Close" autofocus
                    data-testid="close-shortcut-help" on:click=move |_| open.set(false)>"×"</button>
            </header>
            <table>
                <tbody>
                    {HELP.iter().map(|(keys, what)| view! {
                        <tr><th scope="row"><kbd>{*keys}</kbd></th><td>{*what}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </dialog>
    }
}
