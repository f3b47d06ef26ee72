//! What the search tests share: a fake gateway with one big thread, and
//! reading which seqs the timeline shows.

use serde_json::{json, Value};

use super::fake_gateway::{channel, message_item, FakeGateway, FakeOpts};
use super::{secs, Browser};

/// A fake gateway with thread `c1` of `n` logged messages, `text(seq)` each.
pub async fn big_thread(opts: FakeOpts, n: u64, text: impl Fn(u64) -> String) -> FakeGateway {
    let fake = FakeGateway::start(opts).await;
    fake.add_channel(channel("c1", "Big thread", 0));
    for seq in 1..=n {
        let role = if seq % 2 == 1 { "user" } else { "assistant" };
        fake.log_item("c1", message_item(seq, role, &text(seq), None));
    }
    fake
}

/// The text of item `seq` in [`big_thread`]s by default.
pub fn numbered(seq: u64) -> String {
    format!("item number {seq}")
}

/// The seqs of the mounted rows, in DOM order.
pub async fn shown_seqs(b: &Browser) -> Vec<u64> {
    let v = b
        .js(
            "return Array.from(document.querySelectorAll('[data-testid=timeline] .row[data-seq]')).map(r => Number(r.dataset.seq));",
            vec![],
        )
        .await;
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// The rows the reader can see (inside the timeline's box).
pub async fn visible_seqs(b: &Browser) -> Vec<u64> {
    let v = b
        .js(
            "const t = document.querySelector('[data-testid=timeline]').getBoundingClientRect();
             return Array.from(document.querySelectorAll('[data-testid=timeline] .row[data-seq]'))
               .filter(r => { const b = r.getBoundingClientRect(); return b.height > 0 && b.bottom > t.top && b.top < t.bottom; })
               .map(r => Number(r.dataset.seq));",
            vec![],
        )
        .await;
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// Waits until row `seq` is on screen and marked as the one jumped to.
pub async fn wait_marked(b: &Browser, seq: u64) {
    let css = format!("[data-testid=timeline] .row[data-seq=\"{seq}\"][aria-current=true]");
    b.wait_for(&css, secs(20)).await;
    b.poll("the marked row to be on screen", secs(10), || async {
        visible_seqs(b).await.contains(&seq).then_some(())
    })
    .await;
}

/// The `history.get` frames the app sent for `c1`.
pub fn history_gets(fake: &FakeGateway) -> Vec<Value> {
    fake.received_of("history.get")
        .into_iter()
        .filter(|f| f["channel_id"] == json!("c1"))
        .collect()
}

/// Scrolls the timeline by `dy` pixels.
pub async fn scroll_by(b: &Browser, dy: f64) {
    b.js(
        "document.querySelector('[data-testid=timeline]').scrollTop += arguments[0];",
        vec![json!(dy)],
    )
    .await;
}

/// The timeline's scroll state: (top, visible height, total height).
pub async fn scroll_state(b: &Browser) -> (f64, f64, f64) {
    let v = b
        .js(
            "const t = document.querySelector('[data-testid=timeline]'); return [t.scrollTop, t.clientHeight, t.scrollHeight];",
            vec![],
        )
        .await;
    let n = |i: usize| v[i].as_f64().unwrap_or(0.0);
    (n(0), n(1), n(2))
}
