//! Markdown rendering for streamed snapshots: completed top-level blocks are
//! rendered once and kept; each update re-parses only the unfinished tail.
//!
//! Invariant: `stable_blocks().concat() + tail_html() == to_html(text)` for
//! the last snapshot, exactly.
//!
//! A cut between top-level blocks `k-1` and `k` is only taken when
//! - a blank line precedes block `k`'s first line, and that line is complete
//!   (terminated): a closed block never reopens, and the first line of the
//!   next block is what decides whether the previous list, indented code or
//!   quote continues; block structure comes from pulldown-cmark itself, so
//!   open fences, lists and HTML blocks are never cut;
//! - the text has no link reference definition: those act on the whole
//!   document, so while one exists everything is re-rendered.

use std::ops::Range;

use pulldown_cmark::{html, Event, Parser};

use crate::dialect::options;
use crate::math::{MathOptions, MathSource};
use crate::prefix::common_prefix_len;
use crate::render::{render, to_html_with, Sanitizer};

/// What changed in one [`IncrementalMarkdown::update`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderDelta {
    /// HTML of blocks that just became complete, in order; append them
    /// (after applying `stable_truncated_to`).
    pub stable_appended: Vec<String>,
    /// A rewrite invalidated stable blocks: keep only this many.
    pub stable_truncated_to: Option<usize>,
    /// HTML of the unfinished last block(s); replaces the previous tail.
    pub tail_html: String,
}

/// Streaming renderer state for one message.
#[derive(Debug, Default)]
pub struct IncrementalMarkdown {
    stable: Vec<String>,
    /// Places the stable prefix may be cut back to after a rewrite.
    checkpoints: Vec<Checkpoint>,
    /// Source text up to the last checkpoint's witness: what a new snapshot
    /// must still start with for the stable blocks to stay valid.
    src: String,
    tail: String,
    math: MathOptions,
}

#[derive(Debug, Clone, Copy)]
struct Checkpoint {
    /// Number of stable blocks at this cut.
    blocks: usize,
    /// Byte offset where the tail starts.
    cut: usize,
    /// End of the first line after the cut: the blocks before the cut
    /// depend on no text beyond it.
    witness: usize,
}

impl IncrementalMarkdown {
    /// An empty renderer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty renderer with the reader's math settings.
    pub fn with_math(math: MathOptions) -> Self {
        Self {
            math,
            ..Self::default()
        }
    }

    /// Renders the new full snapshot `text`, re-parsing only what follows
    /// the still-valid stable prefix.
    pub fn update(&mut self, text: &str) -> RenderDelta {
        let mut delta = RenderDelta::default();
        self.drop_invalidated(text, &mut delta);

        let mut cut = self.checkpoints.last().map_or(0, |c| c.cut);
        if !text.is_char_boundary(cut) {
            // Unreachable (the kept prefix is unchanged); start over if not.
            self.truncate(0, &mut delta);
            cut = 0;
        }
        let tail_src = text.get(cut..).unwrap_or_default();
        let parsed = self.math.prepare(tail_src);
        let parser = Parser::new_ext(&parsed, self.math.parser_options(options()));
        if parser.reference_definitions().iter().next().is_some() {
            // Link reference definitions act on the whole document: while
            // one exists no block is final.
            self.truncate(0, &mut delta);
            self.tail = if cut == 0 {
                render(parser.into_offset_iter(), self.source(tail_src))
            } else {
                to_html_with(text, self.math)
            };
        } else {
            self.render_tail(text, cut, parser, &mut delta);
        }
        delta.tail_html.clone_from(&self.tail);
        delta
    }

    /// HTML of the completed blocks, one string per top-level block.
    pub fn stable_blocks(&self) -> &[String] {
        &self.stable
    }

    /// HTML of the unfinished tail.
    pub fn tail_html(&self) -> &str {
        &self.tail
    }

    /// The whole document's HTML (equals `to_html` of the last snapshot).
    pub fn full_html(&self) -> String {
        let mut out = self.stable.concat();
        out.push_str(&self.tail);
        out
    }

    /// Math events' context: `src` is the text the parser's ranges index.
    fn source<'s>(&self, src: &'s str) -> MathSource<'s> {
        MathSource {
            src,
            options: self.math,
        }
    }

    /// Keeps only the checkpoints whose witnessed text is unchanged.
    fn drop_invalidated(&mut self, text: &str, delta: &mut RenderDelta) {
        let same = common_prefix_len(self.src.as_bytes(), text.as_bytes());
        if same == self.src.len() {
            return;
        }
        let keep = self
            .checkpoints
            .iter()
            .rposition(|c| c.witness <= same)
            .map_or(0, |i| i + 1);
        self.checkpoints.truncate(keep);
        let blocks = self.checkpoints.last().map_or(0, |c| c.blocks);
        let witness = self.checkpoints.last().map_or(0, |c| c.witness);
        self.src.truncate(self.src.floor_char_boundary(witness));
        self.truncate(blocks, delta);
    }

    fn truncate(&mut self, blocks: usize, delta: &mut RenderDelta) {
        if blocks < self.stable.len() {
            self.stable.truncate(blocks);
            delta.stable_truncated_to = Some(blocks);
        }
        if blocks == 0 {
            self.checkpoints.clear();
            self.src.clear();
        }
    }

    /// Parses `text[cut..]`, moves the blocks before its last safe cut to
    /// the stable list and renders the rest as the tail.
    fn render_tail(&mut self, text: &str, cut: usize, parser: Parser, delta: &mut RenderDelta) {
        let tail_src = text.get(cut..).unwrap_or_default();
        let blocks = top_level_blocks(parser, self.source(tail_src));
        // Every safe cut becomes a checkpoint, so a later rewrite keeps as
        // much as it can; the last one splits stable from tail.
        let before = self.stable.len();
        let mut split = 0;
        for k in 1..blocks.len() {
            if let Some((line_start, witness)) =
                safe_cut(tail_src, &blocks[k - 1].range, &blocks[k].range)
            {
                split = k;
                self.checkpoints.push(Checkpoint {
                    blocks: before + k,
                    cut: cut + line_start,
                    witness: cut + witness,
                });
            }
        }
        let mut blocks = blocks.into_iter();
        if split > 0 {
            let new: Vec<String> = blocks.by_ref().take(split).map(|b| b.html).collect();
            self.stable.extend(new.iter().cloned());
            delta.stable_appended = new;
            let witness = self.checkpoints.last().map_or(0, |c| c.witness);
            if let Some(more) = text.get(self.src.len()..witness) {
                self.src.push_str(more);
            }
        }
        self.tail.clear();
        for b in blocks {
            self.tail.push_str(&b.html);
        }
    }
}

/// The byte length of the prefix of `text` made of completed blocks, for
/// "block" streaming: a bubble shows `text[..completed_prefix_len(text)]`
/// and so only advances when a paragraph, list item, heading or fenced code
/// block is complete.
pub fn completed_prefix_len(text: &str) -> usize {
    let mut best = 0;
    let mut fence: Option<(u8, usize)> = None;
    let mut prev_blank = true;
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        let (line, next, complete) = match rest.find('\n') {
            Some(i) => (&rest[..i], pos + i + 1, true),
            None => (rest, text.len(), false),
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        let inner = strip_quote_and_indent(line);
        if let Some((ch, len)) = fence {
            if complete && is_closing_fence(inner, ch, len) {
                fence = None;
                best = next;
                prev_blank = false;
            }
        } else if let Some(open) = opening_fence(inner) {
            // A fence interrupts a paragraph: what came before is complete.
            best = best.max(pos);
            fence = Some(open);
        } else if line.trim().is_empty() {
            if complete && !prev_blank {
                best = next;
            }
            prev_blank = true;
        } else {
            if starts_list_item(inner) {
                best = best.max(pos);
            }
            if complete && (is_atx_heading(inner) || is_thematic_break(inner)) {
                best = next;
            }
            prev_blank = false;
        }
        pos = next;
    }
    best
}

struct Block {
    range: Range<usize>,
    html: String,
}

/// Top-level blocks of a parse with their source ranges and sanitized HTML.
/// Each is rendered by its own writer, which produces the same bytes as one
/// writer over the whole document because every block's HTML ends with a
/// newline (the only writer state carried between blocks).
fn top_level_blocks(parser: Parser, math: MathSource) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut events: Vec<Event> = Vec::new();
    let mut sanitizer = Sanitizer::default();
    let mut last_end = 0;
    for (event, range) in parser.into_offset_iter() {
        last_end = last_end.max(range.end);
        let opens = matches!(event, Event::Start(_));
        let closes = matches!(event, Event::End(_));
        if depth == 0 {
            start = range.start;
        }
        if opens {
            depth += 1;
        } else if closes {
            depth = depth.saturating_sub(1);
        }
        sanitizer.push(event, &range, math, &mut events);
        if depth == 0 {
            let mut out = String::new();
            html::push_html(&mut out, events.drain(..));
            blocks.push(Block {
                range: start..range.end.max(start),
                html: out,
            });
            sanitizer = Sanitizer::default();
        }
    }
    if !events.is_empty() {
        // Unbalanced stream (not expected from pulldown-cmark): keep it all.
        let mut out = String::new();
        html::push_html(&mut out, events.drain(..));
        blocks.push(Block {
            range: start..last_end.max(start),
            html: out,
        });
    }
    blocks
}

/// When the boundary before block `next` is safe, returns (start of its
/// first line, end of that line) as offsets into `src`.
fn safe_cut(src: &str, prev: &Range<usize>, next: &Range<usize>) -> Option<(usize, usize)> {
    let bytes = src.as_bytes();
    let first = next.start.min(bytes.len());
    let line_start = bytes[..first]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    if line_start < prev.end || line_start == 0 {
        return None;
    }
    // The line before must be blank.
    let before = &bytes[..line_start];
    let before = before
        .strip_suffix(b"\r\n")
        .or_else(|| before.strip_suffix(b"\n"))
        .or_else(|| before.strip_suffix(b"\r"))?;
    let prev_line_start = before
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    if !before[prev_line_start..]
        .iter()
        .all(|&b| b == b' ' || b == b'\t')
    {
        return None;
    }
    // The first line of the next block must be complete.
    let eol = bytes[first..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')?;
    Some((line_start, first + eol + 1))
}

/// Strips block-quote markers and indentation (enough for a line scanner
/// that only needs to spot fences, list markers and headings).
fn strip_quote_and_indent(line: &str) -> &str {
    let mut s = line.trim_start_matches([' ', '\t']);
    while let Some(rest) = s.strip_prefix('>') {
        s = rest.trim_start_matches([' ', '\t']);
    }
    s
}

fn opening_fence(s: &str) -> Option<(u8, usize)> {
    let ch = *s.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = s.bytes().take_while(|&b| b == ch).count();
    if len < 3 || (ch == b'`' && s[len..].contains('`')) {
        return None;
    }
    Some((ch, len))
}

fn is_closing_fence(s: &str, ch: u8, len: usize) -> bool {
    let n = s.bytes().take_while(|&b| b == ch).count();
    n >= len && s[n..].trim().is_empty()
}

fn starts_list_item(s: &str) -> bool {
    let b = s.as_bytes();
    let marker_end = match b.first() {
        Some(b'-' | b'+' | b'*') => 1,
        Some(c) if c.is_ascii_digit() => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            match b.get(digits) {
                Some(b'.' | b')') if digits <= 9 => digits + 1,
                _ => return false,
            }
        }
        _ => return false,
    };
    matches!(b.get(marker_end), Some(b' ' | b'\t')) && !is_thematic_break(s)
}

fn is_atx_heading(s: &str) -> bool {
    let hashes = s.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && matches!(s.as_bytes().get(hashes), None | Some(b' ' | b'\t'))
}

fn is_thematic_break(s: &str) -> bool {
    let Some(&ch) = s.as_bytes().first() else {
        return false;
    };
    if !matches!(ch, b'-' | b'*' | b'_') {
        return false;
    }
    let mut n = 0;
    for b in s.bytes() {
        match b {
            b' ' | b'\t' => {}
            b if b == ch => n += 1,
            _ => return false,
        }
    }
    n >= 3
}

#[cfg(test)]
mod tests;
