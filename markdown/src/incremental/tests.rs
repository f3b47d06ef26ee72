use super::*;
use crate::render::to_html;

/// What a UI holding one node per stable block plus a tail node would show.
#[derive(Default)]
struct Client {
    blocks: Vec<String>,
}

impl Client {
    fn apply(&mut self, d: &RenderDelta) -> String {
        if let Some(n) = d.stable_truncated_to {
            assert!(
                n <= self.blocks.len(),
                "truncate to {n} of {}",
                self.blocks.len()
            );
            self.blocks.truncate(n);
        }
        self.blocks.extend(d.stable_appended.iter().cloned());
        let mut html = self.blocks.concat();
        html.push_str(&d.tail_html);
        html
    }
}

/// Feeds `text` and checks every view of the result against `to_html`.
fn step(r: &mut IncrementalMarkdown, c: &mut Client, text: &str) {
    let d = r.update(text);
    let want = to_html(text);
    assert_eq!(c.apply(&d), want, "client view differs for {text:?}");
    assert_eq!(r.full_html(), want, "full_html differs for {text:?}");
    assert_eq!(r.tail_html(), d.tail_html);
    assert_eq!(r.stable_blocks(), c.blocks.as_slice());
}

/// Streams `doc` one char at a time, then rewinds and rewrites it.
fn stream_everything(doc: &str) {
    let mut r = IncrementalMarkdown::new();
    let mut c = Client::default();
    let ends: Vec<usize> = doc
        .char_indices()
        .map(|(i, _)| i)
        .skip(1)
        .chain([doc.len()])
        .collect();
    step(&mut r, &mut c, "");
    for &end in &ends {
        step(&mut r, &mut c, &doc[..end]);
    }
    // Rewrites: shorter snapshots, then an edit near the start.
    for &end in ends.iter().rev().step_by(7) {
        step(&mut r, &mut c, &doc[..end]);
    }
    step(&mut r, &mut c, doc);
    let edited = format!("x{}", doc.get(1..).unwrap_or(""));
    if edited.is_char_boundary(1) {
        step(&mut r, &mut c, &edited);
    }
    step(&mut r, &mut c, doc);
}

const DOCS: &[&str] = &[
    "Hello world.\n\nSecond paragraph\nwith two lines.\n\nThird.\n",
    "# Title\n\nIntro text.\n\n## Part\nText under heading.\n\nEnd.",
    "Setext\n======\n\nAnother\n---\n\npara\n\n---\n\nafter rule\n",
    "```rust\nfn main() {\n\n    println!(\"hi\");\n\n}\n```\n\nAfter code.\n\nMore.\n",
    "~~~\nline\n\n```\nnot a close\n```\n\nstill code\n~~~\n\nout\n",
    "````\n```\n\ninner\n```\n\n````\n\ndone\n",
    "Text\n\n```\nunclosed fence\n\nwith blank lines\n\n- not a list\n",
    "- a\n- b\n\n- c after blank\n\n  continued item\n\nparagraph\n\n* other list\n\n+ third\n",
    "1. one\n2. two\n\n3. three\n\n10) ten\n\ntext\n\n7. seven\n",
    "- item\n\n      indented code in item\n\n  para in item\n\nout\n",
    "- item with fence\n\n  ```\n  code\n\n  more\n  ```\n\nafter\n\n```\nreal fence\n```\n",
    "- a\n  ```\n  code\n\nfoo\n```\n\nbar\n\nbaz\n```\n\nend\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nText after table.\n\n| c |\n|---|\n| 5 |\n",
    "a | b\n--|--\n1 | 2\nlazy row\n\npara\n",
    "> quote one\n> still\n\n> quote two\n\nlazy\n> q\ncontinued\n\nend\n",
    "> - list in quote\n>\n> para in quote\n\n> ```\n> code in quote\n\nafter\n",
    "    indented code\n\n    still code\n\nnot code\n\n    new code\n",
    "<!-- comment\n\nstill comment\n\n-->\n\nafter comment\n",
    "<script>\n\nvar x = 1;\n\n</script>\n\nafter script\n\n<div>\nblock\n\ntext\n",
    "<pre>\n\nx\n\n</pre>\n\n<?php\n\n?>\n\n<![CDATA[\n\n]]>\n\n<!X\n\n>\n\nend\n",
    "See [the docs][d] and [x].\n\nMore text.\n\n[d]: https://example.com\n\n[x]: /x \"T\"\n\nEnd.\n",
    "[d]: https://example.com\n\nUse [d].\n\nAgain [d].\n",
    "[d]:\n\nnot a def\n\n[d]\n",
    "Windows\r\nlines\r\n\r\n- a\r\n- b\r\n\r\npara\r\n\r\n```\r\ncode\r\n\r\n```\r\n\r\nend\r\n",
    "Old mac\rlines\r\r- a\r\rpara\r\rend\r",
    "- a\n\n\tb tab-indented\n\n\tcode?\n\nout\n",
    "Hard break  \nnext\\\nline\n\n*emph\n\nnot closed*\n\n**bold**\n",
    "Links [a](https://a.b) ![i](https://i.png) <https://auto.link> [bad](javascript:x)\n\nnext\n",
    "Text\n<div>\nhtml after para\n\n</div>\n\n<span>inline</span> start\n\nend\n",
    "Héllo wörld 🎉\n\n日本語の段落。\n\n- 項目\n\n終わり\n",
    "\n\n\nleading blanks\n\n\n\ntrailing blanks\n\n\n",
    "- [ ] task\n- [x] done\n\n~~strike~~\n\n1. a\n   1. nested\n\n      deep\n\n2. b\n",
    "Term\n: not a definition list\n\nfoo\n    bar\n\n  baz\n\n   qux\n",
    "***\n---\n___\n\n- - -\n\n* * *\n\ntext\n",
    "# h1 #\n#h2 no\n####### too many\n\n\\# escaped\n",
    "```python\ndef f(a) -> dict[str, int]:\n    return {}\n```\n\nx = y[1]: not a def\n\n[a]:\n\nend\n",
    "[foo\nbar]: /multi-line-label\n\n[foo bar]\n\nafter\n",
    "> [q]: /in-quote\n\n[q]\n\n- [l]: /in-list\n\n[l]\n",
];

#[test]
fn streaming_equals_full_render_for_every_prefix() {
    for doc in DOCS {
        stream_everything(doc);
    }
}

#[test]
fn completed_blocks_are_reused() {
    let mut r = IncrementalMarkdown::new();
    let d =
        r.update("p1\n\n- a\n- b\n\n```\nx\n\ny\n```\n\n| t |\n|---|\n| 1 |\n\n> q\n\np2\n\np3");
    assert_eq!(d.stable_truncated_to, None);
    assert_eq!(
        d.stable_appended,
        vec![
            "<p>p1</p>\n".to_string(),
            "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n".to_string(),
            to_html("```\nx\n\ny\n```\n"),
            "<table><thead><tr><th>t</th></tr></thead><tbody>\n<tr><td>1</td></tr>\n</tbody></table>\n"
                .to_string(),
            "<blockquote>\n<p>q</p>\n</blockquote>\n".to_string(),
        ]
    );
    assert_eq!(d.tail_html, "<p>p2</p>\n<p>p3</p>\n");
    let d =
        r.update("p1\n\n- a\n- b\n\n```\nx\n\ny\n```\n\n| t |\n|---|\n| 1 |\n\n> q\n\np2\n\np3\n");
    assert_eq!(d.stable_appended, vec!["<p>p2</p>\n".to_string()]);
    assert_eq!(d.tail_html, "<p>p3</p>\n");
}

#[test]
fn open_structures_are_not_cut() {
    let mut r = IncrementalMarkdown::new();
    r.update("```\na\n\nb\n\nc\n");
    assert!(r.stable_blocks().is_empty());
    r.update("- a\n\n- b\n\n  c\n");
    assert!(r.stable_blocks().is_empty());
    r.update("<!--\n\nx\n\ny\n");
    assert!(r.stable_blocks().is_empty());
    // A list may continue while the next line is unfinished.
    r.update("- a\n\n-");
    assert!(r.stable_blocks().is_empty());
    r.update("- a\n\n- b");
    assert!(r.stable_blocks().is_empty());
}

#[test]
fn rewrites_truncate_only_what_changed() {
    let mut r = IncrementalMarkdown::new();
    r.update("one\n\ntwo\n\nthree\n\nfour\n");
    assert_eq!(r.stable_blocks().len(), 3);
    // "two" stays valid only while the line after it is unchanged.
    let d = r.update("one\n\ntwo\n\nTHREE\n\nfour\n");
    assert_eq!(d.stable_truncated_to, Some(1));
    assert_eq!(d.stable_appended, ["<p>two</p>\n", "<p>THREE</p>\n"]);
    let d = r.update("one\n\ntwo\n\nTHREE\n\nfour\n\nfive\n");
    assert_eq!(d.stable_truncated_to, None);
    assert_eq!(d.stable_appended, ["<p>four</p>\n"]);
    let d = r.update("one\n\nt");
    assert_eq!(d.stable_truncated_to, Some(0));
    assert_eq!(r.full_html(), "<p>one</p>\n<p>t</p>\n");
    let d = r.update("");
    assert_eq!(d.tail_html, "");
    assert!(r.stable_blocks().is_empty());
}

#[test]
fn reference_definitions_disable_reuse() {
    let mut r = IncrementalMarkdown::new();
    r.update("see [x]\n\nmore\n\nand more\n");
    assert_eq!(r.stable_blocks().len(), 2);
    let d = r.update("see [x]\n\nmore\n\nand more\n\n[x]: https://x.y\n");
    assert_eq!(d.stable_truncated_to, Some(0));
    assert!(r.stable_blocks().is_empty());
    assert!(r.full_html().contains("href=\"https://x.y\""));
}

#[test]
fn brackets_and_colons_that_are_not_definitions_keep_reuse() {
    let mut r = IncrementalMarkdown::new();
    r.update("```py\ndef f() -> dict[str, int]:\n    pass\n```\n\nx[1]: y\n\nend\n");
    assert_eq!(r.stable_blocks().len(), 2);
}

#[test]
fn tail_parse_starts_at_the_stable_offset() {
    let mut r = IncrementalMarkdown::new();
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!("Paragraph {i} with some words.\n\n"));
        r.update(&text);
    }
    assert_eq!(r.stable_blocks().len(), 199);
    assert_eq!(r.tail_html(), "<p>Paragraph 199 with some words.</p>\n");
    let cut = r.checkpoints.last().map(|c| c.cut).unwrap_or(0);
    assert_eq!(&text[cut..], "Paragraph 199 with some words.\n\n");
}

#[test]
fn completed_prefix_advances_at_block_boundaries() {
    let cases: &[(&str, &str)] = &[
        ("", ""),
        ("partial para", ""),
        ("para\nsecond line", ""),
        ("para\n\nnext", "para\n\n"),
        ("para\n\nnext\n\n", "para\n\nnext\n\n"),
        ("- a\n- b", "- a\n"),
        ("- a\n- b\n- c\n", "- a\n- b\n"),
        ("1. a\n2. b", "1. a\n"),
        ("text\n```\ncode\n", "text\n"),
        ("```\ncode\n\nmore\n``", ""),
        ("```\ncode\n\nmore\n```\n", "```\ncode\n\nmore\n```\n"),
        ("# Head\nbody", "# Head\n"),
        ("p\n\n---\nq", "p\n\n---\n"),
        ("> q\n\nr", "> q\n\n"),
        ("a\r\n\r\nb", "a\r\n\r\n"),
    ];
    for (text, want) in cases {
        assert_eq!(&text[..completed_prefix_len(text)], *want, "for {text:?}");
    }
}

#[test]
fn completed_prefix_never_splits_chars_or_exceeds() {
    for doc in DOCS {
        for (i, _) in doc.char_indices() {
            let p = &doc[..i];
            let n = completed_prefix_len(p);
            assert!(n <= p.len() && p.is_char_boundary(n));
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn fragment() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("para text"),
            Just("\n"),
            Just("\n\n"),
            Just("\r\n"),
            Just("\r"),
            Just("  "),
            Just("\t"),
            Just("    "),
            Just("- "),
            Just("* "),
            Just("1. "),
            Just("2) "),
            Just("> "),
            Just("```"),
            Just("~~~"),
            Just("````"),
            Just("# "),
            Just("==="),
            Just("---"),
            Just("| a | b |"),
            Just("|---|---|"),
            Just("<!--"),
            Just("-->"),
            Just("<div>"),
            Just("<script>"),
            Just("</script>"),
            Just("[x]"),
            Just("[x]: /u"),
            Just("](http://a)"),
            Just("*"),
            Just("`"),
            Just("é"),
            Just("🎉"),
            Just("   "),
            Just("  - "),
            Just("\t- "),
            Just(">>"),
            Just("-"),
            Just("1."),
            Just("#"),
            Just("<"),
            Just(">"),
            Just("\\"),
            Just("<pre>"),
            Just("</pre>"),
            Just("<?"),
            Just("?>"),
            Just("<![CDATA["),
            Just("]]>"),
            Just("<!X"),
            Just("<custom-tag>"),
            Just("[x]:"),
            Just(" \"t\""),
            Just("[^1]"),
            Just("&amp;"),
            Just("![i](https://i)"),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn streamed_fragments_match_full_render(
            frags in proptest::collection::vec(fragment(), 0..30),
            step_len in 1usize..12,
        ) {
            let doc: String = frags.concat();
            let mut r = IncrementalMarkdown::new();
            let mut c = Client::default();
            let mut end = 0;
            while end < doc.len() {
                end = (end + step_len).min(doc.len());
                while !doc.is_char_boundary(end) {
                    end += 1;
                }
                step(&mut r, &mut c, &doc[..end]);
            }
        }

        #[test]
        fn arbitrary_snapshot_sequences_match_full_render(
            snaps in proptest::collection::vec(any::<String>(), 1..6),
        ) {
            let mut r = IncrementalMarkdown::new();
            let mut c = Client::default();
            for s in &snaps {
                step(&mut r, &mut c, s);
            }
        }

        #[test]
        fn random_rewrites_match_full_render(
            frags in proptest::collection::vec(fragment(), 0..30),
            edits in proptest::collection::vec((0usize..400, fragment()), 1..6),
        ) {
            let mut doc: String = frags.concat();
            let mut r = IncrementalMarkdown::new();
            let mut c = Client::default();
            step(&mut r, &mut c, &doc);
            for (at, frag) in edits {
                let mut at = at.min(doc.len());
                while !doc.is_char_boundary(at) {
                    at -= 1;
                }
                if at % 2 == 0 {
                    doc.insert_str(at, frag);
                } else {
                    doc.truncate(at);
                }
                step(&mut r, &mut c, &doc);
            }
        }

        #[test]
        fn completed_prefix_is_a_char_boundary(s in any::<String>()) {
            let n = completed_prefix_len(&s);
            prop_assert!(n <= s.len() && s.is_char_boundary(n));
        }
    }
}

/// Host measurement for the brief: `cargo test --release -p aria-markdown
/// --lib incremental::tests::bench -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark; run in release with --ignored --nocapture"]
fn bench_streaming_100k() {
    let mut answer = String::new();
    let mut i = 0;
    while answer.len() < 100 * 1024 {
        i += 1;
        answer.push_str(&format!(
            "## Section {i}\n\nSome prose with **bold**, `code` and a [link](https://example.com/{i}). \
             It goes on for a while to look like an answer.\n\n\
             - point one\n- point two with *emphasis*\n- point three\n\n\
             ```rust\nfn f{i}() -> u32 {{\n    {i}\n}}\n```\n\n\
             | col | val |\n|-----|-----|\n| a | {i} |\n\n"
        ));
    }
    let mut code = String::from("```rust\n");
    while code.len() < 100 * 1024 {
        code.push_str("    let value = compute(input, &mut state); // comment\n");
    }
    let with_def = format!("[ref]: https://example.com\n\n{answer}");
    for (name, doc) in [
        ("typical answer", &answer),
        ("one 100 KiB code block (worst case: all tail)", &code),
        ("with a link reference definition (fallback)", &with_def),
    ] {
        bench_one(name, doc);
    }
}

fn bench_one(name: &str, doc: &str) {
    use std::time::{Duration, Instant};
    let mut steps: Vec<usize> = (1..=doc.len() / 1024).map(|k| k * 1024).collect();
    steps.push(doc.len());
    for e in &mut steps {
        while !doc.is_char_boundary(*e) {
            *e += 1;
        }
    }
    let time = |f: &mut dyn FnMut(&str)| {
        let (mut total, mut worst) = (Duration::ZERO, Duration::ZERO);
        for &e in &steps {
            let t = Instant::now();
            f(&doc[..e]);
            let d = t.elapsed();
            total += d;
            worst = worst.max(d);
        }
        (
            total / u32::try_from(steps.len()).unwrap_or(u32::MAX),
            worst,
        )
    };
    let mut r = IncrementalMarkdown::new();
    let (inc, inc_worst) = time(&mut |t| {
        std::hint::black_box(r.update(t));
    });
    assert_eq!(r.full_html(), to_html(doc));
    let (full, full_worst) = time(&mut |t| {
        std::hint::black_box(to_html(t));
    });
    println!(
        "{name}: {} bytes, {} steps: IncrementalMarkdown::update {inc:?} avg ({inc_worst:?} worst), \
         to_html {full:?} avg ({full_worst:?} worst)",
        doc.len(),
        steps.len()
    );
}
