//! Sending a message and watching the demo agent's answer stream in.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::ui::{record_renderers, wait_rehearsed};
use crate::support::{secs, App, GatewayOpts};

const COMPOSER: &str = "form[data-testid=composer] textarea";

/// One atomic look at the timeline (a single script, so the values agree).
const SNAPSHOT: &str = r#"
const users = Array.from(document.querySelectorAll('.msg-user'))
  .filter(e => e.textContent.includes(arguments[0]));
const streaming = document.querySelector('.msg-assistant[data-streaming=true]');
const all = document.querySelectorAll('.msg-assistant');
const answer = streaming || all[all.length - 1] || null;
const body = answer && answer.querySelector('.msg-body');
return {
  users: users.length,
  pending: document.querySelectorAll('.msg-user.pending').length,
  streaming: streaming !== null,
  text: body ? body.textContent : null,
  endless: document.getAnimations()
    .filter(a => a.playState === 'running' && a.effect
      && a.effect.getComputedTiming().iterations === Infinity)
    .map(a => `${a.effect.target && a.effect.target.className}: ${a.animationName || a.id}`),
};
"#;

/// Once the page is idle, the warm-up streams 40 KiB of markdown through a
/// renderer of its own, in snapshots, so that the engine optimizes the
/// parser before a first long answer needs it, and frees that renderer (as
/// the rehearsal of an answer frees its own).
#[tokio::test]
async fn the_parser_is_run_hot_at_idle_and_its_renderer_freed() {
    let app = App::unopened(GatewayOpts::default()).await;
    let b = &app.browser;
    record_renderers(b).await;
    b.goto(&app.gateway.app_url()).await;
    b.wait_for("[data-testid=conn-status][data-state=connected]", secs(20))
        .await;
    let warmed = b
        .poll("a renderer of 40 KiB, freed", secs(10), || async {
            let found = b
                .js(
                    "return window.__renderers.find(r => r.longest >= 40 * 1024 && r.freed) || null;",
                    vec![],
                )
                .await;
            (!found.is_null()).then_some(found)
        })
        .await;
    if warmed["snapshots"].as_u64().unwrap_or(0) < 20 {
        b.fail(&format!(
            "the parser was warmed up in too few snapshots: {warmed}"
        ))
        .await;
    }
    // No message was sent: every renderer so far is the warm-up's or the
    // rehearsal's of a streamed answer (src/ui/wiring/rehearsal.rs), and
    // each is freed once they are over.
    wait_rehearsed(b).await;
    let kept = b
        .js(
            "return window.__renderers.filter(r => !r.freed).length;",
            vec![],
        )
        .await;
    if kept != 0 {
        b.fail(&format!(
            "{kept} warm-up or rehearsal renderers were not freed"
        ))
        .await;
    }
    app.finish().await;
}

#[tokio::test]
async fn a_sent_message_gets_a_streamed_demo_answer() {
    // Slow enough that a few chunks can be seen arriving one by one.
    let app = App::start_with(GatewayOpts {
        demo_delay_ms: 60,
        ..GatewayOpts::default()
    })
    .await;
    let b = &app.browser;

    b.wait_for("[data-testid=conn-status][data-state=connected]", secs(20))
        .await;
    b.type_into(COMPOSER, "hello aria").await;
    b.press_enter(COMPOSER).await;

    // The optimistic bubble appears at once.
    b.poll("one .msg-user with \"hello aria\"", secs(5), || async {
        (snapshot(&app).await["users"] == 1).then_some(())
    })
    .await;

    // Watch the answer grow while it streams. Nothing on the page
    // animates forever meanwhile: a running animation is serviced in each
    // frame, and the answer draws one per update (the streaming cursor and
    // the sidebar's busy dot are steady).
    let mut growth: Vec<usize> = Vec::new();
    let mut endless = std::collections::BTreeSet::new();
    let mut saw_streaming = false;
    let deadline = Instant::now() + secs(60);
    loop {
        let snap = snapshot(&app).await;
        let users = snap["users"].as_u64().unwrap_or(0);
        if users != 1 {
            b.fail(&format!(
                "expected exactly one .msg-user with \"hello aria\", saw {users} (echo duplicated the pending bubble?)"
            ))
            .await;
        }
        let streaming = snap["streaming"].as_bool().unwrap_or(false);
        if streaming {
            saw_streaming = true;
            let len = snap["text"].as_str().map_or(0, |t| t.chars().count());
            if growth.last().is_none_or(|last| len > *last) && len > 0 {
                growth.push(len);
                for name in snap["endless"].as_array().into_iter().flatten() {
                    endless.extend(name.as_str().map(str::to_string));
                }
            }
        } else if saw_streaming {
            break;
        }
        if Instant::now() > deadline {
            b.fail(&format!(
                "the answer did not finish streaming within {:?} (saw it streaming: {saw_streaming}, lengths seen: {growth:?})",
                secs(60)
            ))
            .await;
        }
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
    if !endless.is_empty() {
        b.fail(&format!(
            "animations ran forever while the answer streamed: {endless:?}"
        ))
        .await;
    }
    if growth.len() < 3 {
        b.fail(&format!(
            "the streaming answer grew only {} times while observed (lengths: {growth:?}); \
             expected it to grow across at least 3 observations",
            growth.len()
        ))
        .await;
    }

    // Finished: no streaming marker, a footer with model and token count.
    b.wait_gone(".msg-assistant[data-streaming=true]", secs(10))
        .await;
    let model = b
        .poll("a .msg-footer .model on the answer", secs(10), || async {
            b.try_text_of(".msg-assistant .msg-footer .model").await
        })
        .await;
    if !model.contains("aria-demo") {
        b.fail(&format!(
            "the answer's model is {model:?}, expected it to name aria-demo"
        ))
        .await;
    }
    b.wait_for(".msg-assistant .msg-footer .tokens", secs(5))
        .await;
    let final_text = b.text_of(".msg-assistant .msg-body").await;
    if final_text.trim().is_empty() {
        b.fail("the finished answer is empty").await;
    }

    // The server's echo replaced the optimistic bubble instead of adding one.
    b.wait_gone(".msg-user.pending", secs(10)).await;
    let snap = snapshot(&app).await;
    if snap["users"] != 1 {
        b.fail(&format!(
            "after the echo there are {} .msg-user bubbles with \"hello aria\", expected 1",
            snap["users"]
        ))
        .await;
    }

    app.assert_no_console_errors().await;
    app.close().await;
}

async fn snapshot(app: &App) -> Value {
    app.browser
        .js(SNAPSHOT, vec![Value::from("hello aria")])
        .await
}

/// The markdown module is warmed up once the page is idle (its code
/// compiled, a sample laid out off screen: src/ui/browser/markdown_module.rs), and
/// the code highlighter's worker started; the sample never stays on the
/// page nor reaches the accessibility tree.
#[tokio::test]
async fn the_markdown_warm_up_leaves_nothing_behind() {
    let app = App::start().await;
    let b = &app.browser;
    b.wait_for("[data-testid=conn-status][data-state=connected]", secs(20))
        .await;
    b.poll("the markdown module ready", secs(10), || async {
        (b.js("return !!window.__ariaMarkdown;", vec![]).await == true).then_some(())
    })
    .await;
    // Two idle periods later the warm-up has run.
    let left = b
        .js(
            "return await new Promise(done => requestIdleCallback(() => requestIdleCallback(() =>
               done(document.querySelectorAll('.md-warm-up, [aria-hidden] h1').length))));",
            vec![],
        )
        .await;
    if left != 0 {
        b.fail(&format!(
            "the warm-up sample is still on the page ({left} elements)"
        ))
        .await;
    }
    // The worker's script was fetched with no code block on the page.
    let worker = b
        .js(
            "return [performance.getEntriesByType('resource').some(e => e.name.endsWith('/hl/worker.js')),
                     document.querySelectorAll('code').length];",
            vec![],
        )
        .await;
    if worker != serde_json::json!([true, 0]) {
        b.fail(&format!(
            "the highlighter's worker was not started at idle ([fetched, code elements] = {worker})"
        ))
        .await;
    }
    // It did not break the module: an answer renders as markdown.
    b.type_into(COMPOSER, "hello").await;
    b.press_enter(COMPOSER).await;
    b.wait_for(
        ".msg-assistant .md-chunk, .msg-assistant .md-tail p",
        secs(20),
    )
    .await;
    app.finish().await;
}
