//! Files over the Hermes link (docs/hermes-link.md, "Files") against the
//! scripted plugin of `hermes_link.rs`: a message's files go to the plugin
//! in pieces ahead of its turn; the files the plugin sends back are stored
//! and put on the answer, and bad pieces refuse only their file.

use serde_json::{json, Value};

use crate::files::png;
use crate::hermes_link::{free_addr, gateway, of_type, secret, Plugin};
use crate::support::files::{b64, sha256_hex, unb64};

/// Piece size of the link (the gateway's and the plugin's).
const PIECE: usize = 512 * 1024;

fn event(chat: &str, turn: &str, mut event: Value) -> Value {
    event["chat_id"] = json!(chat);
    event["turn_id"] = json!(turn);
    event
}

#[tokio::test]
async fn a_messages_files_go_to_the_plugin_ahead_of_its_turn() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut client = gw.client().await;
    // Over one piece, so it comes in two.
    let big: Vec<u8> = b"0123456789abcdef\n".repeat(PIECE / 16);
    let image = png(6, 4, 30);
    let text = client.upload("u1", "big.txt", "", &big).await;
    let picture = client.upload("u2", "chart.png", "", &image).await;
    let channel = client.create_channel("Files").await;
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": "see",
            "client_msg_id": "k1",
            "files": [text["file"]["file_id"], picture["file"]["file_id"]]}),
        )
        .await;
    let mut bytes: std::collections::HashMap<String, Vec<u8>> = Default::default();
    let turn = loop {
        let line = plugin.recv().await;
        if line["type"] == "turn" {
            break line;
        }
        assert_eq!(line["type"], "file", "{line}");
        assert_eq!(line["chat_id"], channel.as_str());
        let got = bytes
            .entry(line["file_id"].as_str().expect("id").to_string())
            .or_default();
        assert_eq!(line["offset"], got.len(), "in order");
        got.extend(unb64(line["data"].as_str().expect("data")));
    };
    assert_eq!(turn["text"], "see");
    let files = turn["files"].as_array().expect("the turn's files");
    let named: Vec<(Value, Value, Value)> = files
        .iter()
        .map(|f| (f["name"].clone(), f["mime"].clone(), f["size"].clone()))
        .collect();
    assert_eq!(
        named,
        [
            (json!("big.txt"), json!("text/plain"), json!(big.len())),
            (json!("chart.png"), json!("image/png"), json!(image.len()))
        ]
    );
    assert_eq!(bytes[files[0]["file_id"].as_str().expect("id")], big);
    assert_eq!(bytes[files[1]["file_id"].as_str().expect("id")], image);
    let turn_id = turn["turn_id"].as_str().expect("turn");
    plugin
        .send(event(
            &channel,
            turn_id,
            json!({"type": "send", "message_id": "h1", "text": "Seen."}),
        ))
        .await;
    plugin
        .send(event(
            &channel,
            turn_id,
            json!({"type": "done", "outcome": "success"}),
        ))
        .await;
    client.until_turn_ends().await;

    // The next message, without files, sends none.
    client.send_message(&channel, "and now?", "k2").await;
    let line = plugin.recv().await;
    assert_eq!(line["type"], "turn", "no file again: {line}");
    assert_eq!(line["files"], json!([]));
}

#[tokio::test]
async fn files_from_hermes_are_stored_on_the_answer_and_bad_ones_named() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Hermes sends").await;
    client.send_message(&channel, "make a chart", "k1").await;
    let (chat, turn, _) = plugin.turn().await;
    let made = png(7, 5, PIECE);
    let piece = |file: &str, name: &str, offset: usize, data: &str, last: bool| {
        json!({"type": "file", "file_id": file, "name": name, "offset": offset,
               "data": data, "last": last})
    };
    let script = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
    for message in [
        json!({"type": "send", "message_id": "h1", "text": "Here", "streaming": true}),
        json!({"type": "edit", "message_id": "h1", "text": "Here it is.", "final": true}),
        // A good image in two pieces.
        piece("f1", "chart.png", 0, &b64(&made[..PIECE]), false),
        piece("f1", "chart.png", PIECE, &b64(&made[PIECE..]), true),
        // Pieces out of order, not base64, a file the plugin could not read.
        piece("f2", "skip.txt", 5, &b64(b"later"), true),
        piece("f3", "junk.txt", 0, "%%% not base64", true),
        json!({"type": "file", "file_id": "f4", "name": "/etc/shadow",
               "error": "Hermes does not deliver that path"}),
        // Script bytes named as an image: stored as text, never as SVG.
        piece("f5", "../../evil.png", 0, &b64(script), true),
        // A file never finished when the next one starts.
        piece("f6", "half.txt", 0, &b64(b"half"), false),
        piece("f7", "report.txt", 0, &b64(b"Numbers.\n"), true),
        json!({"type": "done", "outcome": "success", "model": "m", "tokens": 42}),
    ] {
        plugin.send(event(&chat, &turn, message)).await;
    }
    let frames = client.until_turn_ends().await;
    assert!(of_type(&frames, "error").is_empty(), "{frames:#?}");
    let stop = of_type(&frames, "message.stop")
        .pop()
        .expect("the answer")
        .clone();
    let files = stop["files"].as_array().expect("files");
    let kinds: Vec<(Value, Value)> = files
        .iter()
        .map(|f| (f["name"].clone(), f["mime"].clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (json!("chart.png"), json!("image/png")),
            (json!("evil.png"), json!("text/plain")),
            (json!("report.txt"), json!("text/plain"))
        ],
        "{stop:#}"
    );
    assert_eq!(files[0]["sha256"], sha256_hex(&made));
    assert_eq!(stop["tokens"], 42);
    let text = stop["final_text"].as_str().expect("text");
    assert!(text.starts_with("Here it is.\n\n"), "{text}");
    for name in ["skip.txt", "junk.txt", "shadow", "half.txt"] {
        assert!(
            text.contains(&format!("(The file \"{name}\" could not be attached")),
            "{name}: {text}"
        );
    }
    let page = client.history(json!({"channel_id": channel})).await;
    let logged = page["items"]
        .as_array()
        .and_then(|items| items.iter().rev().find(|i| i["role"] == "assistant"))
        .expect("the logged answer");
    assert_eq!(logged["files"], stop["files"]);
    let id = files[2]["file_id"].as_str().expect("id");
    assert_eq!(
        client.read_file(id, None).await.expect("readable").0,
        b"Numbers.\n"
    );
}
