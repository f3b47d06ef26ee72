//! `--seed-channel N`: before serving, a channel `c_seed` with N logged
//! items (turns of a user question, commentary, two tool calls and a
//! markdown answer), written in one transaction. For benchmarks and tests
//! of long threads: 100,000 items take seconds, not a 100,000-turn chat.

use std::path::Path;

use aria_protocol::{CommentaryItem, HistoryItem, MessageItem, Role, ToolItem};
use serde_json::json;

use crate::clock::now_ms;
use crate::store::{Store, StoreError};

/// The id of the seeded channel.
pub const SEEDED_CHANNEL: &str = "c_seed";

/// The CLI flag (flattened into [`crate::Cli`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SeedArgs {
    /// Before serving, create a channel `c_seed` holding N logged items (for
    /// benchmarks; nothing happens if it exists already).
    #[arg(long, value_name = "N")]
    pub seed_channel: Option<u64>,
    /// With `--seed-channel`: that many of its questions also have an
    /// edited version with its own answer, off the active path (§12), so
    /// the active path is read among forks.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed_forks: u64,
    /// Before serving, create a channel `c_images` of N messages, each
    /// with an image of its own (for benchmarks; nothing happens if it
    /// exists already).
    #[arg(long, value_name = "N")]
    pub seed_images: Option<u64>,
}

/// Creates `c_seed` with `items` logged items in `data_dir`'s database,
/// `forks` of its questions with a second version off the active path,
/// unless it exists. Returns whether it was created.
pub fn seed_channel(data_dir: &Path, items: u64, forks: u64) -> Result<bool, StoreError> {
    let mut store = Store::open(data_dir)?;
    if store.channel(SEEDED_CHANNEL).is_ok() {
        return Ok(false);
    }
    let title = format!("Seeded thread ({items} items)");
    store.create_channel(SEEDED_CHANNEL, &title, false)?;
    // Timestamps one second apart, ending now.
    let start = now_ms()
        - i64::try_from(items)
            .unwrap_or(i64::MAX)
            .saturating_mul(1000);
    store.append_all(SEEDED_CHANNEL, (1..=items).map(|seq| item(seq, start)))?;
    let turns = items / 5;
    for fork in 0..forks.min(turns) {
        // Questions spread evenly over the thread.
        let turn = fork * turns / forks.min(turns).max(1);
        let question = turn * 5 + 1;
        store.graft(SEEDED_CHANNEL, question, fork_items(turn, fork))?;
    }
    Ok(true)
}

/// The other version of question `turn` and its answer.
fn fork_items(turn: u64, fork: u64) -> Vec<HistoryItem> {
    let mut question = item(turn * 5 + 1, now_ms());
    let mut answer = item(turn * 5 + 5, now_ms());
    if let HistoryItem::Message(m) = &mut question {
        m.message_id = format!("seed_fork_q{fork}");
        m.client_msg_id = Some(format!("seed_fork_k{fork}"));
        m.text =
            format!("Question {turn}, asked differently: which errors does module {turn} hide?");
    }
    if let HistoryItem::Message(m) = &mut answer {
        m.message_id = format!("seed_fork_a{fork}");
        m.turn_id = Some(format!("seed_fork_t{fork}"));
    }
    vec![question, answer]
}

/// Item `seq` (1-based) of the seeded thread: turns of five items.
fn item(seq: u64, start: i64) -> HistoryItem {
    let turn = (seq - 1) / 5;
    let turn_id = Some(format!("seed_t{turn}"));
    let ts = start + i64::try_from(seq).unwrap_or(0) * 1000;
    let message_id = format!("seed_{seq}");
    match (seq - 1) % 5 {
        0 => HistoryItem::Message(MessageItem {
            seq,
            message_id,
            role: Role::User,
            text: format!(
                "Question {turn}: how does module {turn} handle errors, and what would you change?"
            ),
            reasoning: None,
            model: None,
            tokens: None,
            ts,
            turn_id: None,
            client_msg_id: Some(format!("seed_k{seq}")),
            branch: None,
            files: Box::default(),
        }),
        1 => HistoryItem::Commentary(CommentaryItem {
            seq,
            message_id,
            text: format!("Reading `src/module_{turn}.rs` and its tests first."),
            ts,
            turn_id,
            parent_index: None,
            branch: None,
        }),
        step @ (2 | 3) => {
            let (name, emoji, preview) = if step == 2 {
                ("read_file", "📖", format!("src/module_{turn}.rs"))
            } else {
                ("terminal", "💻", format!("cargo test -p module_{turn}"))
            };
            HistoryItem::Tool(ToolItem {
                seq,
                turn_id,
                index: u32::try_from(step - 1).unwrap_or(1),
                name: name.into(),
                emoji: Some(emoji.into()),
                preview: preview.clone(),
                args: json!({ "input": preview }),
                ok: true,
                duration: 0.2 + (seq % 7) as f64 / 10.0,
                output_preview: format!("{} lines", 40 + seq % 160),
                output: None,
                ts,
                parent_index: None,
                branch: None,
            })
        }
        _ => HistoryItem::Message(MessageItem {
            seq,
            message_id,
            role: Role::Assistant,
            text: answer(turn),
            reasoning: None,
            model: Some("aria-demo".into()),
            tokens: Some(180),
            ts,
            turn_id,
            client_msg_id: None,
            branch: None,
            files: Box::default(),
        }),
    }
}

/// A markdown answer of a few hundred bytes; every third has code, every
/// fifth a table, so rows have different heights.
fn answer(turn: u64) -> String {
    let mut text = format!(
        "Module {turn} returns `Result<_, Error>` everywhere and maps I/O errors at the edge. \
         Two things stand out:\n\n\
         - the retry loop swallows the **last** error instead of returning it;\n\
         - `parse_header` panics on an empty input.\n\n\
         I would return the last error and make the empty case an `Error::Empty`.\n"
    );
    if turn.is_multiple_of(3) {
        text.push_str(&format!(
            "\n```rust\nfn parse_header(input: &[u8]) -> Result<Header, Error> {{\n    \
             let first = input.first().ok_or(Error::Empty)?;\n    Header::try_from(*first) // module {turn}\n}}\n```\n"
        ));
    }
    if turn.is_multiple_of(5) {
        text.push_str("\n| case | now | proposed |\n|---|---|---|\n| empty input | panic | `Error::Empty` |\n| retry exhausted | `Ok(())` | last error |\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::PageQuery;
    use aria_protocol::HistoryGet;

    #[test]
    fn seeds_a_channel_once_with_consecutive_seqs() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(seed_channel(dir.path(), 23, 2).expect("seed"));
        assert!(!seed_channel(dir.path(), 23, 2).expect("seed again"));
        let store = Store::open(dir.path()).expect("open");
        // Two forks of two items each, after the 23 of the path.
        assert_eq!(store.channel(SEEDED_CHANNEL).expect("channel").last_seq, 27);
        let query = PageQuery::from_request(&HistoryGet {
            channel_id: SEEDED_CHANNEL.into(),
            before: None,
            after: None,
            around: None,
            limit: Some(200),
        })
        .expect("query");
        let (page, _) = store.page(SEEDED_CHANNEL, &query).expect("page");
        let items = page.items;
        let seqs: Vec<u64> = items.iter().filter_map(HistoryItem::seq).collect();
        assert_eq!(seqs, (1..=23).collect::<Vec<_>>());
        assert!(!page.has_more);
        assert!(matches!(&items[0], HistoryItem::Message(m) if m.role == Role::User));
        assert!(matches!(&items[4], HistoryItem::Message(m) if m.role == Role::Assistant));
        let first = |item: &HistoryItem| match item {
            HistoryItem::Message(m) => m.branch.clone().map(|b| (b.siblings, b.index)),
            _ => None,
        };
        assert_eq!(
            first(&items[0]),
            Some((vec![1, 24], 0)),
            "question 0 has a fork"
        );
        assert_eq!(
            first(&items[10]),
            Some((vec![11, 26], 0)),
            "so has question 2"
        );
        assert_eq!(first(&items[5]), None);
    }
}
