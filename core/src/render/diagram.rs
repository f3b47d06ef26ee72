//! Mermaid diagrams, the pure half: which code blocks are diagrams, the
//! size limits, the image's text alternative and the line a parse error
//! points at. Drawing happens in a sandboxed frame (`js/diagram-frame.js`);
//! the app shows its SVG only as an image (`ui/diagrams.rs`).

/// A longer source stays code, never sent to Mermaid: its layout time
/// grows faster than its length (a 200-node flowchart is about 6 KB).
pub const MAX_SOURCE_CHARS: usize = 50_000;

/// A longer SVG is refused (by the frame, and checked again here): it is
/// kept in memory as a blob for as long as its answer is on screen.
pub const MAX_SVG_CHARS: usize = 4_000_000;

/// A larger PNG of a drawing is refused, like a longer SVG.
pub const MAX_PNG_BYTES: usize = 16_000_000;

/// How long a text alternative may get, in characters.
const MAX_ALT_CHARS: usize = 200;

/// Whether a fenced block of this language is drawn as a diagram.
pub fn is_diagram(lang: &str) -> bool {
    lang.eq_ignore_ascii_case("mermaid")
}

/// Why a diagram is shown as its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The source is over [`MAX_SOURCE_CHARS`].
    TooLong(usize),
    /// Mermaid could not parse or draw it: its message, and the 1-based
    /// line of the source it names, if any.
    Failed {
        message: String,
        line: Option<usize>,
    },
}

impl Refusal {
    /// Mermaid's error about `source`, with the line of `source` it names.
    pub fn failed(source: &str, message: &str) -> Self {
        let message: String = message.trim().chars().take(2_000).collect();
        Self::Failed {
            line: error_line(&message).map(|n| source_line(source, n)),
            message,
        }
    }

    /// The note shown above the source.
    pub fn note(&self) -> String {
        match self {
            Self::TooLong(n) => {
                format!("Diagram not drawn: its source is too long ({n} characters, at most {MAX_SOURCE_CHARS}).")
            }
            Self::Failed {
                message,
                line: Some(line),
            } => format!("Diagram could not be drawn (line {line}): {message}"),
            Self::Failed { message, .. } => format!("Diagram could not be drawn: {message}"),
        }
    }

    /// The source line to mark, 1-based.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Failed { line, .. } => *line,
            Self::TooLong(_) => None,
        }
    }
}

/// `Ok` when the source may be sent to Mermaid.
pub fn check_source(source: &str) -> Result<(), Refusal> {
    let n = source.chars().count();
    if n > MAX_SOURCE_CHARS {
        Err(Refusal::TooLong(n))
    } else {
        Ok(())
    }
}

/// The line a Mermaid message names: its parsers say "… on line 3" or
/// "Parse error at line 3" (Jison), or "line 3, column 5" (Langium).
pub fn error_line(message: &str) -> Option<usize> {
    let lower = message.to_ascii_lowercase();
    let at = lower.find("line ")? + "line ".len();
    let digits: String = lower[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|&n| n > 0)
}

/// The line of `source` that Mermaid's line `reported` is: Mermaid parses
/// the source without its front matter, its `%%{…}%%` directives and its
/// `%%` comment lines, and without the blank lines this leaves at its
/// start, so its line numbers skip those. A number past the end names the
/// last line (Mermaid reports an unexpected end there).
pub fn source_line(source: &str, reported: usize) -> usize {
    let lines: Vec<&str> = source.lines().collect();
    let mut parsed = Vec::with_capacity(lines.len());
    let mut at = 0;
    if lines.first().map(|l| l.trim()) == Some("---") {
        if let Some(end) = lines.iter().skip(1).position(|l| l.trim() == "---") {
            at = end + 2;
        }
    }
    while at < lines.len() {
        let line = lines[at].trim();
        let directive = line.starts_with("%%{");
        if directive {
            // A directive may span lines; what is left of it is one line.
            while at < lines.len() && !lines[at].contains("}%%") {
                at += 1;
            }
        }
        let comment = line.starts_with("%%") && !directive && line.len() > 2;
        let blank_start = parsed.is_empty() && (directive || line.is_empty());
        if !comment && !blank_start {
            parsed.push(at + 1);
        }
        at += 1;
    }
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(0)
        + 1;
    parsed
        .get(reported.saturating_sub(1))
        .copied()
        .unwrap_or(last)
        .min(last)
}

/// The image's text alternative: "Diagram: " and the diagram's own title
/// (`accTitle`) and description (`accDescr`) when it has them, else its
/// first line of source (its kind, such as `flowchart LR`).
pub fn alt_text(source: &str, title: Option<&str>, description: Option<&str>) -> String {
    let clean = |s: Option<&str>| {
        s.map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
    };
    let text = match (clean(title), clean(description)) {
        (Some(t), Some(d)) => format!("{t}. {d}"),
        (Some(t), None) => t,
        (None, Some(d)) => d,
        (None, None) => first_line(source).unwrap_or_default(),
    };
    let text: String = text.chars().take(MAX_ALT_CHARS).collect();
    if text.is_empty() {
        "Diagram".to_string()
    } else {
        format!("Diagram: {text}")
    }
}

/// The first line of the diagram itself: not blank, not a `%%` comment or
/// directive, not in a `---` front matter block.
fn first_line(source: &str) -> Option<String> {
    let mut lines = source.lines().map(str::trim).peekable();
    if lines.peek() == Some(&"---") {
        lines.next();
        for line in lines.by_ref() {
            if line == "---" {
                break;
            }
        }
    }
    lines
        .find(|l| !l.is_empty() && !l.starts_with("%%"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_mermaid_fences_are_diagrams() {
        assert!(is_diagram("mermaid"));
        assert!(is_diagram("Mermaid"));
        assert!(!is_diagram("mmd-ish"));
        assert!(!is_diagram(""));
    }

    #[test]
    fn long_sources_stay_code() {
        assert_eq!(check_source("graph TD\nA-->B"), Ok(()));
        let long = "a".repeat(MAX_SOURCE_CHARS + 1);
        assert_eq!(
            check_source(&long),
            Err(Refusal::TooLong(MAX_SOURCE_CHARS + 1))
        );
        // Counted in characters, not bytes.
        assert_eq!(check_source(&"é".repeat(MAX_SOURCE_CHARS)), Ok(()));
    }

    #[test]
    fn error_lines_from_mermaids_parsers() {
        let jison = "Parse error on line 3:\n...A --> B\nC -->\n-----^\nExpecting 'AMP', got 'EOF'";
        assert_eq!(error_line(jison), Some(3));
        assert_eq!(
            error_line("Lexical error on line 12. Unrecognized text."),
            Some(12)
        );
        assert_eq!(
            error_line("Parsing failed: unexpected character: ->x<- at offset: 9, skipped 1 characters. line 2, column 3"),
            Some(2)
        );
        assert_eq!(
            error_line("No diagram type detected matching given configuration"),
            None
        );
        assert_eq!(error_line("line 0"), None);
        assert_eq!(error_line("newline x"), None);
        assert_eq!(error_line("line 99999999999999999999999"), None);
    }

    #[test]
    fn mermaids_line_numbers_map_back_to_the_source() {
        let plain = "flowchart TD\n  A --> B\n  B -->> C\n  C --> D";
        assert_eq!(source_line(plain, 3), 3);
        // An unexpected end is reported past the last line.
        assert_eq!(source_line(plain, 5), 4);
        assert_eq!(source_line(&format!("{plain}\n\n"), 9), 4);
        let directive = "%%{init: {\"theme\": \"dark\"}}%%\nflowchart LR\n  A --> B\n  B -->> C";
        assert_eq!(source_line(directive, 3), 4);
        let comments = "flowchart LR\n%% a comment\n  A --> B\n  %% another\n  B -->> C";
        assert_eq!(source_line(comments, 3), 5);
        let front = "---\ntitle: T\n---\n\nflowchart LR\n  A -->> B";
        assert_eq!(source_line(front, 2), 6);
        let long_directive = "%%{init: {\n  \"theme\": \"dark\"\n}}%%\nflowchart LR\n  A -->> B";
        assert_eq!(source_line(long_directive, 2), 5);
        assert_eq!(source_line("", 1), 1);
    }

    #[test]
    fn a_failure_notes_its_line() {
        let r = Refusal::failed("x\ny\nz", "  Parse error on line 2:\nbad  ");
        assert_eq!(r.line(), Some(2));
        assert_eq!(
            r.note(),
            "Diagram could not be drawn (line 2): Parse error on line 2:\nbad"
        );
        assert_eq!(
            Refusal::failed("", "boom").note(),
            "Diagram could not be drawn: boom"
        );
        assert_eq!(Refusal::TooLong(7).line(), None);
        assert!(Refusal::failed("", &"x".repeat(10_000)).note().len() < 2_100);
        // The note names the source's line, not Mermaid's.
        let r = Refusal::failed("%% c\nflowchart LR\nA -->> B", "Parse error on line 2:");
        assert_eq!(r.line(), Some(3));
    }

    #[test]
    fn alt_text_prefers_the_diagrams_own_title() {
        let src = "---\ntitle: x\n---\n%%{init: {}}%%\n\n  flowchart   LR\nA-->B";
        assert_eq!(alt_text(src, None, None), "Diagram: flowchart LR");
        assert_eq!(
            alt_text(src, Some(" Build\n flow "), None),
            "Diagram: Build flow"
        );
        assert_eq!(
            alt_text(src, Some("Build"), Some("From commit to deploy")),
            "Diagram: Build. From commit to deploy"
        );
        assert_eq!(alt_text(src, Some("  "), Some("Steps")), "Diagram: Steps");
        assert_eq!(alt_text("", None, None), "Diagram");
        assert_eq!(alt_text("%% only a comment", None, None), "Diagram");
        let long = format!("graph {}", "x".repeat(500));
        assert_eq!(alt_text(&long, None, None).chars().count(), 209);
    }
}
