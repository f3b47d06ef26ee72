//! The markdown module: `aria-markdown` (parser, sanitizer, incremental
//! renderer) compiled to a wasm module of its own (`markdown/module`, put in
//! `dist/md/` by scripts/build-markdown), so that the parser is not in the
//! first load. It arrives while the app connects to the gateway; until it
//! is ready, or if it cannot be loaded, markdown is shown as its plain
//! text, never lost.
//!
//! index.html names the module's files in `<meta name="aria-markdown">`
//! (content-hashed, written by the build); boot.js starts it right after
//! the app's own wasm, puts its exports in `window.__ariaMarkdown` (null if
//! it could not) and fires `aria-markdown` on the window. The two wasm
//! modules share no memory: strings cross as JS strings. An export that
//! throws (a trap in the module) marks the module failed, and everything
//! falls back to text.

use std::cell::RefCell;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use aria_markdown::{unchanged_prefix_len, MathOptions, RenderDelta};

/// The window property and event boot.js sets and fires.
const EXPORTS: &str = "__ariaMarkdown";
const READY_EVENT: &str = "aria-markdown";

#[wasm_bindgen]
extern "C" {
    /// The module's exports (markdown/module/src/lib.rs).
    type Exports;
    #[wasm_bindgen(method, catch, js_name = toHtml)]
    fn to_html(
        this: &Exports,
        markdown: &str,
        math: bool,
        single_dollar: bool,
    ) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch, js_name = plainText)]
    fn plain_text(this: &Exports, markdown: &str) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch, js_name = renderer)]
    fn renderer(this: &Exports, math: bool, single_dollar: bool) -> Result<JsRenderer, JsValue>;

    /// One message's renderer inside the module.
    type JsRenderer;
    #[wasm_bindgen(method, catch)]
    fn update(this: &JsRenderer, same: usize, rest: &str) -> Result<js_sys::Array, JsValue>;
    #[wasm_bindgen(method)]
    fn free(this: &JsRenderer);
}

/// Markdown of the common kinds, math included (ASCII: any cut is a char
/// boundary), for [`MarkdownModule::warm_up`] and the app's rehearsal of
/// a streamed answer (`ui/wiring/rehearsal.rs`). The formulas take the
/// converter's usual paths (scripts, fractions, roots, a big operator, a
/// matrix), so a first answer with math does not compile them.
pub(crate) const WARM_UP: &str =
    "# Title\n\nSome **bold**, *em*, `code`, $x^2$, \\(a_{n} = \\frac{\\sqrt{x} + 1}{2}\\) \
    and [a link](https://example.com).\n\n\
    $$\n\\sum_{k=1}^{n} k^2 = \\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}\n$$\n\n\
    - one\n- two\n\n1. first\n2. second\n\n> quoted\n\n```text\nplain code\n```\n\n\
    | a | b |\n|---|---|\n| 1 | 2 |\n";

/// [`MarkdownModule::tier_up`] streams this much of [`WARM_UP`], repeated,
/// in snapshots this far apart, a few snapshots per idle period (about
/// 12 ms of main-thread time in all on the bench's machine).
const TIER_UP_BYTES: usize = 40 * 1024;
const TIER_UP_SNAPSHOT: usize = 2 * 1024;
const TIER_UP_SNAPSHOTS_PER_IDLE: usize = 4;

thread_local! {
    static LOADED: RefCell<Option<Exports>> = const { RefCell::new(None) };
}

/// Where loading the module stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Loading,
    Ready,
    /// Not built, not reachable, or it threw: markdown shows as text.
    Failed,
}

/// The module as the components see it (a context, provided by `App`).
#[derive(Clone, Copy)]
pub struct MarkdownModule {
    status: RwSignal<Status>,
}

impl MarkdownModule {
    /// Waits for the module boot.js is loading.
    pub fn load() -> Self {
        let module = Self {
            status: RwSignal::new(Status::Loading),
        };
        if let Err(why) = module.start() {
            module.fail(&why);
        }
        module
    }

    /// boot.js starts the module once the app has started, and fires
    /// the event when its exports are set (or set to null: it failed).
    fn start(self) -> Result<(), String> {
        let window = web_sys::window().ok_or("no window")?;
        let exports = js_sys::Reflect::get(&window, &JsValue::from_str(EXPORTS))
            .map_err(|_| "cannot read the module's exports")?;
        if !exports.is_undefined() {
            self.arrived();
            return Ok(());
        }
        let ready = Closure::once_into_js(move || self.arrived());
        let options = web_sys::AddEventListenerOptions::new();
        options.set_once(true);
        window
            .add_event_listener_with_callback_and_add_event_listener_options(
                READY_EVENT,
                ready.unchecked_ref(),
                &options,
            )
            .map_err(|_| "cannot listen for the module")?;
        Ok(())
    }

    /// boot.js is done: the exports are there, or null if it failed.
    fn arrived(self) {
        let exports = web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str(EXPORTS)).ok())
            .filter(|e| e.is_object());
        match exports {
            Some(e) => {
                LOADED.with(|l| *l.borrow_mut() = Some(e.unchecked_into()));
                self.status.set(Status::Ready);
                crate::ui::browser::when_idle(move || self.warm_up());
            }
            None => self.fail("it could not be loaded"),
        }
    }

    /// Renders [`WARM_UP`] once, in two snapshots, reads it as text and
    /// lays it out off screen. V8 compiles each wasm function on its first
    /// call, and the browser loads each font on its first use: a new tab's
    /// first streamed answer would otherwise pay both in its first frame
    /// (bench/history/2026-11-30-to-12-03.md, "The first streamed update and the last"). Then
    /// has the parser optimized ([`Self::tier_up`]).
    fn warm_up(self) {
        if let Some(renderer) = self.renderer(MathOptions::default()) {
            let _ = renderer.update(&WARM_UP[..WARM_UP.len() / 2]);
            let _ = renderer.update(WARM_UP);
        }
        let _ = self.plain_text(WARM_UP);
        if let Some(html) = self.to_html(WARM_UP, MathOptions::default()) {
            crate::ui::browser::lay_out_once("msg msg-assistant markdown md-warm-up", &html);
        }
        crate::ui::browser::code_highlight::warm_up();
        if let Some(renderer) = self.renderer(MathOptions::default()) {
            let text = WARM_UP.repeat(TIER_UP_BYTES / WARM_UP.len() + 1);
            crate::ui::browser::when_idle(move || self.tier_up(renderer, text, 0));
        }
    }

    /// Streams `text` from byte `at` on through `renderer`, a few snapshots
    /// per idle period. V8 compiles a wasm function again, optimized, once
    /// it has run enough, on a background thread: the parser's largest
    /// functions take it 60–200 ms. Run here, that happens while the page
    /// is idle, not beside a first long answer's frames, where it took the
    /// machine's second core (bench/history/2026-11-30-to-12-03.md,
    /// "Where it stands (2026-12-02, session 14)").
    fn tier_up(self, renderer: Renderer, text: String, mut at: usize) {
        for _ in 0..TIER_UP_SNAPSHOTS_PER_IDLE {
            if at >= text.len() {
                return;
            }
            at = (at + TIER_UP_SNAPSHOT).min(text.len());
            let Some(snapshot) = text.get(..at) else {
                return;
            };
            if renderer.update(snapshot).is_none() {
                return;
            }
        }
        crate::ui::browser::when_idle(move || self.tier_up(renderer, text, at));
    }

    fn fail(self, why: &str) {
        LOADED.with(|l| l.borrow_mut().take());
        if self.status.get_untracked() != Status::Failed {
            crate::ui::browser::log_warning(&format!(
                "markdown module: {why}; markdown is shown as plain text"
            ));
            self.status.set(Status::Failed);
        }
    }

    /// Whether markdown can be rendered now (tracked).
    pub fn ready(self) -> bool {
        self.status.get() == Status::Ready
    }

    /// Runs `f` with the exports; a throw marks the module failed.
    fn call<T>(self, f: impl FnOnce(&Exports) -> Result<T, JsValue>) -> Option<T> {
        let result = LOADED.with(|l| l.borrow().as_ref().map(f))?;
        result.map_err(|_| self.fail("it threw")).ok()
    }

    /// Safe HTML of `markdown`, in one go.
    pub fn to_html(self, markdown: &str, math: MathOptions) -> Option<String> {
        self.call(|e| e.to_html(markdown, math.enabled, math.single_dollar))
    }

    /// The words of `markdown` without markup.
    pub fn plain_text(self, markdown: &str) -> Option<String> {
        self.call(|e| e.plain_text(markdown))
    }

    /// A streaming renderer for one message.
    pub fn renderer(self, math: MathOptions) -> Option<Renderer> {
        let inner = self.call(|e| e.renderer(math.enabled, math.single_dollar))?;
        Some(Renderer {
            module: self,
            inner,
            last: RefCell::new(String::new()),
            tail: RefCell::new(String::new()),
        })
    }
}

/// One message's incremental renderer, living in the module.
pub struct Renderer {
    module: MarkdownModule,
    inner: JsRenderer,
    /// The last snapshot sent: only what follows its unchanged part
    /// crosses into the module.
    last: RefCell<String>,
    /// The tail's HTML for `last`: what an update with the same text gets.
    tail: RefCell<String>,
}

impl Renderer {
    /// Renders the snapshot `text`: what changed. `None` if the module
    /// failed.
    pub fn update(&self, text: &str) -> Option<RenderDelta> {
        let same = unchanged_prefix_len(&self.last.borrow(), text);
        if same == text.len() && same == self.last.borrow().len() {
            // The same text (a frame that only shows blocks that waited,
            // the end of a stream): nothing to parse again.
            return Some(RenderDelta {
                tail_html: self.tail.borrow().clone(),
                ..RenderDelta::default()
            });
        }
        let rest = text.get(same..).unwrap_or_default();
        let answer = self.module.call(|_| self.inner.update(same, rest))?;
        let mut last = self.last.borrow_mut();
        last.truncate(same);
        last.push_str(rest);
        // [keep (-1: all), tail HTML, ...appended blocks]
        let tail_html = answer.get(1).as_string().unwrap_or_default();
        self.tail.borrow_mut().clone_from(&tail_html);
        Some(RenderDelta {
            stable_truncated_to: answer
                .get(0)
                .as_f64()
                .filter(|n| *n >= 0.0)
                .map(|n| n as usize),
            tail_html,
            stable_appended: answer
                .iter()
                .skip(2)
                .map(|b| b.as_string().unwrap_or_default())
                .collect(),
        })
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if self.module.status.get_untracked() == Status::Ready {
            self.inner.free();
        }
    }
}
