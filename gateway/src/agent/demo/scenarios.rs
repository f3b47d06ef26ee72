//! Which demo scenario a message asks for (`/demo NAME [N]`).

/// Tool calls of `/demo flood` without a count, and the most allowed.
pub const DEFAULT_FLOOD_CALLS: u32 = 500;
pub const MAX_FLOOD_CALLS: u32 = 5000;
/// Size of `/demo stream` without a size, and the most allowed: the last
/// snapshot must stay under the 1 MiB frame limit once JSON-escaped.
pub const DEFAULT_STREAM_KIB: u32 = 100;
pub const MAX_STREAM_KIB: u32 = 900;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// Any text that is not a `/demo` command: the default markdown answer.
    Answer,
    /// `/demo`, `/demo help` or an unknown name: the list of scenarios.
    Help,
    Reasoning,
    InlineReasoning,
    /// Reasoning long enough to start collapsed (over 8 lines).
    LongReasoning,
    /// A malformed inline prefix: the whole text must stay the answer.
    BadReasoning,
    Tools,
    Commentary,
    Long,
    NoStream,
    Hang,
    /// `/demo flood [N]`: N tool calls.
    Flood(u32),
    /// `/demo stream [KiB]`: an answer of about KiB kibibytes.
    Stream(u32),
    /// `/demo stream-math [KiB]`: the same with about 3 formulas per KiB.
    StreamMath(u32),
    Xss,
    /// A dangerous command that waits for the user's approval.
    Approval,
    /// The same, with a request that times out after a few seconds.
    ApprovalTimeout,
    All,
    Context,
}

/// Every scenario with a one-line description, for `/demo help`.
pub const CATALOG: &[(&str, &str)] = &[
    (
        "/demo reasoning",
        "an answer with a `reasoning` field on `message.stop`",
    ),
    (
        "/demo inline-reasoning",
        "reasoning inlined in the text with the `💭 **Reasoning:**` prefix",
    ),
    (
        "/demo long-reasoning",
        "a long `reasoning` field, which starts collapsed",
    ),
    (
        "/demo bad-reasoning",
        "a malformed inline reasoning prefix (no closing fence): all of it stays the answer",
    ),
    (
        "/demo tools",
        "tool calls (one failing, one long with progress notes) and commentary, then the answer",
    ),
    (
        "/demo commentary",
        "interim commentary beats, then the answer",
    ),
    (
        "/demo long",
        "about 20 KB of markdown: headings, code in several languages, tables, nested lists",
    ),
    ("/demo nostream", "one final `message`, no streaming"),
    (
        "/demo hang",
        "a tool call that never ends; the turn ends anyway",
    ),
    (
        "/demo flood [N]",
        "N tool calls 1 ms apart in one turn (default 500)",
    ),
    (
        "/demo stream [KiB]",
        "an answer of KiB size streamed every 10 ms (default 100)",
    ),
    (
        "/demo stream-math [KiB]",
        "the same with an inline formula per block, display math every fiftieth",
    ),
    (
        "/demo xss",
        "XSS vectors in the answer, reasoning, commentary, tool card and auto title",
    ),
    (
        "/demo approval",
        "`rm -rf ./build` waits for your approval: allowed it runs, denied it does not",
    ),
    (
        "/demo approval-timeout",
        "the same request, resolved as `timeout` after 3 s if nobody answers",
    ),
    (
        "/demo all",
        "reasoning, tools, commentary and the answer in one turn",
    ),
    (
        "/demo context",
        "the user messages this turn was given as context (the active branch up to here)",
    ),
];

impl Scenario {
    pub fn parse(text: &str) -> Self {
        let mut words = text.split_whitespace();
        if words.next() != Some("/demo") {
            return Scenario::Answer;
        }
        let name = words.next().unwrap_or("help").to_ascii_lowercase();
        let count = words.next().and_then(|w| w.parse::<u32>().ok());
        match name.as_str() {
            "reasoning" => Scenario::Reasoning,
            "inline-reasoning" => Scenario::InlineReasoning,
            "long-reasoning" => Scenario::LongReasoning,
            "bad-reasoning" => Scenario::BadReasoning,
            "tools" => Scenario::Tools,
            "commentary" => Scenario::Commentary,
            "long" => Scenario::Long,
            "nostream" => Scenario::NoStream,
            "hang" => Scenario::Hang,
            "flood" => Scenario::Flood(
                count
                    .unwrap_or(DEFAULT_FLOOD_CALLS)
                    .clamp(1, MAX_FLOOD_CALLS),
            ),
            "stream" => {
                Scenario::Stream(count.unwrap_or(DEFAULT_STREAM_KIB).clamp(1, MAX_STREAM_KIB))
            }
            "stream-math" => {
                Scenario::StreamMath(count.unwrap_or(DEFAULT_STREAM_KIB).clamp(1, MAX_STREAM_KIB))
            }
            "xss" => Scenario::Xss,
            "approval" => Scenario::Approval,
            "approval-timeout" => Scenario::ApprovalTimeout,
            "all" => Scenario::All,
            "context" => Scenario::Context,
            _ => Scenario::Help,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_counts() {
        assert_eq!(Scenario::parse("hello there"), Scenario::Answer);
        assert_eq!(
            Scenario::parse("tell me about /demo tools"),
            Scenario::Answer
        );
        assert_eq!(Scenario::parse("/demo"), Scenario::Help);
        assert_eq!(Scenario::parse("/demo nope"), Scenario::Help);
        assert_eq!(Scenario::parse("/demo Tools"), Scenario::Tools);
        assert_eq!(
            Scenario::parse("/demo inline-reasoning"),
            Scenario::InlineReasoning
        );
        assert_eq!(
            Scenario::parse("/demo long-reasoning"),
            Scenario::LongReasoning
        );
        assert_eq!(
            Scenario::parse("/demo bad-reasoning"),
            Scenario::BadReasoning
        );
        assert_eq!(Scenario::parse("/demo approval"), Scenario::Approval);
        assert_eq!(
            Scenario::parse("/demo approval-timeout"),
            Scenario::ApprovalTimeout
        );
        assert_eq!(Scenario::parse("/demo flood"), Scenario::Flood(500));
        assert_eq!(Scenario::parse("/demo flood 12"), Scenario::Flood(12));
        assert_eq!(Scenario::parse("/demo flood 0"), Scenario::Flood(1));
        assert_eq!(
            Scenario::parse("/demo flood 999999"),
            Scenario::Flood(MAX_FLOOD_CALLS)
        );
        assert_eq!(Scenario::parse("/demo stream"), Scenario::Stream(100));
        assert_eq!(Scenario::parse("/demo stream x"), Scenario::Stream(100));
        assert_eq!(
            Scenario::parse("/demo stream-math"),
            Scenario::StreamMath(100)
        );
        assert_eq!(
            Scenario::parse("/demo stream 5000"),
            Scenario::Stream(MAX_STREAM_KIB)
        );
    }

    #[test]
    fn every_catalog_entry_parses_to_a_scenario() {
        for (command, _) in CATALOG {
            let command = command.split(" [").next().unwrap_or(command);
            assert_ne!(Scenario::parse(command), Scenario::Help, "{command}");
        }
    }
}
