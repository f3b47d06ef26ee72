//! The built-in demo agent: scripted turns that exercise every frame of the
//! protocol, paced by `--demo-delay-ms`.

mod scenarios;
mod texts;

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use aria_protocol::Choice;
use serde_json::json;

use self::scenarios::Scenario;
use super::{Agent, AgentFuture, ApprovalAsk, Reply, ToolCall, ToolOutcome, Turn, TurnError};

/// `model` of every demo answer.
pub const MODEL: &str = "aria-demo";
/// Fewest `message.update` snapshots of a streamed answer.
const MIN_SNAPSHOTS: usize = 12;
/// Most snapshots of a normal answer, so `/demo long` streams in seconds.
const MAX_SNAPSHOTS: usize = 150;
/// Characters per snapshot of a normal answer: about an LLM's token rate.
const CHARS_PER_SNAPSHOT: usize = 24;
/// `/demo stream` sends a snapshot this often, whatever the step.
const BENCH_INTERVAL: Duration = Duration::from_millis(10);
/// `/demo flood` starts a tool call this often.
const FLOOD_INTERVAL: Duration = Duration::from_millis(1);
/// The better auto title comes this many steps after the first message
/// (about 1.5 s at the default 40 ms step).
const TITLE_STEPS: u32 = 37;
/// Logged items `/demo context` reads, like an LLM back end's context.
const CONTEXT_ITEMS: u32 = 200;
/// `/demo approval-timeout` gives up this soon, whatever
/// `--approval-timeout-secs` says: long enough to see the request.
const SHORT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(3);

pub struct DemoAgent {
    step: Duration,
    allowed: Mutex<Allowed>,
}

/// What `session` and `always` answers allowed, until the gateway restarts.
#[derive(Default)]
struct Allowed {
    /// Channels where `/demo approval` no longer asks.
    channels: HashSet<String>,
    /// No channel asks any more.
    everywhere: bool,
}

/// A scripted tool call of the demo.
struct ScriptedTool {
    call: ToolCall,
    steps: u32,
    notes: &'static [&'static str],
    outcome: ToolOutcome,
}

impl Agent for DemoAgent {
    fn run<'a>(
        &'a self,
        text: &'a str,
        turn: &'a mut Turn,
    ) -> AgentFuture<'a, Result<(), TurnError>> {
        Box::pin(self.play(Scenario::parse(text), text, turn))
    }

    fn title<'a>(&'a self, first_message: &'a str) -> AgentFuture<'a, Option<String>> {
        Box::pin(async move {
            tokio::time::sleep(self.step * TITLE_STEPS).await;
            let title = match Scenario::parse(first_message) {
                Scenario::Xss => texts::XSS_TITLE.to_string(),
                _ => texts::better_title(first_message),
            };
            Some(title)
        })
    }
}

impl DemoAgent {
    pub fn new(step: Duration) -> Self {
        Self {
            step,
            allowed: Mutex::default(),
        }
    }

    async fn play(
        &self,
        scenario: Scenario,
        user_text: &str,
        turn: &mut Turn,
    ) -> Result<(), TurnError> {
        match scenario {
            Scenario::Answer => {
                self.answer(turn, user_text, &texts::answer(user_text), None)
                    .await
            }
            Scenario::Help => self.answer(turn, user_text, &texts::help(), None).await,
            Scenario::Reasoning => {
                self.think(turn).await?;
                let reasoning = Some(texts::REASONING.to_string());
                self.answer(turn, user_text, texts::REASONING_ANSWER, reasoning)
                    .await
            }
            Scenario::InlineReasoning => {
                self.think(turn).await?;
                self.answer(turn, user_text, &texts::inline_reasoning(), None)
                    .await
            }
            Scenario::LongReasoning => {
                self.think(turn).await?;
                let reasoning = Some(texts::long_reasoning());
                self.answer(turn, user_text, texts::LONG_REASONING_ANSWER, reasoning)
                    .await
            }
            Scenario::BadReasoning => {
                self.think(turn).await?;
                self.answer(turn, user_text, &texts::bad_inline_reasoning(), None)
                    .await
            }
            Scenario::Tools => self.tools(turn, user_text, None).await,
            Scenario::All => {
                self.tools(turn, user_text, Some(texts::REASONING.to_string()))
                    .await
            }
            Scenario::Commentary => {
                for beat in texts::COMMENTARY_BEATS {
                    turn.commentary(beat).await?;
                    turn.pause(self.step * 5).await?;
                }
                self.answer(turn, user_text, texts::COMMENTARY_ANSWER, None)
                    .await
            }
            Scenario::Long => {
                self.answer(turn, user_text, &texts::long_document(), None)
                    .await
            }
            Scenario::NoStream => {
                self.think(turn).await?;
                let text = texts::answer(user_text);
                let reply = self.reply(user_text, text, None);
                turn.message(reply).await
            }
            Scenario::Hang => {
                turn.commentary("Starting a command that will never report back.")
                    .await?;
                // Never ended on purpose: clients must show "unknown outcome".
                let _never_ends = turn.tool_start(ToolCall {
                    name: "terminal".into(),
                    emoji: Some("💻".into()),
                    preview: "tail -f /var/log/syslog".into(),
                    args: json!({"command": "tail -f /var/log/syslog", "background": false}),
                })?;
                turn.pause(self.step * 10).await
            }
            Scenario::Flood(calls) => self.flood(turn, user_text, calls).await,
            Scenario::Stream(kib) | Scenario::StreamMath(kib) => {
                let body = if matches!(scenario, Scenario::StreamMath(_)) {
                    texts::stream_math_body(kib)
                } else {
                    texts::stream_body(kib)
                };
                let count = (body.len() / 1024).max(MIN_SNAPSHOTS);
                let reply = self.reply(user_text, body.clone(), None);
                stream(turn, &body, count, BENCH_INTERVAL, reply).await
            }
            Scenario::Xss => self.xss(turn, user_text).await,
            Scenario::Context => {
                let items = turn.history(CONTEXT_ITEMS).await?;
                let context = texts::context(turn.follows(), &items);
                self.answer(turn, user_text, &context, None).await
            }
            Scenario::Approval => self.approval(turn, user_text, None).await,
            Scenario::ApprovalTimeout => {
                self.approval(turn, user_text, Some(SHORT_APPROVAL_TIMEOUT))
                    .await
            }
        }
    }

    /// A pause before answering, as a model would take.
    async fn think(&self, turn: &mut Turn) -> Result<(), TurnError> {
        turn.pause(self.step * 5).await
    }

    fn reply(&self, user_text: &str, text: String, reasoning: Option<String>) -> Reply {
        let chars = user_text.chars().count()
            + text.chars().count()
            + reasoning.as_deref().map_or(0, |r| r.chars().count());
        Reply {
            text,
            reasoning,
            model: Some(MODEL.to_string()),
            // About four characters per token, like common tokenizers.
            tokens: Some(u64::try_from(chars / 4 + 1).unwrap_or(u64::MAX)),
        }
    }

    /// Streams `text` at the normal pace and stops with `reasoning`.
    async fn answer(
        &self,
        turn: &mut Turn,
        user_text: &str,
        text: &str,
        reasoning: Option<String>,
    ) -> Result<(), TurnError> {
        let count = (text.chars().count() / CHARS_PER_SNAPSHOT).clamp(MIN_SNAPSHOTS, MAX_SNAPSHOTS);
        let reply = self.reply(user_text, text.to_string(), reasoning);
        stream(turn, text, count, self.step, reply).await
    }

    async fn run_tool(&self, turn: &mut Turn, tool: ScriptedTool) -> Result<(), TurnError> {
        let handle = turn.tool_start(tool.call)?;
        let notes = tool.notes.len().max(1);
        let steps_per_note = (tool.steps / u32::try_from(notes).unwrap_or(1)).max(1);
        for note in tool.notes {
            turn.pause(self.step * steps_per_note).await?;
            turn.tool_progress(&handle, note)?;
        }
        if tool.notes.is_empty() {
            turn.pause(self.step * tool.steps).await?;
        }
        turn.tool_end(handle, tool.outcome).await
    }

    /// `/demo tools` and `/demo all`: commentary, five tool calls (one
    /// failing, one long with progress notes), then the streamed answer.
    async fn tools(
        &self,
        turn: &mut Turn,
        user_text: &str,
        reasoning: Option<String>,
    ) -> Result<(), TurnError> {
        turn.commentary("I'll look around the project first.")
            .await?;
        self.run_tool(
            turn,
            terminal("ls -la", 4, true, texts::LS_OUTPUT, "12 entries", &[]),
        )
        .await?;
        turn.commentary("There is a README; reading it.").await?;
        let read = ScriptedTool {
            call: ToolCall {
                name: "read_file".into(),
                emoji: Some("📖".into()),
                preview: "README.md".into(),
                args: json!({"path": "README.md", "offset": 1, "limit": 200}),
            },
            steps: 3,
            notes: &[],
            outcome: ToolOutcome {
                ok: true,
                output_preview: "13 lines".into(),
                output: Some(texts::README_OUTPUT.into()),
            },
        };
        self.run_tool(turn, read).await?;
        let search = ScriptedTool {
            call: ToolCall {
                name: "web_search".into(),
                // As Hermes' and OpenAI-compatible tools come: the client
                // picks the icon.
                emoji: None,
                preview: "axum websocket broadcast backpressure".into(),
                args: json!({"query": "axum websocket broadcast backpressure", "max_results": 5}),
            },
            steps: 6,
            notes: &[],
            outcome: ToolOutcome {
                ok: true,
                output_preview: "5 results".into(),
                output: Some(texts::SEARCH_OUTPUT.into()),
            },
        };
        self.run_tool(turn, search).await?;
        let missing = "cat: config/gateway.toml: No such file or directory";
        self.run_tool(
            turn,
            terminal("cat config/gateway.toml", 2, false, missing, missing, &[]),
        )
        .await?;
        turn.commentary(
            "That config file does not exist, so defaults apply. Running the tests next.",
        )
        .await?;
        let test_log = texts::CARGO_TEST_NOTES.join("\n");
        let cargo_test = terminal(
            "cargo test --workspace",
            30,
            true,
            &test_log,
            "50 passed; 0 failed",
            &texts::CARGO_TEST_NOTES,
        );
        self.run_tool(turn, cargo_test).await?;
        turn.commentary("All green. Writing up what I found.")
            .await?;
        self.answer(turn, user_text, texts::TOOLS_ANSWER, reasoning)
            .await
    }

    /// `/demo flood N`: N quick tool calls, then a short answer.
    async fn flood(&self, turn: &mut Turn, user_text: &str, calls: u32) -> Result<(), TurnError> {
        for i in 1..=calls {
            let path = format!("src/module_{i:04}.rs");
            let handle = turn.tool_start(ToolCall {
                name: "read_file".into(),
                emoji: Some("📖".into()),
                preview: path.clone(),
                args: json!({"path": path}),
            })?;
            turn.pause(FLOOD_INTERVAL).await?;
            let outcome = ToolOutcome {
                ok: true,
                output_preview: format!("{} lines", 20 + i % 180),
                output: None,
            };
            turn.tool_end(handle, outcome).await?;
        }
        let text =
            format!("## Flood done\n\nRead **{calls}** files in one turn, one tool call each.\n");
        self.answer(turn, user_text, &text, None).await
    }

    /// `/demo xss`: XSS vectors in every place the client renders text.
    async fn xss(&self, turn: &mut Turn, user_text: &str) -> Result<(), TurnError> {
        turn.commentary(texts::XSS_COMMENTARY).await?;
        let tool = ScriptedTool {
            call: ToolCall {
                name: "terminal<img src=x onerror=alert('tool name')>".into(),
                emoji: Some("<b>💻</b>".into()),
                preview: texts::XSS_TOOL_PREVIEW.into(),
                args: json!({
                    "command": "echo '<script>alert(1)</script>'",
                    "html": "<svg onload=alert('args')>",
                    "url": "javascript:alert('args url')",
                }),
            },
            steps: 3,
            notes: &["<img src=x onerror=alert('progress')>"],
            outcome: ToolOutcome {
                ok: true,
                output_preview: "<script>alert('output preview')</script>".into(),
                output: Some(texts::XSS_TOOL_OUTPUT.into()),
            },
        };
        self.run_tool(turn, tool).await?;
        let reasoning = Some(texts::XSS_REASONING.to_string());
        self.answer(turn, user_text, texts::XSS_ANSWER, reasoning)
            .await
    }

    /// `/demo approval` (`timeout: None`: the gateway's) and `/demo
    /// approval-timeout`: a dangerous command shown as a tool card waits for
    /// the user's permission and runs only if allowed.
    async fn approval(
        &self,
        turn: &mut Turn,
        user_text: &str,
        timeout: Option<Duration>,
    ) -> Result<(), TurnError> {
        turn.commentary(texts::APPROVAL_COMMENTARY).await?;
        let command = texts::APPROVAL_COMMAND;
        let handle = turn.tool_start(ToolCall {
            name: "terminal".into(),
            emoji: Some("💻".into()),
            preview: command.into(),
            args: json!({"command": command, "cwd": "~/projects/aria-web"}),
        })?;
        let choice = match timeout {
            None if self.is_allowed(turn.channel_id()) => {
                turn.tool_progress(&handle, texts::APPROVAL_REMEMBERED)?;
                Choice::Session
            }
            None => turn.ask_approval(rm_rf_ask()).await?,
            Some(within) => turn.ask_approval_within(rm_rf_ask(), within).await?,
        };
        self.remember(turn.channel_id(), choice);
        let (outcome, answer) = if choice.allows() {
            turn.pause(self.step * 5).await?;
            let ran = ToolOutcome {
                ok: true,
                output_preview: "removed ./build".into(),
                output: Some(texts::APPROVAL_OUTPUT.into()),
            };
            (ran, texts::APPROVAL_RAN_ANSWER)
        } else if choice == Choice::Timeout {
            (
                not_run(texts::APPROVAL_TIMEOUT_OUTPUT),
                texts::APPROVAL_TIMEOUT_ANSWER,
            )
        } else {
            (
                not_run(texts::APPROVAL_DENIED_OUTPUT),
                texts::APPROVAL_DENIED_ANSWER,
            )
        };
        turn.tool_end(handle, outcome).await?;
        self.answer(turn, user_text, answer, None).await
    }

    fn is_allowed(&self, channel_id: &str) -> bool {
        let allowed = self.allowed.lock().unwrap_or_else(PoisonError::into_inner);
        allowed.everywhere || allowed.channels.contains(channel_id)
    }

    fn remember(&self, channel_id: &str, choice: Choice) {
        let mut allowed = self.allowed.lock().unwrap_or_else(PoisonError::into_inner);
        match choice {
            Choice::Session => {
                allowed.channels.insert(channel_id.to_string());
            }
            Choice::Always => allowed.everywhere = true,
            _ => {}
        }
    }
}

/// The request of `/demo approval`: every choice the protocol has.
fn rm_rf_ask() -> ApprovalAsk {
    ApprovalAsk {
        title: "Run a shell command?".into(),
        command: Some(texts::APPROVAL_COMMAND.into()),
        description: Some("recursive delete".into()),
        choices: vec![Choice::Once, Choice::Session, Choice::Always, Choice::Deny],
    }
}

/// A tool call that was not run, and why.
fn not_run(why: &str) -> ToolOutcome {
    ToolOutcome {
        ok: false,
        output_preview: why.into(),
        output: Some(why.into()),
    }
}

/// A scripted `terminal` call.
fn terminal(
    command: &str,
    steps: u32,
    ok: bool,
    output: &str,
    output_preview: &str,
    notes: &'static [&'static str],
) -> ScriptedTool {
    ScriptedTool {
        call: ToolCall {
            name: "terminal".into(),
            emoji: Some("💻".into()),
            preview: command.into(),
            args: json!({"command": command, "cwd": "~/projects/aria-web"}),
        },
        steps,
        notes,
        outcome: ToolOutcome {
            ok,
            output_preview: output_preview.into(),
            output: Some(output.into()),
        },
    }
}

/// Streams `text` as `count` growing snapshots `interval` apart, then stops
/// with `reply`.
async fn stream(
    turn: &mut Turn,
    text: &str,
    count: usize,
    interval: Duration,
    reply: Reply,
) -> Result<(), TurnError> {
    turn.start_message()?;
    for snapshot in snapshots(text, count) {
        turn.pause(interval).await?;
        turn.update(snapshot)?;
    }
    turn.stop(reply).await
}

/// `count` strictly growing prefixes of `text` (fewer if it is shorter),
/// cut on char boundaries, the last being the whole text.
fn snapshots(text: &str, count: usize) -> Vec<&str> {
    let count = count.max(1);
    let mut cuts: Vec<&str> = Vec::with_capacity(count);
    for i in 1..=count {
        let mut end = text.len() * i / count;
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if end > 0 && cuts.last().is_none_or(|last| last.len() < end) {
            cuts.push(&text[..end]);
        }
    }
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_grow_and_end_with_the_text() {
        let text = "Hello, wörld! ".repeat(10);
        let cuts = snapshots(&text, 12);
        assert_eq!(cuts.len(), 12);
        assert!(cuts
            .windows(2)
            .all(|w| w[0].len() < w[1].len() && w[1].starts_with(w[0])));
        assert_eq!(cuts.last().copied(), Some(text.as_str()));
    }

    #[test]
    fn short_text_gives_fewer_snapshots() {
        assert_eq!(snapshots("abc", 12), ["a", "ab", "abc"]);
        assert!(snapshots("", 12).is_empty());
        assert_eq!(snapshots("ü", 0), ["ü"]);
    }
}
