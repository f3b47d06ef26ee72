//! The diagram renderer: one hidden frame (`mm/frame.html`, built by
//! scripts/bundle-mermaid), made on the first diagram, in which Mermaid
//! draws. It is sandboxed with scripts only and no same origin: an opaque
//! origin, so it cannot reach the app, its storage or the network (its own
//! policy is `default-src 'none'`), and Chromium runs it out of the app's
//! process, so its layout never blocks the page. It answers each diagram
//! as PNG bytes it rasterized (or, when it could not, as SVG text);
//! `diagrams` shows either as an image.
//!
//! The frame is laid out (off screen, unpainted): Mermaid measures its
//! labels, which a `display: none` document cannot do.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::render::diagram::{MAX_PNG_BYTES, MAX_SVG_CHARS};

/// The renderer page, relative to the app's page.
const FRAME_URL: &str = "mm/frame.html";

/// A drawing, as the frame made it.
pub enum Drawing {
    /// PNG bytes, drawn at this many pixels per CSS pixel: decoded off the
    /// main thread when shown.
    Png(js_sys::ArrayBuffer, f64),
    /// SVG text, when the frame could not rasterize it.
    Svg(String),
}

/// What the frame answered for one diagram.
pub enum Answer {
    /// The drawing, and the diagram's own title and description
    /// (`accTitle`, `accDescr`), if it has them.
    Drawn {
        drawing: Drawing,
        title: Option<String>,
        description: Option<String>,
    },
    /// Mermaid's error message.
    Failed(String),
}

type OnAnswer = Box<dyn FnOnce(Answer)>;

/// Asks the frame to draw `source` in the page's current theme; `done`
/// gets the answer (never, if the frame cannot be made or loaded).
pub fn draw(source: &str, done: impl FnOnce(Answer) + 'static) {
    FRAME.with(|f| f.borrow_mut().request(source, Box::new(done)));
}

/// Whether the page shows its dark theme: the one chosen in Settings
/// (`data-theme` on `<html>`), else the system's.
pub fn dark_theme() -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let chosen = window
        .document()
        .and_then(|d| d.document_element())
        .and_then(|root| root.get_attribute("data-theme"));
    match chosen.as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => window
            .match_media("(prefers-color-scheme: dark)")
            .ok()
            .flatten()
            .is_some_and(|m| m.matches()),
    }
}

/// Calls `changed` whenever the page's theme may have changed: Settings
/// (`data-theme`) or the system's scheme. For the page's lifetime.
pub fn on_theme_change(changed: fn()) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let on_change = Closure::<dyn FnMut()>::new(changed);
    let callback: &js_sys::Function = on_change.as_ref().unchecked_ref();
    if let Ok(observer) = web_sys::MutationObserver::new(callback) {
        let options = web_sys::MutationObserverInit::new();
        options.set_attribute_filter(&js_sys::Array::of1(&"data-theme".into()));
        if let Some(root) = window.document().and_then(|d| d.document_element()) {
            let _ = observer.observe_with_options(&root, &options);
        }
    }
    if let Ok(Some(query)) = window.match_media("(prefers-color-scheme: dark)") {
        let _ = query.add_event_listener_with_callback("change", callback);
    }
    // Lives as long as the page.
    on_change.forget();
}

thread_local! {
    static FRAME: RefCell<Renderer> = RefCell::new(Renderer::default());
}

#[derive(Default)]
struct Renderer {
    frame: Option<web_sys::HtmlIFrameElement>,
    /// Set when the frame could not be made: diagrams stay code.
    failed: bool,
    /// The frame has said it is ready; requests before that wait in
    /// `queued`.
    ready: bool,
    queued: Vec<js_sys::Array>,
    pending: Vec<(u32, OnAnswer)>,
    next_id: u32,
}

impl Renderer {
    fn request(&mut self, source: &str, done: OnAnswer) {
        if self.frame.is_none() && !self.failed {
            self.frame = start_frame();
            self.failed = self.frame.is_none();
        }
        if self.failed {
            return;
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let theme = if dark_theme() { "dark" } else { "default" };
        let msg = js_sys::Array::of4(
            &id.into(),
            &source.into(),
            &theme.into(),
            &(MAX_SVG_CHARS as u32).into(),
        );
        self.pending.push((id, done));
        if self.ready {
            self.post(&msg);
        } else {
            self.queued.push(msg);
        }
    }

    fn post(&self, msg: &js_sys::Array) {
        if let Some(target) = self.frame.as_ref().and_then(|f| f.content_window()) {
            let _ = target.post_message(msg, "*");
        }
    }

    fn on_ready(&mut self) {
        self.ready = true;
        for msg in std::mem::take(&mut self.queued) {
            self.post(&msg);
        }
    }

    fn take(&mut self, id: u32) -> Option<OnAnswer> {
        let at = self.pending.iter().position(|p| p.0 == id)?;
        Some(self.pending.swap_remove(at).1)
    }

    /// Whether `source` is this renderer's frame.
    fn sent_by(&self, source: Option<js_sys::Object>) -> bool {
        let own = self.frame.as_ref().and_then(|f| f.content_window());
        match (source, own) {
            (Some(s), Some(w)) => js_sys::Object::is(&s, &w),
            _ => false,
        }
    }
}

fn start_frame() -> Option<web_sys::HtmlIFrameElement> {
    let window = web_sys::window()?;
    let doc = window.document()?;
    let frame = doc
        .create_element("iframe")
        .ok()?
        .dyn_into::<web_sys::HtmlIFrameElement>()
        .ok()?;
    // Scripts, and nothing else: no same origin, forms, popups or
    // navigation of the app.
    frame.set_attribute("sandbox", "allow-scripts").ok()?;
    // Off screen, laid out, unpainted (style/chat.css).
    frame.set_class_name("md-warm-up");
    frame.set_title("Diagram renderer");
    let _ = frame.set_attribute("aria-hidden", "true");
    let _ = frame.set_attribute("tabindex", "-1");
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_message);
    window
        .add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref())
        .ok()?;
    // Lives as long as the page's one frame.
    on_message.forget();
    frame.set_src(FRAME_URL);
    doc.body()?.append_child(&frame).ok()?;
    Some(frame)
}

/// `["ready"]` once, then per request `[id, null, null, title,
/// description, png, density]`, `[id, svg, null, title, description]` or
/// `[id, null, error]`. Messages from anything but the frame are not this
/// module's.
fn on_message(ev: web_sys::MessageEvent) {
    let source = ev.source();
    if !FRAME.with(|f| f.borrow().sent_by(source)) {
        return;
    }
    let data = ev.data();
    if !js_sys::Array::is_array(&data) {
        return;
    }
    let answer = js_sys::Array::from(&data);
    let head = answer.get(0);
    if head.as_string().as_deref() == Some("ready") {
        FRAME.with(|f| f.borrow_mut().on_ready());
        return;
    }
    let Some(id) = head.as_f64() else {
        return;
    };
    let Some(done) = FRAME.with(|f| f.borrow_mut().take(id as u32)) else {
        return;
    };
    done(read_answer(&answer).unwrap_or_else(Answer::Failed));
}

/// The answer's drawing within the size caps, or why there is none.
fn read_answer(answer: &js_sys::Array) -> Result<Answer, String> {
    let text = |i: u32| answer.get(i).as_string();
    if let Some(error) = text(2) {
        return Err(error);
    }
    let png = answer.get(5).dyn_into::<js_sys::ArrayBuffer>().ok();
    let density = answer.get(6).as_f64().filter(|d| *d > 0.0 && d.is_finite());
    let drawing = match (png, density, text(1)) {
        (Some(png), _, _) if png.byte_length() as usize > MAX_PNG_BYTES => {
            return Err(format!(
                "the drawing is too large ({} bytes of PNG)",
                png.byte_length()
            ))
        }
        (Some(png), Some(density), _) => Drawing::Png(png, density),
        (_, _, Some(svg)) if svg.len() > MAX_SVG_CHARS => {
            return Err(format!(
                "the drawing is too large ({} characters of SVG)",
                svg.len()
            ))
        }
        (_, _, Some(svg)) => Drawing::Svg(svg),
        _ => return Err("no answer from the renderer".to_string()),
    };
    Ok(Answer::Drawn {
        drawing,
        title: text(3),
        description: text(4),
    })
}
