//! Tokens in Settings: a version 1 global token is bound to the gateway it
//! was used with; each saved token is listed with its gateway; Forget
//! removes it from this device.

use serde_json::json;

use crate::support::connection::wait_status;
use crate::support::tokens::*;
use crate::support::ui::*;
use crate::support::{run, secs};

#[test]
fn a_v1_token_migrates_and_settings_list_and_forget_tokens_by_gateway() {
    run(|| async {
        let app = app_with_token().await;
        let b = &app.browser;
        let a_key = format!("ws://127.0.0.1:{}/ws", app.gateway.addr().port());

        // What version 1 saved: one global token, no address (this site's /ws).
        b.js(
            "localStorage.setItem('aria.settings', JSON.stringify({version: 1, token: arguments[0], theme: 'dark'}));",
            vec![json!(TOKEN_A)],
        )
        .await;
        reload_connected(b).await;

        open_settings(b).await;
        let label = b.text_of("[data-testid=token-label]").await;
        if label != format!("Token for {a_key}") {
            b.fail(&format!("the token field is labelled {label:?}"))
                .await;
        }
        let listed = b
            .js(
                "return Array.from(document.querySelectorAll('[data-testid=token-entry]'), e =>
                   [e.dataset.gateway, e.querySelector('.saved-gateway').textContent,
                    e.querySelector('[data-testid=forget-token]').getAttribute('aria-label')]);",
                vec![],
            )
            .await;
        let want = json!([[a_key, a_key, format!("Forget the token for {a_key}")]]);
        if listed != want {
            b.fail(&format!("the token list shows {listed}, expected {want}"))
                .await;
        }
        // Saved in the newest form: per gateway, no global token, the rest kept.
        let s = stored_settings(b).await;
        if s["tokens"] != json!({ a_key.clone(): TOKEN_A })
            || s.get("token").is_some()
            || s["theme"] != "dark"
            || s["version"] != aria_web::settings::SETTINGS_VERSION
        {
            b.fail(&format!("after the migration localStorage holds {s}"))
                .await;
        }

        // Forget: gone from localStorage and from the list, and A refuses
        // the now tokenless app.
        b.click("[data-testid=forget-token]").await;
        b.wait_gone("[data-testid=token-entry]", secs(5)).await;
        if stored_tokens(b).await != json!({}) {
            b.fail(&format!("after Forget: {}", stored_settings(b).await))
                .await;
        }
        close_settings(b).await;
        wait_status(b, "unauthorized", secs(20)).await;
        app.finish().await;
    })
}
