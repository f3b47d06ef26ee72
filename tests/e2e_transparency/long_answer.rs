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

/// Records, in every animation frame, how many completed blocks the last
/// answer gained since the frame before, and whether it read as streaming.
const WATCH_GROWTH: &str = r#"
window.__growth = [];
let before = 0;
const tick = () => {
  const all = document.querySelectorAll('.msg-assistant');
  const a = all[all.length - 1];
  const stable = a && a.querySelector('.md-stable');
  if (stable) {
    const now = stable.getElementsByClassName('md-block').length;
    window.__growth.push([now - before, a.getAttribute('data-streaming') === 'true']);
    before = now;
  }
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"#;

/// The most blocks one frame may add: the app's budget of 6 KiB of HTML
/// (`render::pacing::FRAME_BUDGET`) holds about 30 of this answer's
/// blocks (a heading, a paragraph, a list, a code block: 800 bytes); the
/// 40 snapshots of the burst hold some 550.
const MOST_PER_FRAME: u64 = 60;

/// A burst of snapshots (the page busy for a moment while a fast answer
/// streams) reaches the page over several frames, a bounded share in each;
/// the answer reads as streaming until all of it is there, and then as one
/// render of its whole text. A frame that only shows blocks that waited
/// does not send the same text to the markdown module again.
#[test]
fn a_burst_of_blocks_reaches_the_page_over_frames_and_ends_whole() {
    run(|| async {
        // 100 KiB in 1 KiB snapshots 10 ms apart: about a second.
        let app = demo_app(10).await;
        let b = &app.browser;
        record_renderers(b).await;
        reload_connected(b).await;
        b.js(WATCH_GROWTH, vec![]).await;
        send_new_thread(b, "/demo stream 100").await;
        b.wait_for(".msg-assistant[data-streaming=true] .md-block", secs(30))
            .await;
        // Busy for 400 ms while it streams: some 40 snapshots wait, then
        // come at once.
        let still = b
            .js(
                "const t = performance.now(); while (performance.now() - t < 400) {} \
                 return !!document.querySelector('.msg-assistant[data-streaming=true]');",
                vec![],
            )
            .await;
        if still != true {
            b.fail("the answer had finished before the page was busy: no burst")
                .await;
        }
        wait_answers(b, 1).await;
        let streamed = b.js(SHAPE, vec![]).await;
        let growth = b.js("return window.__growth;", vec![]).await;
        let frames: Vec<(u64, bool)> = growth
            .as_array()
            .map(|f| {
                f.iter()
                    .map(|g| (g[0].as_u64().unwrap_or(u64::MAX), g[1] == true))
                    .collect()
            })
            .unwrap_or_default();
        let most = frames.iter().map(|f| f.0).max().unwrap_or(0);
        if most > MOST_PER_FRAME {
            b.fail(&format!(
                "a frame added {most} blocks (at most {MOST_PER_FRAME}): {frames:?}"
            ))
            .await;
        }
        // Once it no longer reads as streaming, no block comes.
        let started = frames.iter().position(|f| f.1).unwrap_or(0);
        let ended = frames[started..]
            .iter()
            .position(|f| !f.1)
            .map(|e| started + e);
        let late: u64 = ended.map_or(0, |e| frames[e + 1..].iter().map(|f| f.0).sum());
        if ended.is_none() || late > 0 {
            b.fail(&format!(
                "blocks came after the answer stopped reading as streaming: {frames:?}"
            ))
            .await;
        }
        let renderer = b
            .js(
                "return window.__renderers.find(r => r.longest >= 90 * 1024 && !r.freed) || null;",
                vec![],
            )
            .await;
        if renderer.is_null() || renderer["unchanged"] != 0 {
            b.fail(&format!(
                "the answer's renderer was sent its text again unchanged: {renderer}"
            ))
            .await;
        }
        // The same thread opened afresh renders the same whole text.
        reload_connected(b).await;
        b.wait_for(".msg-assistant .md-group", secs(20)).await;
        b.poll(
            "the reloaded answer rendered the same",
            secs(20),
            || async {
                let s = b.js(SHAPE, vec![]).await;
                (s["html"] == streamed["html"]).then_some(())
            },
        )
        .await;
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
