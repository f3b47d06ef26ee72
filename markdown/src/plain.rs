use pulldown_cmark::{Event, Options, Parser, TagEnd};

/// The text of `markdown` as it reads, without markup: a space between
/// blocks, list items and table cells, nothing inside a line.
pub fn plain_text(markdown: &str) -> String {
    let mut plain = String::new();
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Text(t) | Event::Code(t) => plain.push_str(&t),
            Event::SoftBreak
            | Event::HardBreak
            | Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::TableCell
                | TagEnd::CodeBlock
                | TagEnd::BlockQuote(_),
            ) => plain.push(' '),
            _ => {}
        }
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::plain_text;

    fn words(md: &str) -> String {
        plain_text(md)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn markup_goes_and_blocks_are_apart() {
        assert_eq!(
            words("# Title\n\nSome **bold** and `code`."),
            "Title Some bold and code."
        );
        assert_eq!(words("- one\n- two"), "one two");
        assert_eq!(words("| a | b |\n|---|---|\n| 1 | 2 |"), "a b 1 2");
        assert_eq!(words("<b>raw</b> html"), "raw html");
    }
}
