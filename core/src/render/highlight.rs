//! Syntax highlighting of complete code blocks, the pure half: which fence
//! languages are highlighted and how, and highlighted HTML built from
//! `(scope, text)` tokens with every text escaped and every class taken
//! from a fixed list. The tokens come from highlight.js in a Web Worker
//! (`js/highlight-worker.js`) or, for diffs, from [`diff_tokens`].

use aria_markdown::escape_into;

use super::tail_append::{appended_text, Appended};

/// How a language's blocks are tokenized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    /// By the worker, with this highlight.js grammar.
    Worker(&'static str),
    /// By [`diff_tokens`], on the main thread (one pass over the lines).
    Diff,
}

/// Fence languages (and aliases) → highlight.js grammar names; each name
/// must be in scripts/bundle-highlighter's list (a test checks).
const GRAMMARS: &[(&str, &str)] = &[
    ("rust", "rust"),
    ("rs", "rust"),
    ("python", "python"),
    ("py", "python"),
    ("javascript", "javascript"),
    ("js", "javascript"),
    ("jsx", "javascript"),
    ("mjs", "javascript"),
    ("typescript", "typescript"),
    ("ts", "typescript"),
    ("tsx", "typescript"),
    ("json", "json"),
    ("jsonc", "json"),
    ("yaml", "yaml"),
    ("yml", "yaml"),
    ("toml", "ini"),
    ("ini", "ini"),
    ("bash", "bash"),
    ("sh", "bash"),
    ("shell", "bash"),
    ("zsh", "bash"),
    // A terminal session: `$ ` prompts, the commands highlighted as bash.
    ("console", "shell"),
    ("shellsession", "shell"),
    ("sql", "sql"),
    ("go", "go"),
    ("golang", "go"),
    ("java", "java"),
    ("c", "c"),
    ("h", "c"),
    ("cpp", "cpp"),
    ("c++", "cpp"),
    ("cc", "cpp"),
    ("cxx", "cpp"),
    ("hpp", "cpp"),
    ("html", "xml"),
    ("xml", "xml"),
    ("svg", "xml"),
    ("css", "css"),
    ("markdown", "markdown"),
    ("md", "markdown"),
];

/// A fence's language (already reduced to `[A-Za-z0-9_+-]`, any case) →
/// its grammar, or `None` for a language that is shown plain.
pub fn grammar(lang: &str) -> Option<Grammar> {
    if lang.eq_ignore_ascii_case("diff") || lang.eq_ignore_ascii_case("patch") {
        return Some(Grammar::Diff);
    }
    GRAMMARS
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(lang))
        .map(|&(_, name)| Grammar::Worker(name))
}

/// The CSS class (`tok-*`, styled in `style/code.css`) for a highlight.js
/// scope such as `title.function.invoke`; `None` leaves the text plain.
pub fn token_class(scope: &str) -> Option<&'static str> {
    let head = scope.split(['.', ' ']).next().unwrap_or("");
    Some(match head {
        "keyword" | "selector-tag" | "doctag" => "tok-kw",
        "string" | "regexp" | "char" | "symbol" | "link" | "code" => "tok-str",
        "number" | "literal" => "tok-num",
        "comment" | "quote" => "tok-com",
        "title" if scope.starts_with("title.class") => "tok-type",
        "title" | "section" | "function" => "tok-fn",
        "type" | "built_in" | "class" => "tok-type",
        "attr" | "attribute" | "property" | "variable" | "params" | "template-variable"
        | "selector-id" | "selector-class" | "selector-attr" | "selector-pseudo" => "tok-attr",
        "meta" | "tag" | "name" | "bullet" | "subst" => "tok-meta",
        "addition" => "tok-add",
        "deletion" => "tok-del",
        "emphasis" => "tok-em",
        "strong" => "tok-strong",
        _ => return None,
    })
}

/// A block's tokens reduced to what rendering needs: each token's class
/// and the byte offset in `code` where it ends; `None` when the tokens'
/// texts do not add up to exactly `code` (the plain text then stays).
pub fn classify<S: AsRef<str>>(
    code: &str,
    tokens: &[(S, S)],
) -> Option<Vec<(Option<&'static str>, usize)>> {
    let mut offset = 0;
    let mut out = Vec::with_capacity(tokens.len());
    for (scope, text) in tokens {
        let text = text.as_ref();
        if code.get(offset..offset + text.len()) != Some(text) {
            return None;
        }
        offset += text.len();
        out.push((token_class(scope.as_ref()), offset));
    }
    (offset == code.len()).then_some(out)
}

/// The highlighted HTML of `code[start..end]` from its [`classify`]d
/// tokens: every text escaped, a token crossing a cut split into two spans.
pub fn chunk_html(
    code: &str,
    tokens: &[(Option<&'static str>, usize)],
    start: usize,
    end: usize,
) -> String {
    let mut html = String::with_capacity(2 * end.saturating_sub(start));
    let first = tokens.partition_point(|t| t.1 <= start);
    let mut from = start;
    for &(class, token_end) in &tokens[first..] {
        let to = token_end.min(end);
        if let Some(text) = code.get(from..to) {
            push_token(&mut html, class, text);
        }
        if token_end >= end {
            break;
        }
        from = to;
    }
    html
}

fn push_token(out: &mut String, class: Option<&str>, text: &str) {
    match class {
        Some(class) if !text.is_empty() => {
            out.push_str("<span class=\"");
            out.push_str(class);
            out.push_str("\">");
            escape_into(out, text);
            out.push_str("</span>");
        }
        _ => escape_into(out, text),
    }
}

/// A block's [`classify`]d tokens, handed out one part of the block at a
/// time, so that no task of the page walks the whole block at once.
#[derive(Debug)]
pub enum PartTokens {
    /// All of them, made at once (diffs: one pass over the lines).
    Ready(Vec<(Option<&'static str>, usize)>),
    /// The worker's answer, decoded only as far as the parts so far reach.
    Answer(AnswerWalk),
}

impl PartTokens {
    /// The highlighted HTML of `code[start..end]`, the part after the one
    /// asked for before; `None` when the tokens do not fit `code`.
    pub fn part_html(&mut self, code: &str, start: usize, end: usize) -> Option<String> {
        code.get(start..end)?;
        match self {
            PartTokens::Ready(tokens) => Some(chunk_html(code, tokens, start, end)),
            PartTokens::Answer(walk) => {
                Some(chunk_html(code, &walk.tokens_to(code, end)?, start, end))
            }
        }
    }
}

/// The worker's answer, each token's scope (joined by newlines) and its
/// length in UTF-16 units (JavaScript's string length), walked along the
/// code it was made from.
#[derive(Debug)]
pub struct AnswerWalk {
    scopes: String,
    /// Where the next scope starts in `scopes`.
    scope_at: usize,
    lengths: Vec<u32>,
    /// The next token in `lengths`.
    next: usize,
    /// The byte of the code where the next token starts.
    pos: usize,
    /// The last token handed out, when it runs past the part it was for.
    carry: Option<(Option<&'static str>, usize)>,
}

impl AnswerWalk {
    /// `None` when the answer cannot be `code`'s: fewer scopes than
    /// lengths, or lengths that do not add up to the code's.
    pub fn new(code: &str, scopes: String, lengths: Vec<u32>) -> Option<AnswerWalk> {
        let units: u64 = lengths.iter().map(|&n| u64::from(n)).sum();
        let enough = scopes.split('\n').count() >= lengths.len();
        (enough && units == code.encode_utf16().count() as u64).then_some(AnswerWalk {
            scopes,
            scope_at: 0,
            lengths,
            next: 0,
            pos: 0,
            carry: None,
        })
    }

    /// The tokens (class, end offset) from where the previous call ended up
    /// to at least byte `end`: the first may have begun before, the last
    /// may run past `end`. `None` when a length cuts a character of `code`.
    pub fn tokens_to(
        &mut self,
        code: &str,
        end: usize,
    ) -> Option<Vec<(Option<&'static str>, usize)>> {
        let mut out: Vec<_> = self.carry.take().into_iter().collect();
        while self.pos < end {
            let units = *self.lengths.get(self.next)?;
            let token_end = advance_utf16(code, self.pos, units)?;
            let class = token_class(self.next_scope());
            self.next += 1;
            self.pos = token_end;
            out.push((class, token_end));
        }
        self.carry = out.last().copied().filter(|t| t.1 > end);
        Some(out)
    }

    fn next_scope(&mut self) -> &str {
        let rest = self.scopes.get(self.scope_at..).unwrap_or("");
        let scope = rest.split('\n').next().unwrap_or("");
        self.scope_at += scope.len() + 1;
        scope
    }
}

/// The byte offset `units` UTF-16 units after byte `from` of `code`;
/// `None` when that is inside a character or past the end.
fn advance_utf16(code: &str, from: usize, units: u32) -> Option<usize> {
    let mut counted = 0;
    let mut end = from;
    let mut chars = code.get(from..)?.chars();
    while counted < units {
        let c = chars.next()?;
        counted += c.len_utf16() as u32;
        end += c.len_utf8();
    }
    (counted == units).then_some(end)
}

/// A unified diff's tokens: one per line (with its newline), scoped by the
/// line's first characters; the scopes are highlight.js's names.
pub fn diff_tokens(code: &str) -> Vec<(&'static str, &str)> {
    code.split_inclusive('\n')
        .map(|line| (diff_line_scope(line), line))
        .collect()
}

fn diff_line_scope(line: &str) -> &'static str {
    if line.starts_with("+++ ") || line.starts_with("--- ") || line.starts_with("diff ") {
        "meta"
    } else if line.starts_with("@@") {
        "section"
    } else if line.starts_with('+') || line.starts_with('>') {
        "addition"
    } else if line.starts_with('-') || line.starts_with('<') {
        "deletion"
    } else {
        ""
    }
}

/// The highlight-once rule for a message's unfinished tail (its completed
/// blocks are appended once and highlighted then): the tail's code is
/// highlighted when the text is final, and again only after a changed tail
/// replaced it; an unchanged tail is not repainted, so highlighting stays.
/// A tail whose text only grew at its end is grown in place (not once
/// highlighted: highlighting split its text).
#[derive(Debug, Default)]
pub struct TailHighlight {
    shown: Option<String>,
    highlighted: bool,
}

/// How the tail's HTML reaches the page after one update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailPaint {
    /// Unchanged.
    Keep,
    /// Only text was added, at the end of an element's last text node.
    Append(Appended),
    /// Replace the tail's HTML.
    Replace,
}

/// What to do with the tail after one update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TailStep {
    pub paint: TailPaint,
    /// Highlight the tail's code blocks.
    pub highlight: bool,
}

impl TailHighlight {
    /// The tail's new HTML, and whether the message is still streaming.
    pub fn step(&mut self, tail_html: &str, live: bool) -> TailStep {
        let paint = match self.shown.as_deref() {
            Some(shown) if shown == tail_html => TailPaint::Keep,
            Some(shown) if !self.highlighted => {
                appended_text(shown, tail_html).map_or(TailPaint::Replace, TailPaint::Append)
            }
            _ => TailPaint::Replace,
        };
        if paint != TailPaint::Keep {
            self.shown = Some(tail_html.to_string());
            self.highlighted = false;
        }
        let highlight = !live && !self.highlighted;
        self.highlighted |= highlight;
        TailStep { paint, highlight }
    }
}

#[cfg(test)]
mod tests;
