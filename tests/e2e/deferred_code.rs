//! The app's wasm in two parts (scripts/split-wasm): the first load starts
//! the app and runs a turn alone; the deferred part, fetched once the app
//! has started, links itself, and if that fetch failed, the first call into
//! it loads it (boot.js).

use serde_json::{json, Value};

use crate::support::page::page_origin;
use crate::support::search::wait_marked;
use crate::support::ui::{
    answer_link_prompt, connected, hash, open_settings, reload, send, wait_answers, GATEWAY_PROMPT,
};
use crate::support::{secs, App, Browser, GatewayOpts};

/// The deferred part's file (`aria-web-deferred-<hash>.wasm`), for CDP.
const DEFERRED: &str = "*aria-web-deferred-*";

/// boot.js's account of the deferred part: `state` ("waiting", "linked",
/// "failed"), `placeholderCalls`, `syncLoads`.
async fn status(b: &Browser) -> Value {
    b.js("return window.__ariaDeferred.status();", vec![]).await
}

/// Opens the app at `url` with the deferred part's file blocked.
async fn open_blocked(app: &App, url: &str) {
    let b = &app.browser;
    b.cdp("Network.enable", json!({})).await;
    b.cdp("Network.setBlockedURLs", json!({ "urls": [DEFERRED] }))
        .await;
    b.goto(url).await;
}

/// Fails unless `what` ran with no call into the (blocked) deferred part.
async fn assert_first_load_alone(b: &Browser, what: &str) {
    wait_state(b, "failed").await;
    let s = status(b).await;
    if s["state"] != "failed" || s["placeholderCalls"] != 0 {
        b.fail(&format!(
            "{what} called into the deferred part: {s}. \
             The first load's list is out of date: run scripts/split-profile"
        ))
        .await;
    }
}

async fn wait_state(b: &Browser, state: &str) {
    b.poll(&format!("the deferred part {state}"), secs(15), || async {
        (status(b).await["state"] == state).then_some(())
    })
    .await;
}

#[tokio::test]
async fn the_deferred_part_is_fetched_and_linked_after_start() {
    let app = App::start().await;
    let b = &app.browser;
    connected(b).await;
    let tag = b
        .js(
            "return document.getElementById('aria-boot').dataset.deferred || null;",
            vec![],
        )
        .await;
    if !tag
        .as_str()
        .is_some_and(|url| url.contains("aria-web-deferred-"))
    {
        b.fail(&format!("index.html's boot tag names no deferred part (data-deferred = {tag}): is dist/ a split release build?"))
            .await;
    }
    wait_state(b, "linked").await;
    // Its code runs: the settings panel is in the deferred part.
    open_settings(b).await;
    let s = status(b).await;
    if s["syncLoads"] != 0 {
        b.fail(&format!(
            "the deferred part was loaded by a call before its own fetch linked it: {s}"
        ))
        .await;
    }
    app.finish().await;
}

#[tokio::test]
async fn the_first_load_alone_runs_a_turn_and_a_call_loads_the_rest() {
    let app = App::unopened(GatewayOpts::default()).await;
    let b = &app.browser;
    open_blocked(&app, &app.gateway.app_url()).await;
    connected(b).await;
    wait_state(b, "failed").await;

    // Start-up and a turn with tools, commentary and a markdown answer run
    // on the first load alone: no call reached the deferred part.
    send(b, "/demo tools").await;
    wait_answers(b, 1).await;
    let cards = b.count(".tool-card").await;
    if cards == 0 {
        b.fail("the turn showed no tool cards").await;
    }
    assert_first_load_alone(b, "start-up and a turn with tools").await;

    // The first call into it (the settings panel) loads it there and then.
    b.cdp("Network.setBlockedURLs", json!({ "urls": [] })).await;
    open_settings(b).await;
    let s = status(b).await;
    if s["state"] != "linked" || s["syncLoads"] != 1 {
        b.fail(&format!(
            "opening the settings did not load the deferred part once: {s}"
        ))
        .await;
    }
    b.wait_for(
        "[data-testid=settings] select, [data-testid=settings] input",
        secs(5),
    )
    .await;
    app.close().await;
}

/// The way shared links and other gateways' users open the app: a link to
/// a message through a gateway at another address than the page's, asked
/// about and remembered, then opened again with the stored settings. Both
/// start on the first load alone.
#[tokio::test]
async fn a_link_to_a_message_through_another_address_starts_on_the_first_load_alone() {
    let app = App::start().await;
    let b = &app.browser;
    connected(b).await;
    send(b, "hello").await;
    wait_answers(b, 1).await;
    let thread = hash(b).await;
    let seq = b
        .js(
            "return Number(document.querySelector('[data-testid=timeline] .row[data-seq]').dataset.seq);",
            vec![],
        )
        .await
        .as_u64()
        .unwrap_or(0);
    let link = format!(
        "{}/?gateway={}{thread}/{seq}",
        page_origin(),
        app.gateway.ws_url()
    );

    open_blocked(&app, &link).await;
    // The prompt, or the call into the deferred part that stopped it.
    b.poll("the link's prompt", secs(20), || async {
        let called = status(b).await["placeholderCalls"] != 0;
        (called || b.exists(GATEWAY_PROMPT).await).then_some(())
    })
    .await;
    assert_first_load_alone(b, "a link through another address").await;
    answer_link_prompt(b, true, None, true).await;
    wait_marked(b, seq).await;
    assert_first_load_alone(b, "a link through another address").await;

    reload(b).await;
    wait_marked(b, seq).await;
    assert_first_load_alone(b, "the link again, its gateway remembered").await;
    app.close().await;
}
