//! Progress-draft lines: a one-word label plus compact one-liners for tool
//! calls, tool progress notes and commentary, in a rolling window.
//!
//! Tool cards use the same [`tool_line`] formatter, so a call reads the same
//! in the draft and in the timeline. Lines are cut to a fixed character
//! budget so that repeated edits of the draft do not reflow: prose at a word
//! boundary, paths and commands in the middle so their end stays visible.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Lines a draft shows by default (the label counts as one).
pub const DEFAULT_MAX_LINES: usize = 4;
/// Default per-line character budget.
pub const DEFAULT_MAX_LINE_CHARS: usize = 120;

/// One-word labels for a draft that has no concrete line yet.
pub const LABEL_POOL: &[&str] = &[
    "Working",
    "Thinking",
    "Reading",
    "Digging",
    "Tinkering",
    "Sifting",
    "Checking",
    "Weaving",
    "Tracing",
    "Brewing",
    "Pondering",
    "Sketching",
    "Mapping",
    "Probing",
    "Assembling",
    "Untangling",
    "Exploring",
    "Piecing",
    "Charting",
    "Polishing",
];

/// A label chosen deterministically from `seed` (a turn id), so every
/// device and every re-render shows the same one for a turn.
pub fn pick_label(seed: &str) -> &'static str {
    // FNV-1a: stable across platforms and Rust versions, unlike `Hash`.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    LABEL_POOL[(h % LABEL_POOL.len() as u64) as usize]
}

/// How much a tool line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// `emoji name: "preview"`.
    #[default]
    Explain,
    /// Explain plus the underlying command, path, query or URL.
    Raw,
}

/// The icon for a tool without its own emoji, by name family.
pub fn default_emoji(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
    if has(&["terminal", "shell", "bash", "exec", "command"]) {
        "🛠️"
    } else if has(&["write", "edit", "patch"]) {
        "✍️"
    } else if has(&["fetch", "http", "browser", "navigate", "url"]) {
        "🌐"
    } else if has(&["search", "web", "grep", "find"]) {
        "🔎"
    } else if has(&["read", "file"]) {
        "📖"
    } else {
        "⚙️"
    }
}

/// One line for a tool call: `emoji name: "preview"`, plus `, detail` in
/// [`Detail::Raw`], within `max_chars` characters.
pub fn tool_line(
    emoji: Option<&str>,
    name: &str,
    preview: &str,
    args: &Value,
    detail: Detail,
    max_chars: usize,
) -> String {
    let preview = collapse_whitespace(preview);
    let head = head(emoji, name);
    let explain = if preview.is_empty() {
        head
    } else {
        format!("{head}: \"{preview}\"")
    };
    let raw = match detail {
        Detail::Explain => None,
        Detail::Raw => raw_detail(args)
            .map(|r| collapse_whitespace(&r))
            .filter(|r| !r.is_empty() && *r != preview),
    };
    let Some(raw) = raw else {
        return truncate_line(&explain, max_chars);
    };
    let explain_len = explain.chars().count();
    if explain_len + 2 + raw.chars().count() <= max_chars {
        return format!("{explain}, {raw}");
    }
    // Keep the explanation whole and shorten the raw part, if it still says
    // something; otherwise drop it.
    let room = max_chars.saturating_sub(explain_len + 2);
    if room >= 12 {
        format!("{explain}, {}", middle_ellipsis(&raw, room))
    } else {
        truncate_line(&explain, max_chars)
    }
}

/// One line for a `tool.progress` note: `emoji name: note`.
pub fn note_line(emoji: Option<&str>, name: &str, note: &str, max_chars: usize) -> String {
    let note = collapse_whitespace(note);
    let head = head(emoji, name);
    if note.is_empty() {
        truncate_line(&head, max_chars)
    } else {
        truncate_line(&format!("{head}: {note}"), max_chars)
    }
}

/// One line for commentary: its first non-blank line.
pub fn commentary_line(text: &str, max_chars: usize) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    truncate_line(&collapse_whitespace(first), max_chars)
}

/// The line of a request waiting for the user:
/// `⏸ Waiting for approval: <title>`, or the command when the title is blank.
pub fn approval_line(title: &str, command: Option<&str>, max_chars: usize) -> String {
    let title = collapse_whitespace(title);
    let what = if title.is_empty() {
        collapse_whitespace(command.unwrap_or_default())
    } else {
        title
    };
    let head = "⏸ Waiting for approval";
    if what.is_empty() {
        truncate_line(head, max_chars)
    } else {
        truncate_line(&format!("{head}: {what}"), max_chars)
    }
}

/// The underlying command/detail of a call's arguments, for raw lines.
pub fn raw_detail(args: &Value) -> Option<String> {
    const KEYS: &[&str] = &[
        "command",
        "cmd",
        "script",
        "path",
        "file_path",
        "filepath",
        "file",
        "query",
        "q",
        "pattern",
        "url",
        "uri",
    ];
    match args {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => {
            for key in KEYS {
                match map.get(*key) {
                    Some(Value::String(s)) if !s.trim().is_empty() => return Some(s.clone()),
                    Some(Value::Array(items)) if !items.is_empty() => {
                        let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                        if words.len() == items.len() {
                            return Some(words.join(" "));
                        }
                    }
                    _ => {}
                }
            }
            (!map.is_empty()).then(|| args.to_string())
        }
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Cuts `line` to at most `max_chars` characters: a long path-like token
/// or a command loses its middle, prose is cut at a word boundary; both
/// end in `…`.
pub fn truncate_line(line: &str, max_chars: usize) -> String {
    let len = line.chars().count();
    if len <= max_chars {
        return line.to_string();
    }
    if max_chars == 0 {
        return String::new();
    }
    let over = len - max_chars;
    if let Some(shortened) = shorten_longest_path(line, over) {
        return shortened;
    }
    if looks_like_command(line) {
        return middle_ellipsis(line, max_chars);
    }
    prose_cut(line, max_chars)
}

/// Keeps the start and (mostly) the end of `s`, `…` in between.
pub fn middle_ellipsis(s: &str, max_chars: usize) -> String {
    let len = s.chars().count();
    if len <= max_chars {
        return s.to_string();
    }
    if max_chars == 0 {
        return String::new();
    }
    let keep = max_chars - 1;
    let head = keep / 3;
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(len - tail));
    out
}

/// Shortens the longest token with a `/` or `\` by `over` characters when
/// that leaves it readable.
fn shorten_longest_path(line: &str, over: usize) -> Option<String> {
    const MIN_KEPT: usize = 10;
    let (start, token) = tokens(line)
        .filter(|(_, t)| t.contains(['/', '\\']))
        .max_by_key(|(_, t)| t.chars().count())?;
    let token_len = token.chars().count();
    if token_len < over + MIN_KEPT {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    out.push_str(&line[..start]);
    out.push_str(&middle_ellipsis(token, token_len - over));
    out.push_str(&line[start + token.len()..]);
    Some(out)
}

/// Whitespace-separated tokens with their byte offsets.
fn tokens(line: &str) -> impl Iterator<Item = (usize, &str)> {
    line.split(char::is_whitespace)
        .filter(|t| !t.is_empty())
        .map(move |t| (t.as_ptr() as usize - line.as_ptr() as usize, t))
}

fn looks_like_command(line: &str) -> bool {
    const COMMANDS: &[&str] = &[
        "ls", "cd", "cat", "grep", "rg", "find", "git", "cargo", "npm", "npx", "pnpm", "yarn",
        "node", "python", "python3", "pip", "make", "sh", "bash", "curl", "wget", "docker",
        "kubectl", "sed", "awk", "echo", "rm", "mv", "cp", "mkdir", "chmod", "go", "rustc", "deno",
        "uv", "sudo", "ssh", "tar", "head", "tail", "wc", "jq", "trunk",
    ];
    let trimmed = line.trim();
    // One long ASCII token: a URL, an identifier, a flag soup.
    if trimmed.is_ascii() && !trimmed.contains(char::is_whitespace) {
        return true;
    }
    let first = trimmed.split_whitespace().next().unwrap_or("");
    if COMMANDS.contains(&first) || first.starts_with("./") || first == "$" {
        return true;
    }
    ["&&", "||", " | ", "$(", " 2>", " > ", " --"]
        .iter()
        .any(|op| line.contains(op))
}

fn prose_cut(line: &str, max_chars: usize) -> String {
    let keep = max_chars - 1;
    let cut = line.char_indices().nth(keep).map_or(line.len(), |(i, _)| i);
    let prefix = &line[..cut];
    let at_boundary = line[cut..].starts_with(char::is_whitespace);
    let word_cut = if at_boundary {
        prefix
    } else {
        match prefix.rfind(char::is_whitespace) {
            Some(i) if prefix[..i].chars().count() >= keep / 2 => &prefix[..i],
            _ => prefix,
        }
    };
    let mut out = word_cut
        .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'))
        .to_string();
    out.push('…');
    out
}

fn head(emoji: Option<&str>, name: &str) -> String {
    let emoji = emoji
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| default_emoji(name));
    let name = collapse_whitespace(name);
    let name = if name.is_empty() { "tool".into() } else { name };
    format!("{emoji} {name}")
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The rolling list of lines a progress draft shows: the newest
/// `max_lines`; the label is just the first line, so it scrolls away once
/// enough concrete lines arrive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgressLines {
    max_lines: usize,
    lines: VecDeque<(Option<String>, String)>,
}

impl Default for ProgressLines {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINES)
    }
}

impl ProgressLines {
    /// An empty window of `max_lines` (at least 1).
    pub fn new(max_lines: usize) -> Self {
        Self {
            max_lines: max_lines.max(1),
            lines: VecDeque::new(),
        }
    }

    /// A window that starts with `label` as its first line.
    pub fn with_label(label: &str, max_lines: usize) -> Self {
        let mut lines = Self::new(max_lines);
        lines.push(label);
        lines
    }

    /// The window size.
    pub fn max_lines(&self) -> usize {
        self.max_lines
    }

    /// Resizes the window, dropping the oldest lines if needed.
    pub fn set_max_lines(&mut self, max_lines: usize) {
        self.max_lines = max_lines.max(1);
        self.trim();
    }

    /// Appends a line (skipped when it repeats the newest one).
    pub fn push(&mut self, line: impl Into<String>) {
        let line = line.into();
        if self.lines.back().is_some_and(|(_, l)| *l == line) {
            return;
        }
        self.lines.push_back((None, line));
        self.trim();
    }

    /// Replaces the visible line pushed under `key` (e.g. a tool call's
    /// index, updated by its progress notes), or appends a new one.
    pub fn upsert(&mut self, key: &str, line: impl Into<String>) {
        let line = line.into();
        if let Some(slot) = self
            .lines
            .iter_mut()
            .find(|(k, _)| k.as_deref() == Some(key))
        {
            slot.1 = line;
            return;
        }
        self.lines.push_back((Some(key.to_string()), line));
        self.trim();
    }

    /// The visible lines, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(|(_, l)| l.as_str())
    }

    /// Number of visible lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether nothing is visible.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The visible lines joined with newlines.
    pub fn text(&self) -> String {
        self.lines().collect::<Vec<_>>().join("\n")
    }

    fn trim(&mut self) {
        while self.lines.len() > self.max_lines {
            self.lines.pop_front();
        }
    }
}

#[cfg(test)]
mod tests;
