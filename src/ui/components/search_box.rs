//! The search field of the thread list and its results: hits as you type
//! (debounced), newest first, each with its thread, time and snippet with
//! the query's words marked. A snippet is untrusted: it is split into text
//! nodes and `<mark>` elements, never parsed as HTML. Arrow keys move
//! through the hits, Enter opens one in place, Escape clears. A hit on
//! another branch (§12) says so, and opens the thread with an offer to
//! show that branch instead of switching by itself.

use std::time::Duration;

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::protocol::Hit;
use crate::search::{Status, DEBOUNCE_MS, TIMEOUT_MS};
use crate::ui::browser;
use crate::ui::components::live_regions::Announcer;
use crate::ui::components::search_hit::HitView;
use crate::ui::wiring::runtime::Runtime;

const UNAVAILABLE: &str = "Search is unavailable on this gateway";

#[component]
pub fn SearchBox(drawer_open: RwSignal<bool>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let search = rt.view.search;
    let text = RwSignal::new(String::new());
    // The hit the arrow keys are on.
    let selected = RwSignal::new(None::<usize>);
    let unavailable = move || search.with(|s| s.status == Status::Unavailable);

    let on_input = move |ev| {
        let value = event_target_value(&ev);
        text.set(value.clone());
        selected.set(None);
        let Some(edit) = rt.update(|s| s.search_input(&value)).flatten() else {
            return;
        };
        set_timeout(
            move || {
                let now = browser::now_ms();
                rt.act(|s| s.search_fire(edit, now));
            },
            Duration::from_millis(u64::from(DEBOUNCE_MS)),
        );
        // A gateway that never answers has no search.
        set_timeout(
            move || {
                let now = browser::now_ms();
                rt.update(|s| s.search_tick(now));
            },
            Duration::from_millis(u64::from(DEBOUNCE_MS) + TIMEOUT_MS as u64 + 50),
        );
    };
    let clear = move || {
        text.set(String::new());
        selected.set(None);
        rt.update(|s| s.search_clear());
    };
    let open = move |hit: Hit| {
        browser::push_item_hash(&hit.channel_id, hit.seq);
        rt.act(|s| s.open_hit(hit.channel_id, hit.seq, hit.on_path));
        drawer_open.set(false);
    };
    let on_keydown = move |ev: KeyboardEvent| {
        let count = search.with_untracked(|s| s.hits.len());
        match ev.key().as_str() {
            "Escape" => {
                ev.prevent_default();
                ev.stop_propagation();
                clear();
            }
            "ArrowDown" if count > 0 => {
                ev.prevent_default();
                selected.update(|s| *s = Some(s.map_or(0, |i| (i + 1).min(count - 1))));
            }
            "ArrowUp" if count > 0 => {
                ev.prevent_default();
                selected.update(|s| *s = s.and_then(|i| i.checked_sub(1)));
            }
            "Enter" => {
                ev.prevent_default();
                let hit = search
                    .with_untracked(|s| s.hits.get(selected.get_untracked().unwrap_or(0)).cloned());
                if let Some(hit) = hit {
                    open(hit);
                }
            }
            _ => {}
        }
    };
    let more = move |_| {
        let now = browser::now_ms();
        rt.act(|s| s.search_more(now));
    };
    let active_id = move || selected.get().map(|i| format!("search-hit-{i}"));
    let showing = move || !text.with(|t| t.trim().is_empty());
    let status_text = move || {
        search.with(|s| match &s.status {
            Status::Unavailable => Some(UNAVAILABLE.to_string()),
            Status::Searching if s.hits.is_empty() => Some("Searching…".to_string()),
            Status::Failed(why) => Some(why.clone()),
            Status::Done if s.hits.is_empty() => Some("No results".to_string()),
            _ => None,
        })
    };
    // Heard through the page's one polite region (the status line itself
    // is not a live region): what the line says, or how many hits came.
    let heard = move || {
        status_text().or_else(|| {
            search.with(|s| {
                (s.status == Status::Done && !s.hits.is_empty())
                    .then(|| format!("{} results", s.hits.len()))
            })
        })
    };
    if let Some(say) = use_context::<Announcer>() {
        Effect::new(move |prev: Option<Option<String>>| {
            let now = heard();
            if let (Some(before), Some(text)) = (&prev, &now) {
                if before.as_ref() != Some(text) {
                    say.polite(text);
                }
            }
            now
        });
    }

    view! {
        <div class="search" data-testid="search">
            <input id="search-input" type="search" class="search-input" autocomplete="off"
                role="combobox" aria-controls="search-results" aria-autocomplete="list"
                aria-expanded=move || showing().to_string()
                aria-activedescendant=active_id
                aria-label="Search messages"
                placeholder=move || if unavailable() { UNAVAILABLE } else { "Search messages" }
                prop:value=move || text.get()
                on:input=on_input on:keydown=on_keydown />
            <Show when=move || showing() || unavailable()>
                {move || status_text().map(|t| view! {
                    <p class="search-status" data-testid="search-status">{t}</p>
                })}
            </Show>
            <Show when=showing>
                <ul id="search-results" class="search-results" role="listbox" aria-label="Search results">
                    {move || {
                        let s = search.get();
                        s.hits.into_iter().enumerate().map(|(i, hit)| {
                            let query = s.query.clone();
                            let channel = hit.channel_id.clone();
                            let seq = hit.seq.to_string();
                            let target = hit.clone();
                            let is_selected = move || selected.get() == Some(i);
                            view! {
                                <li id=format!("search-hit-{i}") role="option" class="search-hit"
                                    data-testid="search-hit" data-channel=channel
                                    data-seq=seq
                                    aria-selected=move || is_selected().to_string()
                                    class:selected=is_selected
                                    on:mousedown=|ev| ev.prevent_default()
                                    on:click=move |_| open(target.clone())>
                                    <HitView hit query />
                                </li>
                            }
                        }).collect_view()
                    }}
                </ul>
                <Show when=move || search.with(|s| s.has_more)>
                    <button type="button" class="search-more" data-testid="search-more"
                        on:click=more>"More results"</button>
                </Show>
            </Show>
        </div>
    }
}
