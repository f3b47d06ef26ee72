//! Browser end-to-end tests through the real Hermes Agent 0.19.0: a turn
//! with a tool call through Hermes's own gateway and the aria plugin
//! (`--agent hermes`, over the Hermes link), and an approval denied, then
//! allowed once, through that link and through its API server
//! (`--agent hermes-api`). The
//! reference gateway serves the real `dist/`, Hermes (from
//! `scripts/hermes-setup`, in `tools/hermes-venv`) sits between the gateway
//! and the scripted fake model of the gateway's tests, headless Chromium in
//! front. No network.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_hermes
//! ```
//!
//! Without the venv the test fails, saying to run `scripts/hermes-setup`,
//! unless `ARIA_SKIP_HERMES=1` (or `ARIA_HERMES_VENV` names another venv).
//! Hermes's own log is printed when the test fails.
#![cfg(not(target_arch = "wasm32"))]

// This suite uses a part of the harness; the e2e binary uses all of it.
#[allow(dead_code, unused_imports)]
mod support;

// The gateway's test helpers for a real Hermes and its scripted model
// (this suite uses a part of them; the gateway's tests use all of them).
#[allow(dead_code)]
#[path = "../gateway/tests/support/fake_model.rs"]
mod fake_model;
#[allow(dead_code)]
#[path = "../gateway/tests/support/hermes.rs"]
mod hermes;

use std::future::Future;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use fake_model::{FakeModel, COMMAND_ANSWER, TOOL_ANSWER};
use hermes::Hermes;
use support::ui::{send, send_new_thread, wait_answers, CONNECTED};
use support::{run_catching, secs, App, GatewayOpts};

const QUESTION: &str = "Read the note, please.";

/// Installed right after the page loaded: remembers whether any answer
/// bubble ever carried `data-streaming=true` and the distinct texts it
/// showed meanwhile, and the states every tool card went through, however
/// briefly (the fake model streams its answer in ~200 ms).
const WATCHER: &str = r#"
window.__e2e = { streamingSeen: false, streamingTexts: [], toolStates: [] };
const look = () => {
  const s = document.querySelector('.msg-assistant[data-streaming=true]');
  if (s) {
    window.__e2e.streamingSeen = true;
    const body = s.querySelector('.msg-body');
    const text = body ? body.textContent : '';
    const texts = window.__e2e.streamingTexts;
    if (texts[texts.length - 1] !== text) texts.push(text);
  }
  const states = Array.from(document.querySelectorAll('.tool-card'), c => c.getAttribute('data-state')).join(',');
  const seen = window.__e2e.toolStates;
  if (states && seen[seen.length - 1] !== states) seen.push(states);
};
new MutationObserver(look).observe(document.body,
  { subtree: true, childList: true, characterData: true, attributes: true });
look();
"#;

/// The finished turn, read in one script so the values agree.
const RESULT: &str = r#"
const t = (root, s) => { const e = root && root.querySelector(s); return e ? e.textContent : null; };
const answers = Array.from(document.querySelectorAll('.msg-assistant'));
const answer = answers[answers.length - 1] || null;
const cards = Array.from(document.querySelectorAll('.tool-card'));
const card = cards[0] || null;
return {
  hash: location.hash,
  users: Array.from(document.querySelectorAll('.msg-user')).filter(e => e.textContent.includes(arguments[0])).length,
  pending: document.querySelectorAll('.msg-user.pending').length,
  answers: answers.length,
  text: t(answer, '.msg-body'),
  model: t(answer, '.msg-footer .model'),
  cards: cards.length,
  state: card && card.getAttribute('data-state'),
  icon: t(card, '.tool-status'),
  line: t(card, '.tool-text'),
  duration: t(card, '.tool-duration'),
  cardBeforeAnswer: !!(card && answer && (card.compareDocumentPosition(answer) & Node.DOCUMENT_POSITION_FOLLOWING)),
  watched: window.__e2e || null,
};
"#;

/// One turn with a tool call: the `read_file` card of the note spins,
/// settles on ✓ and opens to its tool; the answer streams into its own
/// bubble and ends as the model's text, with Hermes named in the footer.
#[test]
fn a_hermes_turn_streams_an_answer_after_a_read_file_card() {
    through_hermes(Route::Link, turn);
}

/// A `rm -rf` that Hermes flags waits for the user in the thread: denied,
/// the files stay; allowed once, they are gone. Through the aria plugin,
/// where Hermes's `send_exec_approval` asks with all four of its choices.
#[test]
fn a_hermes_approval_denied_keeps_the_files_and_allowed_once_removes_them() {
    through_hermes(Route::Link, |opts, workdir| {
        approvals(opts, workdir, &THROUGH_LINK)
    });
}

/// The same through Hermes's API server, the lesser path: its `session`
/// lasts for its run only, so the gateway does not offer it.
#[test]
fn a_hermes_api_approval_denied_keeps_the_files_and_allowed_once_removes_them() {
    through_hermes(Route::ApiServer, |opts, workdir| {
        approvals(opts, workdir, &THROUGH_API)
    });
}

/// What a route offers and says of a denied command.
struct Approvals {
    choices: &'static [&'static str],
    /// How the denied command's card output begins.
    denied: &'static str,
}

/// Through the plugin, the card shows what Hermes told the model.
const THROUGH_LINK: Approvals = Approvals {
    choices: &[
        "Allow once",
        "Allow for this thread",
        "Always allow",
        "Deny",
    ],
    denied: "BLOCKED: Command denied by user.",
};
const THROUGH_API: Approvals = Approvals {
    choices: &["Allow once", "Always allow", "Deny"],
    denied: "not run: denied",
};

// Plans and sub-agents through Hermes (§14).
#[path = "e2e_hermes/plans.rs"]
mod plans;

/// How the gateway reaches Hermes.
#[derive(Clone, Copy, PartialEq)]
enum Route {
    /// `--agent hermes`: the aria plugin in Hermes's gateway, over the link.
    Link,
    /// `--agent hermes-api`: Hermes's API server, the lesser path.
    ApiServer,
}

/// Runs `body` with the options of a gateway whose agent is a real Hermes
/// (its working directory holding the note) on the fake model; prints
/// what the model got and Hermes's log if it fails.
fn through_hermes<Fut>(
    route: Route,
    body: impl FnOnce(GatewayOpts, PathBuf) -> Fut + Send + 'static,
) where
    Fut: Future<Output = ()>,
{
    if hermes::skip_requested() {
        eprintln!("ARIA_SKIP_HERMES=1: skipping the browser test against Hermes Agent");
        return;
    }
    let mut hermes = Hermes::new().unwrap_or_else(|e| panic!("{e}"));
    let note = hermes.workdir().join("note.txt");
    std::fs::write(&note, "hello from the note\n").expect("write the note");
    let note = note.to_str().expect("utf-8 temp path").to_string();
    let model = FakeModel::start_with_note(&note);
    let started = Instant::now();
    // The gateway's data dir: it makes the link's secret there, which the
    // plugin reads (retrying until the gateway is up).
    let data = hermes.workdir().with_file_name("gateway-data");
    let opts = match route {
        Route::Link => {
            let link = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port for the link");
            let secret = data.join("hermes-link.secret");
            if let Err(e) = hermes.spawn_linked(&model.base_url(), "fake-tool", link, &secret) {
                panic!("{e}");
            }
            GatewayOpts {
                data_dir: Some(data),
                extra_args: vec![
                    "--agent".into(),
                    "hermes".into(),
                    "--hermes-link".into(),
                    link.to_string(),
                ],
                ..GatewayOpts::default()
            }
        }
        Route::ApiServer => {
            if let Err(e) = hermes.start(&model.base_url(), "fake-tool") {
                panic!("{e}");
            }
            GatewayOpts {
                extra_args: vec![
                    "--agent".into(),
                    "hermes-api".into(),
                    "--hermes-url".into(),
                    hermes.url(),
                    "--hermes-key".into(),
                    hermes.key().to_string(),
                ],
                ..GatewayOpts::default()
            }
        }
    };
    eprintln!("Hermes started after {:?}", started.elapsed());
    let workdir = hermes.workdir();
    let outcome = run_catching(move || body(opts, workdir));
    if let Err(panic) = outcome {
        eprintln!(
            "== the fake model got {} chat completion request(s)\n== Hermes's log:\n{}",
            model.completions().len(),
            hermes.log()
        );
        std::panic::resume_unwind(panic);
    }
}

async fn turn(opts: GatewayOpts, workdir: PathBuf) {
    let note = workdir.join("note.txt").display().to_string();
    let app = App::start_with(opts).await;
    let b = &app.browser;
    b.wait_for(CONNECTED, secs(30)).await;
    b.js(WATCHER, vec![]).await;

    // From the landing page the first message starts a thread.
    send_new_thread(b, QUESTION).await;

    // A cold Hermes takes seconds over its first turn, more on a loaded
    // machine: wait for the card, then for the whole turn to finish.
    b.wait_for(".tool-card", secs(120)).await;
    b.poll(
        "the turn to finish (answer footer, no stop button, no streaming)",
        secs(120),
        || async {
            let v = b
                .js(
                    "return [document.querySelectorAll('.msg-assistant .msg-footer').length,
                         !!document.querySelector('[data-testid=stop]'),
                         !!document.querySelector('[data-testid=typing]'),
                         !!document.querySelector('.msg-assistant[data-streaming=true]'),
                         !!document.querySelector('.tool-card[data-state=running]')];",
                    vec![],
                )
                .await;
            let done = v[0].as_u64().unwrap_or(0) >= 1
                && v[1] == false
                && v[2] == false
                && v[3] == false
                && v[4] == false;
            done.then_some(())
        },
    )
    .await;
    b.wait_gone(".msg-user.pending", secs(10)).await;

    let r = b.js(RESULT, vec![json!(QUESTION)]).await;
    let watched = &r["watched"];

    // The answer: streamed (seen with data-streaming=true, growing through
    // prefixes of the model's text), then exactly the model's text.
    if watched["streamingSeen"] != true {
        b.fail(&format!(
            "no answer bubble was ever seen with data-streaming=true (message.start/update \
             not rendered as a streaming bubble?); what was watched: {watched}"
        ))
        .await;
    }
    let texts: Vec<String> =
        serde_json::from_value(watched["streamingTexts"].clone()).unwrap_or_default();
    let bad: Vec<&String> = texts
        .iter()
        .filter(|t| !TOOL_ANSWER.starts_with(t.trim()))
        .collect();
    if !bad.is_empty() {
        b.fail(&format!(
            "while streaming, the bubble showed text that is not a prefix of {TOOL_ANSWER:?}: \
             {bad:?} (all texts seen: {texts:?})"
        ))
        .await;
    }
    let text = r["text"].as_str().unwrap_or_default().trim().to_string();
    if text != TOOL_ANSWER || r["answers"] != 1 {
        b.fail(&format!(
            "expected one answer reading {TOOL_ANSWER:?}, got {} answer(s), the last {text:?}",
            r["answers"]
        ))
        .await;
    }
    // Over the link the footer names the model Hermes called.
    if !r["model"]
        .as_str()
        .unwrap_or_default()
        .contains("fake-tool")
    {
        b.fail(&format!(
            "the answer's footer should name the model fake-tool, got {}",
            r["model"]
        ))
        .await;
    }
    if r["users"] != 1 || r["pending"] != 0 {
        b.fail(&format!(
            "expected exactly one confirmed .msg-user bubble with {QUESTION:?}: {r}"
        ))
        .await;
    }

    // The tool card: one read_file call of the note, finished with ✓ and a
    // duration, above the answer. (Hermes's read_file is quick: tool.start
    // and tool.end may land in one frame, so the spinner is not required.)
    let line = r["line"].as_str().unwrap_or_default();
    let card_ok = r["cards"] == 1
        && r["state"] == "ok"
        && r["icon"] == "✓"
        && line.contains("read_file")
        && line.contains("note.txt")
        && !r["duration"].as_str().unwrap_or_default().is_empty();
    if !card_ok {
        b.fail(&format!(
            "expected one finished read_file card of note.txt with ✓ and a duration: {r}"
        ))
        .await;
    }
    if r["cardBeforeAnswer"] != true {
        b.fail(&format!("the tool card should come before the answer: {r}"))
            .await;
    }
    let states: Vec<String> =
        serde_json::from_value(watched["toolStates"].clone()).unwrap_or_default();
    if states.last().map(String::as_str) != Some("ok")
        || states.iter().any(|s| s != "running" && s != "ok")
    {
        b.fail(&format!(
            "the tool card should only ever be running or ok, ending ok; its states were {states:?}"
        ))
        .await;
    }

    // Opened, the card names its tool and shows its arguments (which the
    // gateway reads from Hermes's transcript: the run's events have none).
    if !b.exists(".tool-card .tool-detail").await {
        b.click(".tool-card .tool-line").await;
    }
    b.wait_for(".tool-card .tool-detail .tool-name", secs(10))
        .await;
    let name = b.text_of(".tool-card .tool-name").await;
    let args = b.text_of(".tool-card .tool-args").await;
    let args: serde_json::Value = serde_json::from_str(&args).unwrap_or_default();
    if name.trim() != "read_file" || args != json!({"path": note}) {
        b.fail(&format!(
            "the opened card should name read_file with the note's path {note:?}: \
             {name:?} {args}"
        ))
        .await;
    }

    eprintln!("streamed texts seen: {texts:?}; tool card states: {states:?}");
    app.finish().await;
}

/// Denied, then allowed once: the same `rm -rf` of a directory in Hermes's
/// working directory, asked in the thread each time with the choices
/// the route offers. The thread starts with a plain question: Hermes's gateway
/// adds a first-contact note to a platform's first message, which hides
/// the fake model's script tag.
async fn approvals(opts: GatewayOpts, workdir: PathBuf, route: &Approvals) {
    let victim = workdir.join("victim");
    std::fs::create_dir_all(&victim).expect("make the victim");
    std::fs::write(victim.join("keep.txt"), "precious\n").expect("fill the victim");
    let command = format!("rm -rf {}", victim.display());
    let ask = format!("[fake-terminal] {command}");

    let app = App::start_with(opts).await;
    let b = &app.browser;
    b.wait_for(CONNECTED, secs(30)).await;
    // From the landing page the first message starts a thread.
    send_new_thread(b, QUESTION).await;
    wait_answers(b, 1).await;
    send(b, &ask).await;
    answer_hermes(b, &command, route.choices, "deny", "Denied").await;
    wait_answers(b, 2).await;
    check_command_turn(b, &command, "failed", route.denied).await;
    assert!(victim.exists(), "a denied rm ran");

    send(b, &ask).await;
    answer_hermes(b, &command, route.choices, "once", "Allowed once").await;
    wait_answers(b, 3).await;
    check_command_turn(b, &command, "ok", "").await;
    assert!(!victim.exists(), "an allowed rm did not run");
    assert_eq!(b.count("[data-testid=approval]").await, 2);
    app.finish().await;
}

/// Waits (as long as a cold Hermes needs) for the pending request of
/// `command`, checks that it offers `offered`, answers `choice` and waits
/// until the card reads `said`.
async fn answer_hermes(
    b: &support::Browser,
    command: &str,
    offered: &[&str],
    choice: &str,
    said: &str,
) {
    let pending = "[data-testid=approval][data-state=pending]";
    b.wait_for(pending, secs(120)).await;
    let shown = b.text_of(&format!("{pending} .approval-command")).await;
    let labels = b
        .texts_of(&format!("{pending} .approval-choices button"))
        .await;
    if shown != command || labels != offered {
        b.fail(&format!(
            "want a request of {command:?} offering {offered:?}: {shown:?} {labels:?}"
        ))
        .await;
    }
    b.click(&format!("{pending} button[data-choice={choice}]"))
        .await;
    let resolved = "[data-testid=approval][data-state=resolved]";
    b.poll(
        &format!("a request resolved {said:?}"),
        secs(30),
        || async {
            let lines = b
                .texts_of(&format!("{resolved} [data-testid=approval-outcome]"))
                .await;
            (lines.last().map(String::as_str) == Some(said)).then_some(())
        },
    )
    .await;
}

/// The last turn: its `terminal` card of `command` in `state` with an
/// output that begins with `output` (none when it is empty), then the
/// model's answer.
async fn check_command_turn(b: &support::Browser, command: &str, state: &str, output: &str) {
    let v = b
        .js(
            "const c = Array.from(document.querySelectorAll('.tool-card')).pop(); \
             const a = Array.from(document.querySelectorAll('.msg-assistant .msg-body')).pop(); \
             if (c && !c.classList.contains('open')) c.querySelector('.tool-line').click(); \
             return [c && c.getAttribute('data-state'), c && c.querySelector('.tool-text').textContent, \
                     a && a.textContent.trim()];",
            vec![],
        )
        .await;
    let out = b
        .poll("the terminal card's output", secs(10), || async {
            b.js(
                "const c = Array.from(document.querySelectorAll('.tool-card')).pop(); \
                 const o = c && c.querySelector('.tool-output'); \
                 const none = c && c.querySelector('.tool-detail .muted'); \
                 const args = c && c.querySelector('.tool-args'); \
                 return o ? [o.textContent || (none ? none.textContent : ''), args.textContent] : null;",
                vec![],
            )
            .await
            .as_array()
            .map(|v| (v[0].as_str().unwrap_or_default().to_string(), v[1].clone()))
        })
        .await;
    let (out, args) = out;
    let args: serde_json::Value =
        serde_json::from_str(args.as_str().unwrap_or_default()).unwrap_or_default();
    let want_out = if output.is_empty() {
        "(no output)"
    } else {
        output
    };
    let line_ok = v[1].as_str().is_some_and(|l| l.contains("rm -rf"));
    let args_ok = args == json!({ "command": command });
    if v[0] != state || !line_ok || !args_ok || v[2] != COMMAND_ANSWER || !out.starts_with(want_out)
    {
        b.fail(&format!(
            "want the terminal card {state} of {command:?} with output {want_out:?}, then \
             {COMMAND_ANSWER:?}: {v} args {args} output {out:?}"
        ))
        .await;
    }
}
