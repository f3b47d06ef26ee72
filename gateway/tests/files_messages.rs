//! Files on messages (§13): `message.send` and `message.edit` name stored
//! files; the echo, the log and history carry their references in order.

use serde_json::{json, Value};

use crate::files::{other_device, png};
use crate::support::Gateway;

async fn stored(client: &mut crate::support::Client, id: &str, name: &str, bytes: &[u8]) -> Value {
    let reply = client.upload(id, name, "", bytes).await;
    assert_eq!(reply["type"], "file.stored", "{reply}");
    reply["file"].clone()
}

#[tokio::test]
async fn a_message_carries_its_files_in_order_to_every_device_and_into_history() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let mut watcher = other_device(&gw).await;
    let image = stored(&mut client, "u1", "chart.png", &png(4, 3, 10)).await;
    let text = stored(&mut client, "u2", "notes.txt", b"three notes\n").await;
    let channel = client.create_channel("Files").await;
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": "",
            "client_msg_id": "k1", "files": [text["file_id"], image["file_id"]]}),
        )
        .await;
    let echo = client
        .until(|f| f["type"] == "message" && f["client_msg_id"] == "k1")
        .await
        .pop()
        .expect("echo");
    assert_eq!(echo["text"], "", "text may be empty with files");
    assert_eq!(
        echo["files"],
        json!([text, image]),
        "full references, in the order given"
    );
    let seen = watcher
        .until(|f| f["type"] == "message" && f["client_msg_id"] == "k1")
        .await
        .pop()
        .expect("broadcast");
    assert_eq!(seen["files"], echo["files"]);
    // The other device may read a file it was sent.
    let id = image["file_id"].as_str().expect("id");
    assert_eq!(
        watcher.read_file(id, None).await.expect("read").0,
        png(4, 3, 10)
    );
    client.until_turn_ends().await;
    let page = client.history(json!({"channel_id": channel})).await;
    let item = &page["items"][0];
    assert_eq!(item["client_msg_id"], "k1");
    assert_eq!(item["files"], echo["files"]);
    // A resend is answered with the same echo, files and all.
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": "",
            "client_msg_id": "k1", "files": [text["file_id"], image["file_id"]]}),
        )
        .await;
    let again = client
        .until(|f| f["type"] == "message" && f["client_msg_id"] == "k1")
        .await
        .pop()
        .expect("echo again");
    assert_eq!(again["files"], echo["files"]);
}

#[tokio::test]
async fn unknown_or_too_many_files_send_nothing() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let file = stored(&mut client, "u1", "a.txt", b"a\n").await;
    let channel = client.create_channel("Files").await;
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": "see",
            "client_msg_id": "k1", "files": [file["file_id"], "f_missing"]}),
        )
        .await;
    let error = client.recv_type("error").await;
    assert_eq!(
        (error["code"].clone(), error["client_msg_id"].clone()),
        (json!("not_found"), json!("k1"))
    );
    let eleven: Vec<Value> = (0..11).map(|_| file["file_id"].clone()).collect();
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": "see",
            "client_msg_id": "k2", "files": eleven}),
        )
        .await;
    let error = client.recv_type("error").await;
    assert_eq!(
        (error["code"].clone(), error["client_msg_id"].clone()),
        (json!("bad_request"), json!("k2"))
    );
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": " ",
            "client_msg_id": "k3"}),
        )
        .await;
    assert_eq!(
        client.recv_type("error").await["code"],
        "bad_request",
        "empty without files"
    );
    let page = client.history(json!({"channel_id": channel})).await;
    assert_eq!(page["items"], json!([]), "nothing was sent");
}

#[tokio::test]
async fn an_edit_carries_the_files_it_names() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let first = stored(&mut client, "u1", "v1.txt", b"version one\n").await;
    let second = stored(&mut client, "u2", "v2.txt", b"version two\n").await;
    let channel = client.create_channel("Edits").await;
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": "read this",
            "client_msg_id": "k1", "files": [first["file_id"]]}),
        )
        .await;
    let echo = client
        .until(|f| f["type"] == "message" && f["client_msg_id"] == "k1")
        .await
        .pop()
        .expect("echo");
    client.until_turn_ends().await;
    client
        .send(json!({"type": "message.edit", "channel_id": channel,
            "message_id": echo["message_id"], "text": "read this instead",
            "client_msg_id": "k2", "files": [second["file_id"]]}))
        .await;
    let edited = client
        .until(|f| f["type"] == "message" && f["client_msg_id"] == "k2")
        .await
        .pop()
        .expect("edit echo");
    assert_eq!(edited["files"], json!([second]));
    client
        .send(json!({"type": "message.edit", "channel_id": channel,
            "message_id": edited["message_id"], "text": "x",
            "client_msg_id": "k3", "files": ["f_missing"]}))
        .await;
    let error = client.recv_type("error").await;
    assert_eq!(
        (error["code"].clone(), error["client_msg_id"].clone()),
        (json!("not_found"), json!("k3"))
    );
}

#[tokio::test]
async fn the_demo_agent_answers_with_files_stored_like_uploads() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Demo files").await;
    client.send_message(&channel, "/demo files", "k1").await;
    let frames = client.until_turn_ends().await;
    let stop = frames
        .iter()
        .find(|f| f["type"] == "message.stop")
        .expect("an answer");
    let files = stop["files"].as_array().expect("files on the answer");
    let kinds: Vec<(&str, &str)> = files
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap_or("?"),
                f["mime"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("chart.png", "image/png"),
            ("report.pdf", "application/pdf")
        ]
    );
    assert_eq!(
        (files[0]["width"].clone(), files[0]["height"].clone()),
        (json!(240), json!(120))
    );
    let page = client.history(json!({"channel_id": channel})).await;
    let answer = page["items"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["role"] == "assistant"))
        .expect("logged answer");
    assert_eq!(&answer["files"], &stop["files"]);
    for file in files {
        let id = file["file_id"].as_str().expect("id");
        let (bytes, _) = client.read_file(id, None).await.expect("readable");
        assert_eq!(bytes.len() as u64, file["size"].as_u64().expect("size"));
        assert_eq!(crate::support::files::sha256_hex(&bytes), file["sha256"]);
    }
    // Asked again, the same bytes are kept once.
    client.send_message(&channel, "/demo files", "k2").await;
    client.until_turn_ends().await;
    assert_eq!(crate::files::stored_files(gw.dir.path()).len(), 2);
}
