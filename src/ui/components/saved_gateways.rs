//! What this device keeps per gateway, listed by address with a way to
//! forget each: the tokens (each sent only to its gateway) and the gateways
//! a link may open without asking.

use leptos::prelude::*;

/// One list. `what` names it in test ids (`{what}-list`, `{what}-entry`,
/// `forget-{what}`) and in each Forget button's label ("Forget the
/// {what} for …").
#[component]
pub fn SavedGateways(
    what: &'static str,
    /// Shown when the list is empty.
    empty: &'static str,
    #[prop(into)] gateways: Signal<Vec<String>>,
    #[prop(into)] forget: Callback<String>,
) -> impl IntoView {
    view! {
        <Show when=move || !gateways.with(Vec::is_empty) fallback=move || view! { <p class="saved-none">{empty}</p> }>
            <ul class="saved-gateways" data-testid=format!("{what}-list")>
                <For each=move || gateways.get() key=|g| g.clone() children=move |gateway| {
                    let label = format!("Forget the {what} for {gateway}");
                    let (key, shown) = (gateway.clone(), gateway.clone());
                    view! {
                        <li class="saved-entry" data-testid=format!("{what}-entry") data-gateway=gateway>
                            <code class="saved-gateway">{shown}</code>
                            <button type="button" class="link-button" data-testid=format!("forget-{what}")
                                aria-label=label on:click=move |_| forget.run(key.clone())>"Forget"</button>
                        </li>
                    }
                } />
            </ul>
        </Show>
    }
}
