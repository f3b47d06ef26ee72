//! What the approval tests share: a fake gateway with two threads, the
//! request they ask, and reading a card back.

use serde_json::{json, Value};

use super::fake_gateway::{channel, FakeGateway, FakeOpts};
use super::ui::fake_page;
use super::{secs, Browser, Page};

pub const ALL_CHOICES: [&str; 4] = ["once", "session", "always", "deny"];
pub const TITLE: &str = "Run a shell command?";
pub const COMMAND: &str = "rm -rf build/";
pub const DESCRIPTION: &str = "recursive delete";

/// A fake gateway with threads c1 "Deploy" and c2 "Other", both empty.
pub async fn threads() -> FakeGateway {
    let fake = FakeGateway::start(FakeOpts::default()).await;
    fake.add_channel(channel("c1", "Deploy", 0));
    fake.add_channel(channel("c2", "Other", 0));
    fake
}

/// [`threads`], and the app open on thread c1.
pub async fn open_c1() -> (FakeGateway, Page) {
    let fake = threads().await;
    let page = fake_page(&fake, "#/t/c1").await;
    (fake, page)
}

/// An `approval.request` in `channel` offering `choices`.
pub fn request(channel: &str, id: &str, choices: &[&str]) -> Value {
    json!({"channel_id": channel, "turn_id": format!("turn_{channel}"), "request_id": id,
        "title": TITLE, "command": COMMAND, "description": DESCRIPTION,
        "choices": choices, "ts": now_ms()})
}

/// The agent starts a turn in the request's thread and asks.
pub fn ask(fake: &FakeGateway, request: Value) {
    fake.push(json!({"type": "typing", "channel_id": request["channel_id"], "on": true}));
    fake.request_approval(request);
}

pub fn card(id: &str) -> String {
    format!("[data-testid=approval][data-request='{id}']")
}

/// Waits until the card of request `id` is in `state` (`pending`,
/// `answering`, `resolved`, `unanswered`).
pub async fn wait_state(b: &Browser, id: &str, state: &str) {
    let css = format!("{}[data-state={state}]", card(id));
    b.wait_for(&css, secs(15)).await;
}

/// The card's one-line outcome ("Allowed once", "Denied on another device", …).
pub async fn outcome(b: &Browser, id: &str) -> String {
    b.text_of(&format!("{} [data-testid=approval-outcome]", card(id)))
        .await
}

/// The `approval.respond` frames the app sent for request `id`.
pub fn responds(fake: &FakeGateway, id: &str) -> Vec<Value> {
    fake.received_of("approval.respond")
        .into_iter()
        .filter(|f| f["request_id"] == id)
        .collect()
}

/// Waits until the page title is `want`.
pub async fn wait_title(b: &Browser, want: &str) {
    let what = format!("the page title to be {want:?}");
    b.poll(&what, secs(10), || async {
        (b.js("return document.title;", vec![]).await == want).then_some(())
    })
    .await;
}

/// Clicks a button by script, twice in the same task: a double click that
/// no re-render can come between.
pub async fn double_click(b: &Browser, css: &str) {
    b.wait_for(css, secs(10)).await;
    b.js(
        "const e = document.querySelector(arguments[0]); e.click(); e.click();",
        vec![json!(css)],
    )
    .await;
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
