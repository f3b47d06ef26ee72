//! The streaming setting — Off, Partial, Block — and the bubbles around a
//! turn: commentary, typing dots, the model/tokens footer, an unstreamed
//! answer, and rich markdown.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::support::fake_gateway::{FakeGateway, FakeOpts};
use crate::support::recorder::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// A plain message gets the demo's default answer: heading, quote,
/// paragraphs, a list, a code block and a table, in ≥ 12 snapshots.
const PLAIN: &str = "tell me how streaming looks";

/// Offsets (in non-whitespace characters of the last answer's body) where
/// a block of the final render ends: paragraph, list item, heading, code
/// block, table, quote.
const BLOCK_ENDS: &str = r#"
const all = document.querySelectorAll('.msg-assistant');
const body = all[all.length - 1].querySelector('.msg-body');
const blocks = new Set(['P','LI','PRE','H1','H2','H3','H4','H5','H6','TABLE','BLOCKQUOTE','HR','UL','OL']);
const ends = new Set([0]);
let count = 0;
const walk = node => {
  if (node.nodeType === 3) { count += node.textContent.replace(/\s+/g, '').length; return; }
  for (const c of node.childNodes) walk(c);
  if (node.nodeType === 1 && blocks.has(node.tagName)) ends.add(count);
};
walk(body);
return Array.from(ends);
"#;

/// The text of the thread's last answer.
const LAST_ANSWER: &str = "const a = document.querySelectorAll('.msg-assistant .msg-body'); \
                           return a.length ? a[a.length - 1].textContent : null;";

/// Sends [`PLAIN`] in a new thread under streaming `mode`; returns every
/// recorded state of the turn and the final answer's text.
async fn streamed_answer(b: &Browser, mode: &str) -> (Vec<Value>, String) {
    choose_setting(b, "streaming", mode).await;
    if hash_channel(b).await.is_some() {
        new_thread_pane(b).await;
    }
    start_recorder(b).await;
    new_thread_answered(b, PLAIN).await;
    let recs = records(b).await;
    let final_text = b.text_of(".msg-assistant .msg-body").await;
    (recs, final_text)
}

/// Off, Partial and Block, each in its own thread of one session.
#[test]
fn streaming_off_partial_and_block_each_show_the_answer_their_way() {
    run(|| async {
        let app = demo_app(25).await;
        let b = &app.browser;
        streaming_off(b).await;
        streaming_partial(b).await;
        streaming_block(b).await;
        app.finish().await;
    })
}

/// Off: no streaming bubble is ever visible; the answer appears whole.
async fn streaming_off(b: &Browser) {
    let (recs, final_text) = streamed_answer(b, "off").await;
    if recs.iter().any(|r| r["streamingVisible"] == true) {
        b.fail("with streaming Off a streaming bubble was visible")
            .await;
    }
    // The turn did stream (hidden): otherwise this test proves nothing.
    if !recs.iter().any(|r| r["streamingAny"] == true) {
        b.fail("the answer never streamed, so Off was not put to the test")
            .await;
    }
    // An empty body is the bubble between its mount and its markdown
    // effect (one microtask, never painted): not a partial answer.
    let shown: Vec<&str> = recs
        .iter()
        .filter_map(|r| r["answer"].as_str())
        .filter(|t| !t.trim().is_empty())
        .collect();
    let partial: Vec<&&str> = shown.iter().filter(|t| **t != final_text).collect();
    if shown.is_empty() || !partial.is_empty() {
        b.fail(&format!(
            "with streaming Off the answer must appear whole; partial texts shown:\n{}",
            show(&partial)
        ))
        .await;
    }
    if !final_text.contains("You said") {
        b.fail(&format!("unexpected final answer: {final_text:?}"))
            .await;
    }
}

/// Partial: the visible text grows while it streams.
async fn streaming_partial(b: &Browser) {
    let (recs, final_text) = streamed_answer(b, "partial").await;
    let lens: Vec<usize> = recs
        .iter()
        .filter(|r| r["answerStreaming"] == true && r["streamingVisible"] == true)
        .filter_map(|r| r["answer"].as_str())
        .map(|t| squash(t).chars().count())
        .collect();
    let distinct: BTreeSet<usize> = lens.iter().copied().collect();
    if distinct.len() < 4 {
        b.fail(&format!(
            "with streaming Partial the visible answer should grow through several states, saw lengths {lens:?}"
        ))
        .await;
    }
    // Growth: never a big step back (a rewrite of `**bold` may shrink by
    // its marks, nothing more).
    for w in lens.windows(2) {
        if w[1] + 4 < w[0] {
            b.fail(&format!("the partial answer shrank: {lens:?}"))
                .await;
        }
    }
    // Partial shows text mid-block, unlike Block (this guards the Block
    // test's check against passing trivially).
    let ends: BTreeSet<usize> =
        serde_json::from_value(b.js(BLOCK_ENDS, vec![]).await).unwrap_or_default();
    if lens.iter().all(|l| ends.contains(l)) {
        b.fail(&format!(
            "every partial state ended at a block boundary ({lens:?} ⊂ {ends:?}): cannot tell Partial from Block"
        ))
        .await;
    }
    if squash(&final_text).chars().count() <= *distinct.iter().next().unwrap_or(&0) {
        b.fail("the final answer is not longer than the first partial state")
            .await;
    }
}

/// Block: the visible text only ever ends at a block boundary of the final
/// answer (paragraph, list item, heading, code block, table).
async fn streaming_block(b: &Browser) {
    let (recs, final_text) = streamed_answer(b, "block").await;
    let ends: BTreeSet<usize> =
        serde_json::from_value(b.js(BLOCK_ENDS, vec![]).await).unwrap_or_default();
    let full = squash(&final_text);
    let states: Vec<String> = recs
        .iter()
        .filter(|r| r["answerStreaming"] == true && r["streamingVisible"] == true)
        .filter_map(|r| r["answer"].as_str())
        .map(squash)
        .collect();
    let bad: Vec<(usize, String)> = states
        .iter()
        .filter(|s| !(full.starts_with(s.as_str()) && ends.contains(&s.chars().count())))
        .map(|s| {
            (
                s.chars().count(),
                s.chars()
                    .rev()
                    .take(40)
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect(),
            )
        })
        .collect();
    if !bad.is_empty() {
        b.fail(&format!(
            "with streaming Block the visible text must end at a block boundary of the final answer \
             (block ends at {ends:?}); these states did not (length, tail):\n{}",
            show(&bad)
        ))
        .await;
    }
    let distinct: BTreeSet<usize> = states
        .iter()
        .map(|s| s.chars().count())
        .filter(|l| *l > 0)
        .collect();
    if distinct.len() < 2 {
        b.fail(&format!(
            "with streaming Block the answer should advance block by block, saw only lengths {distinct:?}"
        ))
        .await;
    }
}

#[test]
fn commentary_typing_footer_and_an_unstreamed_answer() {
    run(|| async {
        let app = demo_app(20).await;
        let b = &app.browser;
        start_recorder(b).await;
        new_thread_answered(b, "/demo commentary").await;

        let texts = b.texts_of(".msg-commentary").await;
        let beats = [
            "I'll break this into three small steps.",
            "Step one is done",
            "Details checked. Writing the answer.",
        ];
        if texts.len() != 3 || !beats.iter().zip(&texts).all(|(w, t)| t.contains(w)) {
            b.fail(&format!(
                "expected the 3 commentary beats in order, got {texts:?}"
            ))
            .await;
        }
        let style = b
            .js(
                "const c = getComputedStyle(document.querySelector('.msg-commentary'));
                 const a = getComputedStyle(document.querySelector('.msg-assistant .msg-body'));
                 return { cOpacity: parseFloat(c.opacity), cColor: c.color, cSize: parseFloat(c.fontSize),
                          aColor: a.color, aSize: parseFloat(a.fontSize),
                          footers: document.querySelectorAll('.msg-commentary .msg-footer, .msg-commentary .model, .msg-commentary .tokens').length };",
                vec![],
            )
            .await;
        let dimmed =
            style["cOpacity"].as_f64().unwrap_or(1.0) < 1.0 || style["cColor"] != style["aColor"];
        let smaller =
            style["cSize"].as_f64().unwrap_or(0.0) < style["aSize"].as_f64().unwrap_or(0.0);
        if !dimmed || !smaller || style["footers"] != 0 {
            b.fail(&format!(
                "commentary should be dimmed, smaller than the answer and without a footer: {style}"
            ))
            .await;
        }

        // Typing dots came while the agent worked, and are gone now.
        let recs = records(b).await;
        if !recs.iter().any(|r| r["typing"] == true) {
            b.fail("the typing indicator never appeared during the turn")
                .await;
        }
        if b.exists("[data-testid=typing]").await {
            b.fail("the typing indicator is still there after the turn")
                .await;
        }

        // The answer's footer: model and tokens.
        let model = b.text_of(".msg-assistant .msg-footer .model").await;
        let tokens = b.text_of(".msg-assistant .msg-footer .tokens").await;
        let tokens_ok = tokens.ends_with(" tokens")
            && tokens
                .trim_end_matches(" tokens")
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == 'k');
        if model != "aria-demo" || !tokens_ok {
            b.fail(&format!(
                "the answer footer should read model aria-demo and N tokens, got {model:?} / {tokens:?}"
            ))
            .await;
        }
        if recs
            .iter()
            .any(|r| r["answerStreaming"] == true && r["answer"].is_string())
            && b
                .js(
                    "return !!document.querySelector('.msg-assistant[data-streaming=true] .msg-footer');",
                    vec![],
                )
                .await
                == true
        {
            b.fail("a streaming answer shows a footer").await;
        }
        // Then an unstreamed answer: one final `message`, never a streaming
        // bubble.
        scroll_to_end(b).await;
        let before = b.js(LAST_ANSWER, vec![]).await;
        start_recorder(b).await;
        send(b, "/demo nostream").await;
        wait_answers(b, 2).await;
        let recs = records(b).await;
        if recs.iter().any(|r| r["streamingAny"] == true) {
            b.fail("a /demo nostream turn showed a streaming bubble")
                .await;
        }
        let final_text = b
            .js(LAST_ANSWER, vec![])
            .await
            .as_str()
            .unwrap_or_default()
            .to_string();
        let partial: Vec<&str> = recs
            .iter()
            .filter_map(|r| r["answer"].as_str())
            // (empty: mounted, markdown not yet in; never painted)
            .filter(|t| !t.trim().is_empty() && *t != final_text && *t != before)
            .collect();
        if !partial.is_empty() || !final_text.contains("You said") {
            b.fail(&format!(
                "the unstreamed answer should appear once, whole; saw {partial:?}, final {final_text:?}"
            ))
            .await;
        }
        if count_answers(b).await != 2
            || b.text_of(".msg-assistant .msg-footer .model").await != "aria-demo"
        {
            b.fail("expected a second answer, with a footer naming aria-demo")
                .await;
        }
        app.finish().await;
    })
}

#[test]
fn a_long_answer_renders_headings_code_aligned_tables_and_lists() {
    run(|| async {
        let app = demo_app(2).await;
        let b = &app.browser;
        new_thread_answered(b, "/demo long").await;
        let counts = b
            .js(
                "const m = document.querySelector('.msg-assistant .msg-body');
                 const n = s => m.querySelectorAll(s).length;
                 return { h1: n('h1'), h2: n('h2'), h3: n('h3'), pre: n('pre > code'), table: n('table'),
                          th: n('table th'), td: n('table td'), ul: n('ul'), ol: n('ol'), nested: n('li ul, li ol'),
                          li: n('li'), scripts: n('script'), chars: m.textContent.length,
                          langs: Array.from(m.querySelectorAll('pre > code'), c => c.className).join(' ') };",
                vec![],
            )
            .await;
        let n = |k: &str| counts[k].as_u64().unwrap_or(0);
        let ok = n("h1") >= 1
            && n("h2") >= 2
            && n("pre") >= 5
            && n("table") >= 1
            && n("th") >= 2
            && n("td") >= 2
            && n("ul") + n("ol") >= 2
            && n("nested") >= 1
            && n("chars") > 10_000
            && n("scripts") == 0;
        if !ok {
            b.fail(&format!(
                "/demo long should render headings, ≥5 code blocks, tables and nested lists: {counts}"
            ))
            .await;
        }
        let langs = counts["langs"].as_str().unwrap_or("");
        for lang in ["rust", "python"] {
            if !langs.contains(lang) {
                b.fail(&format!(
                    "no {lang} code block in /demo long (classes: {langs:?})"
                ))
                .await;
            }
        }
        // Aligned columns (`|---:|`) are aligned by class: pulldown-cmark's
        // inline `style` would be refused by the CSP (`style-src 'self'`),
        // losing the alignment and logging an error per cell.
        let styled = b.count(".msg-assistant .msg-body [style]").await;
        let aligned = b
            .js(
                "return Array.from(document.querySelectorAll('.msg-assistant td, .msg-assistant th'))
                   .some(c => getComputedStyle(c).textAlign === 'right');",
                vec![],
            )
            .await;
        if styled > 0 || aligned != true {
            b.fail(&format!(
                "right-aligned columns should be aligned by class, not inline style \
                 ({styled} elements with a style attribute; some cell right-aligned: {aligned})"
            ))
            .await;
        }
        app.finish().await;
    })
}

/// The tail's text (of `arguments[0]` within it, trimmed), and whether the
/// text node ending its last element is the one marked at the previous
/// step (`arguments[1]` - 1); marks it for the next once the text is
/// `arguments[2]`.
const TAIL_STEP: &str =
    "const tail = document.querySelector(\".row[data-key='m:grow'] .md-tail\"); \
    if (!tail) return null; \
    let e = tail; while (e.lastElementChild) e = e.lastElementChild; \
    const n = e.lastChild; \
    const same = !!n && n.nodeType === 3 && n.__step === arguments[1] - 1; \
    const el = arguments[0] ? tail.querySelector(arguments[0]) : tail; \
    const text = el ? el.textContent.trim() : null; \
    if (n && text === arguments[2]) n.__step = arguments[1]; \
    return [text, same];";

/// Where a streamed answer's unfinished tail only gained text, that text
/// is appended to its last text node (core/src/render/tail_append.rs) instead of
/// the tail being made anew: after each snapshot the tail shows exactly
/// that snapshot, in the same text node while only text was added.
#[test]
fn a_growing_tail_shows_each_snapshot_exactly_in_the_same_text_node() {
    run(|| async {
        let fake = FakeGateway::start(FakeOpts::default()).await;
        fake.add_channel(json!({"channel_id": "c1", "title": "Tail", "last_seq": 0}));
        let page = fake_page(&fake, "#/t/c1").await;
        let b = &page.browser;
        b.poll("the markdown module", secs(10), || async {
            (b.js("return !!window.__ariaMarkdown;", vec![]).await == true).then_some(())
        })
        .await;
        fake.push(
            json!({"type": "message.start", "channel_id": "c1", "turn_id": "t1",
            "message_id": "grow", "role": "assistant", "ts": 1}),
        );
        let para = "Hello world & <more>";
        let code = "```rust\nfn a() {\n    let s = \"<'&'>\";";
        // (the answer so far, what of the tail to read, its text, same node)
        let steps = [
            ("Hello".to_string(), "", "Hello", false),
            ("Hello wor".to_string(), "", "Hello wor", true),
            (para.to_string(), "", para, true),
            (
                format!("{para} **bold"),
                "",
                "Hello world & <more> **bold",
                true,
            ),
            (
                format!("{para} **bold**"),
                "",
                "Hello world & <more> bold",
                false,
            ),
            (format!("{para}\n\n```rust\nfn a"), "code", "fn a", false),
            (
                format!("{para}\n\n```rust\nfn a() {{"),
                "code",
                "fn a() {",
                true,
            ),
            (
                format!("{para}\n\n{code}"),
                "code",
                "fn a() {\n    let s = \"<'&'>\";",
                true,
            ),
        ];
        for (i, (text, within, shown, same)) in steps.iter().enumerate() {
            fake.push(
                json!({"type": "message.update", "channel_id": "c1", "turn_id": "t1",
                "message_id": "grow", "text": text}),
            );
            let step = i as u64;
            let got = b
                .poll(&format!("the tail to show {shown:?}"), secs(10), || async {
                    let v = b
                        .js(TAIL_STEP, vec![json!(within), json!(step), json!(shown)])
                        .await;
                    (v[0].as_str() == Some(*shown)).then_some(v)
                })
                .await;
            if got[1] != json!(same) {
                b.fail(&format!(
                    "after {text:?} the tail's last text node should {}be the one before",
                    if *same { "" } else { "not " }
                ))
                .await;
            }
        }
        page.browser.close().await;
    })
}

/// A frame's text reaches the page exactly as sent, whatever its
/// characters (src/net/received_text.rs copies it as UTF-8): one, two,
/// three and four bytes long, at the start, the end and past a long ASCII
/// run.
#[test]
fn every_character_of_a_frame_arrives_as_sent() {
    run(|| async {
        let fake = FakeGateway::start(FakeOpts::default()).await;
        fake.add_channel(json!({"channel_id": "c1", "title": "Chars", "last_seq": 0}));
        let page = fake_page(&fake, "#/t/c1").await;
        let b = &page.browser;
        fake.push(
            json!({"type": "message.start", "channel_id": "c1", "turn_id": "t1",
            "message_id": "chars", "role": "assistant", "ts": 1}),
        );
        let texts = [
            "😀 starts with four bytes, then é, 中 and ends with 😀".to_string(),
            format!("é{}中 after a long run 😀", "a".repeat(40_000)),
            "ASCII only".to_string(),
        ];
        for text in texts {
            fake.push(
                json!({"type": "message.update", "channel_id": "c1", "turn_id": "t1",
                "message_id": "chars", "text": text}),
            );
            b.poll("the answer to show the sent text", secs(10), || async {
                let shown = b.js(LAST_ANSWER, vec![]).await;
                (shown.as_str().map(str::trim) == Some(text.as_str())).then_some(())
            })
            .await;
        }
        page.browser.close().await;
    })
}
