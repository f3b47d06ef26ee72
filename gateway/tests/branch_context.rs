//! The context an OpenAI-compatible model is sent after the thread
//! branched (§12): exactly the active path up to the message answered,
//! never an item of another branch. The scripted model records each
//! request it received.

use crate::support::fake_model::{FakeModel, CHAT_ANSWER};
use crate::support::{Client, Gateway};
use aria_gateway::AgentKind;
use serde_json::{json, Value};

async fn stop_of_turn(client: &mut Client) -> Value {
    client
        .until_turn_ends()
        .await
        .into_iter()
        .rfind(|f| f["type"] == "message.stop")
        .expect("an answer")
}

#[tokio::test]
async fn edits_and_regenerations_send_the_active_path_only() {
    let model = FakeModel::start();
    let base_url = model.base_url();
    let gw = Gateway::start_with(1, move |config| {
        config.agent = AgentKind::OpenAi;
        config.openai.base_url = base_url;
        config.openai.model = Some("fake-chat".into());
    })
    .await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Branches").await;
    client.send_message(&channel, "first", "k1").await;
    let first = stop_of_turn(&mut client).await;
    let second = client.send_message(&channel, "second", "k2").await;
    stop_of_turn(&mut client).await;

    client
        .send(json!({"type": "message.edit", "channel_id": channel,
                     "message_id": second["message_id"], "text": "second, better",
                     "client_msg_id": "k3"}))
        .await;
    stop_of_turn(&mut client).await;
    client
        .send(json!({"type": "turn.regenerate", "channel_id": channel,
                     "turn_id": first["turn_id"], "client_msg_id": "k4"}))
        .await;
    stop_of_turn(&mut client).await;
    client.send_message(&channel, "third", "k5").await;
    stop_of_turn(&mut client).await;

    let sent: Vec<Value> = model
        .completions()
        .iter()
        .map(|body| body["messages"].clone())
        .collect();
    assert_eq!(sent.len(), 5, "{sent:?}");
    assert_eq!(
        sent[2],
        json!([
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": CHAT_ANSWER},
            {"role": "user", "content": "second, better"},
        ]),
        "the edited message replaces the old one; its old answer is not sent"
    );
    assert_eq!(
        sent[3],
        json!([{"role": "user", "content": "first"}]),
        "a regeneration sees the path up to the message it answers"
    );
    assert_eq!(
        sent[4],
        json!([
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": CHAT_ANSWER},
            {"role": "user", "content": "third"},
        ]),
        "a message sent after the regeneration continues its branch"
    );
}
