//! A stored image in a message: its bytes read while the row is mounted,
//! shown from a `blob:` URL at the size its header gave (so the row does
//! not jump when it decodes; set through the CSSOM, which the page's
//! policy allows where a `style` attribute is refused); a button that
//! opens it large.

use leptos::prelude::*;

use crate::files::{safe_name, thumb_size};
use crate::protocol::FileRef;
use crate::ui::hooks::shown_file::use_shown_file;
use crate::ui::wiring::files::Shown;

/// Largest side of a thumbnail, in CSS pixels.
const THUMB: u32 = 240;

#[component]
pub fn ImageThumb(file: FileRef, on_open: Callback<()>) -> impl IntoView {
    let shown = use_shown_file(file.file_id.clone());
    let name = safe_name(&file.name);
    let (w, h) = thumb_size(file.width, file.height, THUMB);
    let alt = name.clone();
    view! {
        <button type="button" class="image-thumb" data-testid="image-thumb"
            aria-label=format!("Open image {name}") on:click=move |_| on_open.run(())
            style:width=format!("{w}px") style:aspect-ratio=format!("{w} / {h}")>
            {move || match shown.get() {
                Some(Shown::Url(url)) => view! {
                    <img src=url alt=alt.clone() width=w.to_string() height=h.to_string() decoding="async" />
                }.into_any(),
                Some(Shown::Failed(why)) => view! { <span class="thumb-note">{why}</span> }.into_any(),
                _ => view! { <span class="thumb-note">"Loading…"</span> }.into_any(),
            }}
        </button>
    }
}
