//! `use_shown_file`: a stored file's bytes as the page has them, held for
//! as long as the component showing them lives. The runtime reads the
//! bytes once for all the components that show a file and revokes its
//! `blob:` URL when the last one goes.

use leptos::prelude::*;

use crate::ui::wiring::files::Shown;
use crate::ui::wiring::runtime::Runtime;

pub fn use_shown_file(file_id: String) -> Signal<Option<Shown>> {
    let rt = expect_context::<Runtime>();
    rt.show_file(&file_id);
    {
        let id = file_id.clone();
        on_cleanup(move || rt.unshow_file(&id));
    }
    Signal::derive(move || rt.files.shown.with(|s| s.get(&file_id).cloned()))
}
