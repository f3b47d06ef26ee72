//! Streaming mode Progress: one draft per running turn with a label and
//! compact lines, its settings, the final answer replacing it, and the
//! "N tool calls" expander.

use aria_web::render::LABEL_POOL;
use serde_json::{json, Value};

use crate::support::fake_gateway::{message_item, FakeGateway, Step};
use crate::support::recorder::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

fn is_auto_label(s: &str) -> bool {
    s.strip_suffix('…').is_some_and(|w| LABEL_POOL.contains(&w))
}

/// The draft lines of each recorded state that had a draft.
fn drafts(recs: &[Value]) -> Vec<Vec<(String, bool)>> {
    recs.iter()
        .filter_map(|r| r["draft"].as_array())
        .map(|lines| {
            lines
                .iter()
                .map(|l| {
                    (
                        l["text"].as_str().unwrap_or("").to_string(),
                        l["label"] == true,
                    )
                })
                .collect()
        })
        .collect()
}

/// Every line of every recorded draft, in order.
fn draft_lines(recs: &[Value]) -> Vec<String> {
    drafts(recs).into_iter().flatten().map(|(t, _)| t).collect()
}

async fn progress_mode(b: &Browser) {
    choose_setting(b, "streaming", "progress").await;
}

#[test]
fn progress_draft_appears_at_the_second_work_event_and_gives_way_to_the_answer() {
    run(|| async {
        // Beats 5 steps (250 ms) apart: the state after the first is
        // seen even when the machine is busy.
        let app = demo_app(50).await;
        let b = &app.browser;
        progress_mode(b).await;

        // `/demo commentary`: three beats 5 steps apart, then the answer.
        start_recorder(b).await;
        new_thread_answered(b, "/demo commentary").await;
        let recs = records(b).await;
        let one_beat_no_draft = recs
            .iter()
            .any(|r| r["commentary"] == 1 && r["draft"].is_null());
        let early_draft = recs
            .iter()
            .any(|r| r["commentary"].as_u64().unwrap_or(0) < 2 && !r["draft"].is_null());
        let second_beat_draft = recs.iter().any(|r| {
            r["commentary"].as_u64().unwrap_or(0) >= 2
                && r["answersVisible"] == 0
                && !r["draft"].is_null()
        });
        let late_missing = recs.iter().any(|r| {
            r["commentary"].as_u64().unwrap_or(0) >= 2
                && r["answersVisible"] == 0
                && r["draft"].is_null()
                && r["typing"] == true
        });
        if !one_beat_no_draft || early_draft || !second_beat_draft || late_missing {
            b.fail(&format!(
                "the draft should be absent after the 1st work event and shown from the 2nd until the answer \
                 (1 beat without draft: {one_beat_no_draft}, draft before 2 beats: {early_draft}, \
                 draft after 2 beats: {second_beat_draft}, missing while working: {late_missing}):\n{}",
                show(&recs)
            ))
            .await;
        }
        // The label is the first line (an automatic word of the pool + …)
        // until enough work lines scroll it away; ≤ 4 lines (the default).
        let ds = drafts(&recs);
        let first_ok = ds
            .first()
            .and_then(|d| d.first())
            .is_some_and(|(t, l)| *l && is_auto_label(t));
        if !first_ok {
            b.fail(&format!(
                "the first draft should open with an automatic label:\n{}",
                show(&ds)
            ))
            .await;
        }
        for d in &ds {
            let labels_ok = d
                .iter()
                .enumerate()
                .all(|(i, (t, l))| !*l || (i == 0 && is_auto_label(t)));
            if !labels_ok || d.len() > 4 || d.is_empty() {
                b.fail(&format!(
                    "a draft has ≤ 4 lines and at most one label, first: {d:?}"
                ))
                .await;
            }
        }
        let both = recs
            .iter()
            .any(|r| !r["draft"].is_null() && r["answersVisible"].as_u64().unwrap_or(0) > 0);
        let streamed = recs.iter().any(|r| r["streamingVisible"] == true);
        let commentary_shown = recs
            .iter()
            .any(|r| r["commentaryVisible"].as_u64().unwrap_or(0) > 0);
        if both || streamed || commentary_shown {
            b.fail(&format!(
                "in Progress mode the answer must replace the draft (draft and answer together: {both}), \
                 no streaming bubble ({streamed}) and no commentary bubbles ({commentary_shown}) may show"
            ))
            .await;
        }
        if b.exists("[data-testid=progress-draft]").await
            || visible_count(b, ".msg-assistant").await != 1
        {
            b.fail("after the turn the draft should be gone and the answer shown")
                .await;
        }

        // `/demo tools`: tool lines in the draft, then "5 tool calls".
        start_recorder(b).await;
        send(b, "/demo tools").await;
        wait_answers(b, 2).await;
        let recs = records(b).await;
        let all_lines = draft_lines(&recs);
        for want in [
            "💻 terminal: \"ls -la\"",
            "📖 read_file: \"README.md\"",
            "💻 terminal: Compiling",
        ] {
            if !all_lines.iter().any(|l| l.contains(want)) {
                b.fail(&format!(
                    "the draft never showed a line with {want:?}; lines seen:\n{}",
                    show(&all_lines)
                ))
                .await;
            }
        }
        if recs_tools_visible(&recs) {
            b.fail("tool cards showed during a Progress turn").await;
        }
        app.finish().await;
    })
}

/// In Progress mode a finished turn's cards fold behind one "N tool calls"
/// expander (in the turn's first work row, which stays shown for it while
/// its card is hidden), and it opens and closes them.
#[test]
fn progress_tool_calls_expander_reveals_the_turns_cards() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        progress_mode(b).await;
        start_recorder(b).await;
        new_thread_answered(b, "/demo tools").await;
        if recs_tools_visible(&records(b).await) {
            b.fail("tool cards showed during a Progress turn").await;
        }
        b.poll("a visible \"N tool calls\" expander", secs(5), || async {
            (visible_count(b, "[data-testid=tool-calls]").await == 1).then_some(())
        })
        .await;
        let label = b.text_of("[data-testid=tool-calls]").await;
        if !label.contains("5 tool calls") || visible_count(b, ".tool-card").await != 0 {
            b.fail(&format!(
                "after the turn an expander \"5 tool calls\" should stand for the hidden cards, got {label:?}"
            ))
            .await;
        }
        b.click("[data-testid=tool-calls]").await;
        b.poll(
            "the expander to reveal the 5 tool cards",
            secs(5),
            || async { (visible_count(b, ".tool-card").await == 5).then_some(()) },
        )
        .await;
        if b.text_of("[data-testid=tool-calls]").await.contains('▸')
            || b
                .js("return document.querySelector('[data-testid=tool-calls]').getAttribute('aria-expanded');", vec![])
                .await
                != "true"
        {
            b.fail("the open expander should say so (▾, aria-expanded=true)")
                .await;
        }
        b.click("[data-testid=tool-calls]").await;
        b.poll(
            "a second click to fold the cards again",
            secs(5),
            || async { (visible_count(b, ".tool-card").await == 0).then_some(()) },
        )
        .await;
        app.finish().await;
    })
}

fn recs_tools_visible(recs: &[Value]) -> bool {
    recs.iter().any(|r| tools_visible(r) > 0)
}

fn tools_visible(r: &Value) -> usize {
    r["tools"]
        .as_array()
        .map(|t| t.iter().filter(|c| c["visible"] == true).count())
        .unwrap_or(0)
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

#[test]
fn progress_draft_limits_label_modes_and_tool_lines() {
    run(|| async {
        let app = demo_app(15).await;
        let b = &app.browser;
        with_settings(b, |b| async move {
            choose(b, "streaming", "progress").await;
            fill(b, "progress_max_lines", "3").await;
            fill(b, "progress_max_line_chars", "30").await;
            choose(b, "progress_label", "fixed").await;
            fill(b, "progress_label_text", "Crunching").await;
        })
        .await;
        let s = stored_settings(b).await;
        let p = &s["progress"];
        if p["max_lines"] != 3
            || p["max_line_chars"] != 30
            || p["label"] != "fixed"
            || p["label_text"] != "Crunching"
        {
            b.fail(&format!("the progress settings were not saved: {s}"))
                .await;
        }

        // At most 3 lines of at most 30 characters, under a fixed label.
        start_recorder(b).await;
        new_thread_answered(b, "/demo tools").await;
        let ds = drafts(&records(b).await);
        if ds.is_empty() {
            b.fail("no progress draft during /demo tools").await;
        }
        for d in &ds {
            let ok = d.len() <= 3
                && d.iter()
                    .enumerate()
                    .all(|(i, (t, l))| !*l || (i == 0 && t == "Crunching"))
                && d.iter().all(|(t, _)| chars(t) <= 30);
            if !ok {
                b.fail(&format!(
                    "each draft should be ≤ 3 lines of ≤ 30 characters, the label \"Crunching\" first if shown: {d:?}"
                ))
                .await;
            }
        }
        let labelled = ds
            .first()
            .and_then(|d| d.first())
            .is_some_and(|(t, l)| *l && t == "Crunching");
        if !labelled
            || !ds.iter().any(|d| d.len() == 3)
            || !ds.iter().flatten().any(|(t, _)| t.ends_with('…'))
        {
            b.fail(&format!(
                "the limits should bite: some draft with exactly 3 lines and some line cut with …:\n{}",
                show(&ds)
            ))
            .await;
        }

        // Hidden label: only work lines.
        choose_setting(b, "progress_label", "hidden").await;
        start_recorder(b).await;
        send(b, "/demo tools").await;
        wait_answers(b, 2).await;
        let ds = drafts(&records(b).await);
        if ds.is_empty() || ds.iter().flatten().any(|(t, l)| *l || t == "Crunching") {
            b.fail(&format!(
                "with the label hidden, drafts should have no label line:\n{}",
                show(&ds)
            ))
            .await;
        }

        // Tool lines off: only the (automatic) label.
        with_settings(b, |b| async move {
            choose(b, "progress_label", "auto").await;
            check(b, "progress_tool_lines", false).await;
        })
        .await;
        start_recorder(b).await;
        send(b, "/demo tools").await;
        wait_answers(b, 3).await;
        let ds = drafts(&records(b).await);
        let ok = !ds.is_empty()
            && ds
                .iter()
                .all(|d| d.len() == 1 && d[0].1 && is_auto_label(&d[0].0));
        if !ok {
            b.fail(&format!(
                "with tool lines off each draft should be just an automatic label:\n{}",
                show(&ds)
            ))
            .await;
        }
        app.finish().await;
    })
}

/// A turn whose tool previews say what the call is for, while the command
/// and path live in the arguments (the demo's previews equal their commands,
/// so Raw and Explain look alike there).
async fn detail_fake() -> FakeGateway {
    let fake = FakeGateway::with_thread(
        "c_p",
        "Progress lab",
        vec![
            message_item(1, "user", "hi", None),
            message_item(2, "assistant", "Hello.", None),
        ],
    )
    .await;
    fake.set_turn(|text| {
        let turn = format!("turn-{}", text.len());
        let t = |v: Value| {
            let mut v = v;
            v["turn_id"] = json!(turn);
            Step::Frame(v)
        };
        vec![
            t(json!({"type": "typing", "on": true})),
            Step::Pause(80),
            t(
                json!({"type": "tool.start", "index": 1, "name": "terminal", "emoji": "💻",
                     "preview": "List the project files",
                     "args": {"command": "ls -la --color=never", "cwd": "/srv/app"}}),
            ),
            Step::Pause(150),
            t(
                json!({"type": "tool.start", "index": 2, "name": "read_file", "emoji": "📖",
                     "preview": "Read the guide",
                     "args": {"path": "docs/GUIDE.md"}}),
            ),
            Step::Pause(400),
            t(
                json!({"type": "tool.end", "index": 1, "name": "terminal", "ok": true, "duration": 0.2,
                     "output_preview": "3 files", "output": "a\nb\nc"}),
            ),
            t(
                json!({"type": "tool.end", "index": 2, "name": "read_file", "ok": true, "duration": 0.3,
                     "output_preview": "10 lines", "output": "# Guide"}),
            ),
            Step::Pause(80),
            t(
                json!({"type": "message.start", "message_id": format!("a-{}", text.len()), "role": "assistant"}),
            ),
            Step::Pause(50),
            t(
                json!({"type": "message.update", "message_id": format!("a-{}", text.len()), "text": "Done."}),
            ),
            Step::Pause(50),
            t(
                json!({"type": "message.stop", "message_id": format!("a-{}", text.len()), "final_text": "Done.",
                     "model": "fake-model", "tokens": 5}),
            ),
            t(json!({"type": "typing", "on": false})),
        ]
    });
    fake
}

#[test]
fn progress_detail_explain_vs_raw() {
    run(|| async {
        let fake = detail_fake().await;
        let page = fake_page(&fake, "#/t/c_p").await;
        let b = &page.browser;
        b.wait_for(".msg-assistant .msg-footer", secs(15)).await;
        progress_mode(b).await;

        // Explain (the default): what the call is for, not the command.
        start_recorder(b).await;
        send(b, "first").await;
        wait_answers(b, 2).await;
        let lines = draft_lines(&records(b).await);
        let explain_ok = lines
            .iter()
            .any(|l| l == "💻 terminal: \"List the project files\"")
            && lines
                .iter()
                .any(|l| l == "📖 read_file: \"Read the guide\"")
            && !lines
                .iter()
                .any(|l| l.contains("ls -la") || l.contains("docs/GUIDE.md"));
        if !explain_ok {
            b.fail(&format!(
                "Explain lines should give the previews without commands or paths:\n{}",
                show(&lines)
            ))
            .await;
        }

        // Raw, applied live: the finished turn's (folded) cards switch at once…
        choose_setting(b, "progress_detail", "raw").await;
        b.poll(
            "the card lines to show the raw command",
            secs(5),
            || async {
                let t = b.texts_of(".tool-card .tool-text").await;
                (t.len() == 2
                    && t[0] == "💻 terminal: \"List the project files\", ls -la --color=never"
                    && t[1] == "📖 read_file: \"Read the guide\", docs/GUIDE.md")
                    .then_some(())
            },
        )
        .await;
        // …and the next draft has the command and the path.
        start_recorder(b).await;
        send(b, "second message").await;
        wait_answers(b, 3).await;
        let lines = draft_lines(&records(b).await);
        let raw_ok = lines
            .iter()
            .any(|l| l == "💻 terminal: \"List the project files\", ls -la --color=never")
            && lines
                .iter()
                .any(|l| l == "📖 read_file: \"Read the guide\", docs/GUIDE.md");
        if !raw_ok {
            b.fail(&format!(
                "Raw lines should add the command and the path:\n{}",
                show(&lines)
            ))
            .await;
        }
        page.finish().await;
    })
}
