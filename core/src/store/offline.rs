//! Starting from the offline copy, and reconciling it with the gateway.
//!
//! The copy comes in as what the gateway sent: its thread list and, per
//! kept thread, a `history` page, applied as that frame. Its rows are
//! logged rows like any other, keyed by `seq`, so the gateway's pages that
//! follow replace or join them without showing a seq twice. What the copy
//! cannot know is what was logged since it was written: the first newest
//! page from the gateway decides. If the page reaches back to the copy's
//! newest item, the two join into one run; if a hole lies between them,
//! the copy's rows go (scrolling up loads them again, in order).

use super::channel::ChannelState;
use super::{Change, Store};
use crate::protocol::{Channel, History, HistoryItem, ServerFrame};

impl Store {
    /// Shows the offline copy: the thread list and each kept page. Does
    /// nothing once the gateway has answered (its state is newer), and
    /// leaves threads it already knows as they are (a placeholder of a
    /// kept send takes the copy's metadata).
    pub fn restore_offline(&mut self, channels: Vec<Channel>, pages: Vec<History>, now_ms: f64) {
        if self.online {
            return;
        }
        for meta in channels {
            match self.channels.get_mut(&meta.channel_id) {
                Some(c) if c.is_placeholder() => c.meta = meta,
                Some(_) => {}
                None => {
                    self.channels
                        .insert(meta.channel_id.clone(), ChannelState::new(meta));
                }
            }
        }
        self.changes.push(Change::Channels);
        for page in pages {
            let Some(c) = self.channels.get_mut(&page.channel_id) else {
                continue;
            };
            // Only into a thread nothing was loaded into, with no request
            // waiting (the page would be taken for its reply).
            if c.loaded || !c.requests.is_empty() || c.offline_newest.is_some() {
                continue;
            }
            let newest = page.items.iter().filter_map(HistoryItem::seq).max();
            c.offline_newest = newest;
            let id = page.channel_id.clone();
            let rev = page.branch_rev;
            self.apply(ServerFrame::History(page), now_ms);
            if let Some(c) = self.channels.get_mut(&id) {
                // A newest page read on another path replaces the copy.
                c.branches.rev = rev;
                // A kept send of the thread reads after the copy, as it was.
                if let Some(n) = newest {
                    c.timeline.anchor_live_at(n);
                }
            }
        }
    }
}

/// The gateway's first newest page of a thread shown from the offline copy
/// arrived (`items`, before they are applied): drops the copy's rows if a
/// hole lies between them and the page, and moves live rows (a queued
/// send) after the page. True if rows were dropped.
pub(super) fn reconcile(c: &mut ChannelState, items: &[HistoryItem]) -> bool {
    let Some(kept) = c.offline_newest.take() else {
        return false;
    };
    let seqs = || items.iter().filter_map(HistoryItem::seq);
    if let Some(newest) = seqs().max() {
        c.timeline.anchor_live_at(newest);
    }
    let reach = seqs().min().unwrap_or(u64::MAX);
    if reach <= kept.saturating_add(1) {
        return false;
    }
    let mut dropped = false;
    for row in c.timeline.take_logged() {
        if row.seq.is_some_and(|s| s >= reach) {
            c.timeline.upsert(row);
        } else {
            dropped = true;
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{channel, frame, texts};
    use super::super::*;
    use crate::protocol::{ClientFrame, History, ServerFrame};

    fn msg(seq: u64, text: &str) -> serde_json::Value {
        json!({"type":"message","seq":seq,"message_id":format!("m{seq}"),"role":"assistant","text":text,"ts":seq})
    }

    fn page(id: &str, seqs: std::ops::RangeInclusive<u64>, has_more: bool) -> History {
        let items: Vec<_> = seqs.map(|s| msg(s, &format!("a{s}"))).collect();
        match frame(json!({"type":"history","channel_id":id,"items":items,"has_more":has_more})) {
            ServerFrame::History(h) => h,
            other => panic!("{other:?}"),
        }
    }

    fn meta(id: &str, last_seq: u64) -> crate::protocol::Channel {
        serde_json::from_value(channel(id, last_seq)).unwrap()
    }

    /// A store that started from the copy of c1 (seqs 1..=5) with c1 open,
    /// not connected.
    fn offline_store() -> Store {
        let mut s = Store::new();
        s.open(Some("c1".into()));
        s.restore_offline(
            vec![meta("c1", 5), meta("c2", 0)],
            vec![page("c1", 1..=5, false)],
            0.0,
        );
        s
    }

    fn ready(s: &mut Store, last_seq: u64) -> Vec<Effect> {
        s.apply(
            frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", last_seq), channel("c2", 0)]})),
            0.0,
        )
    }

    fn history_gets(effects: &[Effect]) -> usize {
        effects
            .iter()
            .filter(|e| matches!(e, Effect::Send(ClientFrame::HistoryGet(_))))
            .count()
    }

    fn seqs(s: &Store, ch: &str) -> Vec<u64> {
        s.timeline(ch)
            .unwrap()
            .rows()
            .filter_map(|r| r.seq)
            .collect()
    }

    #[test]
    fn the_copy_is_shown_without_a_connection() {
        let s = offline_store();
        assert!(!s.is_online());
        assert_eq!(s.channels().count(), 2);
        assert_eq!(
            texts(&s, "c1"),
            [
                "assistant:a1",
                "assistant:a2",
                "assistant:a3",
                "assistant:a4",
                "assistant:a5"
            ]
        );
        // Read-only: nothing more can be asked for.
        let mut s = s;
        assert!(s.load_older("c1").is_empty());
    }

    #[test]
    fn a_copy_arriving_after_the_gateway_is_ignored() {
        let mut s = Store::new();
        ready(&mut s, 9);
        s.restore_offline(vec![meta("c3", 1)], vec![page("c1", 1..=5, false)], 0.0);
        assert!(s.channel("c3").is_none());
        assert!(s.timeline("c1").unwrap().is_empty());
    }

    #[test]
    fn a_page_joining_the_copy_merges_by_seq_nothing_twice() {
        let mut s = offline_store();
        let effects = ready(&mut s, 8);
        assert_eq!(
            history_gets(&effects),
            1,
            "the open thread asks its newest page"
        );
        // The newest page overlaps the copy (4, 5) and brings 6..8.
        s.apply(ServerFrame::History(page("c1", 4..=8, true)), 0.0);
        assert_eq!(seqs(&s, "c1"), (1..=8).collect::<Vec<_>>());
        let c = s.channel("c1").unwrap();
        assert!(c.loaded && c.has_older);
        assert_eq!(c.contiguous_seq, 8);
        // Older pages continue below the copy's oldest row: nothing lost.
        assert!(matches!(
            s.load_older("c1").as_slice(),
            [Effect::Send(ClientFrame::HistoryGet(g))] if g.before == Some(1)
        ));
    }

    #[test]
    fn a_hole_after_the_copy_drops_the_copy() {
        let mut s = offline_store();
        ready(&mut s, 100);
        s.apply(ServerFrame::History(page("c1", 51..=100, true)), 0.0);
        assert_eq!(seqs(&s, "c1"), (51..=100).collect::<Vec<_>>());
        // Scrolling up asks for what lies before the page, so 6..=50 come
        // in order, and the copy's 1..=5 after them.
        assert!(matches!(
            s.load_older("c1").as_slice(),
            [Effect::Send(ClientFrame::HistoryGet(g))] if g.before == Some(51)
        ));
    }

    #[test]
    fn a_queued_send_is_sent_once_and_shown_once() {
        let mut s = offline_store();
        let effects = s.send("typed offline", "k_1".into(), 1.0);
        assert!(
            !effects.iter().any(|e| matches!(e, Effect::Send(_))),
            "not connected: queued"
        );
        assert_eq!(s.pending_sends().len(), 1);
        let effects = ready(&mut s, 7);
        let sends = effects
            .iter()
            .filter(|e| matches!(e, Effect::Send(ClientFrame::MessageSend(_))))
            .count();
        assert_eq!(sends, 1, "sent once on connect");
        // The gateway logged two answers while away, then the page.
        s.apply(ServerFrame::History(page("c1", 3..=7, true)), 0.0);
        assert_eq!(
            *texts(&s, "c1").last().unwrap(),
            "user:typed offline",
            "the queued send stays after the page"
        );
        // Its echo takes its place: one bubble, at its seq.
        s.apply(
            frame(json!({"type":"message","channel_id":"c1","seq":8,"message_id":"u8","role":"user","text":"typed offline","ts":8,"client_msg_id":"k_1"})),
            0.0,
        );
        assert!(s.pending_sends().is_empty());
        assert_eq!(seqs(&s, "c1"), (1..=8).collect::<Vec<_>>());
        let shown = texts(&s, "c1");
        assert_eq!(
            shown.iter().filter(|t| *t == "user:typed offline").count(),
            1
        );
        // A later reconnect has nothing to resend.
        s.connection_lost();
        let effects = ready(&mut s, 8);
        assert!(!effects
            .iter()
            .any(|e| matches!(e, Effect::Send(ClientFrame::MessageSend(_)))));
    }

    #[test]
    fn a_kept_thread_not_open_reconciles_when_opened() {
        let mut s = Store::new();
        s.restore_offline(vec![meta("c1", 5)], vec![page("c1", 1..=5, false)], 0.0);
        let effects = ready(&mut s, 60);
        assert_eq!(
            history_gets(&effects),
            0,
            "nothing asked for a thread not open"
        );
        assert_eq!(seqs(&s, "c1").len(), 5, "the copy stays meanwhile");
        assert_eq!(history_gets(&s.open(Some("c1".into()))), 1);
        s.apply(ServerFrame::History(page("c1", 11..=60, true)), 0.0);
        assert_eq!(seqs(&s, "c1"), (11..=60).collect::<Vec<_>>());
    }

    #[test]
    fn a_thread_gone_from_the_gateway_goes_with_its_copy() {
        let mut s = offline_store();
        s.apply(
            frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c2", 0)]})),
            0.0,
        );
        assert!(s.channel("c1").is_none());
    }

    #[test]
    fn a_placeholder_of_a_kept_send_takes_the_copy() {
        let mut s = Store::new();
        s.restore_pending_sends(vec![PendingSend {
            client_msg_id: "k_1".into(),
            channel_id: Some("c1".into()),
            text: "queued".into(),
            created_ms: 0.0,
            failed: None,
            channel_title: Some("old".into()),
            files: Vec::new(),
        }]);
        s.restore_offline(vec![meta("c1", 5)], vec![page("c1", 1..=5, false)], 0.0);
        assert_eq!(s.channel("c1").unwrap().meta.title, "c1");
        let shown = texts(&s, "c1");
        assert_eq!(shown.len(), 6);
        assert_eq!(shown.last().unwrap(), "user:queued");
    }
}
