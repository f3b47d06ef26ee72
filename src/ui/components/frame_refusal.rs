//! What the app shows instead of itself inside another page's frame: that
//! page could lay it out under its own content and steer the user's clicks
//! (clickjacking), so the app does not start or connect there.

use leptos::prelude::*;

#[component]
pub fn FrameRefusal() -> impl IntoView {
    view! {
        <main class="frame-refusal" data-testid="frame-refusal" role="alert">
            <h1>"aria-web"</h1>
            <p>"aria-web does not run inside another page's frame, so that no page can trick you into clicks."</p>
            <p>"Open it in its own tab instead."</p>
        </main>
    }
}
