//! The app's wasm in two parts (scripts/split-wasm): the first load starts
//! the app and shows a thread's history alone; the deferred part, fetched
//! once the app has started, links itself, and if that fetch failed, the
//! first call into it (a turn, the settings) loads it (boot.js).

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
    // A new page even where `url` differs from the current one by its hash.
    b.goto("about:blank").await;
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

/// A thread with history of the common kinds: a markdown answer, tools
/// with commentary, reasoning. Returns its hash and the `seq` of its
/// first row.
async fn thread_with_history(app: &App) -> (String, u64) {
    let b = &app.browser;
    connected(b).await;
    for (i, text) in ["hello", "/demo tools", "/demo reasoning"]
        .iter()
        .enumerate()
    {
        send(b, text).await;
        wait_answers(b, i + 1).await;
    }
    let thread = hash(b).await;
    let seq = b
        .js(
            "return Number(document.querySelector('[data-testid=timeline] .row[data-seq]').dataset.seq);",
            vec![],
        )
        .await
        .as_u64()
        .unwrap_or(0);
    (thread, seq)
}

#[tokio::test]
async fn a_link_to_a_message_shows_its_history_on_the_first_load_alone() {
    let app = App::start().await;
    let b = &app.browser;
    let (thread, seq) = thread_with_history(&app).await;

    // A link to a message (`#/t/<id>/<seq>`) opened anew, then reloaded:
    // start-up, the thread list and the history with its tool cards run on
    // the first load alone.
    open_blocked(&app, &format!("{}{thread}/{seq}", app.gateway.app_url())).await;
    wait_marked(b, seq).await;
    if b.count(".tool-card").await == 0 {
        b.fail("the thread's history showed no tool cards").await;
    }
    assert_first_load_alone(b, "a link to a message").await;
    reload(b).await;
    wait_marked(b, seq).await;
    assert_first_load_alone(b, "a reload of a thread").await;

    // The first turn calls into it and loads it there and then.
    b.cdp("Network.setBlockedURLs", json!({ "urls": [] })).await;
    let answers = b.count(".msg-assistant").await;
    send(b, "/demo tools").await;
    wait_answers(b, answers + 1).await;
    let s = status(b).await;
    if s["state"] != "linked" || s["syncLoads"] != 1 {
        b.fail(&format!(
            "the first turn did not load the deferred part once: {s}"
        ))
        .await;
    }
    app.close().await;
}

#[tokio::test]
async fn a_first_visit_starts_on_the_first_load_alone() {
    let app = App::unopened(GatewayOpts::default()).await;
    let b = &app.browser;
    open_blocked(&app, &app.gateway.app_url()).await;
    connected(b).await;
    b.wait_for("#composer-input:not([disabled])", secs(10))
        .await;
    assert_first_load_alone(b, "a first visit").await;

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

/// A link through a gateway at another address than the page's, asked
/// about (in the deferred part), works while that part is still on its
/// way: the prompt's call loads it.
#[tokio::test]
async fn a_link_through_another_address_loads_the_deferred_part_when_asked() {
    let app = App::start().await;
    let b = &app.browser;
    let (thread, seq) = thread_with_history(&app).await;
    let link = format!(
        "{}/?gateway={}{thread}/{seq}",
        page_origin(),
        app.gateway.ws_url()
    );
    b.cdp("Network.enable", json!({})).await;
    // Slow enough that the app starts first: the prompt is asked for
    // before the deferred part has linked itself.
    b.cdp(
        "Network.emulateNetworkConditions",
        json!({ "offline": false, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1 }),
    )
    .await;
    b.goto(&link).await;
    b.wait_for(GATEWAY_PROMPT, secs(30)).await;
    let s = status(b).await;
    if s["syncLoads"] != 1 {
        b.fail(&format!(
            "the prompt did not load the deferred part itself: {s}"
        ))
        .await;
    }
    b.cdp(
        "Network.emulateNetworkConditions",
        json!({ "offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1 }),
    )
    .await;
    answer_link_prompt(b, true, None, true).await;
    wait_marked(b, seq).await;
    reload(b).await;
    wait_marked(b, seq).await;
    app.close().await;
}
