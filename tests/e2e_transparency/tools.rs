//! Tool cards: arrival order, spinner → ✓/✗ with a duration, progress
//! notes while running, "unknown outcome", and the tool-detail setting.

use serde_json::{json, Value};

use crate::support::recorder::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// What each `/demo tools` call shows in its line, in the order it runs.
const TOOL_ORDER: [&str; 5] = [
    "ls -la",
    "README.md",
    "axum websocket broadcast backpressure",
    "cat config/gateway.toml",
    "cargo test --workspace",
];
const TOOL_STATES: [&str; 5] = ["ok", "ok", "ok", "failed", "ok"];
/// The `tool.progress` notes of the `cargo test` call: the demo agent's
/// `CARGO_TEST_NOTES`, read from its source (this crate does not link the
/// gateway).
fn cargo_notes() -> Vec<&'static str> {
    const TEXTS: &str = include_str!("../../gateway/src/agent/demo/texts.rs");
    let list = TEXTS
        .split_once("pub const CARGO_TEST_NOTES")
        .and_then(|(_, rest)| rest.split_once("= ["))
        .and_then(|(_, rest)| rest.split_once("];"))
        .map_or("", |(list, _)| list);
    // The notes are plain string literals: every other piece between quotes.
    let notes: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
    assert!(
        !notes.is_empty(),
        "no CARGO_TEST_NOTES in gateway/src/agent/demo/texts.rs"
    );
    notes
}

fn is_duration(s: &str) -> bool {
    // render::duration: "0.4 s", "12 s", "1 m 05 s", …
    s.ends_with(" s") && s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

fn tools_of(snap: &Value) -> Vec<Value> {
    snap["tools"].as_array().cloned().unwrap_or_default()
}

/// The card of `/demo hang`'s call, found by its text: the timeline mounts
/// only rows near the screen, so the earlier turn's cards may be gone.
fn hung_card(snap: &Value) -> Option<Value> {
    tools_of(snap).into_iter().find(|c| {
        c["text"]
            .as_str()
            .is_some_and(|t| t.contains("tail -f /var/log/syslog"))
    })
}

#[test]
fn tool_cards_arrive_in_order_spin_then_settle_and_a_hung_call_is_unknown() {
    run(|| async {
        // Slow enough that even the 2-step call spins for a few frames
        // on a loaded machine.
        let app = demo_app(50).await;
        let b = &app.browser;
        start_recorder(b).await;
        new_thread_answered(b, "/demo tools").await;

        let last = snapshot(b).await;
        let cards = tools_of(&last);
        let texts: Vec<String> = cards
            .iter()
            .map(|c| c["text"].as_str().unwrap_or("").to_string())
            .collect();
        let in_order = cards.len() == 5
            && TOOL_ORDER
                .iter()
                .zip(&texts)
                .all(|(want, got)| got.contains(want));
        if !in_order {
            b.fail(&format!(
                "expected 5 tool cards in the order {TOOL_ORDER:?}, got {texts:?}"
            ))
            .await;
        }
        for (i, c) in cards.iter().enumerate() {
            let want_icon = if TOOL_STATES[i] == "ok" { "✓" } else { "✗" };
            let ok = c["state"] == TOOL_STATES[i]
                && c["icon"] == want_icon
                && is_duration(c["duration"].as_str().unwrap_or(""))
                && c["note"].is_null()
                && c["visible"] == true;
            if !ok {
                b.fail(&format!(
                    "finished card {i} should be {} with {want_icon}, a duration and no note: {c}",
                    TOOL_STATES[i]
                ))
                .await;
            }
        }

        // Every state on the way: a card first spins (no icon, no duration),
        // cards never reorder, and the long call shows its progress notes.
        let recs = records(b).await;
        for (i, name) in TOOL_ORDER.iter().enumerate() {
            let spun = recs.iter().any(|r| {
                tools_of(r).get(i).is_some_and(|c| {
                    c["state"] == "running" && c["icon"] == "" && c["duration"] == ""
                })
            });
            if !spun {
                let states: Vec<String> = recs
                    .iter()
                    .map(|r| {
                        tools_of(r)
                            .iter()
                            .map(|c| {
                                format!(
                                    "{}{}",
                                    c["state"].as_str().unwrap_or("?"),
                                    c["duration"].as_str().unwrap_or("")
                                )
                            })
                            .collect::<Vec<_>>()
                            .join(",")
                    })
                    .collect();
                b.fail(&format!(
                    "card {i} ({}) was never seen running with a spinner and no duration; \
                     the cards' states as recorded:\n{}",
                    name,
                    show(&states)
                ))
                .await;
            }
        }
        for r in &recs {
            let seen: Vec<String> = tools_of(r)
                .iter()
                .map(|c| c["text"].as_str().unwrap_or("").to_string())
                .collect();
            let prefix = seen.len() <= 5
                && seen
                    .iter()
                    .zip(TOOL_ORDER)
                    .all(|(got, want)| got.contains(want));
            if !prefix {
                b.fail(&format!(
                    "at some point the cards were not in arrival order: {seen:?}"
                ))
                .await;
            }
        }
        let notes: Vec<String> = recs
            .iter()
            .filter_map(|r| tools_of(r).get(4).cloned())
            .filter(|c| c["state"] == "running")
            .filter_map(|c| c["note"].as_str().map(str::to_string))
            .collect();
        let cargo_notes = cargo_notes();
        if notes.is_empty() || !notes.iter().all(|n| cargo_notes.contains(&n.as_str())) {
            b.fail(&format!(
                "the running `cargo test` card should show its tool.progress notes, saw {notes:?}"
            ))
            .await;
        }
        let late_note = recs.iter().any(|r| {
            tools_of(r)
                .iter()
                .any(|c| c["state"] != "running" && !c["note"].is_null())
        });
        if late_note {
            b.fail("a finished card still showed a progress note").await;
        }

        // A call that never ends: spinning while the turn runs, then unknown.
        start_recorder(b).await;
        send(b, "/demo hang").await;
        b.poll("the hung call to end as unknown", secs(20), || async {
            hung_card(&snapshot(b).await).filter(|c| c["state"] == "unknown")
        })
        .await;
        wait_idle(b).await;
        let c = hung_card(&snapshot(b).await).unwrap_or_default();
        if c["duration"] != "unknown outcome"
            || c["icon"] != "?"
            || !c["text"]
                .as_str()
                .unwrap_or("")
                .contains("tail -f /var/log/syslog")
        {
            b.fail(&format!(
                "the hung call should read \"unknown outcome\" with a ?: {c}"
            ))
            .await;
        }
        let recs = records(b).await;
        if !recs
            .iter()
            .any(|r| hung_card(r).is_some_and(|c| c["state"] == "running"))
        {
            b.fail("the hung call was never seen running before the turn ended")
                .await;
        }
        app.finish().await;
    })
}

/// The expanded parts of the tool card whose line contains `needle`. The
/// timeline mounts only rows near the screen, so it scrolls until the card
/// is there.
async fn card_detail(b: &Browser, needle: &str) -> Value {
    let what = format!("the tool card of {needle:?} to be mounted");
    b.poll(&what, secs(10), || async {
        let v = b
            .js(
                "const c = Array.from(document.querySelectorAll('.tool-card'))
                   .find(c => c.querySelector('.tool-text').textContent.includes(arguments[0]));
                 if (!c) {
                   const tl = document.querySelector('[data-testid=timeline]');
                   const first = document.querySelector('.tool-card .tool-text');
                   const order = arguments[1];
                   const at = first ? order.findIndex(o => first.textContent.includes(o)) : -1;
                   // Cards above the mounted ones are older: scroll up, else down.
                   tl.scrollTop += at > order.findIndex(o => arguments[0].includes(o)) ? -300 : 300;
                   return null;
                 }
                 c.scrollIntoView({block: 'center'});
                 const t = s => { const e = c.querySelector(s); return e ? e.textContent : null; };
                 const line = c.querySelector('.tool-line');
                 const text = c.querySelector('.tool-text');
                 const lh = parseFloat(getComputedStyle(text).lineHeight) || 20;
                 line.setAttribute('data-e2e-line', arguments[0]);
                 return { open: c.classList.contains('open'), args: t('.tool-args'), output: t('.tool-output'),
                          expanded: line.getAttribute('aria-expanded'),
                          height: text.getBoundingClientRect().height,
                          oneLine: text.getBoundingClientRect().height < lh * 1.6 };",
                vec![json!(needle), json!(TOOL_ORDER)],
            )
            .await;
        (!v.is_null()).then_some(v)
    })
    .await
}

#[test]
fn tool_detail_everything_truncated_and_nothing() {
    run(|| async {
        let app = demo_app(10).await;
        let b = &app.browser;
        choose_setting(b, "tool_detail", "everything").await;

        // Everything: every card is open from the start, with pretty JSON
        // arguments and the output.
        start_recorder(b).await;
        new_thread_answered(b, "/demo tools").await;
        let recs = records(b).await;
        let closed: Vec<Value> = recs
            .iter()
            .flat_map(tools_of)
            .filter(|c| c["open"] != true || c["detail"] != true)
            .collect();
        if !closed.is_empty() {
            b.fail(&format!(
                "with tool detail Everything, cards showed closed:\n{}",
                show(&closed)
            ))
            .await;
        }
        let d = card_detail(b, "ls -la").await;
        let args = d["args"].as_str().unwrap_or("");
        let parsed: Value = serde_json::from_str(args).unwrap_or(Value::Null);
        if parsed != json!({"command": "ls -la", "cwd": "~/projects/aria-web"})
            || !args.contains("\n  \"command\": \"ls -la\"")
        {
            b.fail(&format!(
                "the ls card's arguments should be pretty-printed JSON, got {args:?}"
            ))
            .await;
        }
        let out = d["output"].as_str().unwrap_or("");
        if !(out.contains("total 64") && out.contains("Cargo.toml")) {
            b.fail(&format!("the ls card should show its output, got {out:?}"))
                .await;
        }
        let failed = card_detail(b, "cat config/gateway.toml").await;
        if !failed["output"]
            .as_str()
            .unwrap_or("")
            .contains("No such file or directory")
        {
            b.fail(&format!(
                "the failed card should show its error output: {failed}"
            ))
            .await;
        }

        // Truncated, applied live: one line per card, a click reveals the rest.
        b.js("window.__noReload = 'still here';", vec![]).await;
        choose_setting(b, "tool_detail", "truncated").await;
        b.poll("the cards to close under Truncated", secs(5), || async {
            (b.count(".tool-card.open").await == 0 && b.count(".tool-detail").await == 0)
                .then_some(())
        })
        .await;
        for needle in TOOL_ORDER {
            let d = card_detail(b, needle).await;
            if d["oneLine"] != true || !d["args"].is_null() || d["expanded"] != "false" {
                b.fail(&format!(
                    "under Truncated the {needle:?} card should be one closed line: {d}"
                ))
                .await;
            }
        }
        card_detail(b, "README.md").await;
        b.click("[data-e2e-line='README.md']").await;
        let d = b
            .poll("a click to reveal the read_file card", secs(5), || async {
                let d = card_detail(b, "README.md").await;
                (d["open"] == true).then_some(d)
            })
            .await;
        let args: Value =
            serde_json::from_str(d["args"].as_str().unwrap_or("")).unwrap_or(Value::Null);
        if args["path"] != "README.md" || !d["output"].as_str().unwrap_or("").contains("# aria-web")
        {
            b.fail(&format!(
                "the revealed card should show its args and output: {d}"
            ))
            .await;
        }
        if b.count(".tool-card.open").await != 1 {
            b.fail("clicking one card opened others too").await;
        }

        // Nothing: no tool cards at all, for finished and running turns.
        choose_setting(b, "tool_detail", "nothing").await;
        b.poll("no visible tool card under Nothing", secs(5), || async {
            (visible_count(b, ".tool-card").await == 0).then_some(())
        })
        .await;
        if visible_count(b, ".msg-assistant").await != 1
            || visible_count(b, ".msg-commentary").await != 4
        {
            b.fail("under Nothing the answer and the commentary should still show")
                .await;
        }
        start_recorder(b).await;
        send(b, "/demo tools").await;
        wait_answers(b, 2).await;
        let recs = records(b).await;
        let shown: Vec<Value> = recs
            .iter()
            .flat_map(tools_of)
            .filter(|c| c["visible"] == true)
            .collect();
        if !shown.is_empty() {
            b.fail(&format!(
                "under Nothing, tool cards showed during a turn:\n{}",
                show(&shown)
            ))
            .await;
        }
        if !recs
            .iter()
            .any(|r| tools_of(r).iter().any(|c| c["state"] == "running"))
        {
            b.fail("the second turn's tool calls never arrived (the check above proves nothing)")
                .await;
        }
        if b.js("return window.__noReload;", vec![]).await != "still here" {
            b.fail("changing a setting reloaded the page").await;
        }
        app.finish().await;
    })
}
