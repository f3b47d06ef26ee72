//! Browser tests of math in answers: inline and display formulas laid out
//! as MathML by Chromium, prices and shell variables left as text, a
//! formula that does not convert shown as its source, a formula streamed
//! across snapshots shown as text until it closes and then kept, the
//! settings' switches, copying a formula's LaTeX (by button, selection and
//! a focused formula's keys), and axe in both themes.
//! Against the harness's scripted gateway.

use fantoccini::key::Key;
use serde_json::{json, Value};

use crate::support::axe::assert_no_axe_violations;
use crate::support::fake_gateway::{message_item, FakeGateway, Step};
use crate::support::ui::*;
use crate::support::{run, secs, Browser, Page};

/// An answer with every kind of delimiter, prices, shell variables and a
/// formula that does not convert.
const ANSWER: &str = "Inline: $E = mc^2$ and \\(a^2 + b^2 = c^2\\).\n\n\
    $$\n\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}\n$$\n\n\
    \\[\n\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}\n\\]\n\n\
    Prices: the plan costs $5 and the add-on $10, or $5-$10 a month.\n\n\
    Shell: your files are in $HOME/$USER and `echo $PATH`.\n\n\
    Broken: $\\nosuchmacro{x}$ here.";

/// Snapshots of one streamed answer (cumulative).
const STREAM: &[&str] = &[
    "Let \\(x^2 + ",
    "Let \\(x^2 + y^2\\) be the radius",
    "Let \\(x^2 + y^2\\) be the radius of the circle",
    // The first paragraph completes once the next one's first line does.
    "Let \\(x^2 + y^2\\) be the radius of the circle.\n\nThen the area\n",
    "Let \\(x^2 + y^2\\) be the radius of the circle.\n\nThen the area\nis \\(\\pi r^2\\) and more.",
];

async fn math_fake() -> FakeGateway {
    let fake = FakeGateway::with_thread(
        "c_math",
        "Math lab",
        vec![
            message_item(1, "user", "show math", None),
            message_item(2, "assistant", ANSWER, None),
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
        let mut steps = vec![
            t(json!({"type": "typing", "on": true})),
            t(json!({"type": "message.start", "message_id": id, "role": "assistant"})),
        ];
        for snapshot in STREAM {
            steps.push(t(
                json!({"type": "message.update", "message_id": id, "text": snapshot}),
            ));
            // Time for the test to look at each snapshot.
            steps.push(Step::Pause(1500));
        }
        let last = STREAM[STREAM.len() - 1];
        steps.push(t(
            json!({"type": "message.stop", "message_id": id, "final_text": last,
            "model": "fake-model", "tokens": 7}),
        ));
        steps.push(t(json!({"type": "typing", "on": false})));
        steps
    });
    fake
}

async fn math_page() -> (FakeGateway, Page) {
    let fake = math_fake().await;
    let page = fake_page(&fake, "#/t/c_math").await;
    (fake, page)
}

/// The logged answer's formulas and the text of its paragraphs.
const FORMULAS: &str = r#"
const a = Array.from(document.querySelectorAll('.msg-assistant .markdown'))
  .find(m => m.textContent.includes('Prices'));
if (!a) return null;
const math = Array.from(a.querySelectorAll('math')).map(m => {
  const r = m.getBoundingClientRect();
  return {
    ns: m.namespaceURI === 'http://www.w3.org/1998/Math/MathML',
    alt: m.getAttribute('alttext'),
    display: m.getAttribute('display'),
    boxed: !!m.closest('.math-display'),
    laidOut: r.width > 0 && r.height > 0,
  };
});
const para = w => Array.from(a.querySelectorAll('p')).find(p => p.textContent.startsWith(w));
return {
  math,
  prices: para('Prices') && [para('Prices').textContent, para('Prices').querySelectorAll('math').length],
  shell: para('Shell') && [para('Shell').textContent, para('Shell').querySelectorAll('math').length],
  failed: Array.from(a.querySelectorAll('.math-failed')).map(f => f.textContent),
};
"#;

#[test]
fn formulas_render_as_mathml_and_prices_stay_text() {
    run(|| async {
        let (_fake, page) = math_page().await;
        let b = &page.browser;
        let got = b
            .poll("the answer's formulas", secs(20), || async {
                let v = b.js(FORMULAS, vec![]).await;
                (v["math"].as_array().is_some_and(|m| m.len() == 4)).then_some(v)
            })
            .await;
        let want_math = json!([
            {"ns": true, "alt": "E = mc^2", "display": null, "boxed": false, "laidOut": true},
            {"ns": true, "alt": "a^2 + b^2 = c^2", "display": null, "boxed": false, "laidOut": true},
            {"ns": true, "alt": "\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}", "display": "block",
             "boxed": true, "laidOut": true},
            {"ns": true, "alt": "\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}",
             "display": "block", "boxed": true, "laidOut": true},
        ]);
        let want_prices = json!([
            "Prices: the plan costs $5 and the add-on $10, or $5-$10 a month.",
            0
        ]);
        let want_shell = json!(["Shell: your files are in $HOME/$USER and echo $PATH.", 0]);
        let want_failed = json!(["$\\nosuchmacro{x}$could not render"]);
        if got["math"] != want_math
            || got["prices"] != want_prices
            || got["shell"] != want_shell
            || got["failed"] != want_failed
        {
            b.fail(&format!(
                "want math {want_math}, prices {want_prices}, shell {want_shell}, \
                 failed {want_failed}; got {got}"
            ))
            .await;
        }
        assert_no_axe_violations(b, "an answer with math").await;
        page.finish().await;
    });
}

/// Records, from now on, every `.math-failed` and every `<math>` the page
/// adds, and marks the streamed answer's formulas so a replaced element
/// shows as unmarked.
const WATCH: &str = r#"
window.__math = {failed: 0, added: 0};
new MutationObserver(records => {
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType !== 1) continue;
    if (n.matches('.math-failed') || n.querySelector('.math-failed')) window.__math.failed++;
    window.__math.added += (n.matches('math') ? 1 : 0) + n.querySelectorAll('math').length;
  }
}).observe(document.body, {childList: true, subtree: true});
"#;

/// The streamed answer: its text, its formulas (and whether each still
/// carries the mark set on it), and the watch's counts.
const STREAMED: &str = r#"
const a = Array.from(document.querySelectorAll('.msg-assistant .markdown'))
  .find(m => m.textContent.includes('Let '));
if (!a) return null;
return {
  text: a.textContent,
  math: Array.from(a.querySelectorAll('math')).map(m => [m.getAttribute('alttext'), !!m.__marked]),
  failed: window.__math.failed,
};
"#;

async fn streamed_when(b: &Browser, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    b.poll(what, secs(15), || async {
        let v = b.js(STREAMED, vec![]).await;
        (!v.is_null() && ok(&v)).then_some(v)
    })
    .await
}

async fn mark_formulas(b: &Browser) {
    b.js(
        "document.querySelectorAll('.msg-assistant math').forEach(m => m.__marked = true);",
        vec![],
    )
    .await;
}

#[test]
fn a_streamed_formula_is_text_until_it_closes_then_kept() {
    run(|| async {
        let (_fake, page) = math_page().await;
        let b = &page.browser;
        b.wait_for(".msg-assistant math", secs(20)).await;
        b.js(WATCH, vec![]).await;
        send(b, "stream").await;
        // Open: the LaTeX so far as text, as typed, no formula, no error.
        let open = streamed_when(b, "the open formula", |v| {
            v["text"].as_str().is_some_and(|t| t.contains("x^2 +"))
        })
        .await;
        if open["text"].as_str().map(str::trim_end) != Some("Let \\(x^2 +") {
            b.fail(&format!("an open formula shows as typed: {open}"))
                .await;
        }
        if open["math"] != json!([]) || open["failed"] != 0 {
            b.fail(&format!("an open formula must stay text: {open}"))
                .await;
        }
        // Closed: one formula; later text in the same paragraph keeps it.
        streamed_when(b, "the closed formula", |v| {
            v["math"].as_array().is_some_and(|m| m.len() == 1)
        })
        .await;
        mark_formulas(b).await;
        let grown = streamed_when(b, "the paragraph grown", |v| {
            v["text"]
                .as_str()
                .is_some_and(|t| t.contains("of the circle"))
        })
        .await;
        if grown["math"] != json!([["x^2 + y^2", true]]) {
            b.fail(&format!(
                "text appended after a formula must keep its element: {grown}"
            ))
            .await;
        }
        // The paragraph completes (it becomes a stable block), then the
        // next one grows: the completed formula's element stays.
        streamed_when(b, "the second paragraph", |v| {
            v["text"]
                .as_str()
                .is_some_and(|t| t.contains("Then the area"))
        })
        .await;
        mark_formulas(b).await;
        let done = streamed_when(b, "the last snapshot", |v| {
            v["math"].as_array().is_some_and(|m| m.len() == 2)
        })
        .await;
        if done["math"] != json!([["x^2 + y^2", true], ["\\pi r^2", false]]) || done["failed"] != 0
        {
            b.fail(&format!(
                "a completed formula must not be rendered again, and no error may show: {done}"
            ))
            .await;
        }
        page.finish().await;
    });
}

/// What the logged answer holds: formulas, and the first text node of its
/// first paragraph.
async fn first_line(b: &Browser) -> Value {
    b.js(
        "const a = Array.from(document.querySelectorAll('.msg-assistant .markdown'))\
           .find(m => m.textContent.includes('Prices'));\
         return a && [a.querySelectorAll('math').length, a.querySelector('p').firstChild.textContent];",
        vec![],
    )
    .await
}

#[test]
fn settings_switch_math_and_single_dollars_and_copies_keep_latex() {
    run(|| async {
        let (_fake, page) = math_page().await;
        let b = &page.browser;
        b.wait_for(".msg-assistant math", secs(20)).await;
        let origin = b
            .js("return location.origin;", vec![])
            .await
            .as_str()
            .unwrap_or_default()
            .to_string();
        b.cdp(
            "Browser.grantPermissions",
            json!({"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .await;

        // A display formula's copy button copies its LaTeX.
        b.js(
            "const e = document.querySelector('.math-copy'); e.setAttribute('data-e2e', 'copy'); e.focus();",
            vec![],
        )
        .await;
        let button = b.wait_for("[data-e2e=copy]", secs(5)).await;
        let enter: char = Key::Enter.into();
        if let Err(e) = button.send_keys(&enter.to_string()).await {
            b.fail(&format!("cannot press Enter on the copy button: {e}"))
                .await;
        }
        let clip = b
            .poll("the formula's LaTeX on the clipboard", secs(5), || async {
                let v = b
                    .js(
                        "return (async () => navigator.clipboard.readText())();",
                        vec![],
                    )
                    .await;
                (v == "\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}").then_some(v)
            })
            .await;
        println!("copied formula: {clip}");

        // Copying a selection over formulas gives their LaTeX.
        let copied = b
            .js(
                "const p = Array.from(document.querySelectorAll('.msg-assistant .markdown p'))\
                   .find(p => p.textContent.startsWith('Inline'));\
                 const r = document.createRange(); r.selectNodeContents(p);\
                 const s = getSelection(); s.removeAllRanges(); s.addRange(r);\
                 const dt = new DataTransfer();\
                 p.dispatchEvent(new ClipboardEvent('copy', {clipboardData: dt, bubbles: true, cancelable: true}));\
                 s.removeAllRanges();\
                 return dt.getData('text/plain');",
                vec![],
            )
            .await;
        if copied != "Inline: $E = mc^2$ and $a^2 + b^2 = c^2$." {
            b.fail(&format!("a selection's copy must keep the LaTeX: {copied}"))
                .await;
        }
        // A selection inside one formula copies all of it.
        let part = b
            .js(
                "const m = document.querySelector('.msg-assistant math');\
                 const r = document.createRange(); r.selectNodeContents(m.lastElementChild);\
                 const s = getSelection(); s.removeAllRanges(); s.addRange(r);\
                 const dt = new DataTransfer();\
                 m.dispatchEvent(new ClipboardEvent('copy', {clipboardData: dt, bubbles: true, cancelable: true}));\
                 s.removeAllRanges();\
                 return dt.getData('text/plain');",
                vec![],
            )
            .await;
        if part != "$E = mc^2$" {
            b.fail(&format!(
                "a selection inside a formula copies its LaTeX: {part}"
            ))
            .await;
        }

        // Single dollars off: `$…$` is text, `\(…\)` still math.
        with_settings(b, |b| async move {
            b.click("[name=math_single_dollar]").await;
        })
        .await;
        let line = b
            .poll("single dollars as text", secs(10), || async {
                let v = first_line(b).await;
                (v[0] == 3).then_some(v)
            })
            .await;
        if line[1] != "Inline: $E = mc^2$ and " {
            b.fail(&format!("with single dollars off: {line}")).await;
        }
        // Math off: no formula at all.
        with_settings(b, |b| async move {
            b.click("[name=math]").await;
        })
        .await;
        b.poll("no math", secs(10), || async {
            (first_line(b).await[0] == 0).then_some(())
        })
        .await;
        let stored = b
            .js(
                "return Object.values(localStorage).map(v => { try { return JSON.parse(v); } catch (e) { return null; } })\
                   .filter(v => v && 'math' in v).map(v => [v.math, v.math_single_dollar]);",
                vec![],
            )
            .await;
        if stored != json!([[false, false]]) {
            b.fail(&format!("the switches must be saved per device: {stored}"))
                .await;
        }
        page.finish().await;
    });
}

/// Inline formulas are in the tab order, and a focused formula's keys copy
/// its LaTeX: Enter on an inline one (said in the polite live region),
/// Ctrl+C on a display formula's box (shown on its copy button).
#[test]
fn a_focused_formula_copies_its_latex_from_the_keyboard() {
    run(|| async {
        let (_fake, page) = math_page().await;
        let b = &page.browser;
        b.wait_for(".msg-assistant math", secs(20)).await;
        let origin = b.js("return location.origin;", vec![]).await;
        b.cdp(
            "Browser.grantPermissions",
            json!({"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .await;
        let inline = b
            .js(
                "return Array.from(document.querySelectorAll('.msg-assistant .math-inline'))\
                   .map(s => [s.tabIndex, s.querySelector('math').getAttribute('alttext')]);",
                vec![],
            )
            .await;
        if inline != json!([[0, "E = mc^2"], [0, "a^2 + b^2 = c^2"]]) {
            b.fail(&format!("inline formulas must be focusable: {inline}"))
                .await;
        }
        let clipboard = |want: &'static str| async move {
            b.poll(&format!("{want} on the clipboard"), secs(5), || async {
                let v = b
                    .js(
                        "return (async () => navigator.clipboard.readText())();",
                        vec![],
                    )
                    .await;
                (v == want).then_some(())
            })
            .await
        };
        let enter: char = Key::Enter.into();
        b.js(
            "document.querySelectorAll('.msg-assistant .math-inline')[1].setAttribute('data-e2e', 'f');",
            vec![],
        )
        .await;
        let formula = b.wait_for("[data-e2e=f]", secs(5)).await;
        if let Err(e) = formula.send_keys(&enter.to_string()).await {
            b.fail(&format!("cannot press Enter on a formula: {e}"))
                .await;
        }
        clipboard("a^2 + b^2 = c^2").await;
        b.poll("the copy said", secs(5), || async {
            let said = b
                .js(
                    "return document.querySelector('[data-testid=live-polite]').textContent;",
                    vec![],
                )
                .await;
            (said.as_str().map(str::trim_end) == Some("LaTeX copied")).then_some(())
        })
        .await;
        b.js(
            "document.querySelector('.msg-assistant .math-display').setAttribute('data-e2e', 'd');",
            vec![],
        )
        .await;
        let display = b.wait_for("[data-e2e=d]", secs(5)).await;
        let ctrl: char = Key::Control.into();
        if let Err(e) = display.send_keys(&format!("{ctrl}c")).await {
            b.fail(&format!("cannot press Ctrl+C on a formula: {e}"))
                .await;
        }
        clipboard("\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}").await;
        let shown = b
            .js(
                "return document.querySelector('[data-e2e=d] .math-copy .copy-label').textContent;",
                vec![],
            )
            .await;
        if shown != "Copied" {
            b.fail(&format!(
                "the display formula's button should say Copied: {shown}"
            ))
            .await;
        }
        page.finish().await;
    });
}
