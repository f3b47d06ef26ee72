//! The tokens saved on this device, each with the gateway it belongs to
//! (the only one it is ever sent to), and a way to forget it.

use leptos::prelude::*;

use super::runtime::Runtime;

#[component]
pub fn TokenList() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let gateways = move || {
        rt.settings
            .with(|s| s.tokens.keys().cloned().collect::<Vec<_>>())
    };
    let forget = move |gateway: &str| {
        let mut next = rt.settings.get_untracked();
        next.tokens.remove(gateway);
        rt.save_settings(next);
    };
    view! {
        <Show when=move || !gateways().is_empty() fallback=|| view! { <p class="token-none">"No token saved."</p> }>
            <ul class="token-list" data-testid="token-list" aria-label="Saved tokens">
                <For each=gateways key=|g| g.clone() children=move |gateway| {
                    let label = format!("Forget the token for {gateway}");
                    let (key, shown) = (gateway.clone(), gateway.clone());
                    view! {
                        <li class="token-entry" data-testid="token-entry" data-gateway=gateway>
                            <code class="token-gateway">{shown}</code>
                            <button type="button" class="link-button" data-testid="forget-token"
                                aria-label=label on:click=move |_| forget(&key)>"Forget"</button>
                        </li>
                    }
                } />
            </ul>
        </Show>
    }
}
