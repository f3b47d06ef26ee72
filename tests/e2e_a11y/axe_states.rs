//! axe-core over every state of the app a user meets, each in the light
//! and the dark theme (`assert_no_axe_violations` runs both).

use fantoccini::key::Key;
use serde_json::json;

use crate::support::axe::assert_no_axe_violations;
use crate::support::ui::*;
use crate::support::{run, secs, App, Browser, GatewayOpts};

/// Focuses the thread link of `channel` and opens its menu with Shift+F10.
pub async fn open_thread_menu_by_key(b: &Browser, channel: &str) {
    b.js(
        "document.querySelector(`.thread-item[data-channel-id='${arguments[0]}'] a`).focus();",
        vec![json!(channel)],
    )
    .await;
    press(b, &[Key::Shift.into(), Key::F10.into()]).await;
    b.wait_for("[data-testid=thread-menu]", secs(5)).await;
}

/// Presses the keys of `chord` together (held down in order, released in
/// reverse), as WebDriver key actions on whatever has the focus.
pub async fn press(b: &Browser, chord: &[char]) {
    use fantoccini::actions::{InputSource, KeyAction, KeyActions};
    let mut keys = KeyActions::new("keyboard".into());
    for &k in chord {
        keys = keys.then(KeyAction::Down { value: k });
    }
    for &k in chord.iter().rev() {
        keys = keys.then(KeyAction::Up { value: k });
    }
    if let Err(e) = b.client().perform_actions(keys).await {
        b.fail(&format!("key actions failed: {e}")).await;
    }
}

#[test]
fn desktop_states_have_no_axe_violations() {
    run(|| async {
        let app = demo_app(20).await;
        let b = &app.browser;
        assert_no_axe_violations(b, "empty app").await;

        // Reasoning, tool cards (one failed), commentary, then a markdown
        // answer with a code block and a table; one tool card opened.
        let id = new_thread_answered(b, "/demo all").await;
        b.js(
            "document.querySelector('[data-testid=timeline]').scrollTop = 0;",
            vec![],
        )
        .await;
        b.wait_for(".reasoning", secs(5)).await;
        b.wait_for(".msg-commentary", secs(5)).await;
        b.wait_for(".tool-card[data-state=failed]", secs(5)).await;
        b.click(".tool-card .tool-line").await;
        b.wait_for(".tool-detail", secs(5)).await;
        assert_no_axe_violations(b, "finished /demo all turn, top").await;
        scroll_to_end(b).await;
        b.wait_for(".markdown table", secs(5)).await;
        assert_no_axe_violations(b, "finished /demo all turn, end").await;
        // The default answer has a code block.
        send(b, "and some code?").await;
        wait_answers(b, 2).await;
        b.wait_for(".markdown pre", secs(5)).await;
        assert_no_axe_violations(b, "an answer with code and a table").await;

        open_thread_menu_by_key(b, &id).await;
        assert_no_axe_violations(b, "thread menu open").await;
        press(b, &[Key::Escape.into()]).await;
        b.wait_gone("[data-testid=thread-menu]", secs(5)).await;

        open_settings(b).await;
        assert_no_axe_violations(b, "settings open").await;
        close_settings(b).await;

        new_thread_pane(b).await;
        send_new_thread(b, "/demo approval").await;
        b.wait_for(
            "[data-testid=approval][data-state=pending] button[data-choice]",
            secs(20),
        )
        .await;
        assert_no_axe_violations(b, "approval pending").await;

        // A link naming another gateway: the confirm dialog.
        let url = format!("{}?gateway=ws://127.0.0.1:9/ws", app.gateway.app_url());
        b.goto(&url).await;
        b.wait_for(GATEWAY_PROMPT, secs(20)).await;
        assert_no_axe_violations(b, "gateway confirm dialog").await;
        app.finish().await;
    });
}

#[test]
fn streaming_long_thread_and_mobile_drawer_have_no_axe_violations() {
    run(|| async {
        let app = App::start_with(GatewayOpts {
            // Slow: the answer is still streaming when axe runs.
            demo_delay_ms: 250,
            extra_args: vec!["--seed-channel".into(), "400".into()],
            ..GatewayOpts::default()
        })
        .await;
        let b = &app.browser;
        connected(b).await;

        // The seeded thread, scrolled up from its end into older pages.
        b.goto(&format!("{}#/t/c_seed", app.gateway.app_url()))
            .await;
        connected(b).await;
        b.wait_for(".row[data-seq=\"400\"]", secs(20)).await;
        b.js(
            "const t = document.querySelector('[data-testid=timeline]'); t.scrollTop = t.scrollHeight / 3;",
            vec![],
        )
        .await;
        b.wait_for("[data-testid=new-messages], .row", secs(5))
            .await;
        assert_no_axe_violations(b, "long thread scrolled").await;

        new_thread_pane(b).await;
        send_new_thread(b, "/demo long").await;
        b.wait_for(".msg-assistant[data-streaming=true] .markdown p", secs(30))
            .await;
        assert_no_axe_violations(b, "streaming answer").await;
        if !b.exists(".msg-assistant[data-streaming=true]").await {
            b.fail("the answer finished before axe ran: the streaming state went unchecked")
                .await;
        }

        // A phone: the thread list is a drawer over the chat.
        b.cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": true}),
        )
        .await;
        open_drawer(b).await;
        assert_no_axe_violations(b, "mobile 390x844, drawer open").await;
        app.finish().await;
    });
}
