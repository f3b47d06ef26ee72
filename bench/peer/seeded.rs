//! The long thread both clients open: the gateway's seeded channel
//! (`--seed-channel N`, turns of a question, commentary, two tool calls and
//! a markdown answer), read back over the WebSocket so that Open WebUI's
//! copy holds the same texts, one message per item.

use std::time::Duration;

use serde_json::{json, Value};

use crate::scenarios::search::{reply, send};
use crate::scenarios::thread::SEEDED_CHANNEL;
use crate::support::Gateway;

/// The gateway allows 20 frames/s per connection.
const PACE: Duration = Duration::from_millis(55);

/// Every item of the seeded channel as (role, text): messages keep their
/// role, commentary and tool calls become assistant messages saying what
/// aria-web's row shows.
pub async fn messages(gateway: &Gateway) -> Result<Vec<(String, String)>, String> {
    let (mut ws, _) = tokio_tungstenite::connect_async(gateway.ws_url())
        .await
        .map_err(|e| format!("connect to the gateway: {e}"))?;
    send(
        &mut ws,
        json!({"type": "hello", "device_id": "bench-peer", "client": "aria-bench/0", "protocol": 1}),
    )
    .await;
    if reply(&mut ws, "ready").await["type"] != "ready" {
        return Err("the gateway did not say ready".into());
    }
    let mut out = Vec::new();
    let mut after = 0;
    loop {
        send(
            &mut ws,
            json!({"type": "history.get", "channel_id": SEEDED_CHANNEL, "after": after, "limit": 200}),
        )
        .await;
        let page = reply(&mut ws, "history").await;
        let items = page["items"]
            .as_array()
            .ok_or_else(|| format!("history.get answered {page}"))?;
        for item in items {
            after = item["seq"].as_u64().unwrap_or(after);
            out.push(as_message(item));
        }
        if page["has_more"] != json!(true) || items.is_empty() {
            return Ok(out);
        }
        tokio::time::sleep(PACE).await;
    }
}

fn as_message(item: &Value) -> (String, String) {
    let text = |k: &str| item[k].as_str().unwrap_or_default().to_string();
    match item["type"].as_str() {
        Some("message") => (text("role"), text("text")),
        Some("tool") => (
            "assistant".into(),
            format!(
                "{} {} `{}` → {}",
                text("emoji"),
                text("name"),
                text("preview"),
                text("output_preview")
            ),
        ),
        _ => ("assistant".into(), text("text")),
    }
}
