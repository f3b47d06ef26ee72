//! A message's images, large, in a modal `<dialog>`: Escape or the button
//! closes it and the focus goes back where it was; the arrow keys (and the
//! buttons) go through the message's images.

use leptos::html::Dialog;
use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::files::safe_name;
use crate::protocol::FileRef;
use crate::ui::browser;
use crate::ui::components::large_image::LargeImage;

#[component]
pub fn ImageDialog(images: Vec<FileRef>, open: RwSignal<Option<usize>>) -> impl IntoView {
    let dialog = NodeRef::<Dialog>::new();
    let back_to = StoredValue::new_local(None::<web_sys::HtmlElement>);
    let count = images.len();
    let images = StoredValue::new(images);
    Effect::new(move |_| {
        let want = open.get().is_some();
        let Some(d) = dialog.get() else { return };
        if want && !d.open() {
            back_to.set_value(browser::focused());
            let _ = d.show_modal();
        } else if !want && d.open() {
            d.close();
        }
    });
    let on_close = move |_| {
        if dialog.get_untracked().is_some_and(|d| d.open()) {
            return;
        }
        open.set(None);
        browser::refocus(back_to.try_update_value(Option::take).flatten());
    };
    let step = move |by: isize| {
        open.update(|o| {
            if let Some(i) = o {
                *i = (*i as isize + by).rem_euclid(count.max(1) as isize) as usize;
            }
        })
    };
    let on_keydown = move |ev: KeyboardEvent| match ev.key().as_str() {
        "ArrowRight" | "ArrowDown" => {
            ev.prevent_default();
            step(1);
        }
        "ArrowLeft" | "ArrowUp" => {
            ev.prevent_default();
            step(-1);
        }
        _ => {}
    };
    let current = move || {
        open.get()
            .and_then(|i| images.with_value(|v| v.get(i).cloned()).map(|f| (i, f)))
    };
    let title = move || {
        current()
            .map(|(i, f)| format!("Image {} of {count}: {}", i + 1, safe_name(&f.name)))
            .unwrap_or_default()
    };
    view! {
        <dialog class="image-dialog" data-testid="image-dialog" node_ref=dialog
            aria-label=title on:cancel=move |_: web_sys::Event| open.set(None)
            on:close=on_close on:keydown=on_keydown>
            <header class="settings-head">
                <h2 class="image-dialog-title">{title}</h2>
                <button type="button" class="icon-button" aria-label="Close" autofocus
                    data-testid="close-image" on:click=move |_| open.set(None)>"×"</button>
            </header>
            {move || current().map(|(_, f)| view! { <LargeImage file=f /> })}
            <Show when=move || { count > 1 }>
                <footer class="image-dialog-nav">
                    <button type="button" class="image-nav" data-testid="previous-image"
                        on:click=move |_| step(-1)>"← Previous"</button>
                    <button type="button" class="image-nav" data-testid="next-image"
                        on:click=move |_| step(1)>"Next →"</button>
                </footer>
            </Show>
        </dialog>
    }
}
