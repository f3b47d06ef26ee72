//! Markdown → HTML that is safe to put in `inner_html`, for untrusted text.
//!
//! pulldown-cmark parses; [`Sanitizer`] rewrites the event stream before the
//! stock HTML writer sees it: raw HTML becomes text, links keep only
//! allow-listed URLs, images become click-to-load placeholders, and code
//! block languages are reduced to a safe class name. Every piece of markup
//! that reaches the output is either written by pulldown-cmark's writer
//! (which escapes all text) or built here from escaped values.

use std::ops::Range;

use pulldown_cmark::{
    html, Alignment, CodeBlockKind, CowStr, Event, LinkType, Parser, Tag, TagEnd,
};

use crate::dialect::options;
use crate::escape::escape_into;
use crate::math::{math_event, text_event, MathOptions, MathSource};
use crate::url_policy::{safe_image_src, safe_link_href};

/// Renders untrusted markdown to HTML that carries no script, no remote
/// loads and no links outside http/https/mailto/relative; math as MathML.
pub fn to_html(md: &str) -> String {
    to_html_with(md, MathOptions::default())
}

/// [`to_html`] with the reader's math settings.
pub fn to_html_with(md: &str, math: MathOptions) -> String {
    let parsed = math.prepare(md);
    let parser = Parser::new_ext(&parsed, math.parser_options(options()));
    render(
        parser.into_offset_iter(),
        MathSource {
            src: md,
            options: math,
        },
    )
}

/// Sanitizes and writes a stream of parser events (with their ranges in
/// `math.src`).
pub(crate) fn render<'a>(
    events: impl Iterator<Item = (Event<'a>, Range<usize>)>,
    math: MathSource,
) -> String {
    let mut sanitizer = Sanitizer::default();
    let mut safe = Vec::new();
    for (event, range) in events {
        sanitizer.push(event, &range, math, &mut safe);
    }
    let mut out = String::new();
    // `drain` like the incremental renderer: one copy of the HTML writer.
    html::push_html(&mut out, safe.drain(..));
    out
}

/// Rewrites parser events into safe ones; one instance per document (or per
/// top-level block: all of its state opens and closes inside one block).
#[derive(Default)]
pub(crate) struct Sanitizer {
    /// For each open link: whether its `<a>` was emitted.
    links: Vec<bool>,
    /// Set while inside an image, whose content only feeds the alt text.
    image: Option<ImageCapture>,
    /// Set while inside a table: its cells are written here.
    table: Option<TableCells>,
    /// Inside a code block: its lines so far.
    code_lines: Option<usize>,
}

/// A code block's text is written in parts of this many lines, each its own
/// block box: highlighting replaces one part per frame, and the browser
/// styles and lays out only that part again (100 lines highlighted were
/// frames of 25-45 ms on this loaded machine, over 50 ms at load 10).
const LINES_PER_PART: usize = 50;

/// Between two parts of a code block's text.
const PART_BREAK: &str = "</span><span class=\"code-part\">";

/// pulldown-cmark aligns table cells with an inline `style`, which the
/// Content-Security-Policy (`style-src 'self'`) refuses; cells are written
/// with an `align-*` class instead (styled in `style/markdown.css`).
struct TableCells {
    alignments: Vec<Alignment>,
    in_head: bool,
    index: usize,
}

impl TableCells {
    fn open(&self) -> String {
        let tag = if self.in_head { "th" } else { "td" };
        let class = match self.alignments.get(self.index) {
            Some(Alignment::Left) => " class=\"align-left\"",
            Some(Alignment::Center) => " class=\"align-center\"",
            Some(Alignment::Right) => " class=\"align-right\"",
            Some(Alignment::None) | None => "",
        };
        format!("<{tag}{class}>")
    }

    fn close(&self) -> &'static str {
        if self.in_head {
            "</th>"
        } else {
            "</td>"
        }
    }
}

struct ImageCapture {
    depth: usize,
    src: Option<String>,
    alt: String,
}

impl Sanitizer {
    /// Feeds one parser event (`range`: its source in `math.src`); pushes
    /// zero or more safe events to `out`.
    pub(crate) fn push<'a>(
        &mut self,
        event: Event<'a>,
        range: &Range<usize>,
        math: MathSource,
        out: &mut Vec<Event<'a>>,
    ) {
        if let Some(image) = &mut self.image {
            match event {
                Event::Start(Tag::Image { .. }) => image.depth += 1,
                Event::End(TagEnd::Image) => {
                    image.depth = image.depth.saturating_sub(1);
                    if image.depth == 0 {
                        if let Some(image) = self.image.take() {
                            out.push(image_placeholder(image));
                        }
                    }
                }
                Event::Text(t)
                | Event::Code(t)
                | Event::Html(t)
                | Event::InlineHtml(t)
                | Event::InlineMath(t)
                | Event::DisplayMath(t) => image.alt.push_str(&t),
                Event::SoftBreak | Event::HardBreak => image.alt.push(' '),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(Tag::Image { dest_url, .. }) => {
                self.image = Some(ImageCapture {
                    depth: 1,
                    src: safe_image_src(&dest_url),
                    alt: String::new(),
                });
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                let dest = if link_type == LinkType::Email {
                    format!("mailto:{dest_url}")
                } else {
                    dest_url.to_string()
                };
                match safe_link_href(&dest) {
                    Some(href) => {
                        self.links.push(true);
                        out.push(Event::InlineHtml(link_open(&href, &title).into()));
                    }
                    None => self.links.push(false),
                }
            }
            Event::End(TagEnd::Link) => {
                if self.links.pop().unwrap_or(false) {
                    out.push(Event::InlineHtml(CowStr::Borrowed("</a>")));
                }
            }
            Event::Start(Tag::Table(alignments)) => {
                self.table = Some(TableCells {
                    alignments,
                    in_head: false,
                    index: 0,
                });
                out.push(Event::Start(Tag::Table(Vec::new())));
            }
            Event::End(TagEnd::Table) => {
                self.table = None;
                out.push(Event::End(TagEnd::Table));
            }
            Event::Start(Tag::TableHead) => {
                if let Some(t) = &mut self.table {
                    t.in_head = true;
                    t.index = 0;
                }
                out.push(Event::Start(Tag::TableHead));
            }
            Event::End(TagEnd::TableHead) => {
                if let Some(t) = &mut self.table {
                    t.in_head = false;
                }
                out.push(Event::End(TagEnd::TableHead));
            }
            Event::Start(Tag::TableRow) => {
                if let Some(t) = &mut self.table {
                    t.index = 0;
                }
                out.push(Event::Start(Tag::TableRow));
            }
            Event::Start(Tag::TableCell) => match &self.table {
                Some(t) => out.push(Event::InlineHtml(t.open().into())),
                None => out.push(Event::Start(Tag::TableCell)),
            },
            Event::End(TagEnd::TableCell) => match &mut self.table {
                Some(t) => {
                    out.push(Event::InlineHtml(CowStr::Borrowed(t.close())));
                    t.index += 1;
                }
                None => out.push(Event::End(TagEnd::TableCell)),
            },
            Event::InlineMath(latex) | Event::DisplayMath(latex) => {
                out.push(math_event(latex, range, math));
            }
            // Raw HTML is shown, never interpreted.
            Event::Html(t) | Event::InlineHtml(t) => out.push(Event::Text(t)),
            Event::Start(Tag::HtmlBlock) => out.push(Event::Start(Tag::Paragraph)),
            Event::End(TagEnd::HtmlBlock) => out.push(Event::End(TagEnd::Paragraph)),
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => code_language(&info),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code_lines = Some(0);
                out.push(Event::InlineHtml(code_block_open(&lang).into()));
            }
            Event::Text(t) if self.code_lines.is_some() => self.code_text(t, out),
            Event::Text(t) => out.push(Event::Text(text_event(t, range, math))),
            Event::End(TagEnd::CodeBlock) => {
                self.code_lines = None;
                out.push(Event::InlineHtml(CowStr::Borrowed(
                    "</span></code></pre></div>\n",
                )));
            }
            // Not enabled in `options()`; dropped in case that ever changes.
            Event::FootnoteReference(_) | Event::Start(Tag::MetadataBlock(_)) => {}
            Event::Start(Tag::Heading { level, .. }) => out.push(Event::Start(Tag::Heading {
                level,
                id: None,
                classes: Vec::new(),
                attrs: Vec::new(),
            })),
            other => out.push(other),
        }
    }
}

impl Sanitizer {
    /// Code text, with a part break after every [`LINES_PER_PART`] lines
    /// (none at the very end).
    fn code_text<'a>(&mut self, text: CowStr<'a>, out: &mut Vec<Event<'a>>) {
        let Some(lines) = &mut self.code_lines else {
            return;
        };
        let before = *lines;
        let newlines = text.matches('\n').count();
        if before % LINES_PER_PART + newlines < LINES_PER_PART
            && !(before > 0 && before % LINES_PER_PART == 0)
        {
            *lines += newlines;
            out.push(Event::Text(text));
            return;
        }
        for line in text.split_inclusive('\n') {
            if *lines > 0 && *lines % LINES_PER_PART == 0 && !line.is_empty() {
                out.push(Event::InlineHtml(CowStr::Borrowed(PART_BREAK)));
            }
            out.push(Event::Text(line.to_string().into()));
            if line.ends_with('\n') {
                *lines += 1;
            }
        }
    }
}

/// `<a …>` with escaped attributes; links open in a new, unlinked context.
fn link_open(href: &str, title: &str) -> String {
    let mut s = String::with_capacity(href.len() + title.len() + 64);
    s.push_str("<a href=\"");
    escape_into(&mut s, href);
    s.push('"');
    if !title.is_empty() {
        s.push_str(" title=\"");
        escape_into(&mut s, title);
        s.push('"');
    }
    s.push_str(" rel=\"noopener noreferrer\" target=\"_blank\">");
    s
}

/// A click-to-load button for http(s) images (an image URL can leak data
/// just by being fetched); other images are reduced to their alt text.
fn image_placeholder<'a>(image: ImageCapture) -> Event<'a> {
    let Some(src) = image.src else {
        return Event::Text(image.alt.into());
    };
    let mut s = String::with_capacity(src.len() + image.alt.len() + 80);
    s.push_str("<button type=\"button\" class=\"md-img\" data-src=\"");
    escape_into(&mut s, &src);
    s.push_str("\">🖼 Load image");
    if !image.alt.is_empty() {
        s.push_str(": ");
        escape_into(&mut s, &image.alt);
    }
    s.push_str("</button>");
    Event::InlineHtml(s.into())
}

/// A code block's frame: a head with the language label (when there is
/// one) and a copy button ([`COPY_BUTTON`]), then `<pre><code>`, the
/// `<pre>` focusable so a long line scrolls by keyboard; `lang` is
/// already reduced to `[A-Za-z0-9_+-]`. The UI highlights the
/// `code[data-lang]` of complete blocks (`src/ui/browser/code_highlight.rs`).
fn code_block_open(lang: &str) -> String {
    let mut s = String::with_capacity(2 * lang.len() + 300);
    s.push_str("<div class=\"code-block\"><div class=\"code-head\">");
    if !lang.is_empty() {
        s.push_str("<span class=\"code-lang\">");
        s.push_str(lang);
        s.push_str("</span>");
    }
    s.push_str(COPY_BUTTON);
    s.push_str("</div><pre tabindex=\"0\"><code");
    if !lang.is_empty() {
        s.push_str(" class=\"language-");
        s.push_str(lang);
        s.push_str("\" data-lang=\"");
        s.push_str(lang);
        s.push('"');
    }
    s.push_str("><span class=\"code-part\">");
    s
}

/// The markup of `ui::copy_button::CopyButton` for a code block (content
/// set through `inner_html` cannot hold a component); the markdown view's
/// click handler does the copying.
const COPY_BUTTON: &str = "<button type=\"button\" class=\"copy-button code-copy\" \
     aria-label=\"Copy code\"><span class=\"copy-icon\" aria-hidden=\"true\"></span>\
     <span class=\"copy-label\">Copy</span></button>";

/// The first word of a fence's info string, reduced to `[A-Za-z0-9_+-]`.
fn code_language(info: &str) -> String {
    info.split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
