use super::*;
use crate::render::tail_append::Appended;

/// The whole block's HTML, in one chunk.
fn tokens_html<S: AsRef<str>>(code: &str, tokens: &[(S, S)]) -> Option<String> {
    let classed = classify(code, tokens)?;
    Some(chunk_html(code, &classed, 0, code.len()))
}

#[test]
fn every_listed_language_and_alias_has_a_grammar() {
    let cases = [
        ("rust", "rust"),
        ("rs", "rust"),
        ("Python", "python"),
        ("py", "python"),
        ("javascript", "javascript"),
        ("js", "javascript"),
        ("typescript", "typescript"),
        ("ts", "typescript"),
        ("json", "json"),
        ("yaml", "yaml"),
        ("yml", "yaml"),
        ("toml", "ini"),
        ("bash", "bash"),
        ("sh", "bash"),
        ("shell", "bash"),
        ("console", "shell"),
        ("sql", "sql"),
        ("go", "go"),
        ("java", "java"),
        ("c", "c"),
        ("cpp", "cpp"),
        ("c++", "cpp"),
        ("html", "xml"),
        ("css", "css"),
        ("markdown", "markdown"),
        ("md", "markdown"),
    ];
    for (lang, want) in cases {
        assert_eq!(grammar(lang), Some(Grammar::Worker(want)), "{lang}");
    }
    assert_eq!(grammar("diff"), Some(Grammar::Diff));
    assert_eq!(grammar("patch"), Some(Grammar::Diff));
    assert_eq!(grammar("brainfuck"), None);
    assert_eq!(grammar(""), None);
}

/// The build bundles exactly the grammars the alias table can name.
#[test]
fn the_bundle_script_carries_every_grammar() {
    let script = include_str!("../../../../scripts/bundle-highlighter");
    let line = script
        .lines()
        .find_map(|l| l.strip_prefix("GRAMMARS=\""))
        .expect("GRAMMARS line");
    let bundled: Vec<&str> = line.trim_end_matches('"').split(' ').collect();
    for (alias, name) in GRAMMARS {
        assert!(
            bundled.contains(name),
            "{name} (for {alias}) is not bundled"
        );
    }
}

#[test]
fn scopes_map_to_a_fixed_set_of_classes() {
    assert_eq!(token_class("keyword"), Some("tok-kw"));
    assert_eq!(token_class("title.function.invoke"), Some("tok-fn"));
    assert_eq!(token_class("title.class.inherited"), Some("tok-type"));
    assert_eq!(token_class("meta keyword"), Some("tok-meta"));
    assert_eq!(token_class("string"), Some("tok-str"));
    assert_eq!(token_class("addition"), Some("tok-add"));
    assert_eq!(token_class(""), None);
    assert_eq!(token_class("punctuation"), None);
    // A scope is never copied into the output.
    assert_eq!(token_class("\"><script>"), None);
}

#[test]
fn tokens_become_escaped_spans() {
    let code = "let s = \"<b>&\";";
    let tokens = [
        ("keyword", "let"),
        ("", " s = "),
        ("string", "\"<b>&\""),
        ("punctuation", ";"),
    ];
    assert_eq!(
        tokens_html(code, &tokens).as_deref(),
        Some(
            "<span class=\"tok-kw\">let</span> s = \
             <span class=\"tok-str\">&quot;&lt;b&gt;&amp;&quot;</span>;"
        )
    );
}

#[test]
fn hostile_text_in_tokens_stays_text() {
    let code = "</code><img src=x onerror=alert(1)>";
    let tokens = [("tag", "</code><img src=x onerror=alert(1)>")];
    let html = tokens_html(code, &tokens).unwrap();
    assert!(!html.contains('<') || html.starts_with("<span class=\"tok-meta\">"));
    assert_eq!(
        html,
        "<span class=\"tok-meta\">&lt;/code&gt;&lt;img src=x onerror=alert(1)&gt;</span>"
    );
}

#[test]
fn tokens_that_do_not_add_up_to_the_code_are_refused() {
    assert_eq!(tokens_html("abc", &[("", "ab")]), None);
    assert_eq!(tokens_html("abc", &[("", "abcd")]), None);
    assert_eq!(tokens_html("abc", &[("", "ab"), ("", "x")]), None);
    assert_eq!(
        tokens_html("abc", &[("", "a"), ("", "bc")]).as_deref(),
        Some("abc")
    );
    assert_eq!(tokens_html::<&str>("", &[]).as_deref(), Some(""));
}

#[test]
fn diff_lines_are_classed_by_their_first_characters() {
    let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n context\n-old\n+new\n";
    let scopes: Vec<&str> = diff_tokens(diff).iter().map(|t| t.0).collect();
    assert_eq!(
        scopes,
        ["meta", "meta", "meta", "section", "", "deletion", "addition"]
    );
    let html = tokens_html(diff, &diff_tokens(diff)).unwrap();
    assert!(
        html.contains("<span class=\"tok-del\">-old\n</span>"),
        "{html}"
    );
    assert!(
        html.contains("<span class=\"tok-add\">+new\n</span>"),
        "{html}"
    );
    // A last line without a newline is kept.
    assert_eq!(
        diff_tokens("+a\n-b"),
        [("addition", "+a\n"), ("deletion", "-b")]
    );
}

#[test]
fn the_tail_is_highlighted_once_when_final() {
    let mut t = TailHighlight::default();
    let step = |paint, highlight| TailStep { paint, highlight };
    use TailPaint::{Keep, Replace};
    // Streaming: painted, never highlighted (the code may be unfinished).
    assert_eq!(t.step("<p>a</p>", true), step(Replace, false));
    assert_eq!(t.step("<p>a</p>", true), step(Keep, false));
    assert_eq!(t.step("<pre>x</pre>", true), step(Replace, false));
    // Final: highlighted once; an unchanged tail is left alone after that.
    assert_eq!(t.step("<pre>x</pre>", false), step(Keep, true));
    assert_eq!(t.step("<pre>x</pre>", false), step(Keep, false));
    // A changed tail replaced the highlighted one: highlight it again.
    assert_eq!(t.step("<pre>y</pre>", false), step(Replace, true));
    assert_eq!(t.step("<pre>y</pre>", false), step(Keep, false));
    // Final from the first render (history): painted and highlighted.
    let mut h = TailHighlight::default();
    assert_eq!(h.step("<pre>z</pre>", false), step(Replace, true));
}

#[test]
fn a_tail_that_only_grew_is_appended_to_until_highlighted() {
    let mut t = TailHighlight::default();
    let step = |paint, highlight| TailStep { paint, highlight };
    let code = |text: &str| format!("<pre><code>{text}</code></pre>\n");
    let append = |text: &str| {
        TailPaint::Append(Appended {
            path: vec!["pre".into(), "code".into()],
            text: text.to_string(),
        })
    };
    assert_eq!(t.step(&code("fn"), true), step(TailPaint::Replace, false));
    assert_eq!(t.step(&code("fn main"), true), step(append(" main"), false));
    assert_eq!(t.step(&code("fn main()"), false), step(append("()"), true));
    // Highlighted: its text is split in tokens now, so a change replaces it.
    assert_eq!(
        t.step(&code("fn main() {}"), false),
        step(TailPaint::Replace, true)
    );
}

#[test]
fn a_part_of_a_block_splits_the_tokens_crossing_its_edges() {
    let code = "a\n/* b\nc */\nd\ne";
    let tokens = [("", "a\n"), ("comment", "/* b\nc */"), ("", "\nd\ne")];
    let classed = classify(code, &tokens).unwrap();
    assert_eq!(classed, [(None, 2), (Some("tok-com"), 11), (None, 15)]);
    let ends = [7, 14, 15];
    let mut start = 0;
    let chunks: Vec<String> = ends
        .iter()
        .map(|&end| chunk_html(code, &classed, std::mem::replace(&mut start, end), end))
        .collect();
    assert_eq!(
        chunks,
        [
            "a\n<span class=\"tok-com\">/* b\n</span>",
            "<span class=\"tok-com\">c */</span>\nd\n",
            "e",
        ]
    );
}

/// The worker's answer walked part by part: the HTML of every part, or
/// `None` from the first part the tokens do not fit.
fn walk_parts(code: &str, scopes: &str, lengths: &[u32], ends: &[usize]) -> Option<Vec<String>> {
    let walk = AnswerWalk::new(code, scopes.to_string(), lengths.to_vec())?;
    let mut tokens = PartTokens::Answer(walk);
    let mut start = 0;
    ends.iter()
        .map(|&end| tokens.part_html(code, std::mem::replace(&mut start, end), end))
        .collect()
}

#[test]
fn worker_lengths_count_utf16_units() {
    // "é" is one UTF-16 unit, "𝄞" two; byte lengths differ from both.
    let code = "é = \"𝄞\";";
    let whole = walk_parts(code, "attr\n\nstring\n", &[1, 3, 4, 1], &[code.len()]).unwrap();
    assert_eq!(
        whole,
        ["<span class=\"tok-attr\">é</span> = <span class=\"tok-str\">&quot;𝄞&quot;</span>;"]
    );
    // Lengths that cut a surrogate pair, fall short or run over: refused.
    assert_eq!(walk_parts(code, "a\nb\nc", &[5, 1, 3], &[code.len()]), None);
    assert_eq!(walk_parts(code, "a", &[3], &[code.len()]), None);
    assert_eq!(walk_parts(code, "a\nb", &[9, 9], &[code.len()]), None);
    // Fewer scopes than lengths: refused.
    assert_eq!(walk_parts("ab", "a", &[1, 1], &[2]), None);
}

#[test]
fn the_worker_answer_walked_part_by_part_is_the_whole_block_cut_at_the_parts() {
    // A comment token crossing two cuts, a string ending exactly at one,
    // multi-byte text in between.
    let code = "a\n/* b\nc\nd */\n\"é\"\ne";
    let scopes = "\ncomment\n\nstring\n";
    let lengths = [2, 11, 1, 3, 2];
    let tokens = [
        ("", "a\n"),
        ("comment", "/* b\nc\nd */"),
        ("", "\n"),
        ("string", "\"é\""),
        ("", "\ne"),
    ];
    let classed = classify(code, &tokens).unwrap();
    let ends = [7, 9, 14, 17, code.len()];
    let mut start = 0;
    let want: Vec<String> = ends
        .iter()
        .map(|&end| chunk_html(code, &classed, std::mem::replace(&mut start, end), end))
        .collect();
    assert_eq!(walk_parts(code, scopes, &lengths, &ends).unwrap(), want);
    assert_eq!(want[1], "<span class=\"tok-com\">c\n</span>");
    // A part whose end falls inside a character: refused.
    assert_eq!(walk_parts(code, scopes, &lengths, &[16, code.len()]), None);
}
