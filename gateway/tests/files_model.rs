//! The answered message's files reach an OpenAI-compatible model (§13):
//! images as image parts, text files as text, PDFs as a note; earlier
//! messages' files only by name; a model without vision gets the images
//! named and the turn says so. The scripted model records every request.

use base64::Engine;
use serde_json::{json, Value};

use crate::files::png;
use crate::support::fake_model::{FakeModel, CHAT_ANSWER};
use crate::support::{Client, Gateway};
use aria_gateway::AgentKind;

async fn gateway(model: &FakeModel, script: &str) -> Gateway {
    let (base_url, script) = (model.base_url(), script.to_string());
    Gateway::start_with(1, move |config| {
        config.agent = AgentKind::OpenAi;
        config.openai.base_url = base_url;
        config.openai.model = Some(script);
    })
    .await
}

async fn file_id(client: &mut Client, id: &str, name: &str, bytes: &[u8]) -> Value {
    let stored = client.upload(id, name, "", bytes).await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    stored["file"]["file_id"].clone()
}

/// Sends `text` with `files` and returns the turn's frames.
async fn send(
    client: &mut Client,
    channel: &str,
    key: &str,
    text: &str,
    files: &[&Value],
) -> Vec<Value> {
    client
        .send(
            json!({"type": "message.send", "channel_id": channel, "text": text,
            "client_msg_id": key, "files": files}),
        )
        .await;
    client.until_turn_ends().await
}

#[tokio::test]
async fn the_answered_messages_files_go_in_full_and_earlier_ones_by_name() {
    let model = FakeModel::start();
    let gw = gateway(&model, "fake-chat").await;
    let mut client = gw.client().await;
    let image = png(2, 2, 16);
    let png_id = file_id(&mut client, "u1", "chart.png", &image).await;
    let txt_id = file_id(&mut client, "u2", "notes.txt", b"Buy milk.\nCall Ann.").await;
    let pdf_id = file_id(&mut client, "u3", "paper.pdf", b"%PDF-1.7\n%%EOF\n").await;
    let channel = client.create_channel("Files").await;
    let frames = send(
        &mut client,
        &channel,
        "k1",
        "What is in these?",
        &[&txt_id, &png_id, &pdf_id],
    )
    .await;
    assert!(frames
        .iter()
        .any(|f| f["type"] == "message.stop" && f["final_text"] == CHAT_ANSWER));

    let bodies = model.completions();
    let first = &bodies[0]["messages"];
    let data_url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&image)
    );
    assert_eq!(
        first,
        &json!([{"role": "user", "content": [
            {"type": "text", "text": "What is in these?\n\n\
                File notes.txt:\n```\nBuy milk.\nCall Ann.\n```\n\n\
                [PDF paper.pdf (15 bytes): the gateway cannot read text out of PDFs]"},
            {"type": "image_url", "image_url": {"url": data_url}},
        ]}])
    );

    send(&mut client, &channel, "k2", "And now?", &[]).await;
    let bodies = model.completions();
    assert_eq!(
        bodies[1]["messages"],
        json!([
            {"role": "user", "content":
                "What is in these?\n\n[Attached: notes.txt, chart.png, paper.pdf]"},
            {"role": "assistant", "content": CHAT_ANSWER},
            {"role": "user", "content": "And now?"},
        ]),
        "no bytes of an earlier turn's files are sent again"
    );
}

#[tokio::test]
async fn a_model_without_vision_gets_the_images_named_and_the_turn_says_so() {
    let model = FakeModel::start();
    let gw = gateway(&model, "fake-blind").await;
    let mut client = gw.client().await;
    let png_id = file_id(&mut client, "u1", "photo.png", &png(3, 3, 8)).await;
    let channel = client.create_channel("Blind").await;
    let frames = send(&mut client, &channel, "k1", "", &[&png_id]).await;
    let note = frames
        .iter()
        .find(|f| f["type"] == "commentary")
        .expect("a note in the turn");
    assert!(
        note["text"]
            .as_str()
            .is_some_and(|t| t.contains("does not take images")),
        "{note}"
    );
    let stop = frames
        .iter()
        .find(|f| f["type"] == "message.stop")
        .expect("an answer all the same");
    assert_eq!(stop["final_text"], CHAT_ANSWER);
    let bodies = model.completions();
    assert_eq!(bodies.len(), 2, "asked once with the image, once without");
    assert!(bodies[0]["messages"][0]["content"].is_array());
    assert_eq!(
        bodies[1]["messages"],
        json!([{"role": "user", "content":
            "[Image photo.png: not sent, the model does not take images]"}])
    );
}
