//! A thread as a file: readable Markdown, or the protocol's items as JSON.
//! Built page by page (each page of history its own part), so a long
//! thread never costs one long task; the caller joins the parts.
//!
//! Everything in an item is untrusted: text keeps its markdown, but cannot
//! add headings or HTML blocks of its own, and an unclosed code fence is
//! closed before the next item, so nothing swallows what follows.

use serde_json::Value;

use super::format::{args_pretty, choice_label, duration, short_preview};
use crate::protocol::{ApprovalItem, CommentaryItem, HistoryItem, MessageItem, Role, ToolItem};

/// How many characters of a tool's preview its one line shows.
const PREVIEW_CHARS: usize = 120;
/// Longest file name stem, in characters.
const NAME_CHARS: usize = 80;

/// The start of the Markdown file: the title as a heading and where it is from.
pub fn markdown_head(
    title: &str,
    channel_id: &str,
    exported_ms: i64,
    tz_offset_min: i32,
) -> String {
    format!(
        "# {}\n\n*Exported from aria on {} · thread {}*\n\n",
        inline(&title_or_untitled(title)),
        datetime(exported_ms, tz_offset_min),
        code_span(channel_id)
    )
}

/// One page of items (ascending) as Markdown, each block ending in a blank line.
pub fn markdown_items(items: &[HistoryItem], tz_offset_min: i32) -> String {
    let mut out = String::new();
    for item in items {
        match item {
            HistoryItem::Message(m) => message(&mut out, m, tz_offset_min),
            HistoryItem::Commentary(c) => commentary(&mut out, c),
            HistoryItem::Tool(t) => tool(&mut out, t),
            HistoryItem::Approval(a) => approval(&mut out, a),
            HistoryItem::Unknown => {}
        }
    }
    out
}

/// The start of the JSON document, up to the opening of `items`.
pub fn json_head(title: &str, channel_id: &str, exported_ms: i64) -> String {
    format!(
        "{{\"channel_id\":{},\"title\":{},\"exported_at\":{exported_ms},\"items\":[",
        Value::from(channel_id),
        Value::from(title)
    )
}

/// The end of the JSON document.
pub const JSON_TAIL: &str = "]}";

/// One page of items as JSON array elements, comma-separated (no brackets).
/// Items of a kind this client does not know were not decoded and are left out.
pub fn json_items(items: &[HistoryItem]) -> String {
    items
        .iter()
        .filter(|i| !matches!(i, HistoryItem::Unknown))
        .filter_map(|i| serde_json::to_string(i).ok())
        .collect::<Vec<_>>()
        .join(",")
}

/// A file name for the thread: letters, digits, `-` and `_` of its title,
/// other runs as one `-`, never empty, never hidden, with `extension`.
pub fn file_name(title: &str, extension: &str) -> String {
    let mut stem = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() || c == '_' {
            stem.push(c);
        } else if !stem.is_empty() && !stem.ends_with('-') {
            stem.push('-');
        }
        if stem.chars().count() >= NAME_CHARS {
            break;
        }
    }
    let stem = stem.trim_end_matches('-');
    let stem = if stem.is_empty() { "thread" } else { stem };
    format!("{stem}.{extension}")
}

/// `YYYY-MM-DD HH:MM` of a Unix time in ms, shifted by the local offset
/// (minutes east of UTC); `unknown time` for a missing timestamp.
pub fn datetime(ms: i64, tz_offset_min: i32) -> String {
    if ms <= 0 {
        return "unknown time".into();
    }
    let minutes = ms.div_euclid(60_000) + i64::from(tz_offset_min);
    let (days, minute_of_day) = (minutes.div_euclid(1440), minutes.rem_euclid(1440));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        minute_of_day / 60,
        minute_of_day % 60
    )
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn message(out: &mut String, m: &MessageItem, tz: i32) {
    let who = match m.role {
        Role::User => "You",
        Role::Assistant => "Assistant",
        Role::Other => "Other",
    };
    out.push_str(&format!("**{who}** · {}", datetime(m.ts, tz)));
    if let Some(model) = m.model.as_deref().filter(|s| !s.trim().is_empty()) {
        out.push_str(&format!(" · {}", inline(model)));
    }
    out.push_str("\n\n");
    if let Some(reasoning) = m.reasoning.as_deref().filter(|s| !s.trim().is_empty()) {
        for line in block(reasoning).lines() {
            out.push_str(if line.is_empty() { ">" } else { "> " });
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&block(&m.text));
    out.push_str("\n\n");
}

fn commentary(out: &mut String, c: &CommentaryItem) {
    let text = short_preview(&c.text, usize::MAX);
    if !text.is_empty() {
        out.push_str(&format!("*{}*\n\n", inline(&text)));
    }
}

fn tool(out: &mut String, t: &ToolItem) {
    let emoji = t.emoji.as_deref().filter(|e| !e.trim().is_empty());
    let mut line = format!("{} {}", inline(emoji.unwrap_or("🛠️")), inline(&t.name));
    let preview = short_preview(&t.preview, PREVIEW_CHARS);
    if !preview.is_empty() {
        line.push_str(&format!(" — {}", inline(&preview)));
    }
    let outcome = if t.ok { "ok" } else { "failed" };
    line.push_str(&format!(" — {outcome}, {}", duration(t.duration)));
    out.push_str(&line);
    out.push_str("\n\n<details><summary>Arguments and output</summary>\n\n");
    out.push_str(&fenced(&args_pretty(&t.args, usize::MAX), "json"));
    let output = t.output.as_deref().unwrap_or(&t.output_preview);
    if !output.is_empty() {
        out.push_str(&fenced(output, "text"));
    }
    out.push_str("</details>\n\n");
}

fn approval(out: &mut String, a: &ApprovalItem) {
    let what = match short_preview(&a.title, usize::MAX) {
        t if t.is_empty() => short_preview(a.command.as_deref().unwrap_or_default(), usize::MAX),
        t => t,
    };
    out.push_str(&format!(
        "Approval: {} — {}\n\n",
        inline(&what),
        choice_label(a.choice)
    ));
    if let Some(command) = a.command.as_deref().filter(|c| !c.trim().is_empty()) {
        out.push_str(&fenced(command, "sh"));
    }
}

fn title_or_untitled(title: &str) -> String {
    match short_preview(title, usize::MAX) {
        t if t.is_empty() => "Untitled".into(),
        t => t,
    }
}

/// `text` in a code fence longer than any backtick run inside it.
pub fn fenced(text: &str, lang: &str) -> String {
    let fence = "`".repeat(longest_run(text, '`').max(2) + 1);
    let nl = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{lang}\n{text}{nl}{fence}\n\n")
}

/// An inline code span that no backtick inside can close early.
fn code_span(text: &str) -> String {
    let text = short_preview(text, usize::MAX);
    let ticks = "`".repeat(longest_run(&text, '`') + 1);
    format!("{ticks} {text} {ticks}")
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// One line of plain text where markdown would read it as text: every
/// punctuation mark that could start markup is backslash-escaped.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in short_preview(text, usize::MAX).chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '!' | '|' | '~' | '&'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Markdown text kept as markdown, made unable to break the document:
/// outside code fences a line cannot start a heading (ATX or setext) or an
/// HTML block; a fence left open is closed at the end.
fn block(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut open: Option<(char, usize)> = None;
    for line in text.trim_end().lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        match open {
            Some((c, n)) => {
                if indent < 4 && closes_fence(rest, c, n) {
                    open = None;
                }
                out.push_str(line);
            }
            None => {
                if let Some(fence) = opens_fence(rest).filter(|_| indent < 4) {
                    open = Some(fence);
                    out.push_str(line);
                } else if indent < 4 && needs_escape(rest) {
                    out.push_str(&line[..indent]);
                    out.push('\\');
                    out.push_str(rest);
                } else {
                    out.push_str(line);
                }
            }
        }
        out.push('\n');
    }
    if let Some((c, n)) = open {
        out.extend(std::iter::repeat_n(c, n));
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out
}

/// A line (indent removed) that opens a code fence: its char and length.
fn opens_fence(rest: &str) -> Option<(char, usize)> {
    let c = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = rest.chars().take_while(|x| *x == c).count();
    // A backtick fence's info string cannot contain a backtick.
    let info_ok = c == '~' || !rest[n..].contains('`');
    (n >= 3 && info_ok).then_some((c, n))
}

fn closes_fence(rest: &str, c: char, n: usize) -> bool {
    let run = rest.chars().take_while(|x| *x == c).count();
    run >= n && rest[run * c.len_utf8()..].trim().is_empty()
}

/// A heading (`#`), an HTML block (`<`) or a setext underline (`===`, `---`).
fn needs_escape(rest: &str) -> bool {
    let t = rest.trim_end();
    rest.starts_with('#')
        || rest.starts_with('<')
        || (!t.is_empty() && (t.chars().all(|c| c == '=') || t.chars().all(|c| c == '-')))
}

#[cfg(test)]
mod tests;
