//! Settings: every display preference applies at once and is saved on this
//! device; the gateway address and token reconnect when changed. A token
//! is saved for the gateway in use and listed with it.

use leptos::prelude::*;

use crate::settings::{LabelMode, ProgressDetail, Settings, StreamingMode, Theme, ToolDetail};
use crate::ui::browser;
use crate::ui::browser::notifications;
use crate::ui::components::offline_settings::OfflineSettings;
use crate::ui::components::saved_gateways::SavedGateways;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn SettingsPanel(open: RwSignal<bool>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let change = move |f: &dyn Fn(&mut Settings)| {
        let mut next = rt.settings.get_untracked();
        f(&mut next);
        rt.save_settings(next);
    };
    let close = move || open.set(false);
    // Escape closes it wherever the focus is: Tab past the dialog's last
    // control leaves the focus on the page itself (the rest is inert).
    let escape = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" {
            close();
        }
    });
    on_cleanup(move || escape.remove());
    // The focus moves in (to the close button) and, when the dialog goes,
    // back to what opened it (the page behind is inert meanwhile).
    let back = browser::focused();
    let first = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(b) = first.get() {
            let _ = b.focus();
        }
    });
    on_cleanup(move || browser::refocus(back));
    let s = move || rt.settings.get();
    let diag = move || rt.view.diagnostics.get();
    let gateway = move || rt.gateway.get();
    let token_label = move || match gateway() {
        Some(g) => format!("Token for {g}"),
        None => "Token (no gateway chosen yet)".to_string(),
    };

    view! {
        <div class="modal-scrim" on:click=move |_| close()></div>
        <div class="settings" data-testid="settings" role="dialog" aria-modal="true" aria-labelledby="settings-title">
            <header class="settings-head">
                <h2 id="settings-title">"Settings"</h2>
                <button type="button" class="icon-button" aria-label="Close settings" data-testid="close-settings" node_ref=first on:click=move |_| close()>"×"</button>
            </header>

            <fieldset>
                <legend>"Gateway"</legend>
                <label>"Address (empty: this site's /ws)"
                    <input type="url" name="gateway_url" placeholder="ws://127.0.0.1:8080/ws" prop:value=move || s().gateway_url
                        on:change=move |ev| { let v = event_target_value(&ev); change(&|s| s.gateway_url = v.trim().to_string()) } />
                </label>
                <label><span data-testid="token-label">{token_label}</span>
                    <input type="password" name="token" autocomplete="off" disabled=move || gateway().is_none()
                        prop:value=move || gateway().and_then(|g| s().token_for(&g).map(str::to_string)).unwrap_or_default()
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Some(g) = gateway() { change(&|s| s.set_token(&g, &v)) }
                        } />
                </label>
                <p class="saved-title">"Tokens on this device, each sent only to its gateway"</p>
                <SavedGateways what="token" empty="No token saved."
                    gateways=Signal::derive(move || s().tokens.keys().cloned().collect())
                    forget=move |g: String| change(&|s| { s.tokens.remove(&g); }) />
                <p class="saved-title">"Gateways links may open without asking"</p>
                <SavedGateways what="remembered" empty="None."
                    gateways=Signal::derive(move || s().trusted_gateways)
                    forget=move |g: String| change(&|s| s.trusted_gateways.retain(|t| *t != g)) />
            </fieldset>

            <fieldset>
                <legend>"Display"</legend>
                <label>"Theme"
                    <select name="theme" on:change=move |ev| {
                        let t = match event_target_value(&ev).as_str() { "light" => Theme::Light, "dark" => Theme::Dark, _ => Theme::System };
                        change(&|s| s.theme = t)
                    }>
                        <option value="system" selected=move || s().theme == Theme::System>"Follow the system"</option>
                        <option value="light" selected=move || s().theme == Theme::Light>"Light"</option>
                        <option value="dark" selected=move || s().theme == Theme::Dark>"Dark"</option>
                    </select>
                </label>
                <label>"Streaming"
                    <select name="streaming" on:change=move |ev| {
                        let m = match event_target_value(&ev).as_str() {
                            "off" => StreamingMode::Off, "block" => StreamingMode::Block,
                            "progress" => StreamingMode::Progress, _ => StreamingMode::Partial };
                        change(&|s| s.streaming = m)
                    }>
                        <option value="off" selected=move || s().streaming == StreamingMode::Off>"Off: final answer only"</option>
                        <option value="partial" selected=move || s().streaming == StreamingMode::Partial>"Partial: live text"</option>
                        <option value="block" selected=move || s().streaming == StreamingMode::Block>"Block: whole paragraphs"</option>
                        <option value="progress" selected=move || s().streaming == StreamingMode::Progress>"Progress: one status draft"</option>
                    </select>
                </label>
                <label>"Tool detail"
                    <select name="tool_detail" on:change=move |ev| {
                        let d = match event_target_value(&ev).as_str() {
                            "everything" => ToolDetail::Everything, "nothing" => ToolDetail::Nothing, _ => ToolDetail::Truncated };
                        change(&|s| s.tool_detail = d)
                    }>
                        <option value="everything" selected=move || s().tool_detail == ToolDetail::Everything>"Everything"</option>
                        <option value="truncated" selected=move || s().tool_detail == ToolDetail::Truncated>"Truncated"</option>
                        <option value="nothing" selected=move || s().tool_detail == ToolDetail::Nothing>"Nothing"</option>
                    </select>
                </label>
                <label class="check">
                    <input type="checkbox" name="reasoning_auto_collapse" prop:checked=move || s().reasoning_auto_collapse
                        on:change=move |ev| { let v = event_target_checked(&ev); change(&|s| s.reasoning_auto_collapse = v) } />
                    "Reasoning: auto-collapse long blocks"
                </label>
                <label class="check">
                    <input type="checkbox" name="math" prop:checked=move || s().math
                        on:change=move |ev| { let v = event_target_checked(&ev); change(&|s| s.math = v) } />
                    "Math: render formulas"
                </label>
                <label class="check">
                    <input type="checkbox" name="math_single_dollar" prop:checked=move || s().math_single_dollar
                        prop:disabled=move || !s().math
                        on:change=move |ev| { let v = event_target_checked(&ev); change(&|s| s.math_single_dollar = v) } />
                    "Single $ delimiters ($x$; prices stay text)"
                </label>
            </fieldset>

            <fieldset>
                <legend>"Progress drafts"</legend>
                <label>"Label"
                    <select name="progress_label" on:change=move |ev| {
                        let l = match event_target_value(&ev).as_str() { "fixed" => LabelMode::Fixed, "hidden" => LabelMode::Hidden, _ => LabelMode::Auto };
                        change(&|s| s.progress.label = l)
                    }>
                        <option value="auto" selected=move || s().progress.label == LabelMode::Auto>"Automatic word"</option>
                        <option value="fixed" selected=move || s().progress.label == LabelMode::Fixed>"Fixed text"</option>
                        <option value="hidden" selected=move || s().progress.label == LabelMode::Hidden>"Hidden"</option>
                    </select>
                </label>
                <label>"Fixed label text"
                    <input type="text" name="progress_label_text" maxlength="40" prop:value=move || s().progress.label_text
                        on:change=move |ev| { let v = event_target_value(&ev); change(&|s| s.progress.label_text = v.clone()) } />
                </label>
                <label>"Detail"
                    <select name="progress_detail" on:change=move |ev| {
                        let d = if event_target_value(&ev) == "raw" { ProgressDetail::Raw } else { ProgressDetail::Explain };
                        change(&|s| s.progress.detail = d)
                    }>
                        <option value="explain" selected=move || s().progress.detail == ProgressDetail::Explain>"Explain"</option>
                        <option value="raw" selected=move || s().progress.detail == ProgressDetail::Raw>"Raw (with commands)"</option>
                    </select>
                </label>
                <label>"Lines shown"
                    <input type="number" name="progress_max_lines" min="1" max="20" prop:value=move || s().progress.max_lines.to_string()
                        on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<u32>() { change(&|s| s.progress.max_lines = n.clamp(1, 20)) } } />
                </label>
                <label>"Characters per line"
                    <input type="number" name="progress_max_line_chars" min="20" max="400" prop:value=move || s().progress.max_line_chars.to_string()
                        on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<u32>() { change(&|s| s.progress.max_line_chars = n.clamp(20, 400)) } } />
                </label>
                <label class="check">
                    <input type="checkbox" name="progress_tool_lines" prop:checked=move || s().progress.tool_lines
                        on:change=move |ev| { let v = event_target_checked(&ev); change(&|s| s.progress.tool_lines = v) } />
                    "Show tool lines (off: label only)"
                </label>
            </fieldset>

            <fieldset>
                <legend>"Notifications"</legend>
                <label class="check">
                    <input type="checkbox" name="notifications" prop:checked=move || s().notifications
                        on:change=move |ev| {
                            let v = event_target_checked(&ev);
                            if v { notifications::ask_permission(); }
                            change(&|s| s.notifications = v)
                        } />
                    "Notify me when a thread needs me or an answer is ready while this tab is hidden"
                </label>
            </fieldset>

            <OfflineSettings />

            <fieldset class="diagnostics" data-testid="diagnostics">
                <legend>"Diagnostics"</legend>
                <dl>
                    <dt>"Frames received"</dt><dd data-testid="diag-frames">{move || diag().frames}</dd>
                    <dt>"Frames dropped"</dt><dd data-testid="diag-dropped">{move || diag().dropped}</dd>
                    <dt>"Last dropped"</dt><dd>{move || diag().last_dropped.unwrap_or_else(|| "—".into())}</dd>
                    <dt>"Messages waiting to send"</dt><dd>{move || rt.view.pending_sends_len.get()}</dd>
                </dl>
                <button type="button" class="link-button" on:click=move |_| rt.drop_connection()>"Drop the connection (test reconnect)"</button>
            </fieldset>
        </div>
    }
}
