//! `message.edit`, `turn.regenerate` and `branch.select` (§12). Each runs
//! under the outbox lock, where the check that no turn runs or waits, the
//! path change, `branch.switched`, the echo and the new turn's queueing
//! cannot interleave with another request or a turn's frames.

use std::sync::Arc;

use aria_protocol::{
    BranchCause, BranchSelect, BranchSwitched, ErrorCode, InChannel, MessageEdit, ServerFrame,
    TurnRegenerate,
};

use crate::app::App;
use crate::hub::{ConnId, Hub};
use crate::message_text::{checked_text, user_message};
use crate::request_error::RequestError;
use crate::store::tree::Switch;
use crate::store::{Edited, Refusal, Regenerated, Selected};

pub async fn edit(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    req: MessageEdit,
) -> Result<(), RequestError> {
    let fail = |code: ErrorCode, message: &str| {
        RequestError::new(code, message)
            .in_channel(Some(&req.channel_id))
            .for_message(Some(&req.client_msg_id))
    };
    if req.client_msg_id.is_empty() {
        return Err(fail(
            ErrorCode::BadRequest,
            "client_msg_id must not be empty.",
        ));
    }
    let text = checked_text(&req.text).map_err(|(code, message)| fail(code, message))?;
    let item = user_message(text, req.client_msg_id.clone());
    let turns = Arc::clone(&app.turns);
    let (channel_id, message_id) = (req.channel_id.clone(), req.message_id.clone());
    let device = device_id.to_string();
    let outcome = app
        .outbox
        .run(move |store, hub| {
            let busy = turns.busy(&channel_id);
            Ok(match store.edit(&channel_id, &message_id, item, busy)? {
                Edited::Duplicate(channel_id, item) => {
                    Some(Err(ServerFrame::Message(InChannel { channel_id, item })))
                }
                Edited::Refused(refusal) => Some(Ok(refusal)),
                Edited::Done(sent) => {
                    if let Some(switch) = sent.switch {
                        announce(hub, &channel_id, switch, BranchCause::Edit, device);
                    }
                    hub.publish(&ServerFrame::Message(InChannel {
                        channel_id: channel_id.clone(),
                        item: sent.echo,
                    }));
                    turns.enqueue(&channel_id, sent.turn);
                    None
                }
            })
        })
        .await
        .map_err(|e| {
            RequestError::from_store(e, Some(&req.channel_id)).for_message(Some(&req.client_msg_id))
        })?;
    match outcome {
        None => Ok(()),
        Some(Err(echo)) => {
            app.outbox.hub().reply(conn, &echo);
            Ok(())
        }
        Some(Ok(refusal)) => Err(refused(refusal, "message", &req.message_id)
            .in_channel(Some(&req.channel_id))
            .for_message(Some(&req.client_msg_id))),
    }
}

pub async fn regenerate(
    app: &Arc<App>,
    device_id: &str,
    req: TurnRegenerate,
) -> Result<(), RequestError> {
    if req.client_msg_id.is_empty() {
        return Err(
            RequestError::new(ErrorCode::BadRequest, "client_msg_id must not be empty.")
                .in_channel(Some(&req.channel_id)),
        );
    }
    let turns = Arc::clone(&app.turns);
    let (channel_id, turn_id, key) = (
        req.channel_id.clone(),
        req.turn_id.clone(),
        req.client_msg_id.clone(),
    );
    let device = device_id.to_string();
    let refusal = app
        .outbox
        .run(move |store, hub| {
            let busy = turns.busy(&channel_id);
            Ok(match store.regenerate(&channel_id, &turn_id, &key, busy)? {
                Regenerated::Duplicate => None,
                Regenerated::Refused(refusal) => Some(refusal),
                Regenerated::Done(switch, turn) => {
                    announce(hub, &channel_id, switch, BranchCause::Regenerate, device);
                    turns.enqueue(&channel_id, turn);
                    None
                }
            })
        })
        .await
        .map_err(|e| {
            RequestError::from_store(e, Some(&req.channel_id)).for_message(Some(&req.client_msg_id))
        })?;
    match refusal {
        None => Ok(()),
        Some(refusal) => Err(refused(refusal, "turn", &req.turn_id)
            .in_channel(Some(&req.channel_id))
            .for_message(Some(&req.client_msg_id))),
    }
}

pub async fn select(
    app: &Arc<App>,
    device_id: &str,
    req: BranchSelect,
) -> Result<(), RequestError> {
    let turns = Arc::clone(&app.turns);
    let channel_id = req.channel_id.clone();
    let device = device_id.to_string();
    let refusal = app
        .outbox
        .run(move |store, hub| {
            let busy = turns.busy(&channel_id);
            Ok(match store.select(&channel_id, req.seq, busy)? {
                Selected::Refused(refusal) => Some(refusal),
                Selected::Unchanged => None,
                Selected::Done(switch) => {
                    announce(hub, &channel_id, switch, BranchCause::Select, device);
                    None
                }
            })
        })
        .await
        .map_err(|e| RequestError::from_store(e, Some(&req.channel_id)))?;
    match refusal {
        None => Ok(()),
        Some(refusal) => {
            Err(refused(refusal, "item", &req.seq.to_string()).in_channel(Some(&req.channel_id)))
        }
    }
}

/// Broadcasts a path change, before anything of the turn it starts.
fn announce(hub: &Hub, channel_id: &str, switch: Switch, cause: BranchCause, device_id: String) {
    hub.publish(&ServerFrame::BranchSwitched(BranchSwitched {
        channel_id: channel_id.to_string(),
        fork_seq: switch.fork_seq,
        branch_rev: switch.branch_rev,
        cause,
        device_id: Some(device_id),
    }));
}

/// The error of a refusal; `what` and `id` name the node asked for.
fn refused(refusal: Refusal, what: &str, id: &str) -> RequestError {
    match refusal {
        Refusal::NotFound => RequestError::new(
            ErrorCode::NotFound,
            format!("There is no {what} {id} in this channel."),
        ),
        Refusal::Busy => RequestError::new(
            ErrorCode::BadRequest,
            "A turn is running in this thread: stop it first.",
        ),
        Refusal::OffPath => RequestError::new(
            ErrorCode::BadRequest,
            format!("That {what} is on another branch: switch to it first."),
        ),
        Refusal::NotUserMessage => RequestError::new(
            ErrorCode::BadRequest,
            "Only a user message can be edited, and only an answer to one regenerated.",
        ),
    }
}
