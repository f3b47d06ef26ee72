//! Hostile content: the XSS corpus (`support::xss_corpus`, plus vectors
//! that point at a local canary server) fed through every place the app
//! shows text — answers, reasoning (field and inline), commentary, tool
//! names, previews, arguments, progress notes and output, thread titles
//! and previews, the chat title, user messages from other devices, the
//! progress draft — and typed through the composer. Nothing may run,
//! nothing may be fetched, and no markup may survive.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::canary::Canary;
use crate::support::connection::assert_no_crash;
use crate::support::fake_gateway::{FakeGateway, FakeOpts};
use crate::support::ui::{paste_and_send, send, set_select, CONNECTED};
use crate::support::xss_corpus::XSS_VECTORS;
use crate::support::{secs, Browser, Page};

/// Trips on script execution and records any dangerous node or attribute
/// as it is added, even if the virtualised timeline unmounts it later.
const PROBE: &str = r#"
window.__pwned = [];
const trip = name => function (...args) { window.__pwned.push(name + '(' + args.join(',') + ')'); };
window.alert = trip('alert'); window.confirm = trip('confirm');
window.prompt = trip('prompt'); window.print = trip('print');
window.__scripts = document.querySelectorAll('script').length;
window.__bad = [];
// Where untrusted text is shown: messages, tool cards, thread titles and
// previews, search hits, the thread's title, progress drafts and notices
// (not the app's own controls around them, such as the search field).
const CONTENT = '.msg, .tool-card, .thread-list, .search-results, .chat-title, .progress-draft, .notices';
const NEVER = new Set(['SCRIPT', 'IFRAME', 'FRAME', 'FRAMESET', 'OBJECT', 'EMBED', 'APPLET',
  'BASE', 'META', 'LINK', 'STYLE', 'SVG', 'MATH', 'IMG', 'IMAGE', 'VIDEO', 'AUDIO', 'SOURCE',
  'TRACK', 'PICTURE', 'PORTAL', 'XMP', 'PLAINTEXT', 'MARQUEE']);
// The page's own <noscript> is fine; in content these are markup that survived.
const NEVER_IN_CONTENT = new Set(['NOSCRIPT', 'TEMPLATE', 'DIALOG', 'DETAILS', 'IMG']);
const URL_ATTRS = ['href', 'src', 'action', 'formaction', 'data', 'srcset', 'poster',
  'background', 'xlink:href', 'ping', 'srcdoc', 'codebase', 'cite', 'longdesc'];
window.__check = function (el) {
  const tag = el.tagName.toUpperCase();
  const where = () => tag + ' ' + el.outerHTML.slice(0, 160);
  const inContent = !!el.closest(CONTENT);
  if (NEVER.has(tag) || (inContent && NEVER_IN_CONTENT.has(tag))) {
    window.__bad.push('element ' + where());
  }
  for (const a of Array.from(el.attributes)) {
    const n = a.name.toLowerCase();
    if (n.startsWith('on')) window.__bad.push('handler ' + where());
    if (inContent && n === 'style') window.__bad.push('inline style ' + where());
    if (inContent && URL_ATTRS.includes(n) && !(tag === 'A' && n === 'href')) {
      window.__bad.push('url attribute ' + where());
    }
  }
  if (inContent && ['FORM', 'TEXTAREA', 'SELECT', 'OPTION'].includes(tag)) {
    window.__bad.push('form control ' + where());
  }
  if (inContent && tag === 'INPUT' && !(el.type === 'checkbox' && el.disabled)) {
    window.__bad.push('input ' + where());
  }
  if (tag === 'A' && el.hasAttribute('href')) {
    const href = el.getAttribute('href').trim();
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href);
    const okScheme = !scheme || ['http', 'https', 'mailto'].includes(scheme[1].toLowerCase());
    if (!okScheme) window.__bad.push('link scheme ' + where());
    if (el.closest('.markdown')) {
      const rel = (el.getAttribute('rel') || '').split(/\s+/);
      if (!rel.includes('noopener') || !rel.includes('noreferrer')) {
        window.__bad.push('link rel ' + where());
      }
    }
  }
};
const scan = root => {
  if (root.nodeType !== 1) return;
  window.__check(root);
  for (const el of root.querySelectorAll('*')) window.__check(el);
};
window.__scanAll = () => scan(document.body);
window.__observer = new MutationObserver(records => {
  for (const r of records) {
    if (r.type === 'attributes') window.__check(r.target);
    for (const n of r.addedNodes) scan(n);
  }
});
window.__observer.observe(document.documentElement,
  { childList: true, subtree: true, attributes: true });
return window.__scripts;
"#;

/// The corpus with its remote hosts pointed at the canary, plus vectors
/// that would each fetch something from it if any markup survived.
fn vectors(canary: &Canary) -> Vec<String> {
    let origin = canary.origin();
    let host = canary.host();
    let mut v: Vec<String> = XSS_VECTORS
        .iter()
        .map(|s| {
            s.replace("https://example.com", &origin)
                .replace("https://evil.example", &origin)
                .replace("//evil.example", &format!("//{host}"))
        })
        .collect();
    for extra in [
        format!("![remote image]({origin}/md-image.png)"),
        format!("![ref image][i]\n\n[i]: {origin}/ref-image.png"),
        format!("![proto-relative](//{host}/proto-relative.png)"),
        format!("<img src=\"{origin}/raw-img.png\">"),
        format!("<img srcset=\"{origin}/srcset.png 1x\">"),
        format!("<picture><source srcset=\"{origin}/picture.png\"></picture>"),
        format!("<iframe src=\"{origin}/iframe\"></iframe>"),
        format!("<link rel=prefetch href=\"{origin}/prefetch\">"),
        format!("<link rel=stylesheet href=\"{origin}/style.css\">"),
        format!("<style>@import url({origin}/import.css);</style>"),
        format!("<div style=\"background:url({origin}/bg.png)\">bg</div>"),
        format!("<video poster=\"{origin}/poster.png\"></video>"),
        format!("<audio src=\"{origin}/audio.mp3\" autoplay></audio>"),
        format!("<object data=\"{origin}/object\"></object>"),
        format!("<embed src=\"{origin}/embed\">"),
        format!("<svg><image href=\"{origin}/svg-image.png\"/></svg>"),
        format!("<a href=\"{origin}/a\" ping=\"{origin}/ping\">ping</a>"),
        format!("<meta http-equiv=\"refresh\" content=\"0;url={origin}/refresh\">"),
        format!("<form action=\"{origin}/form\"><input type=submit autofocus></form>"),
        format!("<input type=image src=\"{origin}/input-image.png\">"),
        format!("<body background=\"{origin}/body-bg.png\">"),
        format!("<table background=\"{origin}/table-bg.png\"><tr><td>t</td></tr></table>"),
        format!("[plain link]({origin}/link \"title\")"),
        format!("<{origin}/autolink>"),
        "<img src=x onerror=\"window.__pwned.push('onerror')\">".to_string(),
        "<script>window.__pwned.push('script')</script>".to_string(),
        "[x](javascript:window.__pwned.push('link'))".to_string(),
        "\u{1b}[31mred ANSI\u{1b}[0m \u{202e}RTL override\u{202c} zero\u{200b}width \u{0}nul"
            .to_string(),
    ] {
        v.push(extra);
    }
    v
}

/// Inline reasoning (protocol §5) around a vector, and a vector in it.
fn inline_reasoning(v: &str) -> String {
    format!("💭 **Reasoning:**\n```\n{v}\n```\n\n{v}")
}

/// All frames of one hostile turn in channel `cx`: a user message from
/// another device, commentary, a failing tool call with progress, a
/// streamed answer with reasoning, and a final (unstreamed) message.
fn turn_frames(i: usize, v: &str, seq: &mut u64) -> Vec<Value> {
    let ch = "cx";
    let turn = format!("t{i}");
    let mut next = || {
        *seq += 1;
        *seq
    };
    let short: String = v.chars().take(60).collect();
    let mut frames = vec![
        json!({"type": "message", "channel_id": ch, "message_id": format!("u{i}"), "seq": next(),
            "role": "user", "text": v, "ts": 1_700_000_000_000i64}),
        json!({"type": "typing", "channel_id": ch, "on": true}),
        json!({"type": "commentary", "channel_id": ch, "turn_id": turn, "message_id": format!("c{i}"),
            "seq": next(), "text": v, "ts": 1_700_000_000_001i64}),
        json!({"type": "tool.start", "channel_id": ch, "turn_id": turn, "index": 1, "name": v,
            "emoji": short, "preview": v, "args": {"command": v, v: [v, {"nested": v}]}}),
        json!({"type": "tool.progress", "channel_id": ch, "turn_id": turn, "index": 1, "name": v,
            "note": v}),
        json!({"type": "tool.end", "channel_id": ch, "turn_id": turn, "index": 1, "seq": next(),
            "name": v, "ok": i.is_multiple_of(2), "duration": 0.5, "output_preview": v, "output": v}),
        json!({"type": "message.start", "channel_id": ch, "turn_id": turn,
            "message_id": format!("s{i}"), "role": "assistant", "ts": 1_700_000_000_002i64}),
    ];
    let streamed = if i.is_multiple_of(3) {
        inline_reasoning(v)
    } else {
        v.to_string()
    };
    let cut = streamed
        .char_indices()
        .map(|(k, _)| k)
        .nth(streamed.chars().count() / 2)
        .unwrap_or(0);
    for text in [&streamed[..cut], streamed.as_str()] {
        frames.push(
            json!({"type": "message.update", "channel_id": ch, "turn_id": turn,
            "message_id": format!("s{i}"), "text": text}),
        );
    }
    frames.push(
        json!({"type": "message.stop", "channel_id": ch, "turn_id": turn,
        "message_id": format!("s{i}"), "seq": next(), "final_text": streamed,
        "reasoning": if i.is_multiple_of(3) { Value::Null } else { json!(v) },
        "model": short, "tokens": 7, "ts": 1_700_000_000_003i64}),
    );
    frames.push(json!({"type": "typing", "channel_id": ch, "on": false}));
    frames.push(
        json!({"type": "message", "channel_id": ch, "message_id": format!("f{i}"),
        "seq": next(), "role": "assistant", "text": v, "reasoning": v, "model": short,
        "tokens": 3, "ts": 1_700_000_000_004i64}),
    );
    frames
}

/// Scrolls `css` from top to bottom so every virtualised row is mounted once.
async fn scroll_through(b: &Browser, css: &str) {
    b.js(
        "const t = document.querySelector(arguments[0]); if (t) t.scrollTop = 0;",
        vec![json!(css)],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    for _ in 0..2000 {
        let end = b
            .js(
                "const t = document.querySelector(arguments[0]); if (!t) return true; \
                 const end = t.scrollTop + t.clientHeight >= t.scrollHeight - 2; \
                 t.scrollTop += Math.max(80, t.clientHeight * 0.6); return end;",
                vec![json!(css)],
            )
            .await;
        if end.as_bool().unwrap_or(true) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// Fails with everything the probe caught, the canary's hits and any
/// foreign resource loads.
async fn assert_inert(b: &Browser, canary: &Canary, page_origin: &str, stage: &str) {
    let v = b
        .js(
            "window.__scanAll(); \
             const kinds = {}; \
             for (const b of window.__bad) { const k = b.split(' ').slice(0, 2).join(' '); \
               kinds[k] = (kinds[k] || 0) + 1; } \
             return { pwned: window.__pwned, bad: window.__bad.slice(0, 12), kinds, \
                      badCount: window.__bad.length, \
                      scripts: document.querySelectorAll('script').length, \
                      scriptsBefore: window.__scripts, \
                      resources: performance.getEntriesByType('resource').map(e => e.name) };",
            vec![],
        )
        .await;
    let foreign: Vec<&str> = v["resources"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .filter(|u| !u.starts_with(page_origin))
                .collect()
        })
        .unwrap_or_default();
    let mut problems = Vec::new();
    if v["pwned"].as_array().is_none_or(|a| !a.is_empty()) {
        problems.push(format!("script ran: {}", v["pwned"]));
    }
    if v["badCount"].as_u64() != Some(0) {
        problems.push(format!(
            "{} dangerous nodes or attributes ({}), first ones:\n    {}",
            v["badCount"],
            v["kinds"],
            v["bad"]
                .as_array()
                .map(|a| a
                    .iter()
                    .map(|x| x.as_str().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
                    .join("\n    "))
                .unwrap_or_default()
        ));
    }
    if v["scripts"] != v["scriptsBefore"] {
        problems.push(format!(
            "<script> count went from {} to {}",
            v["scriptsBefore"], v["scripts"]
        ));
    }
    if !foreign.is_empty() {
        problems.push(format!("resources from other origins: {foreign:?}"));
    }
    let hits = canary.hits();
    if !hits.is_empty() {
        problems.push(format!("the canary server was contacted: {hits:?}"));
    }
    if !problems.is_empty() {
        b.fail(&format!(
            "{stage}: hostile content was not inert:\n  {}",
            problems.join("\n  ")
        ))
        .await;
    }
}

#[tokio::test]
async fn hostile_content_is_inert_everywhere_it_is_shown() {
    let canary = Canary::start();
    let vectors = vectors(&canary);
    assert!(
        vectors.len() >= 50,
        "the corpus has {} vectors",
        vectors.len()
    );
    let fake = FakeGateway::start(FakeOpts::default()).await;
    fake.add_channel(
        json!({"channel_id": "cx", "title": "Hostile thread", "created_at": 1,
        "updated_at": 2, "auto": false, "last_seq": 0}),
    );
    let page = Page::open(&fake.ws_url(), "#/t/cx").await;
    let b = &page.browser;
    let origin = page.server.url().trim_end_matches('/').to_string();
    b.wait_for(CONNECTED, secs(20)).await;

    // Show everything: tool cards open, reasoning expanded.
    b.click("[data-testid=open-settings]").await;
    set_select(b, "tool_detail", "everything").await;
    b.js(
        "const c = document.querySelector('input[name=reasoning_auto_collapse]'); \
         c.checked = false; c.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![],
    )
    .await;
    b.click("[data-testid=close-settings]").await;

    let scripts = b.js(PROBE, vec![]).await;
    assert!(scripts.as_u64().unwrap_or(0) >= 1, "no boot script found");

    // Thread titles and previews: in `ready` (after a reconnect) and in
    // later `channel.created` / `channel.renamed` frames.
    for (i, v) in vectors.iter().enumerate() {
        fake.add_channel(
            json!({"channel_id": format!("h{i}"), "title": v, "created_at": 1,
            "updated_at": 1, "auto": i % 2 == 0, "last_seq": 3, "preview": v}),
        );
    }
    fake.cut_all();
    fake.wait_ready(2, secs(15)).await;
    b.wait_for(CONNECTED, secs(15)).await;
    for (i, v) in vectors.iter().enumerate().take(40) {
        fake.push(
            json!({"type": "channel.created", "auto": false, "channel": {
            "channel_id": format!("n{i}"), "title": v, "created_at": 3, "updated_at": 3,
            "auto": false, "last_seq": 0, "preview": v}}),
        );
        fake.push(
            json!({"type": "channel.renamed", "channel_id": format!("h{i}"),
            "title": vectors[(i + 7) % vectors.len()], "auto": true}),
        );
    }

    // Every vector in every kind of row of the open thread.
    let mut seq = 0;
    let mut frames = Vec::new();
    for (i, v) in vectors.iter().enumerate() {
        frames.extend(
            turn_frames(i, v, &mut seq)
                .into_iter()
                .map(|f| f.to_string()),
        );
    }
    fake.push_all(frames);
    // The open thread's own title last (the chat header shows it).
    fake.push(json!({"type": "channel.renamed", "channel_id": "cx",
        "title": "<img src=x onerror=alert('title')><script>alert(2)</script>"}));
    let last_final = format!("f{}", vectors.len() - 1);
    b.poll("the last hostile row", secs(60), || async {
        b.exists(&format!(".row[data-key='m:{last_final}']"))
            .await
            .then_some(())
    })
    .await;

    // Typed by the user (echoed back by the fake gateway).
    for v in vectors.iter().step_by(9) {
        paste_and_send(b, v).await;
    }
    send(
        b,
        "<img src=x onerror=alert('typed')> [t](javascript:alert(3))",
    )
    .await;
    let typed = vectors.len().div_ceil(9) + 1;
    let deadline = std::time::Instant::now() + secs(20);
    while fake.received_of("message.send").len() < typed || b.exists(".msg-user.pending").await {
        if std::time::Instant::now() > deadline {
            let mut kinds: Vec<String> = fake
                .received()
                .iter()
                .map(|f| f["type"].as_str().unwrap_or("?").to_string())
                .collect();
            kinds.dedup();
            b.fail(&format!(
                "the {typed} typed vectors were not all echoed: the fake gateway got {} sends                  (frames: {kinds:?}); connections: {}",
                fake.received_of("message.send").len(),
                fake.connections().len()
            ))
            .await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    scroll_through(b, "[data-testid=timeline]").await;
    scroll_through(b, "[data-testid=sidebar]").await;
    assert_inert(b, &canary, &origin, "timeline, titles and previews").await;

    // The same material in a progress draft while a turn runs.
    b.click("[data-testid=open-settings]").await;
    set_select(b, "streaming", "progress").await;
    set_select(b, "progress_detail", "raw").await;
    b.click("[data-testid=close-settings]").await;
    let mut live = vec![json!({"type": "typing", "channel_id": "cx", "on": true})];
    for (i, v) in vectors.iter().enumerate().take(30) {
        live.push(
            json!({"type": "tool.start", "channel_id": "cx", "turn_id": "tlive",
            "index": i + 1, "name": v, "preview": v, "args": {"command": v}}),
        );
        live.push(
            json!({"type": "tool.progress", "channel_id": "cx", "turn_id": "tlive",
            "index": i + 1, "name": v, "note": v}),
        );
        seq += 1;
        live.push(
            json!({"type": "commentary", "channel_id": "cx", "turn_id": "tlive",
            "message_id": format!("lc{i}"), "seq": seq, "text": v, "ts": 1}),
        );
    }
    fake.push_all(live.iter().map(Value::to_string).collect());
    b.wait_for("[data-testid=progress-draft]", secs(10)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_inert(b, &canary, &origin, "progress draft").await;
    fake.push(json!({"type": "typing", "channel_id": "cx", "on": false}));

    // Errors the gateway reports are shown as text too.
    fake.push(json!({"type": "error", "code": "internal",
        "message": "<img src=x onerror=alert('notice')>"}));
    b.wait_for(".notice", secs(5)).await;
    assert_inert(b, &canary, &origin, "notices").await;

    // Control: the canary does see a fetch, once the reader asks for one.
    b.js("window.__observer.disconnect();", vec![]).await;
    set_select_back_to_partial(b).await;
    let wanted = format!("{}/md-image.png", canary.origin());
    b.poll("a click-to-load image placeholder", secs(60), || async {
        let found = b
            .js(
                "const t = document.querySelector('[data-testid=timeline]'); \
                     const btn = Array.from(document.querySelectorAll('button.md-img'))\
                       .find(x => x.dataset.src === arguments[0]); \
                     if (!btn) { \
                       const end = t.scrollTop + t.clientHeight >= t.scrollHeight - 2; \
                       t.scrollTop = end ? 0 : t.scrollTop + t.clientHeight * 0.5; \
                       return false; } \
                     btn.scrollIntoView(); btn.click(); return true;",
                vec![json!(wanted)],
            )
            .await;
        found.as_bool().unwrap_or(false).then_some(())
    })
    .await;
    b.poll(
        "the canary to see the image the reader loaded",
        secs(10),
        || async {
            canary
                .hits()
                .iter()
                .any(|h| h.contains("/md-image.png"))
                .then_some(())
        },
    )
    .await;
    let img = b
        .js(
            "const i = Array.from(document.querySelectorAll('.markdown img'))\
               .find(i => i.src === arguments[0]); \
             return i ? i.getAttribute('referrerpolicy') : null;",
            vec![json!(wanted)],
        )
        .await;
    assert_eq!(img, json!("no-referrer"), "the loaded image");
    assert_eq!(canary.hits().len(), 1, "hits: {:?}", canary.hits());
    assert_no_crash(b).await;
    page.browser.close().await;
}

async fn set_select_back_to_partial(b: &Browser) {
    b.click("[data-testid=open-settings]").await;
    set_select(b, "streaming", "partial").await;
    b.click("[data-testid=close-settings]").await;
}
