//! One image of the image dialog at full size, its `blob:` URL held while
//! it shows, with its name and size as the caption.

use leptos::prelude::*;

use crate::files::{safe_name, size_label};
use crate::protocol::FileRef;
use crate::ui::hooks::shown_file::use_shown_file;
use crate::ui::wiring::files::Shown;

/// One image at full size (its URL held while shown).
#[component]
pub fn LargeImage(file: FileRef) -> impl IntoView {
    let shown = use_shown_file(file.file_id.clone());
    let name = safe_name(&file.name);
    let caption = format!("{name} · {}", size_label(file.size));
    view! {
        <figure class="image-large">
            {move || match shown.get() {
                Some(Shown::Url(url)) => view! { <img src=url alt=name.clone() data-testid="image-large" /> }.into_any(),
                Some(Shown::Failed(why)) => view! { <p>{why}</p> }.into_any(),
                _ => view! { <p>"Loading…"</p> }.into_any(),
            }}
            <figcaption>{caption}</figcaption>
        </figure>
    }
}
