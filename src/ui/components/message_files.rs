//! The files of a message (the user's or the agent's): images as
//! thumbnails that open large, other files as chips that save them.

use leptos::prelude::*;

use crate::files::is_raster_image;
use crate::protocol::FileRef;
use crate::ui::components::file_chip::FileChip;
use crate::ui::components::image_dialog::ImageDialog;
use crate::ui::components::image_thumb::ImageThumb;

/// The files of a message that has some. Not inlined: the bubbles call it
/// only for a message with files, so a first visit (whose profile decides
/// the first load, see docs/build.md) never runs it and it stays deferred.
#[inline(never)]
pub fn files_view(files: &[FileRef]) -> AnyView {
    view! { <MessageFiles files=files.to_vec() /> }.into_any()
}

#[component]
pub fn MessageFiles(files: Vec<FileRef>) -> impl IntoView {
    let (images, others): (Vec<FileRef>, Vec<FileRef>) =
        files.into_iter().partition(|f| is_raster_image(&f.mime));
    let open = RwSignal::new(None::<usize>);
    let has_images = !images.is_empty();
    let thumbs = images
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let on_open = Callback::new(move |()| open.set(Some(i)));
            view! { <ImageThumb file=f.clone() on_open /> }
        })
        .collect_view();
    let chips = others
        .into_iter()
        .map(|f| view! { <FileChip file=f /> })
        .collect_view();
    view! {
        <div class="message-files" data-testid="message-files">
            {thumbs}
            {chips}
            {has_images.then(|| view! { <ImageDialog images open /> })}
        </div>
    }
}
