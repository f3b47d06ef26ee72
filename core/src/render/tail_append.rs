//! Whether a streamed answer's new tail HTML only adds text at the end of
//! the old one's last text node: then that node can grow in place, and the
//! browser lays out the new words instead of a paragraph made anew (its
//! shaping and line breaking reuse what the old text had).

use aria_markdown::unescape;

/// Elements whose end a growing text may sit right before: in all of them
/// text parses as an ordinary text child (not, say, foster-parented out of
/// a table), so appending it to the DOM gives what parsing the new HTML
/// would.
const TEXT_PARENTS: &[&str] = &[
    "p", "li", "td", "th", "code", "span", "em", "strong", "a", "del", "s", "b", "i", "h1", "h2",
    "h3", "h4", "h5", "h6", "dd", "dt",
];

/// Text added at the end of a tail: where it goes and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The elements from the tail down to the one whose text grew, each the
    /// last element child of the one before (outermost first).
    pub path: Vec<String>,
    /// The text to append to that element's last child, a text node.
    pub text: String,
}

/// What turns `old`'s DOM into `new`'s if text was all that was added, at
/// the end of the last element's text; `None` if anything else changed and
/// the tail must be replaced. `old` and `new` are the renderer's escaped
/// HTML.
pub fn appended_text(old: &str, new: &str) -> Option<Appended> {
    let (body, ends) = old.split_at(end_run_start(old));
    let mut path: Vec<String> = ends
        .split("</")
        .skip(1)
        .map(|tag| tag.split('>').next().unwrap_or_default().to_string())
        .collect();
    let innermost = path.first()?;
    if !TEXT_PARENTS.contains(&innermost.as_str()) {
        return None;
    }
    // The old text ends right before those tags (a text node is there).
    if body.is_empty() || body.ends_with('>') {
        return None;
    }
    let added = new.strip_prefix(body)?.strip_suffix(ends)?;
    if added.is_empty() || added.contains('<') {
        return None;
    }
    path.reverse();
    Some(Appended {
        path,
        text: unescape(added)?,
    })
}

/// Where the run of end tags (`</name>`, with whitespace between and after
/// them) that `html` ends with starts: at its first end tag.
fn end_run_start(html: &str) -> usize {
    let mut rest = html;
    loop {
        let trimmed = rest.trim_end_matches(|c: char| c.is_ascii_whitespace());
        let Some(before) = trimmed.strip_suffix('>') else {
            break;
        };
        let Some(open) = before.rfind("</") else {
            break;
        };
        let name = &before[open + 2..];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
            break;
        }
        rest = &before[..open];
    }
    rest.len()
}

#[cfg(test)]
mod tests {
    use super::{appended_text, Appended};

    fn appended(path: &[&str], text: &str) -> Option<Appended> {
        Some(Appended {
            path: path.iter().map(|p| p.to_string()).collect(),
            text: text.to_string(),
        })
    }

    #[test]
    fn text_growing_at_the_end_of_the_last_element_is_appended() {
        assert_eq!(
            appended_text("<p>Hello wor</p>\n", "<p>Hello world, and</p>\n"),
            appended(&["p"], "ld, and")
        );
        assert_eq!(
            appended_text(
                "<ul>\n<li>one</li>\n<li>tw</li>\n</ul>\n",
                "<ul>\n<li>one</li>\n<li>two &amp; three</li>\n</ul>\n"
            ),
            appended(&["ul", "li"], "o & three")
        );
        assert_eq!(
            appended_text("<p>a <em>b</em> </p>", "<p>a <em>bc</em> </p>"),
            appended(&["p", "em"], "c"),
            "inside the innermost element, whitespace after it kept"
        );
        assert_eq!(
            appended_text("<p>a </p>", "<p>a b</p>"),
            appended(&["p"], "b"),
            "whitespace before the end tag is the text's"
        );
        assert_eq!(
            appended_text(
                "<div class=\"code-block\"><pre><code class=\"language-rs\"><span class=\"code-part\">fn main() {\n</span></code></pre></div>\n",
                "<div class=\"code-block\"><pre><code class=\"language-rs\"><span class=\"code-part\">fn main() {\n    let x = &quot;&lt;&#39;&gt;&quot;;\n</span></code></pre></div>\n"
            ),
            appended(&["div", "pre", "code", "span"], "    let x = \"<'>\";\n"),
            "a code block's text, its escapes read back"
        );
    }

    #[test]
    fn anything_else_is_a_replacement() {
        // New markup, at the end or before it.
        assert_eq!(appended_text("<p>a</p>\n", "<p>a</p>\n<p>b</p>\n"), None);
        assert_eq!(appended_text("<p>a</p>", "<p>a <em>b</em></p>"), None);
        assert_eq!(
            appended_text("<p>a <em>b</em></p>", "<p>a <em>b</em> c</p>"),
            None
        );
        // Changed, shrunk or unchanged text.
        assert_eq!(appended_text("<p>ab</p>", "<p>ac</p>"), None);
        assert_eq!(appended_text("<p>ab</p>", "<p>a</p>"), None);
        assert_eq!(appended_text("<p>ab</p>", "<p>ab</p>"), None);
        // The run of end tags changed.
        assert_eq!(appended_text("<p>ab</p>\n", "<p>abc</p>"), None);
        // Nothing to grow: an empty element, an element's end after a tag.
        assert_eq!(appended_text("<p></p>", "<p>a</p>"), None);
        assert_eq!(appended_text("<p><br></p>", "<p><br>a</p>"), None);
        assert_eq!(appended_text("", "a"), None);
        // Text where it would not stay where it was put.
        assert_eq!(
            appended_text("<table><tr>x</tr></table>", "<table><tr>xy</tr></table>"),
            None
        );
        // A reference the renderer does not write.
        assert_eq!(appended_text("<p>a</p>", "<p>a&copy;</p>"), None);
        // Text outside any element.
        assert_eq!(appended_text("<p>a</p>x", "<p>a</p>xy"), None);
    }
}
