//! Answers the frames of an authenticated device (everything after `hello`).

use std::sync::Arc;

use aria_protocol::{
    valid_title, ApprovalRespond, ChannelCreate, ChannelCreated, ChannelDeleted, ChannelList,
    ChannelRef, ChannelRename, ChannelRenamed, ClientFrame, ErrorCode, History, HistoryGet,
    InChannel, MessageSend, ServerFrame,
};

use crate::app::App;
use crate::approvals::Answer;
use crate::branch_requests;
use crate::history::PageQuery;
use crate::hub::{ConnId, Hub};
use crate::ids;
use crate::message_text::{checked_text, user_message};
use crate::request_error::RequestError;
use crate::store::{Store, StoreError};
use crate::title::{derive_title, DEFAULT_TITLE};
use crate::turns::Turns;

/// Handles one decoded frame of the device `device_id`; errors go back to
/// the device that sent it.
pub async fn handle(app: &Arc<App>, conn: ConnId, device_id: &str, frame: ClientFrame) {
    let hub = app.outbox.hub();
    let result = match frame {
        ClientFrame::Ping(ping) => {
            hub.reply(conn, &ServerFrame::Pong(ping));
            Ok(())
        }
        ClientFrame::ChannelList(_) => channel_list(app, conn).await,
        ClientFrame::ChannelCreate(req) => channel_create(app, req).await,
        ClientFrame::ChannelRename(req) => channel_rename(app, req).await,
        ClientFrame::ChannelDelete(req) => channel_delete(app, req).await,
        ClientFrame::HistoryGet(req) => history_get(app, conn, req).await,
        ClientFrame::MessageSend(req) => message_send(app, conn, req).await,
        ClientFrame::TurnCancel(req) => turn_cancel(app, req).await,
        ClientFrame::ApprovalRespond(req) => approval_respond(app, conn, device_id, req).await,
        ClientFrame::Search(req) => crate::search::search(app, conn, req).await,
        ClientFrame::MessageEdit(req) => branch_requests::edit(app, conn, device_id, req).await,
        ClientFrame::TurnRegenerate(req) => branch_requests::regenerate(app, device_id, req).await,
        ClientFrame::BranchSelect(req) => branch_requests::select(app, device_id, req).await,
        // A second hello changes nothing; unknown types are ignored (§1).
        ClientFrame::Hello(_) | ClientFrame::Unknown => Ok(()),
    };
    if let Err(e) = result {
        hub.reply(conn, &e.into_frame());
    }
}

async fn channel_list(app: &Arc<App>, conn: ConnId) -> Result<(), RequestError> {
    let channels = app
        .outbox
        .run(|store, _| store.list_channels())
        .await
        .map_err(|e| RequestError::from_store(e, None))?;
    app.outbox
        .hub()
        .reply(conn, &ServerFrame::ChannelList(ChannelList { channels }));
    Ok(())
}

fn checked_title(title: &str, channel_id: Option<&str>) -> Result<String, RequestError> {
    valid_title(title).map(str::to_string).ok_or_else(|| {
        RequestError::new(
            ErrorCode::BadRequest,
            "A title must be 1 to 120 characters.",
        )
        .in_channel(channel_id)
    })
}

async fn channel_create(app: &Arc<App>, req: ChannelCreate) -> Result<(), RequestError> {
    let title = match &req.title {
        Some(title) => checked_title(title, None)?,
        None => DEFAULT_TITLE.to_string(),
    };
    app.outbox
        .run(move |store, hub| {
            let channel = store.create_channel(&ids::channel_id(), &title, false)?;
            hub.publish(&ServerFrame::ChannelCreated(ChannelCreated {
                channel,
                auto: false,
                client_ref: req.client_ref,
                client_msg_id: None,
            }));
            Ok(())
        })
        .await
        .map_err(|e| RequestError::from_store(e, None))
}

async fn channel_rename(app: &Arc<App>, req: ChannelRename) -> Result<(), RequestError> {
    let title = checked_title(&req.title, Some(&req.channel_id))?;
    let channel_id = req.channel_id.clone();
    app.outbox
        .run(move |store, hub| {
            store.rename_channel(&channel_id, &title)?;
            hub.publish(&ServerFrame::ChannelRenamed(ChannelRenamed {
                channel_id,
                title,
                auto: false,
            }));
            Ok(())
        })
        .await
        .map_err(|e| RequestError::from_store(e, Some(&req.channel_id)))
}

async fn channel_delete(app: &Arc<App>, req: ChannelRef) -> Result<(), RequestError> {
    let channel_id = req.channel_id.clone();
    app.outbox
        .run(move |store, hub| {
            store.delete_channel(&channel_id)?;
            hub.publish(&ServerFrame::ChannelDeleted(ChannelDeleted { channel_id }));
            Ok(())
        })
        .await
        .map_err(|e| RequestError::from_store(e, Some(&req.channel_id)))?;
    app.turns.forget_channel(&req.channel_id);
    Ok(())
}

async fn history_get(app: &Arc<App>, conn: ConnId, req: HistoryGet) -> Result<(), RequestError> {
    let query = PageQuery::from_request(&req).map_err(|m| {
        RequestError::new(ErrorCode::BadRequest, m).in_channel(Some(&req.channel_id))
    })?;
    let channel_id = req.channel_id.clone();
    let (page, branch_rev) = app
        .outbox
        .run(move |store, _| store.page(&channel_id, &query))
        .await
        .map_err(|e| RequestError::from_store(e, Some(&req.channel_id)))?;
    let page = History {
        channel_id: req.channel_id,
        items: page.items,
        has_more: page.has_more,
        has_newer: page.has_newer,
        before: req.before,
        after: req.after,
        around: req.around,
        branch_rev: Some(branch_rev),
    };
    app.outbox.hub().reply(conn, &ServerFrame::History(page));
    Ok(())
}

async fn turn_cancel(app: &Arc<App>, req: ChannelRef) -> Result<(), RequestError> {
    let channel_id = req.channel_id.clone();
    app.outbox
        .run(move |store, _| store.channel(&channel_id))
        .await
        .map_err(|e| RequestError::from_store(e, Some(&req.channel_id)))?;
    // Nothing running is fine: the cancel raced the turn's end.
    app.turns.cancel(&req.channel_id);
    Ok(())
}

async fn approval_respond(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    req: ApprovalRespond,
) -> Result<(), RequestError> {
    let approvals = Arc::clone(&app.approvals);
    let device_id = device_id.to_string();
    let respond = req.clone();
    let answer = app
        .outbox
        .run(move |store, hub| approvals.answer(store, hub, &respond, &device_id))
        .await
        .map_err(|e| {
            RequestError::from_store(e, Some(&req.channel_id)).for_approval(&req.request_id)
        })?;
    let fail = |code: ErrorCode, message: String| {
        RequestError::new(code, message)
            .in_channel(Some(&req.channel_id))
            .for_approval(&req.request_id)
    };
    match answer {
        Answer::Resolved => Ok(()),
        Answer::Repeat(resolved) => {
            app.outbox.hub().reply(conn, &resolved);
            Ok(())
        }
        Answer::NotFound => Err(fail(
            ErrorCode::NotFound,
            format!(
                "There is no approval request {} in this channel.",
                req.request_id
            ),
        )),
        Answer::NotOffered => Err(fail(
            ErrorCode::BadRequest,
            "That choice was not offered for this request.".to_string(),
        )),
    }
}

/// Where an accepted message goes.
enum Target {
    Channel(String),
    /// `auto_thread:true` without `channel_id`: a fresh auto thread.
    NewThread,
    /// Neither: the default "General" channel.
    Default,
}

enum Accepted {
    /// First time this `client_msg_id` was seen: the message is logged and
    /// echoed, and its turn queued.
    New {
        channel_id: String,
        /// The derived title when the message minted an auto thread.
        auto_title: Option<String>,
    },
    /// A resend of a message accepted before: its echo, for the sender.
    Duplicate(ServerFrame),
}

async fn message_send(app: &Arc<App>, conn: ConnId, req: MessageSend) -> Result<(), RequestError> {
    let fail = |code: ErrorCode, message: &str| {
        RequestError::new(code, message)
            .in_channel(req.channel_id.as_deref())
            .for_message(Some(&req.client_msg_id))
    };
    if req.client_msg_id.is_empty() {
        return Err(fail(
            ErrorCode::BadRequest,
            "client_msg_id must not be empty.",
        ));
    }
    let text = checked_text(&req.text).map_err(|(code, message)| fail(code, message))?;
    let target = match (&req.channel_id, req.auto_thread) {
        (Some(id), _) => Target::Channel(id.clone()),
        (None, Some(true)) => Target::NewThread,
        (None, _) => Target::Default,
    };
    let logged_text = text.clone();
    let client_msg_id = req.client_msg_id.clone();
    let turns = Arc::clone(&app.turns);
    let accepted = app
        .outbox
        .run(move |store, hub| accept(store, hub, &turns, target, logged_text, client_msg_id))
        .await
        .map_err(|e| {
            RequestError::from_store(e, req.channel_id.as_deref())
                .for_message(Some(&req.client_msg_id))
        })?;
    match accepted {
        Accepted::Duplicate(echo) => app.outbox.hub().reply(conn, &echo),
        Accepted::New {
            channel_id,
            auto_title,
        } => {
            if let Some(derived) = auto_title {
                upgrade_title(Arc::clone(app), channel_id, derived, text);
            }
        }
    }
    Ok(())
}

/// Logs a user message and echoes it, under the outbox lock. A resend of an
/// accepted `client_msg_id` is found before anything is created, so it never
/// mints a second thread or runs a second turn.
fn accept(
    store: &mut Store,
    hub: &Hub,
    turns: &Arc<Turns>,
    target: Target,
    text: String,
    client_msg_id: String,
) -> Result<Accepted, StoreError> {
    if let Some((channel_id, item)) = store.find_client_msg(&client_msg_id)? {
        return Ok(Accepted::Duplicate(ServerFrame::Message(InChannel {
            channel_id,
            item,
        })));
    }
    let (channel, created, auto) = match target {
        Target::Channel(id) => (store.channel(&id)?, false, false),
        Target::Default => {
            let (channel, created) = store.default_channel()?;
            (channel, created, false)
        }
        Target::NewThread => {
            let channel = store.create_channel(&ids::channel_id(), &derive_title(&text), true)?;
            (channel, true, true)
        }
    };
    let channel_id = channel.channel_id.clone();
    let auto_title = auto.then(|| channel.title.clone());
    if created {
        // Before the echo, so the client can move its pending bubble there.
        hub.publish(&ServerFrame::ChannelCreated(ChannelCreated {
            channel,
            auto,
            client_ref: None,
            client_msg_id: auto.then(|| client_msg_id.clone()),
        }));
    }
    let item = user_message(text, client_msg_id);
    // Logged (committed) before the echo leaves: an echoed message is never lost.
    let sent = store.send_user(&channel_id, item)?;
    hub.publish(&ServerFrame::Message(InChannel {
        channel_id: channel_id.clone(),
        item: sent.echo,
    }));
    turns.enqueue(&channel_id, sent.turn);
    Ok(Accepted::New {
        channel_id,
        auto_title,
    })
}

/// Asks the agent for a better title of a new auto thread and renames it,
/// unless someone renamed the thread meanwhile.
fn upgrade_title(app: Arc<App>, channel_id: String, derived: String, text: String) {
    tokio::spawn(async move {
        let Some(title) = app.agent.title(&text).await else {
            return;
        };
        let Some(title) = valid_title(&title).map(str::to_string) else {
            tracing::warn!(channel = %channel_id, "agent suggested an invalid title");
            return;
        };
        let renamed = app
            .outbox
            .run(move |store, hub| {
                if store.rename_channel_if(&channel_id, &derived, &title)? {
                    hub.publish(&ServerFrame::ChannelRenamed(ChannelRenamed {
                        channel_id,
                        title,
                        auto: true,
                    }));
                }
                Ok(())
            })
            .await;
        if let Err(e) = renamed {
            tracing::error!("cannot store the auto title: {e}");
        }
    });
}
