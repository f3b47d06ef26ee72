//! Files both ways (§13) through the real Hermes Agent 0.19.0 with the
//! plugin, linked as in `hermes.rs`: a user's image and text file reach
//! Hermes's model the way its own platforms hand them over, and the files
//! Hermes delivers with an answer come back as the answer's `files`.

use base64::Engine;
use serde_json::{json, Value};

use crate::files::png;
use crate::hermes::{answer, free_addr, gateway, hermes_or_skip, of_type, rest_of_turn};
use crate::support::fake_model::{FakeModel, CHAT_ANSWER, MEDIA_ANSWER};
use crate::support::files::sha256_hex;
use crate::support::Client;

async fn stored(client: &mut Client, id: &str, name: &str, bytes: &[u8]) -> Value {
    let reply = client.upload(id, name, "", bytes).await;
    assert_eq!(reply["type"], "file.stored", "{reply}");
    reply["file"].clone()
}

/// The user message holding `needle` in the first of the model's
/// streamed requests since `since` (the turn's; Hermes's title requests
/// are not streamed).
fn streamed_user_message(model: &FakeModel, since: usize, needle: &str) -> Value {
    let bodies = model.completions();
    let body = bodies
        .iter()
        .skip(since)
        .find(|b| b["stream"] == true)
        .unwrap_or_else(|| panic!("no streamed request since {since}: {bodies:#?}"));
    let user = body["messages"].as_array().and_then(|messages| {
        messages
            .iter()
            .rev()
            .find(|m| m["role"] == "user" && m["content"].to_string().contains(needle))
    });
    user.unwrap_or_else(|| panic!("no user message with {needle:?}: {body:#}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_go_to_hermes_and_come_back_on_its_answer() {
    let Some(mut hermes) = hermes_or_skip() else {
        return;
    };
    hermes.with_vision();
    let model = FakeModel::start();
    let data = tempfile::tempdir().expect("temp dir");
    let link = free_addr();
    let gw = gateway(data.path(), link).await;
    let secret_file = data.path().join("hermes-link.secret");
    tokio::task::block_in_place(|| {
        hermes
            .start_linked(&model.base_url(), "fake-chat", link, &secret_file)
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let channel = client.create_channel("Hermes files").await;

    // 1. An image and a text file with the message: the model gets the
    //    image as an image part and the text file's content in the text.
    let image = png(3, 2, 24);
    let picture = stored(&mut client, "u1", "chart.png", &image).await;
    let notes = stored(
        &mut client,
        "u2",
        "notes.txt",
        b"The code word is HELIOTROPE.\n",
    )
    .await;
    client
        .send(json!({"type": "message.send", "channel_id": channel,
            "text": "What do these say?", "client_msg_id": "f1",
            "files": [picture["file_id"], notes["file_id"]]}))
        .await;
    let frames = rest_of_turn(&mut client).await;
    assert!(
        of_type(&frames, "error").is_empty(),
        "{frames:#?}\n{}",
        hermes.log()
    );
    assert_eq!(answer(&frames), CHAT_ANSWER);
    let user = streamed_user_message(&model, 0, "What do these say?");
    let parts = user["content"]
        .as_array()
        .unwrap_or_else(|| panic!("content parts with the image: {user:#}\n{}", hermes.log()));
    let data_url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&image)
    );
    assert!(
        parts
            .iter()
            .any(|p| p["type"] == "image_url" && p["image_url"]["url"] == data_url),
        "{user:#}"
    );
    assert!(
        user.to_string()
            .contains("[Content of notes.txt]:\\nThe code word is HELIOTROPE."),
        "{user:#}"
    );

    // 2. The next message has no files: none are sent again.
    let before = model.completions().len();
    client.send_message(&channel, "And now?", "f2").await;
    rest_of_turn(&mut client).await;
    let user = streamed_user_message(&model, before, "And now?");
    assert!(user["content"].is_string(), "no files this turn: {user:#}");

    // 3. Hermes delivers an image and a document with its answer (MEDIA
    //    tags): they come back stored, on the answer and in history.
    let made = png(5, 4, 40);
    let chart = hermes.workdir().join("made.png");
    let report = hermes.workdir().join("report.txt");
    std::fs::write(&chart, &made).expect("write the chart");
    std::fs::write(&report, "Quarterly numbers.\n").expect("write the report");
    let text = format!("[fake-media] {} {}", chart.display(), report.display());
    client.send_message(&channel, &text, "f3").await;
    let frames = rest_of_turn(&mut client).await;
    assert!(
        of_type(&frames, "error").is_empty(),
        "{frames:#?}\n{}",
        hermes.log()
    );
    let stop = of_type(&frames, "message.stop")
        .pop()
        .unwrap_or_else(|| panic!("an answer: {frames:#?}"));
    assert_eq!(stop["final_text"], MEDIA_ANSWER, "MEDIA tags are not shown");
    let files = stop["files"].as_array().cloned().unwrap_or_default();
    let kinds: Vec<(Value, Value)> = files
        .iter()
        .map(|f| (f["name"].clone(), f["mime"].clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (json!("made.png"), json!("image/png")),
            (json!("report.txt"), json!("text/plain"))
        ],
        "{stop:#}\n{}",
        hermes.log()
    );
    assert_eq!(
        (files[0]["width"].clone(), files[0]["height"].clone()),
        (json!(5), json!(4))
    );
    assert_eq!(files[0]["sha256"], sha256_hex(&made));
    let id = files[1]["file_id"].as_str().expect("id");
    let (bytes, _) = client.read_file(id, None).await.expect("readable");
    assert_eq!(bytes, b"Quarterly numbers.\n");
    let page = client.history(json!({"channel_id": channel})).await;
    let logged = page["items"]
        .as_array()
        .and_then(|items| items.iter().rev().find(|i| i["role"] == "assistant"))
        .expect("the logged answer");
    assert_eq!(logged["files"], stop["files"]);
}
