//! The inline reasoning prefix (protocol §5): a gateway that cannot send
//! `reasoning` separately prefixes the text with
//! `💭 **Reasoning:**\n` + a fenced block + a blank line; the client splits it
//! off and shows it above the answer.

/// Everything before the reasoning itself.
pub const REASONING_PREFIX: &str = "💭 **Reasoning:**\n```\n";
/// What ends the reasoning block and separates it from the answer.
const REASONING_CLOSE: &str = "\n```\n\n";

/// Splits `text` into (reasoning, answer). Without the exact prefix and a
/// closing fence after it, the whole text is the answer.
pub fn split_inline_reasoning(text: &str) -> (Option<&str>, &str) {
    let Some(rest) = text.strip_prefix(REASONING_PREFIX) else {
        return (None, text);
    };
    // Empty reasoning: the closing fence directly follows the opening one.
    if let Some(answer) = rest.strip_prefix(&REASONING_CLOSE[1..]) {
        return (Some(""), answer);
    }
    match rest.find(REASONING_CLOSE) {
        Some(i) => (Some(&rest[..i]), &rest[i + REASONING_CLOSE.len()..]),
        None => (None, text),
    }
}

/// For a streamed snapshot whose reasoning block has not closed yet: the
/// reasoning so far, so the UI can show it in the reasoning block instead
/// of as raw markdown in the answer. `None` when the text does not start
/// like the prefix or the block is already closed (use
/// [`split_inline_reasoning`] then).
pub fn pending_inline_reasoning(text: &str) -> Option<&str> {
    if text.len() < REASONING_PREFIX.len() {
        return (!text.is_empty() && REASONING_PREFIX.starts_with(text)).then_some("");
    }
    if split_inline_reasoning(text).0.is_some() {
        return None;
    }
    let rest = text.strip_prefix(REASONING_PREFIX)?;
    // Hide a closing fence that is still arriving.
    let mut end = rest.len();
    for k in (1..REASONING_CLOSE.len()).rev() {
        if rest.ends_with(&REASONING_CLOSE[..k]) {
            end -= k;
            break;
        }
    }
    Some(&rest[..end])
}

/// Long reasoning starts collapsed: more than 8 lines or 600 characters.
pub fn should_start_collapsed(reasoning: &str) -> bool {
    reasoning.lines().count() > 8 || reasoning.chars().count() > 600
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_the_exact_prefix() {
        let text = "💭 **Reasoning:**\n```\nthink\nmore\n```\n\nThe answer.";
        assert_eq!(
            split_inline_reasoning(text),
            (Some("think\nmore"), "The answer.")
        );
    }

    #[test]
    fn first_closing_fence_ends_the_reasoning() {
        let text = "💭 **Reasoning:**\n```\na\n```\n\nanswer with\n```\ncode\n```\n\nend";
        assert_eq!(
            split_inline_reasoning(text),
            (Some("a"), "answer with\n```\ncode\n```\n\nend")
        );
    }

    #[test]
    fn empty_reasoning_and_empty_answer() {
        assert_eq!(
            split_inline_reasoning("💭 **Reasoning:**\n```\n```\n\nans"),
            (Some(""), "ans")
        );
        assert_eq!(
            split_inline_reasoning("💭 **Reasoning:**\n```\n\n```\n\nans"),
            (Some(""), "ans")
        );
        assert_eq!(
            split_inline_reasoning("💭 **Reasoning:**\n```\nr\n```\n\n"),
            (Some("r"), "")
        );
    }

    #[test]
    fn malformed_prefix_is_all_answer() {
        for text in [
            "",
            "plain answer",
            "💭 **Reasoning:**\n```\nno close",
            "💭 **Reasoning:**\n```\nclose without blank\n```\nanswer",
            "💭 **Reasoning:**\n```\nclose at end\n```",
            "💭 **Reasoning:** \n```\nx\n```\n\nanswer",
            " 💭 **Reasoning:**\n```\nx\n```\n\nanswer",
            "💭 **reasoning:**\n```\nx\n```\n\nanswer",
            "> 💭 **Reasoning:**\n> x\n\nanswer",
            "💭 **Reasoning:**\r\n```\r\nx\r\n```\r\n\r\nanswer",
        ] {
            assert_eq!(split_inline_reasoning(text), (None, text), "{text:?}");
        }
    }

    #[test]
    fn pending_reasoning_while_streaming() {
        assert_eq!(pending_inline_reasoning(""), None);
        assert_eq!(pending_inline_reasoning("💭 **Reas"), Some(""));
        assert_eq!(
            pending_inline_reasoning("💭 **Reasoning:**\n```\n"),
            Some("")
        );
        assert_eq!(
            pending_inline_reasoning("💭 **Reasoning:**\n```\nthinking"),
            Some("thinking")
        );
        assert_eq!(
            pending_inline_reasoning("💭 **Reasoning:**\n```\nthinking\n``"),
            Some("thinking")
        );
        assert_eq!(
            pending_inline_reasoning("💭 **Reasoning:**\n```\nthinking\n```\n\nans"),
            None
        );
        assert_eq!(pending_inline_reasoning("Hello"), None);
        assert_eq!(pending_inline_reasoning("H"), None);
    }

    #[test]
    fn long_reasoning_collapses() {
        assert!(!should_start_collapsed(""));
        assert!(!should_start_collapsed(&"line\n".repeat(8)));
        assert!(should_start_collapsed(&"line\n".repeat(9)));
        assert!(!should_start_collapsed(&"é".repeat(600)));
        assert!(should_start_collapsed(&"é".repeat(601)));
        // 600 chars but 1200 bytes: counted in chars.
        assert!(!should_start_collapsed(&"é".repeat(600)));
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn split_never_panics_and_covers_the_text(s in any::<String>(), prefixed in any::<bool>()) {
                let text = if prefixed { format!("{REASONING_PREFIX}{s}") } else { s };
                let (reasoning, answer) = split_inline_reasoning(&text);
                prop_assert!(text.ends_with(answer));
                if let Some(r) = reasoning {
                    prop_assert!(text.contains(r));
                    prop_assert!(r.len() + answer.len() < text.len());
                } else {
                    prop_assert_eq!(answer, text.as_str());
                }
                let _ = pending_inline_reasoning(&text);
                let _ = should_start_collapsed(&text);
            }
        }
    }
}
