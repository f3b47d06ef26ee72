//! A long streamed answer: its completed blocks go into chunks of 16 and
//! the chunks into groups of 16 (core/src/render/block_tree.rs), appended a
//! few at a time while it streams; what the reader gets must be what one
//! render of the whole text gives, as after a reload.

use serde_json::Value;

use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// The last answer's tree of groups, chunks and blocks, its rendered HTML
/// without those wrappers, and whether it is still streaming.
const SHAPE: &str = r#"
const all = document.querySelectorAll('.msg-assistant');
const a = all[all.length - 1];
if (!a) return null;
const stable = a.querySelector('.md-stable');
const groups = Array.from(stable.children).map(g => ({
  cls: g.className,
  chunks: Array.from(g.children).map(c => ({
    cls: c.className,
    blocks: Array.from(c.children).filter(b => b.className === 'md-block').length,
    others: Array.from(c.children).filter(b => b.className !== 'md-block').length,
  })),
}));
const blocks = Array.from(stable.querySelectorAll('.md-block')).map(b => b.innerHTML).join('');
const html = (blocks + a.querySelector('.md-tail').innerHTML)
  .replace(/ data-hl="[a-z]*"/g, '');
return { groups, html, streaming: a.getAttribute('data-streaming') === 'true' };
"#;

#[test]
fn a_long_streamed_answer_is_grouped_and_reads_as_its_whole_render() {
    run(|| async {
        let app = demo_app(2).await;
        let b = &app.browser;
        // About 30 KiB: some 480 blocks, two groups and a part of a third.
        send_new_thread(b, "/demo stream 30").await;
        // Seen while it streams: groups are filled in place, never made anew.
        let mid = b
            .poll("the answer half streamed", secs(60), || async {
                let s = b.js(SHAPE, vec![]).await;
                let groups = s["groups"].as_array().map_or(0, Vec::len);
                (s["streaming"] == true && groups >= 1).then_some(s)
            })
            .await;
        check_shape(b, &mid).await;
        wait_answers(b, 1).await;
        let streamed = b.js(SHAPE, vec![]).await;
        check_shape(b, &streamed).await;
        if streamed["groups"].as_array().map_or(0, Vec::len) < 2 {
            b.fail(&format!(
                "a 30 KiB answer should fill more than one group: {}",
                streamed["groups"]
            ))
            .await;
        }
        // The same thread opened afresh renders the whole text at once.
        reload_connected(b).await;
        b.wait_for(".msg-assistant .md-group", secs(20)).await;
        let whole = b
            .poll("the reloaded answer rendered", secs(20), || async {
                let s = b.js(SHAPE, vec![]).await;
                (s["html"] == streamed["html"]).then_some(s)
            })
            .await;
        if whole["groups"] != streamed["groups"] {
            b.fail(&format!(
                "streamed and reloaded answers are grouped differently:\n{}\n{}",
                streamed["groups"], whole["groups"]
            ))
            .await;
        }
        app.finish().await;
    })
}

/// Every group but the last holds 16 full chunks, every chunk but the very
/// last holds 16 blocks, and nothing else is in them.
async fn check_shape(b: &Browser, shape: &Value) {
    let empty = Vec::new();
    let groups = shape["groups"].as_array().unwrap_or(&empty);
    let n = groups.len();
    for (i, g) in groups.iter().enumerate() {
        let chunks = g["chunks"].as_array().unwrap_or(&empty);
        let last_group = i + 1 == n;
        let ok_group = g["cls"] == "md-group"
            && !chunks.is_empty()
            && (chunks.len() == 16 || (last_group && chunks.len() < 16));
        let ok_chunks = chunks.iter().enumerate().all(|(j, c)| {
            let last_chunk = last_group && j + 1 == chunks.len();
            let blocks = c["blocks"].as_u64().unwrap_or(0);
            c["cls"] == "md-chunk"
                && c["others"] == 0
                && (blocks == 16 || (last_chunk && (1..16).contains(&blocks)))
        });
        if !ok_group || !ok_chunks {
            b.fail(&format!(
                "group {i} of {n} is not a full group of full chunks: {g}"
            ))
            .await;
        }
    }
}
