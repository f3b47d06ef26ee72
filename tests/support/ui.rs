//! What the browser suites do on the app's page and read back from it:
//! connecting, the gateway questions, reloading, sending, the URL's
//! thread, finished answers, localStorage and the settings panel.

use fantoccini::key::Key;
use serde_json::{json, Value};

use super::fake_gateway::FakeGateway;
use super::{secs, App, Browser, GatewayOpts, Page};

pub const COMPOSER: &str = "form[data-testid=composer] textarea";
pub const CONNECTED: &str = "[data-testid=conn-status][data-state=connected]";

/// Records, from the page's first script on, each markdown renderer the
/// app makes: its longest snapshot, how many snapshots, how many of them
/// sent the same text as the one before (work for nothing), and whether it
/// was freed (boot.js puts the module's exports in `window.__ariaMarkdown`).
/// Installed by [`record_renderers`].
const RECORD_RENDERERS: &str = r#"
window.__renderers = [];
let exports;
Object.defineProperty(window, '__ariaMarkdown', {
  configurable: true,
  get: () => exports,
  set: (e) => {
    exports = e && {
      ...e,
      renderer(...settings) {
        const r = e.renderer(...settings);
        const rec = { longest: 0, snapshots: 0, unchanged: 0, freed: false };
        let last = 0;
        window.__renderers.push(rec);
        return {
          update(same, rest) {
            if (rest === '' && same === last) rec.unchanged++;
            last = same + rest.length;
            rec.longest = Math.max(rec.longest, last);
            rec.snapshots++;
            return r.update(same, rest);
          },
          free() { rec.freed = true; r.free(); },
        };
      },
    };
  },
});
"#;

/// Makes every page this browser loads from now on record its markdown
/// renderers in `window.__renderers` (see [`RECORD_RENDERERS`]).
pub async fn record_renderers(b: &Browser) {
    b.cdp(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": RECORD_RENDERERS }),
    )
    .await;
}

/// The gateway with its demo agent pausing `demo_delay_ms` between steps,
/// and the app open on it and [`connected`].
pub async fn demo_app(demo_delay_ms: u64) -> App {
    let app = App::start_with(GatewayOpts {
        demo_delay_ms,
        ..GatewayOpts::default()
    })
    .await;
    connected(&app.browser).await;
    app
}

/// The app served statically, on `fake` at `hash`, and [`connected`].
pub async fn fake_page(fake: &FakeGateway, hash: &str) -> Page {
    let page = Page::open(&fake.ws_url(), hash).await;
    connected(&page.browser).await;
    page
}

/// Waits until the socket is connected, and installs the answer counter
/// (see [`count_answers`]).
pub async fn connected(b: &Browser) {
    b.wait_for(CONNECTED, secs(20)).await;
    count_answers(b).await;
}

pub const GATEWAY_PROMPT: &str = "[data-testid=gateway-prompt]";

/// Waits for the "connect to the gateway this link names?" dialog and
/// answers it: `connect` or not, with `token` typed into its token field
/// and "Remember this gateway" ticked if `remember`. Returns the address
/// it showed.
pub async fn answer_link_prompt(
    b: &Browser,
    connect: bool,
    token: Option<&str>,
    remember: bool,
) -> String {
    let dialog = format!("{GATEWAY_PROMPT}[data-kind=link]");
    b.wait_for(&dialog, secs(20)).await;
    let shown = b
        .text_of(&format!("{dialog} [data-testid=gateway-prompt-address]"))
        .await;
    if let Some(token) = token {
        b.type_into(&format!("{dialog} input[name=link_token]"), token)
            .await;
    }
    if remember {
        b.click(&format!("{dialog} input[name=remember_gateway]"))
            .await;
    }
    let button = if connect {
        "gateway-accept"
    } else {
        "gateway-decline"
    };
    b.click(&format!("{dialog} [data-testid={button}]")).await;
    b.wait_gone(&dialog, secs(5)).await;
    shown
}

/// Reloads the page for real (navigating to the same URL with a `#…` is
/// only a fragment change) and waits for the new page to boot.
pub async fn reload(b: &Browser) {
    b.js("window.__beforeReload = true;", vec![]).await;
    b.refresh().await;
    b.poll("the reloaded page to boot", secs(30), || async {
        let v = b
            .js(
                "return window.__beforeReload !== true && \
                 document.documentElement.dataset.booted === 'true';",
                vec![],
            )
            .await;
        v.as_bool().unwrap_or(false).then_some(())
    })
    .await;
}

/// [`reload`]s the page and waits until it is [`connected`] again.
pub async fn reload_connected(b: &Browser) {
    reload(b).await;
    connected(b).await;
}

/// Opens the thread drawer (a narrow screen) and waits until it has slid
/// all the way in: only then is all of it on screen, to be touched or
/// audited.
pub async fn open_drawer(b: &Browser) {
    b.click(".drawer-toggle").await;
    b.wait_for(".app.drawer-open", secs(5)).await;
    b.poll("the drawer slid in", secs(5), || async {
        let left = b
            .js(
                "return document.querySelector('.sidebar').getBoundingClientRect().left;",
                vec![],
            )
            .await;
        (left.as_f64()? >= 0.0).then_some(())
    })
    .await;
}

/// Types `text` into the composer and presses Enter.
pub async fn send(b: &Browser, text: &str) {
    b.type_into(COMPOSER, text).await;
    b.press_enter(COMPOSER).await;
}

/// Puts `text` into the composer at once (for long or odd text that
/// keystrokes would mangle or take ages over), then presses Enter.
pub async fn paste_and_send(b: &Browser, text: &str) {
    b.wait_for(COMPOSER, secs(10)).await;
    b.js(
        "const t = document.querySelector(arguments[0]); t.value = arguments[1]; \
         t.dispatchEvent(new Event('input', {bubbles: true}));",
        vec![json!(COMPOSER), json!(text)],
    )
    .await;
    b.press_enter(COMPOSER).await;
}

/// `location.hash`.
pub async fn hash(b: &Browser) -> String {
    b.js("return location.hash;", vec![])
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The thread id in the URL (`#/t/<id>`), if any.
pub async fn hash_channel(b: &Browser) -> Option<String> {
    let v = b
        .js(
            "const h = location.hash; return h.startsWith('#/t/') ? decodeURIComponent(h.slice(4)) : null;",
            vec![],
        )
        .await;
    v.as_str().map(str::to_string)
}

/// Sends `text` from the new-thread pane and waits until auto-threading
/// moved the app into the new thread; returns its id.
pub async fn send_new_thread(b: &Browser, text: &str) -> String {
    let before = hash_channel(b).await;
    if before.is_some() {
        b.fail(&format!(
            "send_new_thread: expected the new-thread pane, the URL names thread {before:?}"
        ))
        .await;
    }
    send(b, text).await;
    b.poll(
        "the URL to become #/t/<id> (auto-thread)",
        secs(20),
        || async { hash_channel(b).await },
    )
    .await
}

/// Clicks "New thread" and waits for the new-thread pane.
pub async fn new_thread_pane(b: &Browser) {
    b.click("[data-testid=new-thread]").await;
    b.poll("the new-thread pane", secs(5), || async {
        hash_channel(b).await.is_none().then_some(())
    })
    .await;
}

/// Waits until the page's idle rehearsal of a streamed answer is over
/// (src/ui/wiring/rehearsal.rs marks it `aria-rehearsed`).
pub async fn wait_rehearsed(b: &Browser) {
    b.poll(
        "the rehearsal's end (mark aria-rehearsed)",
        secs(20),
        || async {
            let marks = b
                .js(
                    "return performance.getEntriesByName('aria-rehearsed').length;",
                    vec![],
                )
                .await;
            (marks.as_u64() == Some(1)).then_some(())
        },
    )
    .await;
}

/// Counts finished answers (rows with a footer) per thread, by row key, in
/// a set that only grows: the timeline mounts only the rows near the
/// screen, so counting the DOM would lose answers scrolled far away.
const ANSWER_COUNTER: &str = r#"
if (!window.__answerKeys) {
  window.__answerKeys = {};
  const scan = () => {
    const h = location.hash;
    const set = window.__answerKeys[h] || (window.__answerKeys[h] = new Set());
    for (const r of document.querySelectorAll('.row')) {
      if (r.querySelector('.msg-assistant .msg-footer')) set.add(r.getAttribute('data-key'));
    }
  };
  new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, attributes: true });
  window.addEventListener('hashchange', scan);
  scan();
}
const keys = window.__answerKeys[location.hash];
return [keys ? keys.size : 0,
        !!document.querySelector('[data-testid=stop]'),
        !!document.querySelector('[data-testid=typing]'),
        !!document.querySelector('.msg-assistant[data-streaming=true]')];
"#;

/// Installs the answer counter now (call before the answers come when the
/// thread may grow beyond the screen; `wait_answers` installs it too).
pub async fn count_answers(b: &Browser) -> usize {
    b.js(ANSWER_COUNTER, vec![]).await[0].as_u64().unwrap_or(0) as usize
}

/// Waits until the open thread has shown `answers` finished answers (with
/// a footer) since the page loaded, and the agent is idle (no stop button,
/// no typing dots, nothing streaming).
pub async fn wait_answers(b: &Browser, answers: usize) {
    let what = format!("{answers} finished answer(s) and an idle agent");
    b.poll(&what, secs(60), || async {
        let v = b.js(ANSWER_COUNTER, vec![]).await;
        let done = v[0].as_u64().unwrap_or(0) as usize >= answers
            && v[1] == false
            && v[2] == false
            && v[3] == false;
        done.then_some(())
    })
    .await;
}

/// [`send_new_thread`], then waits for its answer; returns the thread's id.
pub async fn new_thread_answered(b: &Browser, text: &str) -> String {
    let id = send_new_thread(b, text).await;
    wait_answers(b, 1).await;
    id
}

/// Waits until the agent is idle in the open thread (stop button gone),
/// after it was seen busy or `busy_seen` says so.
pub async fn wait_idle(b: &Browser) {
    b.wait_gone("[data-testid=stop]", secs(60)).await;
    b.wait_gone("[data-testid=typing]", secs(10)).await;
}

/// Scrolls the timeline to its end, as a reader does before typing (a
/// WebDriver click scrolls its target into view, which stops following).
pub async fn scroll_to_end(b: &Browser) {
    b.js(
        "const t = document.querySelector('[data-testid=timeline]'); t.scrollTop = t.scrollHeight;",
        vec![],
    )
    .await;
    b.wait_gone("[data-testid=new-messages]", secs(5)).await;
}

/// How many elements match `css` and are rendered (not `display: none`).
pub async fn visible_count(b: &Browser, css: &str) -> usize {
    b.js(
        "return Array.from(document.querySelectorAll(arguments[0])).filter(e => e.getClientRects().length > 0).length;",
        vec![json!(css)],
    )
    .await
    .as_u64()
    .unwrap_or(0) as usize
}

/// `localStorage[key]`, parsed as JSON (the raw string if it is not JSON).
pub async fn local_storage(b: &Browser, key: &str) -> Value {
    let raw = b
        .js(
            "return localStorage.getItem(arguments[0]);",
            vec![json!(key)],
        )
        .await;
    match raw.as_str() {
        Some(s) => serde_json::from_str(s).unwrap_or(Value::String(s.to_string())),
        None => Value::Null,
    }
}

// ----- settings -----

/// The settings as stored in localStorage (`aria.settings`), parsed.
pub async fn stored_settings(b: &Browser) -> Value {
    local_storage(b, "aria.settings").await
}

pub async fn open_settings(b: &Browser) {
    if !b.exists("[data-testid=settings]").await {
        b.click("[data-testid=open-settings]").await;
    }
    b.wait_for("[data-testid=settings]", secs(5)).await;
}

pub async fn close_settings(b: &Browser) {
    b.click("[data-testid=close-settings]").await;
    b.wait_gone("[data-testid=settings]", secs(5)).await;
}

/// Opens the panel, applies `f`'s choices, closes it.
pub async fn with_settings<'a, F, Fut>(b: &'a Browser, f: F)
where
    F: FnOnce(&'a Browser) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    open_settings(b).await;
    f(b).await;
    close_settings(b).await;
}

/// [`with_settings`] for one [`choose`].
pub async fn choose_setting(b: &Browser, name: &str, value: &str) {
    with_settings(b, |b| async move {
        choose(b, name, value).await;
    })
    .await;
}

/// Picks `value` in the settings panel's `select[name=NAME]` (the panel
/// must be open) and waits until the page took it.
pub async fn choose(b: &Browser, name: &str, value: &str) {
    let css = format!("[data-testid=settings] select[name={name}]");
    let el = b.wait_for(&css, secs(5)).await;
    if let Err(e) = el.select_by_value(value).await {
        b.fail(&format!("cannot pick {value:?} in {css}: {e}"))
            .await;
    }
    let what = format!("{css} to read {value:?}");
    const VALUE: &str = "const e = document.querySelector(arguments[0]); return e && e.value;";
    wait_js_eq(b, &what, VALUE, &css, json!(value)).await;
}

/// Types `value` into the settings panel's `input[name=NAME]` (replacing
/// what is there) and leaves the field, which commits it.
pub async fn fill(b: &Browser, name: &str, value: &str) {
    let css = format!("[data-testid=settings] input[name={name}]");
    let el = b.wait_for(&css, secs(5)).await;
    if let Err(e) = el.clear().await {
        b.fail(&format!("cannot clear {css}: {e}")).await;
    }
    let tab: char = Key::Tab.into();
    if let Err(e) = el.send_keys(&format!("{value}{tab}")).await {
        b.fail(&format!("cannot type into {css}: {e}")).await;
    }
}

/// Sets the settings panel's checkbox `input[name=NAME]` by clicking it if
/// it is not in the wanted state.
pub async fn check(b: &Browser, name: &str, on: bool) {
    let css = format!("[data-testid=settings] input[name={name}]");
    const CHECKED: &str = "return document.querySelector(arguments[0]).checked;";
    if b.js(CHECKED, vec![json!(css)]).await != on {
        b.click(&css).await;
    }
    let what = format!("{css} to be checked={on}");
    wait_js_eq(b, &what, CHECKED, &css, json!(on)).await;
}

/// Waits (5 s) until `script`, given `css` as `arguments[0]`, returns `want`.
async fn wait_js_eq(b: &Browser, what: &str, script: &str, css: &str, want: Value) {
    b.poll(what, secs(5), || async {
        (b.js(script, vec![json!(css)]).await == want).then_some(())
    })
    .await;
}

/// Sets `select[name=NAME]` to `value` by script and fires its `change`
/// (the settings panel must be open; no waiting).
pub async fn set_select(b: &Browser, name: &str, value: &str) {
    b.js(
        "const s = document.querySelector(`select[name=${arguments[0]}]`); s.value = arguments[1]; \
         s.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![json!(name), json!(value)],
    )
    .await;
}

/// How many threads Settings says are kept.
pub async fn kept_threads(b: &Browser) -> u64 {
    open_settings(b).await;
    let n = b
        .js(
            "const e = document.querySelector('[data-testid=offline-summary]'); \
             return e ? Number(e.dataset.threads) : -1;",
            vec![],
        )
        .await
        .as_u64()
        .unwrap_or(0);
    close_settings(b).await;
    n
}

/// Waits until Settings says `threads` are kept offline.
pub async fn wait_kept(b: &Browser, threads: u64) {
    b.poll(
        &format!("Settings to say {threads} thread(s) are kept offline"),
        secs(20),
        || async { (kept_threads(b).await == threads).then_some(()) },
    )
    .await;
}
