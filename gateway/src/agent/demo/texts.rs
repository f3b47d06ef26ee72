//! The demo agent's canned texts: answers, tool outputs, stress documents
//! and XSS test material.

use std::fmt::Write;

use super::scenarios::CATALOG;
use crate::title::derive_title;

/// The default answer: markdown that exercises the renderer and quotes the user.
pub fn answer(user_text: &str) -> String {
    let quoted: String = user_text
        .lines()
        .take(12)
        .map(|line| format!("> {line}\n"))
        .collect();
    let chars = user_text.chars().count();
    let words = user_text.split_whitespace().count();
    format!(
        "## You said\n\n{quoted}\n\
Thanks for the message! I am **aria-demo**, the scripted agent of the reference \
gateway. This answer streams in as growing snapshots, so you can watch the client \
render markdown while it arrives.\n\n\
### What I noticed\n\n\
- Your message has **{words}** words and **{chars}** characters.\n\
- Nothing was sent to a real model: this reply is canned.\n\
- Try `/demo all` for reasoning, tool cards and commentary in one turn.\n\n\
### A code block\n\n\
```rust\n\
fn main() {{\n    let words = {words};\n    println!(\"you wrote {{words}} words\");\n}}\n\
```\n\n\
### A table\n\n\
| Command | What it shows |\n\
|---|---|\n\
| `/demo tools` | tool calls, one of them failing |\n\
| `/demo reasoning` | a reasoning block above the answer |\n\
| `/demo nostream` | one final message, no streaming |\n\n\
Send `/demo help` for every scenario.\n"
    )
}

/// The answer to `/demo help` and unknown scenario names.
/// `/demo context`: the turn the answered message follows, then the user
/// messages of the turn's context, one numbered line each, so a test can
/// see which branch the agent was given.
pub fn context(follows: Option<&str>, items: &[aria_protocol::HistoryItem]) -> String {
    let mut out = format!("Context after {}:", follows.unwrap_or("the start"));
    let users = items.iter().filter_map(|item| match item {
        aria_protocol::HistoryItem::Message(m) if m.role == aria_protocol::Role::User => {
            Some(m.text.as_str())
        }
        _ => None,
    });
    for (n, text) in users.enumerate() {
        let _ = write!(out, "\n{}. {}", n + 1, text.replace('\n', " "));
    }
    out
}

pub fn help() -> String {
    let mut text = String::from(
        "## Demo scenarios\n\nSend one of these to see a feature of the protocol:\n\n\
         | Message | What happens |\n|---|---|\n",
    );
    for (command, description) in CATALOG {
        // Writing to a String cannot fail.
        let _ = writeln!(text, "| `{command}` | {description} |");
    }
    text.push_str("\nAny other text gets a markdown answer that quotes it.\n");
    text
}

pub const REASONING: &str = "The user wants to see how reasoning is shown.\n\
1. Reasoning travels in the `reasoning` field of message.stop.\n\
2. The client renders it in a muted block above the answer.\n\
3. Keep the answer itself short so the block stands out.";

pub const REASONING_ANSWER: &str = "## Reasoning shown above\n\n\
The block above this answer is the model's **reasoning**. It came in the \
`reasoning` field of `message.stop`, separate from the text you are reading.\n\n\
- It can be collapsed.\n- It is never mixed into the answer.\n";

/// Text carrying its reasoning inline, in the exact prefix format of §5.
pub fn inline_reasoning() -> String {
    format!(
        "💭 **Reasoning:**\n```\n{REASONING}\n```\n\n## Inline reasoning\n\n\
This gateway could only deliver reasoning inside the text, so it used the \
`💭 **Reasoning:**` prefix. The client splits it off and shows it above this answer.\n"
    )
}

/// Reasoning of 12 numbered lines: over the 8 lines that start a block
/// collapsed.
pub fn long_reasoning() -> String {
    (1..=12)
        .map(|i| format!("{i}. Step {i} of a long chain of thought, checked against the last one."))
        .collect::<Vec<_>>()
        .join("\n")
}

pub const LONG_REASONING_ANSWER: &str = "## A long chain of thought\n\n\
The reasoning above is long, so it starts **collapsed**: open it to read it.\n";

/// The inline prefix without its closing fence: malformed, so a client
/// must show the whole text as the answer and split nothing off.
pub fn bad_inline_reasoning() -> String {
    "💭 **Reasoning:**\n```\nThis reasoning block is never closed.\n\n\
## Malformed prefix\n\nThe fence above has no end, so all of this is the answer.\n"
        .to_string()
}

pub const COMMENTARY_BEATS: [&str; 3] = [
    "I'll break this into three small steps.",
    "Step one is done: the question is clear. Now checking the details.",
    "Details checked. Writing the answer.",
];

pub const COMMENTARY_ANSWER: &str = "## Commentary\n\n\
The dimmed lines above were **commentary**: interim beats of the agent, logged \
in the history like messages but shown smaller and without a model footer.\n";

pub const TOOLS_ANSWER: &str = "## What I found\n\n\
- The project has a `Cargo.toml` workspace with the app, `protocol/` and `gateway/`.\n\
- The README explains how to run the gateway and the client.\n\
- `config/gateway.toml` does **not** exist (that tool call failed), so defaults apply.\n\
- The test suite passes: **50 passed, 0 failed**.\n\n\
| Tool | Result |\n|---|---|\n\
| `terminal` ls | 12 entries |\n| `read_file` README.md | 42 lines |\n\
| `web_search` | 5 results |\n| `terminal` cat | failed |\n| `terminal` cargo test | ok |\n";

/// The command `/demo approval` asks permission for.
pub const APPROVAL_COMMAND: &str = "rm -rf ./build";
pub const APPROVAL_COMMENTARY: &str =
    "The build directory is stale; I'd like to delete it before rebuilding.";
pub const APPROVAL_OUTPUT: &str = "removed './build/debug/aria-gateway'\n\
removed directory './build/debug'\nremoved directory './build'";
/// Output of the tool call when the user said no.
pub const APPROVAL_DENIED_OUTPUT: &str = "denied by the user";
/// Output of the tool call when nobody answered.
pub const APPROVAL_TIMEOUT_OUTPUT: &str = "not run: nobody answered in time";
pub const APPROVAL_RAN_ANSWER: &str = "## Done\n\n\
You allowed it, so I ran `rm -rf ./build`: the stale build directory is gone \
and the next build starts clean.\n";
pub const APPROVAL_REMEMBERED: &str =
    "You allowed commands like this before, so I'm not asking again.";
pub const APPROVAL_DENIED_ANSWER: &str = "## Not run\n\n\
You denied it, so I did **not** run `rm -rf ./build`; the build directory is \
untouched. Delete it yourself if you want a clean build.\n";
pub const APPROVAL_TIMEOUT_ANSWER: &str = "## Not run\n\n\
Nobody answered in time, so I did **not** run `rm -rf ./build`; the build \
directory is untouched. Ask again when you are around to approve it.\n";

pub const LS_OUTPUT: &str = "total 64\n\
drwxr-xr-x  9 aria aria 4096 Jan 12 10:02 .\n\
drwxr-xr-x 24 aria aria 4096 Jan 12 09:58 ..\n\
-rw-r--r--  1 aria aria  812 Jan 12 10:01 Cargo.toml\n\
-rw-r--r--  1 aria aria 1290 Jan 12 10:01 README.md\n\
-rw-r--r--  1 aria aria  214 Jan 12 10:01 Trunk.toml\n\
drwxr-xr-x  2 aria aria 4096 Jan 12 10:01 docs\n\
drwxr-xr-x  3 aria aria 4096 Jan 12 10:01 gateway\n\
-rw-r--r--  1 aria aria  402 Jan 12 10:01 index.html\n\
drwxr-xr-x  3 aria aria 4096 Jan 12 10:01 protocol\n\
drwxr-xr-x  6 aria aria 4096 Jan 12 10:01 src\n\
drwxr-xr-x  2 aria aria 4096 Jan 12 10:01 style\n\
drwxr-xr-x  2 aria aria 4096 Jan 12 10:01 tests";

pub const README_OUTPUT: &str = "# aria-web\n\n\
A chat client for AI-agent gateways, in Rust + Leptos (WebAssembly).\n\n\
## Run\n\n\
    cargo run -p aria-gateway -- --static-dir dist\n\
    trunk serve\n\n\
## Layout\n\n\
- `src/` the client\n- `protocol/` the wire types\n- `gateway/` the reference gateway";

pub const SEARCH_OUTPUT: &str = "1. axum WebSocket example — docs.rs/axum/latest/axum/extract/ws\n\
2. Broadcasting to many WebSocket clients with tokio — tokio.rs/tokio/tutorial/channels\n\
3. Handling slow consumers: bounded queues and backpressure\n\
4. tower-http ServeDir for single-page apps\n\
5. SQLite WAL mode and durability (sqlite.org/wal.html)";

pub const CARGO_TEST_NOTES: [&str; 6] = [
    "Compiling aria-protocol v0.1.0",
    "Compiling aria-gateway v0.1.0",
    "Running unittests src/lib.rs (38 tests)",
    "test result: ok. 38 passed; 0 failed",
    "Running tests/turns.rs (12 tests)",
    "test result: ok. 12 passed; 0 failed",
];

/// `/demo long`: about 20 KB of varied markdown.
pub fn long_document() -> String {
    const TARGET_BYTES: usize = 20 * 1024;
    let mut doc = String::from(
        "# A long answer\n\nThis document is long on purpose: it checks that the client \
         renders big answers smoothly while they stream.\n\n",
    );
    let mut part = 1;
    while doc.len() < TARGET_BYTES {
        // Writing to a String cannot fail.
        let _ = write!(doc, "{}", long_section(part));
        part += 1;
    }
    doc
}

fn long_section(part: usize) -> String {
    format!(
        "## Part {part}: a tour of the stack\n\n\
The gateway keeps an **append-only log** per channel. Every final item gets a `seq`, \
and clients merge live frames and history pages by it. *Nothing is shown twice.*\n\n\
### Rust\n\n```rust\nuse std::collections::BTreeMap;\n\n\
/// Items of one channel, ordered by seq.\nfn merge(log: &mut BTreeMap<u64, String>, seq: u64, item: String) {{\n\
    log.entry(seq).or_insert(item);\n}}\n```\n\n\
### Python\n\n```python\ndef derive_title(text: str, limit: int = 48) -> str:\n\
    line = text.strip().splitlines()[0]\n    if len(line) <= limit:\n        return line\n\
    return line[: limit - 1].rsplit(\" \", 1)[0] + \"…\"\n```\n\n\
### TypeScript\n\n```typescript\nconst socket = new WebSocket(\"ws://127.0.0.1:8080/ws\");\n\
socket.onopen = () => socket.send(JSON.stringify({{ type: \"hello\", device_id: \"d{part}\", protocol: 1 }}));\n```\n\n\
### SQL\n\n```sql\nSELECT item FROM log\nWHERE channel_id = ?1 AND seq < ?2\nORDER BY seq DESC\nLIMIT 51;\n```\n\n\
### Shell\n\n```bash\ncargo run -p aria-gateway -- --addr 127.0.0.1:8080 --data-dir ./aria-data\n```\n\n\
### Limits\n\n\
| Limit | Value | Why |\n|---|---:|---|\n\
| frame | 1 MiB | keeps one message bounded |\n\
| history page | 200 items | keeps a page fast |\n\
| message text | 64 KiB | a long paste, not a file |\n\n\
### Checklist\n\n\
1. Connect and say `hello`\n   - with the token, if the gateway has one\n   - with protocol `1`\n\
2. Open a channel\n   - ask for the newest page\n     - scroll up with `before`\n     - fill gaps with `after`\n\
3. Send a message\n   - keep it pending until the echo\n\n\
> Part {part} ends here. The next part repeats the tour with a new number.\n\n"
    )
}

/// `/demo stream KiB`: markdown of about `kib` KiB, in whole blocks.
pub fn stream_body(kib: u32) -> String {
    stream_blocks(kib, "Streaming benchmark", "")
}

/// `/demo stream-math KiB`: the same blocks, each paragraph with an inline
/// formula and every fiftieth block with a display one: about 300 formulas in
/// 100 KiB, as a math-heavy answer has.
pub fn stream_math_body(kib: u32) -> String {
    stream_blocks(
        kib,
        "Streaming benchmark with math",
        " \\(a_{n} = \\frac{x^2 + 1}{2}\\)",
    )
}

/// Numbered blocks (a heading, a paragraph with `formula` in it, a list,
/// a code block) up to `kib` KiB; with a formula, every fiftieth block also
/// has display math.
fn stream_blocks(kib: u32, title: &str, formula: &str) -> String {
    let target = usize::try_from(kib)
        .unwrap_or(usize::MAX)
        .saturating_mul(1024);
    let mut body = format!("# {title} ({kib} KiB)\n\n");
    let mut block = 1;
    while body.len() < target {
        // Writing to a String cannot fail.
        let _ = write!(
            body,
            "### Block {block}\n\nLorem ipsum dolor sit amet, **consectetur** adipiscing elit,{formula} sed do \
             eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, \
             quis nostrud exercitation ullamco laboris.\n\n- item `{block}.1`\n- item `{block}.2`\n\n\
             ```text\nblock {block}: the quick brown fox jumps over the lazy dog\n```\n\n"
        );
        if !formula.is_empty() && block % 50 == 0 {
            let _ = write!(
                body,
                "$$\n\\sum_{{k=1}}^{{{block}}} k^2 = \\frac{{n(n+1)(2n+1)}}{{6}}\n$$\n\n"
            );
        }
        block += 1;
    }
    body
}

/// `/demo xss`: vectors the client must render inert, one per line.
pub const XSS_ANSWER: &str = "## XSS test material\n\n\
Every line below must show as text or an inert element: no alert, no request.\n\n\
<script>alert('answer script')</script>\n\n\
<img src=x onerror=alert('img onerror')>\n\n\
<svg onload=alert('svg onload')><circle r=10 /></svg>\n\n\
<iframe src=\"javascript:alert('iframe')\"></iframe>\n\n\
<a href=\"javascript:alert('html link')\">html link</a>\n\n\
<details open ontoggle=alert('details')><summary>details</summary></details>\n\n\
[markdown javascript link](javascript:alert(1))\n\n\
[mixed case scheme](JaVaScRiPt:alert('case'))\n\n\
[entity scheme](javascript&#58;alert('entity'))\n\n\
[vbscript link](vbscript:msgbox(1))\n\n\
[data html link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)\n\n\
![data svg image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+PC9zdmc+)\n\n\
![remote image](https://example.invalid/track.png?leak=1)\n\n\
<javascript:alert('autolink')>\n\n\
| cell | payload |\n|---|---|\n| html | <img src=x onerror=alert('table')> |\n\n\
```html\n<script>alert('inside a code block is fine as text')</script>\n```\n\n\
<style>body { display: none }</style>\n\n\
<form action=\"javascript:alert('form')\"><button>submit</button></form>\n";

pub const XSS_REASONING: &str = "</pre></details><script>alert('reasoning')</script>\n\
<img src=x onerror=alert('reasoning img')>";

pub const XSS_COMMENTARY: &str = "Checking <img src=x onerror=alert('commentary')> and \
[a link](javascript:alert('commentary link')) <svg onload=alert('commentary svg')>";

pub const XSS_TOOL_PREVIEW: &str = "<script>alert('tool preview')</script>";

pub const XSS_TOOL_OUTPUT: &str = "<img src=x onerror=alert('tool output')>\n\
<iframe srcdoc=\"<script>alert('srcdoc')</script>\"></iframe>\n\
\u{1b}[31mANSI red\u{1b}[0m and a NUL-free control char \u{7}";

pub const XSS_TITLE: &str = "<img src=x onerror=alert('title')><script>alert('title')</script>";

/// A "better" title for an auto thread, made the way a cheap summarizer
/// would: filler words dropped, a few key words kept, capitalized.
pub fn better_title(first_message: &str) -> String {
    const FILLER: &[&str] = &[
        "hi", "hey", "hello", "please", "can", "could", "would", "you", "i", "me", "tell", "so",
        "ok", "okay", "the", "a", "an",
    ];
    if let Some(rest) = first_message.trim().strip_prefix("/demo") {
        let name = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        return if name.is_empty() {
            "Demo scenarios".to_string()
        } else {
            derive_title(&format!("Demo: {name}"))
        };
    }
    let words: Vec<&str> = first_message
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .skip_while(|w| FILLER.contains(&w.to_lowercase().as_str()))
        .take(6)
        .collect();
    let mut chars = words.join(" ").chars().collect::<Vec<_>>().into_iter();
    match chars.next() {
        Some(first) => derive_title(&first.to_uppercase().chain(chars).collect::<String>()),
        None => "Quick chat".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_quotes_the_user_and_has_rich_markdown() {
        let text = answer("summarize the repo");
        assert!(text.contains("> summarize the repo"));
        for needle in ["## ", "- ", "```rust", "|---|"] {
            assert!(text.contains(needle), "{needle}");
        }
    }

    #[test]
    fn inline_reasoning_uses_the_exact_prefix() {
        let text = inline_reasoning();
        let prefix = format!("💭 **Reasoning:**\n```\n{REASONING}\n```\n\n");
        assert!(text.starts_with(&prefix));
        assert!(text.len() > prefix.len());
    }

    #[test]
    fn long_reasoning_is_long_and_the_bad_prefix_never_closes() {
        assert!(long_reasoning().lines().count() > 8);
        let bad = bad_inline_reasoning();
        assert!(bad.starts_with("💭 **Reasoning:**\n```\n"));
        assert_eq!(bad.matches("```").count(), 1);
    }

    #[test]
    fn generated_documents_have_their_sizes() {
        let long = long_document();
        assert!((20 * 1024..40 * 1024).contains(&long.len()));
        let body = stream_body(10);
        assert!((10 * 1024..11 * 1024).contains(&body.len()));
        let math = stream_math_body(100);
        assert!((100 * 1024..101 * 1024).contains(&math.len()));
        let formulas = math.matches("\\(").count() + math.matches("$$").count() / 2;
        assert!((280..=320).contains(&formulas), "{formulas}");
    }

    #[test]
    fn largest_stream_answer_fits_in_one_frame() {
        let body = stream_body(super::super::scenarios::MAX_STREAM_KIB);
        let encoded = serde_json::to_string(&body).expect("json");
        // Room for the rest of the message.update envelope.
        assert!(
            encoded.len() + 1024 < aria_protocol::MAX_FRAME_BYTES,
            "{}",
            encoded.len()
        );
    }

    #[test]
    fn better_titles() {
        assert_eq!(
            better_title("hey, can you summarize the repo?"),
            "Summarize the repo"
        );
        assert_eq!(better_title("/demo tools"), "Demo: tools");
        assert_eq!(better_title("?!"), "Quick chat");
        assert!(better_title(&"word ".repeat(50)).chars().count() <= 48);
        assert!(aria_protocol::valid_title(XSS_TITLE).is_some());
    }
}
