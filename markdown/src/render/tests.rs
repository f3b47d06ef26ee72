use super::to_html;
use crate::xss_corpus::XSS_VECTORS;

/// Why `html` would be unsafe in `inner_html`, if it is. Independent of the
/// renderer: it parses every real tag (text has `<` escaped, so each `<` in
/// the output opens markup) and allow-lists tags, attributes and URLs.
pub(crate) fn unsafe_reason(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    for banned in [
        "<script",
        "<img",
        "<iframe",
        "<svg",
        "<style",
        "<base",
        "<form",
        "<meta",
        "<object",
        "<embed",
        "<link",
        "<math",
        "<video",
        "<source",
        "<textarea",
        "<noscript",
    ] {
        if lower.contains(banned) {
            return Some(format!("contains {banned}"));
        }
    }
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        let after = &rest[lt + 1..];
        let Some(gt) = after.find('>') else {
            return Some("unterminated tag".into());
        };
        if let Some(why) = tag_problem(&after[..gt]) {
            return Some(why);
        }
        rest = &after[gt + 1..];
    }
    None
}

fn tag_problem(tag: &str) -> Option<String> {
    let body = tag.strip_prefix('/').unwrap_or(tag);
    let name_end = body
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(body.len());
    let name = &body[..name_end];
    const TAGS: &[&str] = &[
        "p",
        "div",
        "span",
        "br",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "em",
        "strong",
        "del",
        "code",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "li",
        "a",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "input",
        "button",
    ];
    if !TAGS.contains(&name) {
        return Some(format!("tag <{tag}>"));
    }
    let mut attrs = &body[name_end..];
    let mut seen = Vec::new();
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() || attrs == "/" {
            break;
        }
        let key_end = attrs
            .find(|c: char| c == '=' || c == '/' || c.is_whitespace())
            .unwrap_or(attrs.len());
        let key = &attrs[..key_end];
        attrs = &attrs[key_end..];
        let value = if let Some(v) = attrs.strip_prefix("=\"") {
            let Some(close) = v.find('"') else {
                return Some(format!("unterminated attribute in <{tag}>"));
            };
            attrs = &v[close + 1..];
            Some(decode_entities(&v[..close]))
        } else if attrs.starts_with('=') {
            return Some(format!("unquoted attribute in <{tag}>"));
        } else {
            None
        };
        if key.is_empty() {
            return Some(format!("bad attribute syntax in <{tag}>"));
        }
        if key.to_ascii_lowercase().starts_with("on") {
            return Some(format!("event handler in <{tag}>"));
        }
        let allowed: &[&str] = match name {
            "a" => &["href", "title", "rel", "target"],
            "button" => &["type", "class", "data-src", "aria-label"],
            "input" => &["disabled", "type", "checked"],
            "code" => &["class", "data-lang"],
            "div" => &["class"],
            "span" => &["class", "aria-hidden"],
            "pre" => &["tabindex"],
            "ol" => &["start"],
            "th" | "td" => &["class"],
            _ => &[],
        };
        if !allowed.contains(&key) {
            return Some(format!("attribute {key} in <{tag}>"));
        }
        let value = value.unwrap_or_default();
        let ok = match key {
            "href" => url_scheme_ok(&value, &["http", "https", "mailto"], true),
            "data-src" => url_scheme_ok(&value, &["http", "https"], false),
            "class" if name == "th" || name == "td" => {
                ["align-left", "align-center", "align-right"].contains(&value.as_str())
            }
            "class" if name == "div" => ["code-block", "code-head"].contains(&value.as_str()),
            "class" if name == "span" => {
                ["code-lang", "code-part", "copy-icon", "copy-label"].contains(&value.as_str())
            }
            "data-lang" => value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_+-".contains(c)),
            "aria-label" => value == "Copy code",
            "aria-hidden" => value == "true",
            "tabindex" => value == "0",
            "class" => {
                value == "md-img"
                    || value == "copy-button code-copy"
                    || value.strip_prefix("language-").is_some_and(|l| {
                        l.chars()
                            .all(|c| c.is_ascii_alphanumeric() || "_+-".contains(c))
                    })
            }
            "rel" => value == "noopener noreferrer",
            "target" => value == "_blank",
            "type" => value == "button" || value == "checkbox",
            _ => true,
        };
        if !ok {
            return Some(format!("{key}={value:?} in <{tag}>"));
        }
        seen.push(key);
    }
    if matches!(name, "div" | "span") && !tag.starts_with('/') && !seen.contains(&"class") {
        return Some(format!("{name} without a known class: <{tag}>"));
    }
    if name == "a" && !tag.starts_with('/') && !(seen.contains(&"rel") && seen.contains(&"target"))
    {
        return Some(format!("link without rel/target: <{tag}>"));
    }
    None
}

/// What a browser does to an attribute value: decode character references.
fn decode_entities(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let Some(semi) = tail.find(';') else {
            out.push_str(tail);
            return out;
        };
        let ent = &tail[1..semi];
        let decoded = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "colon" => Some(':'),
            "Tab" => Some('\t'),
            "NewLine" => Some('\n'),
            _ => ent
                .strip_prefix("#x")
                .or_else(|| ent.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &tail[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// WHATWG-style scheme check of a decoded URL.
fn url_scheme_ok(url: &str, schemes: &[&str], relative_ok: bool) -> bool {
    let url: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if url.chars().any(char::is_control) {
        return false;
    }
    match url.find([':', '/', '?', '#', '\\']) {
        Some(i) if url[i..].starts_with(':') => {
            schemes.iter().any(|s| url[..i].eq_ignore_ascii_case(s))
        }
        _ => relative_ok || url.starts_with("//"),
    }
}

fn assert_safe(input: &str) -> String {
    let html = to_html(input);
    if let Some(why) = unsafe_reason(&html) {
        panic!("unsafe output ({why}) for input {input:?}:\n{html}");
    }
    html
}

#[test]
fn checker_catches_what_it_should() {
    for bad in [
        "<script>x</script>",
        "<a href=\"javascript:x\" rel=\"noopener noreferrer\" target=\"_blank\">",
        "<a href=\"&#106;avascript:x\" rel=\"noopener noreferrer\" target=\"_blank\">",
        "<a href=\" java&#9;script:x\" rel=\"noopener noreferrer\" target=\"_blank\">",
        "<a href=\"https://x\">",
        "<p onclick=\"x\">",
        "<p class=\"x\">",
        "<button type=\"button\" class=\"md-img\" data-src=\"data:x\">",
        "<button type=\"button\" class=\"md-img\" data-src=\"/x.png\">",
        "<td style=\"background: url(x)\">",
        "<p",
        "<div>",
        "<div class=\"x\">",
        "<span role=\"alert\" class=\"copy-label\">",
        "<code data-lang=\"a b\">",
        "<button type=\"button\" class=\"copy-button code-copy\" aria-label=\"x\">",
    ] {
        assert!(unsafe_reason(bad).is_some(), "{bad}");
    }
    assert_eq!(unsafe_reason("<p>&lt;script&gt; on x=1</p>"), None);
}

#[test]
fn xss_corpus_renders_safely() {
    assert!(XSS_VECTORS.len() >= 50, "corpus has {}", XSS_VECTORS.len());
    for v in XSS_VECTORS {
        assert_safe(v);
    }
}

#[test]
fn xss_corpus_is_safe_inside_containers_and_after_text() {
    for v in XSS_VECTORS {
        for wrapped in [
            format!("> {v}"),
            format!("- {v}"),
            format!("1. a\n\n   {v}"),
            format!("text\n{v}"),
            format!("**{v}**"),
            format!("| h |\n|---|\n| {} |", v.replace('\n', " ")),
        ] {
            assert_safe(&wrapped);
        }
    }
}

#[test]
fn raw_html_is_shown_as_text() {
    let html = assert_safe("a <b>bold</b> c");
    assert_eq!(html, "<p>a &lt;b&gt;bold&lt;/b&gt; c</p>\n");
    let html = assert_safe("<div class=\"x\">\nhi\n</div>");
    assert!(html.starts_with("<p>&lt;div class=\"x\"&gt;"), "{html}");
    assert!(html.contains("&lt;/div&gt;"), "{html}");
}

#[test]
fn commonmark_basics_render() {
    assert_eq!(to_html("# Title"), "<h1>Title</h1>\n");
    assert_eq!(
        to_html("*a* **b** ~~c~~ `d`"),
        "<p><em>a</em> <strong>b</strong> <del>c</del> <code>d</code></p>\n"
    );
    assert_eq!(to_html("- a\n- b"), "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n");
    assert_eq!(to_html("> q"), "<blockquote>\n<p>q</p>\n</blockquote>\n");
    assert_eq!(to_html("---"), "<hr />\n");
    assert_eq!(to_html(""), "");
}

#[test]
fn tables_render() {
    let html = assert_safe("| a | b | c |\n|:--|--:|:-:|\n| 1 | 2 | 3 |\n| 4 |");
    assert!(html.contains("<table>"), "{html}");
    assert!(html.contains("<th class=\"align-left\">a</th>"), "{html}");
    assert!(html.contains("<th class=\"align-center\">c</th>"), "{html}");
    assert!(html.contains("<td class=\"align-right\">2</td>"), "{html}");
    assert!(html.contains("<td class=\"align-left\">4</td>"), "{html}");
    assert_eq!(html.matches("<td").count(), html.matches("</td>").count());
}

/// The CSP (`style-src 'self'`) refuses inline styles: none may be emitted,
/// alignment included.
#[test]
fn no_inline_style_is_emitted() {
    for md in [
        "| a | b |\n|:--|--:|\n| 1 | 2 |",
        "| a |\n|:-:|\n| x |\n\n| b |\n|--:|\n| y |",
        "> | q |\n> |:-:|\n> | 1 |",
        "- | l |\n  |:-|\n  | 1 |",
    ] {
        let html = assert_safe(md);
        assert!(!html.contains("style"), "{md:?} → {html}");
    }
}

#[test]
fn task_lists_render_as_disabled_checkboxes() {
    let html = assert_safe("- [x] done\n- [ ] todo");
    assert!(html.contains("<input disabled=\"\" type=\"checkbox\" checked=\"\"/>"));
    assert!(html.contains("<input disabled=\"\" type=\"checkbox\"/>"));
}

#[test]
fn allowed_links_open_in_new_context() {
    assert_eq!(
        to_html("[x](https://example.com/a?b=1&c=2 \"T\")"),
        "<p><a href=\"https://example.com/a?b=1&amp;c=2\" title=\"T\" \
         rel=\"noopener noreferrer\" target=\"_blank\">x</a></p>\n"
    );
    assert!(to_html("[x](#frag)").contains("href=\"#frag\""));
    assert!(to_html("[x](docs/a.md)").contains("href=\"docs/a.md\""));
    assert!(to_html("[x](MAILTO:a@b.c)").contains("href=\"MAILTO:a@b.c\""));
    assert!(to_html("<a@b.c>").contains("href=\"mailto:a@b.c\""));
    assert!(to_html("<https://x.y>").contains("href=\"https://x.y\""));
}

#[test]
fn forbidden_links_become_their_label() {
    assert_eq!(
        to_html("see [*the* docs](javascript:alert(1)) now"),
        "<p>see <em>the</em> docs now</p>\n"
    );
    assert_eq!(
        to_html("<javascript:alert(1)>"),
        "<p>javascript:alert(1)</p>\n"
    );
    assert_eq!(to_html("[x](java&#x09;script:alert(1))"), "<p>x</p>\n");
}

#[test]
fn images_become_click_to_load_placeholders() {
    assert_eq!(
        to_html("![a \"cat\"](https://e.x/c.png?k=1&v=2)"),
        "<p><button type=\"button\" class=\"md-img\" data-src=\"https://e.x/c.png?k=1&amp;v=2\">\
         🖼 Load image: a &quot;cat&quot;</button></p>\n"
    );
    assert_eq!(
        to_html("![](https://e.x/c.png)"),
        "<p><button type=\"button\" class=\"md-img\" data-src=\"https://e.x/c.png\">\
         🖼 Load image</button></p>\n"
    );
    assert_eq!(
        to_html("![alt *x*](data:image/png;base64,AA)"),
        "<p>alt x</p>\n"
    );
    assert_eq!(to_html("![a<b](/local.png)"), "<p>a&lt;b</p>\n");
    assert_eq!(
        to_html("![outer ![inner](https://i) end](https://o)"),
        "<p><button type=\"button\" class=\"md-img\" data-src=\"https://o\">\
         🖼 Load image: outer inner end</button></p>\n"
    );
}

/// What `code_block_open` writes before a block's `<pre>`.
fn code_head(lang: &str) -> String {
    let label = if lang.is_empty() {
        String::new()
    } else {
        format!("<span class=\"code-lang\">{lang}</span>")
    };
    format!(
        "<div class=\"code-block\"><div class=\"code-head\">{label}\
         <button type=\"button\" class=\"copy-button code-copy\" aria-label=\"Copy code\">\
         <span class=\"copy-icon\" aria-hidden=\"true\"></span>\
         <span class=\"copy-label\">Copy</span></button></div>"
    )
}

#[test]
fn long_code_blocks_are_written_in_parts_of_50_lines() {
    let lines = |n: std::ops::Range<usize>| -> String { n.map(|i| format!("{i}\n")).collect() };
    let html = to_html(&format!("```\n{}```\n", lines(0..125)));
    let body = html.split("<pre tabindex=\"0\"><code>").nth(1).unwrap();
    let parts: Vec<&str> = body
        .trim_end_matches("</span></code></pre></div>\n")
        .split("<span class=\"code-part\">")
        .skip(1)
        .map(|p| p.trim_end_matches("</span>"))
        .collect();
    assert_eq!(parts, [lines(0..50), lines(50..100), lines(100..125)]);
    // Exactly 50 lines: one part, no empty one after it.
    let html = to_html(&format!("```\n{}```\n", lines(0..50)));
    assert_eq!(html.matches("code-part").count(), 1);
}

#[test]
fn code_blocks_keep_a_sanitized_language_class_and_label() {
    assert_eq!(
        to_html("```rust\nfn main() {}\n```"),
        code_head("rust")
            + "<pre tabindex=\"0\"><code class=\"language-rust\" data-lang=\"rust\"><span class=\"code-part\">fn main() {}\n\
               </span></code></pre></div>\n"
    );
    assert_eq!(
        to_html("```c++ extra\nx\n```"),
        code_head("c++")
            + "<pre tabindex=\"0\"><code class=\"language-c++\" data-lang=\"c++\"><span class=\"code-part\">x\n</span></code></pre></div>\n"
    );
    assert_eq!(
        to_html("```\"><x\n<y>\n```"),
        code_head("x")
            + "<pre tabindex=\"0\"><code class=\"language-x\" data-lang=\"x\"><span class=\"code-part\">&lt;y&gt;\n</span></code></pre></div>\n"
    );
    assert_eq!(
        to_html("~~~\na\n~~~"),
        code_head("")
            + "<pre tabindex=\"0\"><code><span class=\"code-part\">a\n</span></code></pre></div>\n"
    );
    assert_eq!(
        to_html("    <i>\n"),
        code_head("")
            + "<pre tabindex=\"0\"><code><span class=\"code-part\">&lt;i&gt;\n</span></code></pre></div>\n"
    );
    assert_eq!(
        to_html("- a\n\n  ```sh\n  </code><img src=x onerror=alert(1)>\n  ```\n"),
        "<ul>\n<li>\n<p>a</p>\n".to_string()
            + &code_head("sh")
            + "<pre tabindex=\"0\"><code class=\"language-sh\" data-lang=\"sh\"><span class=\"code-part\">\
               &lt;/code&gt;&lt;img src=x onerror=alert(1)&gt;\n</span></code></pre></div>\n</li>\n</ul>\n"
    );
}

#[test]
fn text_is_escaped() {
    assert_eq!(
        to_html("a & b < c > d \"e\""),
        "<p>a &amp; b &lt; c &gt; d \"e\"</p>\n"
    );
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use crate::math::tests::unsafe_reason_allowing_math as unsafe_reason;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics_and_stays_safe(s in any::<String>()) {
            let html = to_html(&s);
            prop_assert_eq!(unsafe_reason(&html), None);
        }

        #[test]
        fn markdown_like_input_stays_safe(
            s in proptest::collection::vec(
                prop_oneof![
                    Just("<"), Just(">"), Just("["), Just("]"), Just("("), Just(")"),
                    Just("!"), Just("javascript:"), Just("data:"), Just("http://x"),
                    Just("&#x09;"), Just("&#106;"), Just("\n"), Just("\n\n"), Just("`"),
                    Just("```"), Just("<script>"), Just("<img src=x onerror=y>"),
                    Just("\""), Just("'"), Just(" "), Just(":"), Just("- "), Just("> "),
                    Just("| a |"), Just("|---|"), Just("[r]: "), Just("*"), Just("\u{1}"),
                    Just("$"), Just("$$"), Just("\\("), Just("\\)"), Just("\\["),
                    Just("\\]"), Just("\\href{javascript:x}{y}"), Just("^"), Just("_"),
                    Just("{"), Just("}"), Just("\\frac"), Just("x"), Just("5"),
                ],
                0..40,
            )
        ) {
            let text: String = s.concat();
            let html = to_html(&text);
            prop_assert_eq!(unsafe_reason(&html), None, "input {:?}", text);
        }
    }
}
