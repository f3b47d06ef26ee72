//! An allow-list sanitizer for the converter's MathML: the converter is
//! trusted to write well-formed markup, not to keep hostile LaTeX from
//! reaching it (`\href` writes an `<a href>`, sizes write `style`), so its
//! output is parsed again here and only presentation MathML passes.
//!
//! - Elements: MathML Core's presentation elements and a few text styles
//!   inside `<mtext>`. `<a>` and `<span>` are unwrapped (their text stays);
//!   any other element is dropped with everything inside it: `semantics`'
//!   annotations, `maction`, `annotation-xml` (which may hold HTML), and
//!   every HTML or SVG element.
//! - Attributes: layout ones only ([`ATTRIBUTES`]). No `href`, `src`,
//!   `style` (the page's CSP refuses it anyway), `class`, `id` (DOM
//!   clobbering) or event handler; values are escaped again.
//! - Text is escaped again; character references pass only when well
//!   formed.

/// Presentation elements that pass with their allowed attributes.
const ELEMENTS: &[&str] = &[
    "math",
    "mrow",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "mfrac",
    "msqrt",
    "mroot",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mmultiscripts",
    "mprescripts",
    "mtable",
    "mtr",
    "mtd",
    "mpadded",
    "mphantom",
    "mstyle",
    "menclose",
    "merror",
    // Text styles the converter writes inside `<mtext>`.
    "b",
    "i",
    "em",
    "code",
    "s",
    "u",
];

/// Elements whose tags are dropped but whose content stays.
const UNWRAPPED: &[&str] = &["a", "span", "semantics"];

/// Elements that write nothing inside them: self-closing in the output.
const EMPTY: &[&str] = &["mspace", "mprescripts"];

/// Attributes that pass, on any allowed element.
const ATTRIBUTES: &[&str] = &[
    "display",
    "displaystyle",
    "scriptlevel",
    "mathvariant",
    "dir",
    "form",
    "fence",
    "separator",
    "stretchy",
    "symmetric",
    "largeop",
    "movablelimits",
    "accent",
    "accentunder",
    "lspace",
    "rspace",
    "minsize",
    "maxsize",
    "linethickness",
    "width",
    "height",
    "depth",
    "voffset",
    "notation",
    "columnalign",
    "rowalign",
    "columnspacing",
    "rowspacing",
    "columnlines",
    "rowlines",
    "frame",
    "framespacing",
    "columnspan",
    "rowspan",
];

/// Nesting deeper than this is cut (dropped), bounding the stack.
const MAX_DEPTH: usize = 256;

/// `mathml` reduced to the allow-list. `root_attrs` (already escaped, with
/// a leading space) is written into the first `<math>` tag.
pub(crate) fn sanitize_mathml(mathml: &str, root_attrs: &str) -> String {
    let mut out = String::with_capacity(mathml.len() + root_attrs.len());
    let mut open: Vec<Open> = Vec::new();
    let mut root_done = false;
    let mut rest = mathml;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            push_text(&mut out, rest, &open);
            break;
        };
        push_text(&mut out, &rest[..lt], &open);
        rest = &rest[lt..];
        let Some((tag, after)) = read_tag(rest) else {
            // A `<` that opens no tag: text.
            push_text(&mut out, "<", &open);
            rest = &rest[1..];
            continue;
        };
        rest = after;
        match tag {
            Tag::Open {
                name,
                attrs,
                self_closing,
            } => {
                if dropping(&open) || open.len() >= MAX_DEPTH {
                    if !self_closing {
                        open.push(Open::Dropped(name));
                    }
                    continue;
                }
                if ELEMENTS.contains(&name.as_str()) {
                    out.push('<');
                    out.push_str(&name);
                    if name == "math" && !root_done {
                        root_done = true;
                        out.push_str(root_attrs);
                    }
                    push_attrs(&mut out, &attrs);
                    out.push('>');
                    if self_closing || EMPTY.contains(&name.as_str()) {
                        close_tag(&mut out, &name);
                        if !self_closing {
                            open.push(Open::Dropped(name));
                        }
                    } else {
                        open.push(Open::Kept(name));
                    }
                } else if UNWRAPPED.contains(&name.as_str()) {
                    if !self_closing {
                        open.push(Open::Unwrapped(name));
                    }
                } else if !self_closing {
                    open.push(Open::Dropped(name));
                }
            }
            Tag::Close(name) => {
                // Close up to the matching open element; a stray close tag
                // matches nothing and is ignored.
                let Some(at) = open.iter().rposition(|o| o.name() == name) else {
                    continue;
                };
                for o in open.drain(at..).rev() {
                    if let Open::Kept(n) = o {
                        close_tag(&mut out, &n);
                    }
                }
            }
            Tag::Skipped => {}
        }
    }
    for o in open.into_iter().rev() {
        if let Open::Kept(n) = o {
            close_tag(&mut out, &n);
        }
    }
    out
}

enum Open {
    Kept(String),
    Unwrapped(String),
    /// Its content is dropped too (or, for an empty element, it has none).
    Dropped(String),
}

impl Open {
    fn name(&self) -> &str {
        match self {
            Self::Kept(n) | Self::Unwrapped(n) | Self::Dropped(n) => n,
        }
    }
}

fn dropping(open: &[Open]) -> bool {
    open.iter().any(|o| matches!(o, Open::Dropped(_)))
}

fn close_tag(out: &mut String, name: &str) {
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

enum Tag {
    Open {
        name: String,
        attrs: Vec<(String, String)>,
        self_closing: bool,
    },
    Close(String),
    /// A comment, doctype, CDATA section or processing instruction.
    Skipped,
}

/// Reads the tag `s` starts with (`s` starts with `<`): the tag and what
/// follows it, or `None` if no tag starts here.
fn read_tag(s: &str) -> Option<(Tag, &str)> {
    let body = s.get(1..)?;
    if body.starts_with('!') || body.starts_with('?') {
        let end = if body.starts_with("!--") {
            body.find("-->").map(|i| i + 3)
        } else {
            body.find('>').map(|i| i + 1)
        };
        // An unterminated comment swallows the rest, as a browser would.
        return Some((Tag::Skipped, end.map_or("", |e| &body[e..])));
    }
    if let Some(close) = body.strip_prefix('/') {
        let (name, rest) = read_name(close)?;
        let end = rest.find('>')?;
        return Some((Tag::Close(name), &rest[end + 1..]));
    }
    let (name, mut rest) = read_name(body)?;
    let mut attrs = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
        if let Some(after) = rest.strip_prefix('>') {
            let self_closing = s[..s.len() - after.len()].ends_with("/>");
            return Some((
                Tag::Open {
                    name,
                    attrs,
                    self_closing,
                },
                after,
            ));
        }
        let name_end = rest
            .find(|c: char| c.is_ascii_whitespace() || matches!(c, '=' | '>' | '/'))
            .unwrap_or(rest.len());
        if name_end == 0 {
            // Unterminated tag.
            return None;
        }
        let attr = rest[..name_end].to_ascii_lowercase();
        rest = rest[name_end..].trim_start();
        let mut value = String::new();
        if let Some(v) = rest.strip_prefix('=') {
            let v = v.trim_start();
            let (raw, after) = match v.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let end = v[1..].find(q)? + 1;
                    (&v[1..end], &v[end + 1..])
                }
                _ => {
                    let end = v
                        .find(|c: char| c.is_ascii_whitespace() || c == '>')
                        .unwrap_or(v.len());
                    (&v[..end], &v[end..])
                }
            };
            value = decode(raw);
            rest = after;
        }
        attrs.push((attr, value));
    }
}

/// A tag name (ASCII letters, digits, `-`, `:`), lower-cased.
fn read_name(s: &str) -> Option<(String, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | ':')))
        .unwrap_or(s.len());
    if end == 0 || !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some((s[..end].to_ascii_lowercase(), &s[end..]))
}

fn push_attrs(out: &mut String, attrs: &[(String, String)]) {
    for (name, value) in attrs {
        if !ATTRIBUTES.contains(&name.as_str()) || name == "display" && value != "block" {
            continue;
        }
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        crate::escape::escape_into(out, value);
        out.push('"');
    }
}

/// Text between tags, unless inside a dropped element: decoded, then
/// escaped again.
fn push_text(out: &mut String, text: &str, open: &[Open]) {
    if text.is_empty() || dropping(open) {
        return;
    }
    crate::escape::escape_into(out, &decode(text));
}

/// Decodes the character references the converter writes (`&amp;`, `&lt;`,
/// `&gt;`, `&quot;`, `&#39;`, numeric ones); any other `&` stays itself.
fn decode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let reference = rest
            .find(';')
            .filter(|&end| end <= 10)
            .and_then(|end| Some((char_reference(&rest[1..end])?, end)));
        match reference {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn char_reference(name: &str) -> Option<char> {
    let code = match name {
        "amp" => return Some('&'),
        "lt" => return Some('<'),
        "gt" => return Some('>'),
        "quot" => return Some('"'),
        "apos" => return Some('\''),
        _ => match name.strip_prefix('#')? {
            hex if hex.starts_with(['x', 'X']) => u32::from_str_radix(&hex[1..], 16).ok()?,
            dec => dec.parse().ok()?,
        },
    };
    char::from_u32(code).filter(|c| *c != '\0')
}

#[cfg(test)]
#[path = "mathml_sanitize_tests.rs"]
mod tests;
