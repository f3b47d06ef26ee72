use super::*;
use serde_json::json;

fn chars(s: &str) -> usize {
    s.chars().count()
}

#[test]
fn approval_lines_name_the_title_else_the_command() {
    assert_eq!(
        approval_line("Run a  shell\ncommand?", Some("rm -rf build"), 120),
        "⏸ Waiting for approval: Run a shell command?"
    );
    assert_eq!(
        approval_line("  ", Some("rm -rf build"), 120),
        "⏸ Waiting for approval: rm -rf build"
    );
    assert_eq!(approval_line("", None, 120), "⏸ Waiting for approval");
    let long = approval_line(&"word ".repeat(60), None, 40);
    assert!(chars(&long) <= 40);
    assert!(long.starts_with("⏸ Waiting for approval: word") && long.ends_with('…'));
}

#[test]
fn label_pool_is_single_words() {
    assert!(LABEL_POOL.len() >= 15);
    for l in LABEL_POOL {
        assert!(
            !l.is_empty() && l.chars().all(|c| c.is_ascii_alphabetic()),
            "{l}"
        );
    }
    let mut sorted = LABEL_POOL.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), LABEL_POOL.len(), "duplicate label");
}

#[test]
fn pick_label_is_deterministic_and_spread() {
    assert_eq!(pick_label("turn-1"), pick_label("turn-1"));
    assert!(LABEL_POOL.contains(&pick_label("")));
    let distinct: std::collections::HashSet<_> =
        (0..200).map(|i| pick_label(&format!("t{i}"))).collect();
    assert!(distinct.len() >= 10, "only {} labels used", distinct.len());
}

#[test]
fn default_emoji_by_family() {
    for (name, emoji) in [
        ("terminal", "🛠️"),
        ("Bash", "🛠️"),
        ("shell_exec", "🛠️"),
        ("read_file", "📖"),
        ("file", "📖"),
        ("write_file", "✍️"),
        ("edit", "✍️"),
        ("apply_patch", "✍️"),
        ("web_search", "🔎"),
        ("search_files", "🔎"),
        ("grep", "🔎"),
        ("web_fetch", "🌐"),
        ("http_get", "🌐"),
        ("browser_navigate", "🌐"),
        ("memory", "⚙️"),
        ("", "⚙️"),
    ] {
        assert_eq!(default_emoji(name), emoji, "{name}");
    }
}

#[test]
fn tool_line_explain_and_raw() {
    let args = json!({"command": "node --check /tmp/app.js"});
    assert_eq!(
        tool_line(
            None,
            "terminal",
            "check JS syntax",
            &args,
            Detail::Explain,
            120
        ),
        "🛠️ terminal: \"check JS syntax\""
    );
    assert_eq!(
        tool_line(None, "terminal", "check JS syntax", &args, Detail::Raw, 120),
        "🛠️ terminal: \"check JS syntax\", node --check /tmp/app.js"
    );
    assert_eq!(
        tool_line(Some("🧪"), "tests", "", &json!({}), Detail::Raw, 120),
        "🧪 tests"
    );
    // Raw does not repeat a preview that already is the command.
    assert_eq!(
        tool_line(
            None,
            "terminal",
            "ls -la",
            &json!({"command": "ls -la"}),
            Detail::Raw,
            120
        ),
        "🛠️ terminal: \"ls -la\""
    );
    assert_eq!(
        tool_line(
            None,
            "read_file",
            "config",
            &json!({"path": "/etc/x.toml"}),
            Detail::Raw,
            120
        ),
        "📖 read_file: \"config\", /etc/x.toml"
    );
    assert_eq!(
        tool_line(
            None,
            "web_search",
            "docs",
            &json!({"query": "leptos  signals"}),
            Detail::Raw,
            120
        ),
        "🔎 web_search: \"docs\", leptos signals"
    );
    assert_eq!(
        tool_line(
            None,
            "run",
            "go",
            &json!({"command": ["cargo", "test"]}),
            Detail::Raw,
            120
        ),
        "⚙️ run: \"go\", cargo test"
    );
    assert_eq!(
        tool_line(None, "x", "p", &json!({"n": 1}), Detail::Raw, 120),
        "⚙️ x: \"p\", {\"n\":1}"
    );
    assert_eq!(
        tool_line(
            Some("  "),
            "x",
            "multi\nline\tpreview",
            &json!(null),
            Detail::Raw,
            120
        ),
        "⚙️ x: \"multi line preview\""
    );
}

#[test]
fn tool_line_raw_part_loses_its_middle_first() {
    let cmd = format!(
        "cargo test --manifest-path {}/Cargo.toml",
        "/very/long/dir".repeat(8)
    );
    let line = tool_line(
        None,
        "terminal",
        "run tests",
        &json!({"command": cmd}),
        Detail::Raw,
        80,
    );
    assert_eq!(chars(&line), 80);
    assert!(
        line.starts_with("🛠️ terminal: \"run tests\", cargo"),
        "{line}"
    );
    assert!(line.ends_with("/Cargo.toml"), "{line}");
    // No room for the raw part: it is dropped, not mangled.
    let line = tool_line(
        None,
        "terminal",
        "run tests",
        &json!({"command": cmd}),
        Detail::Raw,
        30,
    );
    assert_eq!(line, "🛠️ terminal: \"run tests\"");
}

#[test]
fn tool_line_never_exceeds_budget() {
    let long = "word ".repeat(100);
    for max in [0, 1, 2, 5, 10, 40, 120] {
        for detail in [Detail::Explain, Detail::Raw] {
            let line = tool_line(
                None,
                "terminal",
                &long,
                &json!({"command": long}),
                detail,
                max,
            );
            assert!(chars(&line) <= max, "{max}: {line}");
        }
    }
}

#[test]
fn note_and_commentary_lines() {
    assert_eq!(
        note_line(None, "web_fetch", "Fetching page\ncontent...", 120),
        "🌐 web_fetch: Fetching page content..."
    );
    assert_eq!(note_line(Some("📦"), "pkg", " ", 120), "📦 pkg");
    assert_eq!(
        commentary_line("\n\n  I'll inspect the repo first.\nThen more.", 120),
        "I'll inspect the repo first."
    );
    assert_eq!(commentary_line("", 10), "");
    assert_eq!(
        commentary_line("Looking at the failing tests now", 20),
        "Looking at the…"
    );
}

#[test]
fn truncate_prose_at_word_boundary() {
    assert_eq!(truncate_line("short", 10), "short");
    assert_eq!(truncate_line("exactly10!", 10), "exactly10!");
    assert_eq!(
        truncate_line("The quick brown fox jumps over the lazy dog", 20),
        "The quick brown fox…"
    );
    assert_eq!(
        truncate_line("The quick brown fox, jumps over", 21),
        "The quick brown fox…"
    );
    // One long word: cut inside it rather than lose most of the budget.
    assert_eq!(
        truncate_line("a supercalifragilisticexpialidocious word", 16),
        "a supercalifrag…"
    );
    assert_eq!(truncate_line("anything", 0), "");
    assert_eq!(truncate_line("anything", 1), "…");
}

#[test]
fn truncate_paths_and_commands_in_the_middle() {
    let path = "/home/user/projects/aria-web/src/render/incremental/tests.rs";
    let t = truncate_line(path, 30);
    assert_eq!(chars(&t), 30);
    assert!(t.ends_with("incremental/tests.rs"), "{t}");
    assert!(t.starts_with("/home"), "{t}");

    let line = format!("📖 read_file: \"{path}\"");
    let t = truncate_line(&line, 40);
    assert_eq!(chars(&t), 40);
    assert!(t.starts_with("📖 read_file: \"/ho"), "{t}");
    assert!(t.ends_with("tests.rs\""), "{t}");

    let cmd = "cargo test -p aria-web --lib render -- --nocapture --test-threads 1";
    let t = truncate_line(cmd, 40);
    assert_eq!(chars(&t), 40);
    assert!(t.starts_with("cargo"), "{t}");
    assert!(t.ends_with("--test-threads 1"), "{t}");

    let windows = r"C:\Users\someone\AppData\Local\Programs\tool\bin\tool.exe";
    let t = truncate_line(windows, 25);
    assert!(t.ends_with(r"bin\tool.exe"), "{t}");
    assert_eq!(chars(&t), 25);
}

#[test]
fn truncate_handles_multibyte() {
    let s = "日本語のとても長い文章がここに続いています。さらに続きます。";
    for max in 0..chars(s) + 2 {
        let t = truncate_line(s, max);
        assert!(chars(&t) <= max, "{max}: {t}");
    }
    let emoji = "🎉".repeat(50);
    assert_eq!(truncate_line(&emoji, 10), format!("{}…", "🎉".repeat(9)));
    let path = "/é/".repeat(30);
    assert_eq!(chars(&truncate_line(&path, 20)), 20);
}

#[test]
fn progress_lines_roll_and_the_label_scrolls_away() {
    let mut p = ProgressLines::with_label("Working", DEFAULT_MAX_LINES);
    assert_eq!(p.text(), "Working");
    p.push("🛠️ a");
    p.push("🛠️ a"); // repeat skipped
    p.push("📖 b");
    p.push("🔎 c");
    assert_eq!(
        p.lines().collect::<Vec<_>>(),
        ["Working", "🛠️ a", "📖 b", "🔎 c"]
    );
    p.push("✍️ d");
    assert_eq!(
        p.lines().collect::<Vec<_>>(),
        ["🛠️ a", "📖 b", "🔎 c", "✍️ d"]
    );
    assert_eq!(p.len(), 4);
    p.set_max_lines(2);
    assert_eq!(p.text(), "🔎 c\n✍️ d");
    p.set_max_lines(0);
    assert_eq!(p.max_lines(), 1);
    assert_eq!(p.text(), "✍️ d");
}

#[test]
fn progress_lines_upsert_by_key() {
    let mut p = ProgressLines::default();
    assert!(p.is_empty());
    p.upsert("1", "🛠️ terminal: \"build\"");
    p.push("commentary");
    p.upsert("1", "🛠️ terminal: compiling 40%");
    assert_eq!(
        p.lines().collect::<Vec<_>>(),
        ["🛠️ terminal: compiling 40%", "commentary"]
    );
    p.upsert("2", "x");
    p.upsert("3", "y");
    p.upsert("4", "z");
    // "1" scrolled away: a new update appends again.
    p.upsert("1", "🛠️ terminal: done");
    assert_eq!(
        p.lines().collect::<Vec<_>>(),
        ["x", "y", "z", "🛠️ terminal: done"]
    );
}

#[test]
fn detail_serializes_lowercase() {
    assert_eq!(
        serde_json::to_string(&Detail::Raw).ok().as_deref(),
        Some("\"raw\"")
    );
    assert_eq!(
        serde_json::from_str::<Detail>("\"explain\"").ok(),
        Some(Detail::Explain)
    );
    assert_eq!(Detail::default(), Detail::Explain);
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn truncate_never_panics_or_exceeds(s in any::<String>(), max in 0usize..200) {
            let t = truncate_line(&s, max);
            prop_assert!(t.chars().count() <= max);
            if s.chars().count() <= max {
                prop_assert_eq!(t, s);
            }
        }

        #[test]
        fn path_like_truncation_keeps_the_end(
            parts in proptest::collection::vec("[a-zé日]{1,12}", 1..20),
            max in 12usize..80,
        ) {
            let path = format!("/{}", parts.join("/"));
            let t = truncate_line(&path, max);
            prop_assert!(t.chars().count() <= max);
            let last: String = path.chars().rev().take(max / 2).collect::<Vec<_>>().into_iter().rev().collect();
            prop_assert!(t.ends_with(&last), "{} -> {}", path, t);
        }

        #[test]
        fn lines_never_exceed(
            name in any::<String>(),
            preview in any::<String>(),
            cmd in any::<String>(),
            max in 0usize..150,
        ) {
            let args = serde_json::json!({ "command": cmd });
            for detail in [Detail::Explain, Detail::Raw] {
                let line = tool_line(None, &name, &preview, &args, detail, max);
                prop_assert!(line.chars().count() <= max);
            }
            prop_assert!(note_line(Some(&name), &name, &preview, max).chars().count() <= max);
            prop_assert!(commentary_line(&preview, max).chars().count() <= max);
            prop_assert!(approval_line(&name, Some(&cmd), max).chars().count() <= max);
        }
    }
}
