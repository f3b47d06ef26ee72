//! Reasoning above the answer: the `reasoning` field, the inline prefix, a
//! malformed prefix, auto-collapse of long blocks and the toggle; against
//! the demo gateway's scenarios, and a scripted gateway for the edge cases.

use fantoccini::key::Key;
use serde_json::{json, Value};

use crate::support::fake_gateway::{message_item, FakeGateway, Step};
use crate::support::recorder::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// The demo's reasoning text starts with this (gateway/src/agent/demo/texts.rs).
const DEMO_REASONING: &str = "The user wants to see how reasoning is shown.";

/// Facts about the answer whose body contains `arguments[0]`: its
/// reasoning block and body, and whether the block sits above the body. Its
/// toggle gets `data-e2e=toggle`. The timeline mounts only rows near the
/// screen: when the answer is not mounted, this scrolls a step (from the
/// top down) and returns null.
const ANSWER_PARTS: &str = r#"
const a = Array.from(document.querySelectorAll('.msg-assistant'))
  .find(a => (a.querySelector('.msg-body') || a).textContent.includes(arguments[0]));
const tl = document.querySelector('[data-testid=timeline]');
if (!a) {
  if (window.__scan === undefined) { window.__scan = 0; tl.scrollTop = 0; }
  else { tl.scrollTop += 300; }
  return null;
}
window.__scan = undefined;
const r = a.querySelector('.reasoning');
const body = a.querySelector('.msg-body');
const toggle = r && r.querySelector('.reasoning-toggle');
const rb = r && r.querySelector('.reasoning-body');
document.querySelectorAll('[data-e2e=toggle]').forEach(t => t.removeAttribute('data-e2e'));
if (toggle) toggle.setAttribute('data-e2e', 'toggle');
return {
  body: body ? body.textContent : null,
  reasoning: r ? {
    collapsed: r.classList.contains('collapsed'),
    expanded: toggle ? toggle.getAttribute('aria-expanded') : null,
    body: rb ? rb.textContent : null,
    bodyVisible: !!rb && rb.getClientRects().length > 0,
    copy: !!r.querySelector('.reasoning-copy'),
    above: !!body && (r.compareDocumentPosition(body) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0
      && r.getBoundingClientRect().bottom <= body.getBoundingClientRect().top + 1,
  } : null,
};
"#;

async fn answer_parts(b: &Browser, needle: &str) -> Value {
    let what = format!("the answer containing {needle:?} to be mounted");
    b.poll(&what, secs(10), || async {
        let v = b.js(ANSWER_PARTS, vec![json!(needle)]).await;
        (!v.is_null()).then_some(v)
    })
    .await
}

#[test]
fn reasoning_field_and_inline_prefix_show_above_the_answer() {
    run(|| async {
        let app = demo_app(15).await;
        let b = &app.browser;

        // `reasoning` on message.stop.
        new_thread_answered(b, "/demo reasoning").await;
        let a = answer_parts(b, "Reasoning shown above").await;
        let r = &a["reasoning"];
        if r.is_null() {
            b.fail(&format!(
                "/demo reasoning: no .reasoning block in the answer: {a}"
            ))
            .await;
        }
        let checks = [
            (
                r["above"] == true,
                "the reasoning block is not above the answer body",
            ),
            (
                r["body"].as_str().unwrap_or("").contains(DEMO_REASONING),
                "the reasoning block does not show the reasoning text",
            ),
            (
                r["collapsed"] == false,
                "a short reasoning block started collapsed",
            ),
            (r["copy"] == true, "the reasoning block has no copy button"),
            (
                !a["body"].as_str().unwrap_or("").contains(DEMO_REASONING),
                "the reasoning text leaked into the answer body",
            ),
            (
                a["body"]
                    .as_str()
                    .unwrap_or("")
                    .contains("Reasoning shown above"),
                "the answer body lacks the answer",
            ),
        ];
        for (ok, why) in checks {
            if !ok {
                b.fail(&format!("/demo reasoning: {why}: {a}")).await;
            }
        }

        // The inline prefix, split off by the client, also while it streams.
        start_recorder(b).await;
        send(b, "/demo inline-reasoning").await;
        wait_answers(b, 2).await;
        let a = answer_parts(b, "This gateway could only deliver reasoning").await;
        let r = &a["reasoning"];
        let body = a["body"].as_str().unwrap_or("");
        if r.is_null()
            || r["above"] != true
            || !r["body"].as_str().unwrap_or("").contains(DEMO_REASONING)
        {
            b.fail(&format!(
                "/demo inline-reasoning: expected the inline reasoning in a block above the answer: {a}"
            ))
            .await;
        }
        // (The answer itself mentions the prefix in its text, inline.)
        if body.trim_start().starts_with('💭') || body.contains(DEMO_REASONING) {
            b.fail(&format!(
                "/demo inline-reasoning: the prefix or reasoning shows in the answer body: {body:?}"
            ))
            .await;
        }
        if !body.trim_start().starts_with("Inline reasoning") {
            b.fail(&format!(
                "/demo inline-reasoning: answer body lacks the answer: {body:?}"
            ))
            .await;
        }
        let recs = records(b).await;
        let leaked: Vec<&Value> = recs
            .iter()
            .filter(|r| {
                let t = r["answer"].as_str().unwrap_or("");
                t.trim_start().starts_with('💭') || t.contains(DEMO_REASONING)
            })
            .collect();
        if !leaked.is_empty() {
            b.fail(&format!(
                "while streaming, the inline reasoning prefix showed in the answer body:\n{}",
                show(&leaked)
            ))
            .await;
        }
        if !recs.iter().any(|r| r["answerStreaming"] == true) {
            b.fail("the inline-reasoning answer was never seen streaming")
                .await;
        }

        // A long `reasoning` field starts collapsed (auto-collapse is on by
        // default); a malformed prefix splits nothing off.
        send(b, "/demo long-reasoning").await;
        wait_answers(b, 3).await;
        let a = answer_parts(b, "A long chain of thought").await;
        let r = &a["reasoning"];
        if r["collapsed"] != true || r["bodyVisible"] != false || r["above"] != true {
            b.fail(&format!(
                "/demo long-reasoning: expected a collapsed block above the answer: {a}"
            ))
            .await;
        }
        send(b, "/demo bad-reasoning").await;
        wait_answers(b, 4).await;
        let a = answer_parts(b, "Malformed prefix").await;
        let body = a["body"].as_str().unwrap_or("");
        if !a["reasoning"].is_null()
            || !body.contains("Reasoning:")
            || !body.contains("This reasoning block is never closed.")
        {
            b.fail(&format!(
                "/demo bad-reasoning: expected no block and the whole text as the answer: {a}"
            ))
            .await;
        }
        app.finish().await;
    })
}

/// 20 short lines: long by line count.
fn long_by_lines() -> String {
    (1..=20)
        .map(|i| format!("Step {i}: weigh option {i} against the others."))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line of ~700 characters: long by length.
fn long_by_chars() -> String {
    "I keep thinking about this in one breath without a line break. ".repeat(11)
}

/// The answers of the fake thread, by a part of their text.
const LONG_LINES: &str = "Answer after many lines of thought.";
const SHORT: &str = "Answer after a short thought.";
const BROKEN: &str = "The answer after a broken prefix.";
const LONG_CHARS: &str = "Answer after one long line of thought.";

const MALFORMED: &str =
    "💭 **Reasoning:**\n```\nthis block never closes\n\nThe answer after a broken prefix.";

async fn reasoning_fake() -> FakeGateway {
    let history = vec![
        message_item(1, "user", "think long", None),
        message_item(
            2,
            "assistant",
            "Answer after many lines of thought.",
            Some(&long_by_lines()),
        ),
        message_item(3, "user", "think briefly", None),
        message_item(
            4,
            "assistant",
            "Answer after a short thought.",
            Some("Just one short thought."),
        ),
        message_item(5, "user", "break the prefix", None),
        message_item(6, "assistant", MALFORMED, None),
        message_item(7, "user", "think in one long line", None),
        message_item(
            8,
            "assistant",
            "Answer after one long line of thought.",
            Some(&long_by_chars()),
        ),
    ];
    let fake = FakeGateway::with_thread("c_r", "Reasoning lab", history).await;
    fake.set_turn(|_text| {
        // Inline reasoning that grows past 8 lines while it streams.
        let lines: Vec<String> = (1..=12).map(|i| format!("thought {i}")).collect();
        let mut steps = vec![
            Step::Frame(json!({"type": "typing", "on": true})),
            Step::Pause(60),
            Step::Frame(
                json!({"type": "message.start", "turn_id": "live", "message_id": "live1", "role": "assistant"}),
            ),
        ];
        let prefix = "💭 **Reasoning:**\n```\n";
        for n in 1..=lines.len() {
            steps.push(Step::Pause(60));
            steps.push(Step::Frame(json!({
                "type": "message.update", "turn_id": "live", "message_id": "live1",
                "text": format!("{prefix}{}", lines[..n].join("\n")),
            })));
        }
        let full = format!("{prefix}{}\n```\n\nStreamed answer.", lines.join("\n"));
        steps.push(Step::Pause(60));
        steps.push(Step::Frame(json!({
            "type": "message.update", "turn_id": "live", "message_id": "live1", "text": full,
        })));
        steps.push(Step::Pause(100));
        steps.push(Step::Frame(json!({
            "type": "message.stop", "turn_id": "live", "message_id": "live1",
            "final_text": full, "model": "fake-model", "tokens": 99,
        })));
        steps.push(Step::Frame(json!({"type": "typing", "on": false})));
        steps
    });
    fake
}

#[test]
fn long_reasoning_auto_collapses_toggles_and_a_malformed_prefix_stays_text() {
    run(|| async {
        let fake = reasoning_fake().await;
        let page = fake_page(&fake, "#/t/c_r").await;
        let b = &page.browser;
        b.poll(
            "the 4 logged answers of the fake thread",
            secs(15),
            || async { (b.count(".msg-assistant .msg-footer").await >= 4).then_some(()) },
        )
        .await;

        // Auto-collapse on (the default): long blocks start collapsed.
        let expect = [
            (LONG_LINES, Some(true), "20 lines of reasoning"),
            (SHORT, Some(false), "one short line of reasoning"),
            (BROKEN, None, "a malformed inline prefix"),
            (
                LONG_CHARS,
                Some(true),
                "700 characters of reasoning on one line",
            ),
        ];
        for (i, collapsed, what) in expect {
            let a = answer_parts(b, i).await;
            match collapsed {
                Some(c) => {
                    let r = &a["reasoning"];
                    let ok = r["collapsed"] == c
                        && r["expanded"].as_str() == Some(if c { "false" } else { "true" })
                        && r["bodyVisible"] == !c
                        && r["above"] == true;
                    if !ok {
                        b.fail(&format!(
                            "answer {i:?} ({what}) with auto-collapse on: expected collapsed={c} above the answer, got {a}"
                        ))
                        .await;
                    }
                }
                None => {
                    let body = a["body"].as_str().unwrap_or("");
                    let whole = [
                        "💭",
                        "Reasoning:",
                        "this block never closes",
                        "The answer after a broken prefix.",
                    ]
                    .iter()
                    .all(|w| body.contains(w));
                    if !a["reasoning"].is_null() || !whole {
                        b.fail(&format!(
                            "answer {i:?} ({what}): expected no reasoning block and the whole text as the answer, got {a}"
                        ))
                        .await;
                    }
                }
            }
        }

        // Toggle by click, then by Enter on the focused toggle.
        answer_parts(b, LONG_LINES).await;
        b.click("[data-e2e=toggle]").await;
        b.poll("the clicked reasoning block to expand", secs(5), || async {
            let a = answer_parts(b, LONG_LINES).await;
            (a["reasoning"]["collapsed"] == false).then_some(a)
        })
        .await;
        let a = answer_parts(b, LONG_LINES).await;
        let body = a["reasoning"]["body"].as_str().unwrap_or("");
        if body.lines().count() != 20 || !body.contains("Step 20:") {
            b.fail(&format!(
                "the expanded reasoning should show all 20 lines, shows {:?}",
                body
            ))
            .await;
        }
        let el = b.wait_for("[data-e2e=toggle]", secs(5)).await;
        let enter: char = Key::Enter.into();
        if let Err(e) = el.send_keys(&enter.to_string()).await {
            b.fail(&format!("cannot press Enter on the reasoning toggle: {e}"))
                .await;
        }
        b.poll(
            "Enter on the toggle to collapse the block again",
            secs(5),
            || async {
                let a = answer_parts(b, LONG_LINES).await;
                (a["reasoning"]["collapsed"] == true && a["reasoning"]["expanded"] == "false")
                    .then_some(())
            },
        )
        .await;
        let focused = b
            .js(
                "return document.activeElement && document.activeElement.getAttribute('data-e2e');",
                vec![],
            )
            .await;
        if focused != "toggle" {
            b.fail(&format!(
                "after Enter the toggle should keep the focus, the focus is on {focused}"
            ))
            .await;
        }

        // A live turn whose inline reasoning grows long folds while streaming,
        // and the prefix never shows in the answer.
        scroll_to_end(b).await;
        start_recorder(b).await;
        send(b, "think live").await;
        wait_answers(b, 5).await;
        let recs = records(b).await;
        let live: Vec<&Value> = recs
            .iter()
            .filter(|r| r["answerStreaming"] == true)
            .collect();
        if live.is_empty() {
            b.fail("the live inline-reasoning answer was never seen streaming")
                .await;
        }
        let leaked: Vec<&&Value> = live
            .iter()
            .filter(|r| r["answer"].as_str().unwrap_or("").contains('💭'))
            .collect();
        if !leaked.is_empty() {
            b.fail(&format!(
                "the inline reasoning prefix showed in the streaming answer:\n{}",
                show(&leaked)
            ))
            .await;
        }
        let seen_open = live.iter().any(|r| r["reasoning"]["collapsed"] == false);
        let seen_folded = live.iter().any(|r| r["reasoning"]["collapsed"] == true);
        if !(seen_open && seen_folded) {
            b.fail(&format!(
                "the streaming reasoning should show open while short and fold once past 8 lines \
                 (seen open: {seen_open}, seen folded: {seen_folded}):\n{}",
                show(&live)
            ))
            .await;
        }
        let a = answer_parts(b, "Streamed answer.").await;
        if a["reasoning"]["collapsed"] != true
            || a["body"].as_str().map(str::trim) != Some("Streamed answer.")
        {
            b.fail(&format!(
                "the finished live answer should have its long reasoning collapsed above \"Streamed answer.\": {a}"
            ))
            .await;
        }

        // Auto-collapse off: after a reload the long blocks start expanded.
        with_settings(b, |b| async move {
            check(b, "reasoning_auto_collapse", false).await;
        })
        .await;
        if stored_settings(b).await["reasoning_auto_collapse"] != false {
            b.fail("unchecking auto-collapse was not saved").await;
        }
        reload_connected(b).await;
        b.poll("the logged answers after the reload", secs(15), || async {
            (b.count(".msg-assistant .msg-footer").await >= 1).then_some(())
        })
        .await;
        for i in [LONG_LINES, SHORT, LONG_CHARS] {
            let a = answer_parts(b, i).await;
            if a["reasoning"]["collapsed"] != false || a["reasoning"]["bodyVisible"] != true {
                b.fail(&format!(
                    "answer {i:?} with auto-collapse off should start expanded: {a}"
                ))
                .await;
            }
        }
        page.finish().await;
    })
}
