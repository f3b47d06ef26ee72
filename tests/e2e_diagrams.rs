//! Browser tests of Mermaid diagrams in answers: a complete block drawn in
//! the sandboxed renderer frame and shown as an `<img>` from a `blob:` URL
//! (no SVG, no script in the page, nothing fetched from anywhere, hostile
//! diagrams included: a canary server listens), a broken diagram shown as
//! its source with Mermaid's error and its line marked, the Source toggle,
//! copying the source, drawing again in the other theme, axe in both
//! themes, a streamed diagram left as code until it is complete, and blob
//! URLs revoked once their row unmounts. Against the harness's scripted
//! gateway.

use fantoccini::key::Key;
use serde_json::{json, Value};

use crate::support::axe::assert_no_axe_violations;
use crate::support::canary::Canary;
use crate::support::fake_gateway::{message_item, FakeGateway, Step};
use crate::support::ui::*;
use crate::support::{run, secs, Browser, Page};

const GOOD: &str = "flowchart LR\n  accTitle: Build pipeline\n  A[Commit] --> B{Tests pass?}\n  B -->|yes| C[Deploy]\n  B -->|no| D[Fix]";

const BROKEN: &str = "flowchart TD\n  A --> B\n  B -->> C\n  C --> D";

/// A diagram that points everything it can at the canary and tries to
/// run script: directives that loosen security, HTML in labels, clicks,
/// links, CSS with remote URLs. Mermaid draws it.
fn hostile(origin: &str) -> String {
    format!(
        "%%{{init: {{\"securityLevel\": \"loose\", \"themeCSS\": \"@import url({origin}/css); .node rect {{ fill: url({origin}/fill) }}\"}}}}%%\n\
         flowchart LR\n  \
         A[\"<img src='{origin}/label.png' onerror='parent.__mmxss=1'>\"] --> B[\"<script>parent.__mmxss=2</script>x\"]\n  \
         B --> C[\"<a href='javascript:parent.__mmxss=3'>link</a>\"]\n  \
         click A \"{origin}/click\"\n  \
         click B call alert()"
    )
}

/// An image node: Mermaid loads the image to size it, which the frame's
/// policy refuses, so it is not drawn (and nothing is fetched).
fn remote_image(origin: &str) -> String {
    format!("flowchart LR\n  I@{{ img: \"{origin}/node.png\", label: \"img\", w: 60, h: 60 }}\n  I --> J")
}

fn answer(origin: &str) -> String {
    format!(
        "A good one:\n\n```mermaid\n{GOOD}\n```\n\nA broken one:\n\n```mermaid\n{BROKEN}\n```\n\n\
         A hostile one:\n\n```mermaid\n{}\n```\n\nA remote image:\n\n```mermaid\n{}\n```\n\nThe end.",
        hostile(origin),
        remote_image(origin)
    )
}

/// Snapshots of a streamed answer whose diagram completes in the last.
const STREAM: &[&str] = &[
    "Here:\n\n```mermaid\nsequenceDiagram\n  Alice->>Bob: Hi",
    "Here:\n\n```mermaid\nsequenceDiagram\n  Alice->>Bob: Hi\n  Bob-->>Alice: Hello\n```\n\nAnd more",
];

async fn diagrams_page(canary: &Canary) -> (FakeGateway, Page) {
    let fake = FakeGateway::with_thread(
        "c_diagrams",
        "Diagrams",
        vec![
            message_item(1, "user", "draw", None),
            message_item(2, "assistant", &answer(&canary.origin()), None),
        ],
    )
    .await;
    fake.set_turn(|text| {
        let id = format!("a-{text}");
        let t = |v: Value| {
            let mut v = v;
            v["turn_id"] = json!(format!("turn-{text}"));
            Step::Frame(v)
        };
        let mut steps = vec![t(
            json!({"type": "message.start", "message_id": id, "role": "assistant"}),
        )];
        for snapshot in STREAM {
            steps.push(t(
                json!({"type": "message.update", "message_id": id, "text": snapshot}),
            ));
            steps.push(Step::Pause(2500));
        }
        let last = STREAM[STREAM.len() - 1];
        steps.push(t(
            json!({"type": "message.stop", "message_id": id, "final_text": last,
            "model": "fake-model", "tokens": 7}),
        ));
        steps
    });
    let page = fake_page(&fake, "#/t/c_diagrams").await;
    (fake, page)
}

/// Each mermaid block of the page: its state, image, source and error.
const BLOCKS: &str = r#"
return Array.from(document.querySelectorAll('.msg-assistant .code-block'))
  .filter(b => b.querySelector('code[data-lang=mermaid]'))
  .map(b => {
    const img = b.querySelector('img.diagram-img');
    const pre = b.querySelector('pre');
    const toggle = b.querySelector('.diagram-toggle');
    const mark = b.querySelector('mark.diagram-error-line');
    const error = b.querySelector('.diagram-error');
    return {
      state: b.getAttribute('data-diagram'),
      img: img && {
        blob: img.currentSrc.startsWith('blob:'), png: img.hasAttribute('srcset'), alt: img.alt, theme: img.getAttribute('data-theme'),
        shown: !img.closest('[hidden]') && img.getBoundingClientRect().width > 0,
        decoded: img.complete && img.naturalWidth > 0,
      },
      sourceShown: !pre.hidden && pre.getBoundingClientRect().height > 0,
      toggle: toggle && toggle.getAttribute('aria-pressed'),
      error: error && error.textContent,
      mark: mark && mark.textContent,
      source: b.querySelector('code').textContent,
    };
  });
"#;

async fn blocks_when(b: &Browser, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    b.poll(what, secs(60), || async {
        let v = b.js(BLOCKS, vec![]).await;
        ok(&v).then_some(v)
    })
    .await
}

/// Whether `url` (a blob: URL) still loads as an image: a revoked one does
/// not. (`fetch` would be refused by the page's `connect-src`.) The
/// console's "not found" for a revoked one is expected, and taken out.
async fn loads(b: &Browser, url: &Value) -> bool {
    let loaded = b
        .js(
            "return new Promise(done => { const i = new Image(); \
             i.onload = () => done(true); i.onerror = () => done(false); i.src = arguments[0]; });",
            vec![url.clone()],
        )
        .await
        == true;
    if !loaded {
        b.take_console_errors(url.as_str().unwrap_or("blob:")).await;
    }
    loaded
}

/// Mermaid blocks in the logged answer.
const LOGGED: usize = 4;

/// Waits until no block of the logged answer is pending.
async fn settled(b: &Browser) -> Value {
    blocks_when(b, "the diagrams drawn or refused", |v| {
        v.as_array().is_some_and(|a| {
            a.len() == LOGGED
                && a.iter()
                    .all(|x| x["state"] == "drawn" || x["state"] == "failed")
                && a.iter()
                    .all(|x| x["img"].is_null() || x["img"]["decoded"] == true)
        })
    })
    .await
}

/// The good diagram as an image, the hostile one inert; nothing fetched,
/// nothing run, no SVG in the page.
#[test]
fn a_diagram_is_an_inert_image_and_nothing_is_fetched() {
    run(|| async {
        let canary = Canary::start();
        let (_fake, page) = diagrams_page(&canary).await;
        let b = &page.browser;
        let blocks = settled(b).await;
        let good = &blocks[0];
        let want = json!({"blob": true, "png": true, "alt": "Diagram: Build pipeline", "theme": good["img"]["theme"],
                          "shown": true, "decoded": true});
        if good["state"] != "drawn" || good["img"] != want || good["sourceShown"] != false {
            b.fail(&format!("the good diagram must show as an image: {good}"))
                .await;
        }
        // Give anything the hostile diagram might have started time to land.
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        let page_state = b
            .js(
                "const a = document.querySelector('.msg-assistant .markdown');\
                 const frame = document.querySelector('iframe');\
                 return {svg: a.querySelectorAll('svg').length, script: a.querySelectorAll('script').length,\
                   xss: window.__mmxss === undefined ? null : window.__mmxss,\
                   frames: document.querySelectorAll('iframe').length,\
                   sandbox: frame && frame.getAttribute('sandbox'),\
                   frameSrc: frame && new URL(frame.src).pathname,\
                   resources: performance.getEntriesByType('resource').map(e => e.name)\
                     .filter(n => !n.startsWith(location.origin))};",
                vec![],
            )
            .await;
        let want_state = json!({"svg": 0, "script": 0, "xss": null, "frames": 1,
            "sandbox": "allow-scripts", "frameSrc": "/mm/frame.html", "resources": []});
        if page_state != want_state {
            b.fail(&format!("want {want_state}, got {page_state}"))
                .await;
        }
        // Drawn, so its SVG is in an image on the page: inert there too.
        if blocks[2]["state"] != "drawn" || blocks[2]["img"]["decoded"] != true {
            b.fail(&format!("the hostile diagram must be drawn: {}", blocks[2]))
                .await;
        }
        if blocks[3]["state"] != "failed" {
            b.fail(&format!(
                "an image node cannot load its image: {}",
                blocks[3]
            ))
            .await;
        }
        let hits = canary.hits();
        if !hits.is_empty() {
            b.fail(&format!("the canary server was contacted: {hits:?}"))
                .await;
        }
        page.finish().await;
    });
}

/// A broken diagram shows its source, Mermaid's message with the line it
/// names, and that line marked; no image, no toggle.
#[test]
fn a_broken_diagram_shows_its_source_and_error_line() {
    run(|| async {
        let canary = Canary::start();
        let (_fake, page) = diagrams_page(&canary).await;
        let b = &page.browser;
        let blocks = settled(b).await;
        let broken = &blocks[1];
        let error = broken["error"].as_str().unwrap_or_default();
        if broken["state"] != "failed"
            || !broken["img"].is_null()
            || !broken["toggle"].is_null()
            || broken["sourceShown"] != true
            || !error.starts_with("Diagram could not be drawn (line 3):")
            || broken["mark"] != "  B -->> C\n"
            || broken["source"] != format!("{BROKEN}\n")
        {
            b.fail(&format!("the broken diagram: {broken}")).await;
        }
        page.finish().await;
    });
}

/// Source shows the source instead of the image and back; Copy copies the
/// source; both by keyboard.
#[test]
fn the_source_toggles_and_copies() {
    run(|| async {
        let canary = Canary::start();
        let (_fake, page) = diagrams_page(&canary).await;
        let b = &page.browser;
        settled(b).await;
        let origin = b.js("return location.origin;", vec![]).await;
        b.cdp(
            "Browser.grantPermissions",
            json!({"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .await;
        let enter: char = Key::Enter.into();
        b.js(
            "document.querySelector('.diagram-toggle').setAttribute('data-e2e', 'toggle');",
            vec![],
        )
        .await;
        let toggle = b.wait_for("[data-e2e=toggle]", secs(5)).await;
        for (pressed, source_shown, image_shown) in [("true", true, false), ("false", false, true)]
        {
            if let Err(e) = toggle.send_keys(&enter.to_string()).await {
                b.fail(&format!("cannot press Enter on Source: {e}")).await;
            }
            let good = blocks_when(b, "the toggle's effect", |v| v[0]["toggle"] == pressed).await;
            let good = &good[0];
            if good["sourceShown"] != source_shown || good["img"]["shown"] != image_shown {
                b.fail(&format!("after Source pressed={pressed}: {good}"))
                    .await;
            }
        }
        b.js(
            "document.querySelector('.code-copy').setAttribute('data-e2e', 'copy');",
            vec![],
        )
        .await;
        let copy = b.wait_for("[data-e2e=copy]", secs(5)).await;
        if let Err(e) = copy.send_keys(&enter.to_string()).await {
            b.fail(&format!("cannot press Enter on Copy: {e}")).await;
        }
        b.poll("the diagram's source on the clipboard", secs(5), || async {
            let v = b
                .js(
                    "return (async () => navigator.clipboard.readText())();",
                    vec![],
                )
                .await;
            (v == format!("{GOOD}\n")).then_some(())
        })
        .await;
        page.finish().await;
    });
}

/// A theme change draws the diagrams again in it (the old blob revoked);
/// axe finds nothing in either theme.
#[test]
fn diagrams_follow_the_theme_and_pass_axe() {
    run(|| async {
        let canary = Canary::start();
        let (_fake, page) = diagrams_page(&canary).await;
        let b = &page.browser;
        settled(b).await;
        for theme in ["dark", "light"] {
            let old = b
                .js(
                    "return document.querySelector('img.diagram-img').currentSrc;",
                    vec![],
                )
                .await;
            b.js(
                "document.documentElement.setAttribute('data-theme', arguments[0]);",
                vec![json!(theme)],
            )
            .await;
            blocks_when(b, &format!("the diagram drawn {theme}"), |v| {
                v[0]["img"]["theme"] == theme && v[0]["img"]["decoded"] == true
            })
            .await;
            if loads(b, &old).await {
                b.fail(&format!("the {theme} drawing left the old blob URL alive"))
                    .await;
            }
        }
        assert_no_axe_violations(b, "an answer with diagrams").await;
        page.finish().await;
    });
}

/// While the block streams it stays code; once complete (and the answer
/// final) it is drawn once.
#[test]
fn a_streamed_diagram_is_code_until_complete() {
    run(|| async {
        let canary = Canary::start();
        let (_fake, page) = diagrams_page(&canary).await;
        let b = &page.browser;
        settled(b).await;
        send(b, "stream").await;
        let open = blocks_when(b, "the open diagram", |v| {
            v.as_array().is_some_and(|a| a.len() == LOGGED + 1)
        })
        .await;
        let open = &open[LOGGED];
        if !open["state"].is_null() || !open["img"].is_null() || open["sourceShown"] != true {
            b.fail(&format!("an unfinished diagram must stay code: {open}"))
                .await;
        }
        let done = blocks_when(b, "the streamed diagram drawn", |v| {
            v[LOGGED]["state"] == "drawn" && v[LOGGED]["img"]["decoded"] == true
        })
        .await;
        if done[LOGGED]["img"]["alt"] != "Diagram: sequenceDiagram" {
            b.fail(&format!("the streamed diagram: {}", done[LOGGED]))
                .await;
        }
        page.finish().await;
    });
}

/// Once its row unmounts (another pane opened), a diagram's blob URL no
/// longer loads.
#[test]
fn blob_urls_are_revoked_when_rows_unmount() {
    run(|| async {
        let canary = Canary::start();
        let (_fake, page) = diagrams_page(&canary).await;
        let b = &page.browser;
        settled(b).await;
        let url = b
            .js(
                "return document.querySelector('img.diagram-img').currentSrc;",
                vec![],
            )
            .await;
        if !loads(b, &url).await {
            b.fail("a drawn diagram's blob URL must load").await;
        }
        new_thread_pane(b).await;
        b.poll("the blob URL revoked", secs(10), || async {
            (!loads(b, &url).await).then_some(())
        })
        .await;
        page.finish().await;
    });
}
