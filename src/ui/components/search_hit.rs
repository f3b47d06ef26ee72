//! One search hit: its thread's title, the time, who wrote it, and the
//! snippet with the query's words marked. The snippet is untrusted: it is
//! split into text nodes and `<mark>` elements, never parsed as HTML.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::protocol::{Hit, HitKind, Role};
use crate::search::highlight;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn HitView(hit: Hit, query: String) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let channel = hit.channel_id.clone();
    let title = move || {
        rt.view
            .channels
            .with(|cs| cs.iter().find(|c| c.id == channel).map(|c| c.title.clone()))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| "Untitled".to_string())
    };
    let who = match (hit.kind, hit.role) {
        (HitKind::Tool, _) => "Tool",
        (HitKind::Commentary, _) => "Agent note",
        (_, Some(Role::User)) => "You",
        _ => "Agent",
    };
    // Text nodes and <mark>s only: the snippet is never parsed.
    let snippet = highlight::pieces(&hit.snippet, &query)
        .into_iter()
        .map(|(text, marked)| {
            let text = text.to_string();
            if marked {
                view! { <mark>{text}</mark> }.into_any()
            } else {
                text.into_any()
            }
        })
        .collect_view();
    view! {
        <div class="search-hit-head">
            <span class="search-hit-title">{title}</span>
            {(hit.on_path == Some(false)).then(|| view! {
                <span class="search-hit-branch" data-testid="hit-other-branch">"on another branch"</span>
            })}
            <time class="search-hit-time">{local_time(hit.ts)}</time>
        </div>
        <div class="search-hit-snippet" data-testid="search-snippet">
            <span class="search-hit-who">{who}": "</span>{snippet}
        </div>
    }
}

/// A time in the reader's locale.
fn local_time(ts_ms: i64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(ts_ms as f64));
    String::from(date.to_locale_string("default", &JsValue::UNDEFINED))
}
