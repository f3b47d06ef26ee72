use super::*;
use crate::approvals::tests::approval_item;
use aria_protocol::{HistoryGet, Role, PREVIEW_CHARS};

fn user_message(text: &str, client_msg_id: &str) -> MessageItem {
    MessageItem {
        seq: 0,
        message_id: crate::ids::message_id(),
        role: Role::User,
        text: text.into(),
        reasoning: None,
        model: None,
        tokens: None,
        ts: now_ms(),
        turn_id: None,
        client_msg_id: Some(client_msg_id.into()),
        branch: None,
        files: Box::default(),
    }
}

fn query(before: Option<u64>, after: Option<u64>, limit: u32) -> PageQuery {
    PageQuery::from_request(&HistoryGet {
        channel_id: String::new(),
        before,
        after,
        around: None,
        limit: Some(limit),
    })
    .expect("valid query")
}

fn page_seqs(page: &Page<HistoryItem>) -> (Vec<u64>, bool) {
    let seqs = page.items.iter().filter_map(HistoryItem::seq).collect();
    (seqs, page.has_more)
}

/// The preview follows the one rule the client uses too (§11).
#[test]
fn a_preview_is_the_first_line_as_plain_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("open");
    store.create_channel("c1", "One", false).expect("create");
    let text = format!("## **Plan** `now`\n\nbody {}", "word ".repeat(50));
    store
        .append("c1", user_message(&text, "k"))
        .expect("append");
    let channel = store.channel("c1").expect("channel");
    assert_eq!(channel.preview.as_deref(), Some("Plan now"));
    let long = "word ".repeat(50);
    store
        .append("c1", user_message(&long, "k2"))
        .expect("append");
    let preview = store
        .channel("c1")
        .expect("channel")
        .preview
        .unwrap_or_default();
    assert_eq!(preview, thread_preview(&long));
    assert!(preview.ends_with("word…") && preview.chars().count() <= PREVIEW_CHARS);
}

#[test]
fn append_assigns_consecutive_seqs_and_pages() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("open");
    store.create_channel("c1", "One", false).expect("create");
    for i in 0..5 {
        let item = store
            .append("c1", user_message(&format!("m{i}"), &format!("k{i}")))
            .expect("append");
        assert_eq!(item.seq, i + 1);
    }
    let channel = store.channel("c1").expect("channel");
    assert_eq!(channel.last_seq, 5);
    assert_eq!(channel.preview.as_deref(), Some("m4"));

    let (page, _) = store.page("c1", &query(None, None, 2)).expect("page");
    assert_eq!(page_seqs(&page), (vec![4, 5], true));
    let (page, _) = store.page("c1", &query(None, Some(3), 10)).expect("page");
    assert_eq!(page_seqs(&page), (vec![4, 5], false));
    let (page, _) = store
        .page("c1", &query(Some(u64::MAX), None, 200))
        .expect("page");
    assert_eq!(page.items.len(), 5);
    let around = PageQuery::from_request(&HistoryGet {
        channel_id: String::new(),
        before: None,
        after: None,
        around: Some(3),
        limit: Some(3),
    })
    .expect("valid query");
    let (page, _) = store.page("c1", &around).expect("page");
    assert_eq!(page_seqs(&page), (vec![2, 3, 4], true));
    assert_eq!(page.has_newer, Some(true));
}

#[test]
fn client_msg_id_is_found_and_unique() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("open");
    store.create_channel("c1", "One", false).expect("create");
    store
        .append("c1", user_message("hi", "k1"))
        .expect("append");
    let (channel, item) = store.find_client_msg("k1").expect("query").expect("found");
    assert_eq!((channel.as_str(), item.seq), ("c1", 1));
    assert!(store.append("c1", user_message("again", "k1")).is_err());
    assert!(store.find_client_msg("nope").expect("query").is_none());
}

#[test]
fn unknown_channel_is_not_found() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("open");
    assert!(matches!(
        store.append("x", user_message("a", "k")),
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        store.rename_channel("x", "t"),
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        store.delete_channel("x"),
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        store.page("x", &query(None, None, 1)),
        Err(StoreError::NotFound)
    ));
}

#[test]
fn conditional_rename_only_replaces_the_expected_title() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path()).expect("open");
    store.create_channel("c1", "derived", true).expect("create");
    assert!(store
        .rename_channel_if("c1", "derived", "better")
        .expect("rename"));
    assert!(!store
        .rename_channel_if("c1", "derived", "other")
        .expect("rename"));
    assert_eq!(store.channel("c1").expect("channel").title, "better");
}

#[test]
fn data_survives_reopen_and_default_channel_is_created_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let mut store = Store::open(dir.path()).expect("open");
        let (general, created) = store.default_channel().expect("default");
        assert!(created);
        store
            .append(&general.channel_id, user_message("a", "k1"))
            .expect("append");
    }
    let mut store = Store::open(dir.path()).expect("reopen");
    let (general, created) = store.default_channel().expect("default");
    assert!(!created);
    assert_eq!(general.title, DEFAULT_CHANNEL_TITLE);
    let item = store
        .append(&general.channel_id, user_message("b", "k2"))
        .expect("append");
    assert_eq!(item.seq, 2);
}

#[test]
fn approvals_are_logged_found_by_request_and_leave_the_preview() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let mut store = Store::open(dir.path()).expect("open");
        store.create_channel("c1", "One", false).expect("create");
        store
            .append("c1", user_message("hi", "k1"))
            .expect("append");
        let item = approval_item("a1", aria_protocol::Choice::Deny);
        let logged = store.append("c1", item).expect("append");
        assert_eq!(logged.seq, 2);
        let channel = store.channel("c1").expect("channel");
        assert_eq!(
            (channel.last_seq, channel.preview.as_deref()),
            (2, Some("hi"))
        );
    }
    let mut store = Store::open(dir.path()).expect("reopen");
    let (channel, found) = store.find_approval("a1").expect("query").expect("found");
    assert_eq!((channel.as_str(), found.seq), ("c1", 2));
    assert_eq!(found.command.as_deref(), Some("rm -rf ./build"));
    assert!(store.find_approval("a2").expect("query").is_none());
    let items = store
        .page("c1", &query(None, None, 10))
        .expect("page")
        .0
        .items;
    assert!(matches!(&items[1], HistoryItem::Approval(a) if a.request_id == "a1"));
    store.delete_channel("c1").expect("delete");
    assert!(store.find_approval("a1").expect("query").is_none());
}

#[test]
fn delete_removes_the_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("open");
    store.create_channel("c1", "One", false).expect("create");
    store.append("c1", user_message("a", "k1")).expect("append");
    store.delete_channel("c1").expect("delete");
    assert!(store.find_client_msg("k1").expect("query").is_none());
    assert!(store.list_channels().expect("list").is_empty());
}
