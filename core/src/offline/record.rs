//! The records the offline copy is kept in, one IndexedDB value each, as
//! versioned JSON text: an index per gateway (its thread list and which
//! threads were opened last) and one record per kept thread (its last
//! page, as the protocol's history items). Nothing else: no token, no
//! setting, no HTML. Text that is not a record of this version is refused,
//! so a corrupt or older copy is ignored rather than misread.

use serde::{Deserialize, Serialize};

use crate::protocol::{Channel, History};

/// The record format. A copy written in another version is ignored.
pub const VERSION: u32 = 1;
/// Threads whose pages are kept, the most recently opened ones.
pub const MAX_THREADS: usize = 20;
/// Items kept per thread: its newest ones.
pub const MAX_ITEMS: usize = 200;
/// Threads of the list kept (the first ones listed).
pub const MAX_LISTED: usize = 1000;

/// A gateway's thread list and its recently opened threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Index {
    pub v: u32,
    pub channels: Vec<Channel>,
    /// Most recently opened first: their pages are kept.
    pub recent: Vec<Recent>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recent {
    pub channel_id: String,
    pub opened_ms: f64,
}

/// One thread's newest items, in the form of the `history` frame that
/// brings them, so that the store reads them the way it reads a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadRecord {
    pub v: u32,
    pub page: History,
}

/// Just the version, read first so another version is told apart from
/// corruption.
#[derive(Deserialize)]
struct Version {
    v: u32,
}

impl Index {
    /// The list as the store has it (the gateway's order), cut to the bound.
    pub fn new(mut channels: Vec<Channel>, recent: Vec<Recent>) -> Index {
        channels.truncate(MAX_LISTED);
        Index {
            v: VERSION,
            channels,
            recent,
        }
    }

    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads an index, cut to the bounds (the text is this device's, but
    /// read as untrusted all the same).
    pub fn decode(text: &str) -> Result<Index, String> {
        let mut index: Index = decode(text)?;
        index.channels.truncate(MAX_LISTED);
        index.recent.truncate(MAX_THREADS);
        Ok(index)
    }
}

impl ThreadRecord {
    pub fn new(page: History) -> ThreadRecord {
        ThreadRecord { v: VERSION, page }
    }

    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads the record kept for `channel_id`: one naming another thread
    /// is refused, and only the newest items are kept.
    pub fn decode(text: &str, channel_id: &str) -> Result<ThreadRecord, String> {
        let mut record: ThreadRecord = decode(text)?;
        if record.page.channel_id != channel_id {
            return Err("the record is of another thread".into());
        }
        let items = &mut record.page.items;
        if items.len() > MAX_ITEMS {
            items.drain(..items.len() - MAX_ITEMS);
            record.page.has_more = true;
        }
        Ok(record)
    }
}

fn decode<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, String> {
    let version: Version = serde_json::from_str(text).map_err(|e| format!("unreadable: {e}"))?;
    if version.v != VERSION {
        return Err(format!("format version {}, not {VERSION}", version.v));
    }
    serde_json::from_str(text).map_err(|e| format!("unreadable: {e}"))
}

/// The key of a gateway's index. Keys start with the gateway's canonical
/// address and a newline (which no canonical address contains), so two
/// gateways' records never mix.
pub fn index_key(gateway: &str) -> String {
    format!("{gateway}\n")
}

pub fn thread_key(gateway: &str, channel_id: &str) -> String {
    format!("{gateway}\n{channel_id}")
}

/// The half-open key range `[from, to)` holding every record of a
/// gateway: `\u{b}` is the character after `\n`.
pub fn gateway_range(gateway: &str) -> (String, String) {
    (format!("{gateway}\n"), format!("{gateway}\u{b}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::HistoryItem;
    use crate::test_items::commentary;

    fn page(id: &str, n: u64) -> History {
        History {
            channel_id: id.into(),
            items: (1..=n).map(commentary).collect(),
            has_more: false,
            has_newer: None,
            before: None,
            after: None,
            around: None,
            branch_rev: None,
        }
    }

    #[test]
    fn a_thread_record_round_trips() {
        let record = ThreadRecord::new(page("c1", 3));
        assert_eq!(ThreadRecord::decode(&record.encode(), "c1"), Ok(record));
    }

    #[test]
    fn another_version_is_refused_and_says_so() {
        let text = ThreadRecord::new(page("c1", 1))
            .encode()
            .replacen("\"v\":1", "\"v\":0", 1);
        let err = ThreadRecord::decode(&text, "c1").unwrap_err();
        assert!(err.contains("version 0"), "{err}");
        let index = Index::new(Vec::new(), Vec::new())
            .encode()
            .replacen("\"v\":1", "\"v\":2", 1);
        assert!(Index::decode(&index).unwrap_err().contains("version 2"));
    }

    #[test]
    fn corrupt_text_is_refused() {
        for text in [
            "",
            "{",
            "null",
            "[]",
            "{\"v\":1}",
            "{\"v\":\"1\"}",
            "{\"v\":1,\"page\":7}",
        ] {
            assert!(ThreadRecord::decode(text, "c1").is_err(), "{text}");
            assert!(Index::decode(text).is_err(), "{text}");
        }
    }

    #[test]
    fn a_bad_item_is_skipped_not_the_record() {
        let text = r#"{"v":1,"page":{"channel_id":"c1","items":[{"type":"commentary","seq":"x"},{"type":"commentary","seq":2,"message_id":"m","text":"t"}]}}"#;
        let record = ThreadRecord::decode(text, "c1").unwrap();
        assert_eq!(record.page.items.len(), 2);
        assert_eq!(record.page.items[0], HistoryItem::Unknown);
        assert_eq!(record.page.items[1].seq(), Some(2));
    }

    #[test]
    fn a_record_of_another_thread_is_refused() {
        let text = ThreadRecord::new(page("c2", 1)).encode();
        assert!(ThreadRecord::decode(&text, "c1").is_err());
    }

    #[test]
    fn decoding_keeps_the_bounds() {
        let record = ThreadRecord::new(page("c1", MAX_ITEMS as u64 + 50)).encode();
        let page = ThreadRecord::decode(&record, "c1").unwrap().page;
        assert_eq!(page.items.len(), MAX_ITEMS);
        assert_eq!(page.items[0].seq(), Some(51), "the newest items stay");
        assert!(page.has_more);
        let recent = (0..MAX_THREADS + 5)
            .map(|i| Recent {
                channel_id: format!("c{i}"),
                opened_ms: i as f64,
            })
            .collect();
        let index = Index::decode(&Index::new(Vec::new(), recent).encode()).unwrap();
        assert_eq!(index.recent.len(), MAX_THREADS);
    }

    #[test]
    fn keys_of_two_gateways_never_overlap() {
        let (from, to) = gateway_range("ws://a:1/ws");
        for key in [
            index_key("ws://a:1/ws"),
            thread_key("ws://a:1/ws", "c1"),
            thread_key("ws://a:1/ws", "\u{1F600}"),
        ] {
            assert!(from <= key && key < to, "{key:?}");
        }
        for key in [
            index_key("ws://a:1/ws2"),
            thread_key("ws://a:1/w", "s\nc1"),
            index_key("ws://a:1/w"),
        ] {
            assert!(!(from <= key && key < to), "{key:?}");
        }
    }
}
