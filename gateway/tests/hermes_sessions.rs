//! Hermes's session per thread against the real Hermes Agent 0.19.0 with
//! the plugin, linked as in `hermes.rs`: branches (§12) rewind it, and a
//! `delegate_task` sub-agent's calls come nested under the delegation
//! (§14).

use crate::hermes::{
    answer, frames_until, free_addr, gateway, hermes_or_skip, of_type, rest_of_turn, turn,
};
use crate::support::fake_model::{FakeModel, DELEGATE_ANSWER, TOOL_ANSWER};
use crate::support::Client;
use serde_json::json;

/// What Hermes sent its model in the requests made since `before`, as one
/// text (each turn's first request holds the whole transcript).
fn sent_since(model: &FakeModel, before: usize) -> String {
    let requests = model.completions();
    let first = requests
        .get(before)
        .unwrap_or_else(|| panic!("no request to the model since {before}"));
    first["messages"].to_string()
}

/// §12 with Hermes: an edit, a switch back and a regeneration each put
/// Hermes's session where the thread's active path is, so the model is
/// never sent a discarded branch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn branches_rewind_hermess_session() {
    let Some(mut hermes) = hermes_or_skip() else {
        return;
    };
    std::fs::write(hermes.workdir().join("note.txt"), "a note\n").expect("write the note");
    let note = hermes.workdir().join("note.txt");
    let model = FakeModel::start_with_note(note.to_str().expect("utf-8 temp path"));
    let data = tempfile::tempdir().expect("temp dir");
    let link = free_addr();
    let gw = gateway(data.path(), link).await;
    let secret_file = data.path().join("hermes-link.secret");
    tokio::task::block_in_place(|| {
        hermes
            .start_linked(&model.base_url(), "fake-tool", link, &secret_file)
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let channel = client.create_channel("Branches").await;

    let first = turn(&mut client, &channel, "Remember ALPHA.", "b1").await;
    let first_turn = of_type(&first, "message.stop")[0]["turn_id"].clone();
    let second = client.send_message(&channel, "Remember BRAVO.", "b2").await;
    rest_of_turn(&mut client).await;

    // An edit of the second message: the model sees the edit, not BRAVO.
    let before = model.completions().len();
    client
        .send(json!({"type": "message.edit", "channel_id": channel,
                     "message_id": second["message_id"], "text": "Remember CHARLIE.",
                     "client_msg_id": "b3"}))
        .await;
    let frames = rest_of_turn(&mut client).await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    let sent = sent_since(&model, before);
    assert!(sent.contains("ALPHA") && sent.contains("CHARLIE"), "{sent}");
    assert!(!sent.contains("BRAVO"), "a discarded branch: {sent}");

    // Back to BRAVO's branch, and on from there.
    client
        .send(json!({"type": "branch.select", "channel_id": channel, "seq": second["seq"]}))
        .await;
    frames_until(&mut client, |f| f["type"] == "branch.switched").await;
    let before = model.completions().len();
    let frames = turn(&mut client, &channel, "Remember DELTA.", "b4").await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    let sent = sent_since(&model, before);
    assert!(
        sent.contains("ALPHA") && sent.contains("BRAVO") && sent.contains("DELTA"),
        "{sent}"
    );
    assert!(!sent.contains("CHARLIE"), "a discarded branch: {sent}");

    // A regeneration of the first answer: only the first message is left.
    let before = model.completions().len();
    client
        .send(json!({"type": "turn.regenerate", "channel_id": channel,
                     "turn_id": first_turn, "client_msg_id": "b5"}))
        .await;
    let frames = rest_of_turn(&mut client).await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    let sent = sent_since(&model, before);
    assert!(sent.contains("ALPHA"), "{sent}");
    for gone in ["BRAVO", "CHARLIE", "DELTA"] {
        assert!(!sent.contains(gone), "{gone} of a discarded branch: {sent}");
    }
}

/// Turns answered before the plugin kept its turn log (the log is removed
/// here): an edit still puts Hermes's session on the thread's path, from
/// the path's user messages the gateway sends, keeping the kept turns'
/// tool calls; a thread that goes on is left as Hermes has it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_older_than_the_turn_log_are_rewound_too() {
    let Some(mut hermes) = hermes_or_skip() else {
        return;
    };
    let note = hermes.workdir().join("note.txt");
    std::fs::write(&note, "a note\n").expect("write the note");
    let model = FakeModel::start_with_note(note.to_str().expect("utf-8 temp path"));
    let data = tempfile::tempdir().expect("temp dir");
    let link = free_addr();
    let gw = gateway(data.path(), link).await;
    let secret_file = data.path().join("hermes-link.secret");
    tokio::task::block_in_place(|| {
        hermes
            .start_linked(&model.base_url(), "fake-tool", link, &secret_file)
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let forget_turns = || {
        let turns = hermes.home().join("aria/turns");
        let removed = std::fs::remove_dir_all(&turns);
        assert!(
            removed.is_ok(),
            "no turn log in {}: {removed:?}",
            turns.display()
        );
    };
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let channel = client.create_channel("Old turns").await;
    turn(&mut client, &channel, "Remember ALPHA.", "o1").await;
    let second = client.send_message(&channel, "Remember BRAVO.", "o2").await;
    rest_of_turn(&mut client).await;
    client.send_message(&channel, "Remember ECHO.", "o3").await;
    rest_of_turn(&mut client).await;
    forget_turns();

    // An edit of the second message: Hermes's session keeps the first
    // turn (with its read_file call and result) and drops BRAVO and ECHO.
    let before = model.completions().len();
    client
        .send(json!({"type": "message.edit", "channel_id": channel,
                     "message_id": second["message_id"], "text": "Remember CHARLIE.",
                     "client_msg_id": "o4"}))
        .await;
    let frames = rest_of_turn(&mut client).await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    let sent = sent_since(&model, before);
    assert!(sent.contains("ALPHA") && sent.contains("CHARLIE"), "{sent}");
    for gone in ["BRAVO", "ECHO"] {
        assert!(!sent.contains(gone), "{gone} of a discarded branch: {sent}");
    }
    assert!(
        sent.contains(r#""role":"tool""#),
        "the first turn's call and result are kept: {sent}"
    );

    // The thread goes on with no turn log again: the session is Hermes's.
    forget_turns();
    let before = model.completions().len();
    turn(&mut client, &channel, "Remember DELTA.", "o5").await;
    let sent = sent_since(&model, before);
    assert!(
        sent.contains("ALPHA") && sent.contains("CHARLIE") && sent.contains("DELTA"),
        "{sent}"
    );
    assert!(!sent.contains("BRAVO") && !sent.contains("ECHO"), "{sent}");
}

/// A delegation through Hermes's `delegate_task`: the sub-agent's call
/// comes nested under the delegation's card, live and in history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delegations_calls_nest_under_it() {
    let Some(mut hermes) = hermes_or_skip() else {
        return;
    };
    let note = hermes.workdir().join("note.txt");
    std::fs::write(&note, "a note\n").expect("write the note");
    let model = FakeModel::start_with_note(note.to_str().expect("utf-8 temp path"));
    let data = tempfile::tempdir().expect("temp dir");
    let link = free_addr();
    let gw = gateway(data.path(), link).await;
    let secret_file = data.path().join("hermes-link.secret");
    tokio::task::block_in_place(|| {
        hermes
            .start_linked(&model.base_url(), "fake-tool", link, &secret_file)
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let channel = client.create_channel("Delegation").await;
    // Hermes appends a first-contact note to a thread's first message,
    // which would hide a script tag: a plain first turn.
    let frames = turn(&mut client, &channel, "Hello.", "d0").await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    let frames = turn(&mut client, &channel, "[fake-delegate]", "d1").await;
    assert_eq!(
        answer(&frames),
        DELEGATE_ANSWER,
        "{frames:#?}\n{}",
        hermes.log()
    );
    let starts = of_type(&frames, "tool.start");
    let delegation = starts
        .iter()
        .find(|s| s["name"] == "delegate_task")
        .unwrap_or_else(|| panic!("no delegation: {frames:#?}"));
    let read = starts
        .iter()
        .find(|s| s["name"] == "read_file")
        .unwrap_or_else(|| panic!("no sub-agent call: {frames:#?}\n{}", hermes.log()));
    assert_eq!(read["parent_index"], delegation["index"], "{frames:#?}");
    assert!(delegation.get("parent_index").is_none(), "{delegation}");
    let ends = of_type(&frames, "tool.end");
    let read_end = ends
        .iter()
        .find(|e| e["index"] == read["index"])
        .expect("the sub-agent's call ends");
    assert_eq!(read_end["parent_index"], delegation["index"]);
    assert!(read_end["output"]
        .as_str()
        .is_some_and(|o| o.contains("a note")));
    let page = client
        .history(json!({"type": "history.get", "channel_id": channel}))
        .await;
    let logged = page["items"]
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .find(|i| i["name"] == "read_file" && i["turn_id"] == delegation["turn_id"])
                .cloned()
        })
        .unwrap_or_else(|| panic!("{page}"));
    assert_eq!(logged["parent_index"], delegation["index"], "{page}");
}

/// A new auto thread is renamed with the title Hermes gives its session
/// after the first answer (here the fake model's title answer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auto_threads_title_comes_from_hermes() {
    let Some(mut hermes) = hermes_or_skip() else {
        return;
    };
    let note = hermes.workdir().join("note.txt");
    std::fs::write(&note, "a note\n").expect("write the note");
    let model = FakeModel::start_with_note(note.to_str().expect("utf-8 temp path"));
    let data = tempfile::tempdir().expect("temp dir");
    let link = free_addr();
    let gw = gateway(data.path(), link).await;
    let secret_file = data.path().join("hermes-link.secret");
    tokio::task::block_in_place(|| {
        hermes
            .start_linked(&model.base_url(), "fake-tool", link, &secret_file)
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let mut client = Client::connect(&gw.ws_url(), None).await;
    client
        .send(
            json!({"type": "message.send", "text": "Read the note, please.",
                     "client_msg_id": "t1", "auto_thread": true}),
        )
        .await;
    let frames = frames_until(&mut client, |f| f["type"] == "channel.renamed").await;
    let renamed = frames.last().expect("the rename");
    assert_eq!(renamed["auto"], true, "{renamed}");
    assert!(
        renamed["title"]
            .as_str()
            .is_some_and(|t| t.contains("Scripted title")),
        "{renamed}\n{}",
        hermes.log()
    );
}
