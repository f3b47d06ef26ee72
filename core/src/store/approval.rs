//! Approvals (§9): a request waits in its turn until some device answers
//! or the gateway resolves it, then moves to its logged `seq` as one row.
//! The store answers only when the user acts ([`Store::respond`]), once.

use super::channel::ChannelState;
use super::row::{shown_choices, Approval, ApprovalState, Row, RowBody};
use super::row_key::RowKey;
use super::{Alert, Change, Effect, Store};
use crate::protocol::{
    ApprovalItem, ApprovalRequest, ApprovalRespond, Choice, ClientFrame, ErrorCode, ErrorFrame,
};

impl Store {
    /// The user's answer to a pending request: one `approval.respond`, and
    /// the request shows as answering until the gateway resolves it. A
    /// second click, a choice that was not offered, or no connection sends
    /// nothing.
    pub fn respond(&mut self, channel: &str, request_id: &str, choice: Choice) -> Vec<Effect> {
        if !self.online {
            return Vec::new();
        }
        let key = RowKey::approval(request_id);
        let Some(approval) = self
            .channels
            .get_mut(channel)
            .and_then(|c| approval_mut(c, &key))
        else {
            return Vec::new();
        };
        if approval.state != (ApprovalState::Pending { answering: false })
            || !approval.choices.contains(&choice)
        {
            return Vec::new();
        }
        approval.state = ApprovalState::Pending { answering: true };
        self.changes.push(Change::Row(channel.to_string(), key));
        vec![Effect::Send(ClientFrame::ApprovalRespond(
            ApprovalRespond {
                channel_id: channel.to_string(),
                request_id: request_id.to_string(),
                choice,
            },
        ))]
    }

    /// A request, new or re-sent after a reconnect (the same id changes
    /// nothing shown). A resolved request stays resolved.
    pub(super) fn on_approval_request(&mut self, r: ApprovalRequest, now_ms: f64) -> Vec<Effect> {
        let Some(turn) = self.ensure_turn(&r.channel_id, r.turn_id.as_deref(), now_ms) else {
            return Vec::new();
        };
        let key = RowKey::approval(&r.request_id);
        let Some(c) = self.channels.get_mut(&r.channel_id) else {
            return Vec::new();
        };
        match approval_mut(c, &key) {
            Some(a) if a.state == ApprovalState::Unanswered => {
                a.state = ApprovalState::Pending { answering: false };
                self.changes
                    .push(Change::Row(r.channel_id.clone(), key.clone()));
            }
            Some(_) => return Vec::new(),
            None => {
                c.timeline.upsert(Row {
                    key: key.clone(),
                    seq: None,
                    turn: Some(turn),
                    ts: r.ts,
                    body: RowBody::Approval(Approval {
                        request_id: r.request_id,
                        title: r.title.clone(),
                        command: r.command.clone(),
                        description: r.description,
                        choices: shown_choices(&r.choices),
                        state: ApprovalState::Pending { answering: false },
                    }),
                });
                self.changes.push(Change::Order(r.channel_id.clone()));
            }
        }
        c.waiting.push(key);
        self.changes.push(Change::Turn(r.channel_id.clone()));
        self.changes.push(Change::Channels);
        let title = if r.title.trim().is_empty() {
            r.command.unwrap_or_default()
        } else {
            r.title
        };
        self.alerts.push(Alert::Approval {
            channel: r.channel_id,
            title,
        });
        Vec::new()
    }

    /// `approval.resolved`: the request (if shown) becomes its logged row.
    pub(super) fn on_approval_resolved(
        &mut self,
        channel: &str,
        item: ApprovalItem,
    ) -> Vec<Effect> {
        let elsewhere = answered_elsewhere(&self.device_id, &item);
        let Some(c) = self.channels.get_mut(channel) else {
            return Vec::new();
        };
        let row = resolved_row(c, item, elsewhere, &mut self.changes);
        self.put_logged(channel, row, false)
    }

    /// An error about a request: this device's answer was not taken, so
    /// the user may answer again (or sees that nothing waits any more).
    pub(super) fn on_approval_error(&mut self, request_id: &str, e: ErrorFrame) {
        let key = RowKey::approval(request_id);
        let channel = match &e.channel_id {
            Some(id) => Some(id.clone()),
            None => self
                .channels
                .values()
                .find(|c| c.timeline.get(&key).is_some())
                .map(|c| c.meta.channel_id.clone()),
        };
        if let Some(id) = channel {
            if let Some(a) = self
                .channels
                .get_mut(&id)
                .and_then(|c| approval_mut(c, &key))
            {
                if a.state == (ApprovalState::Pending { answering: true }) {
                    a.state = ApprovalState::Pending { answering: false };
                    self.changes.push(Change::Row(id, key));
                }
            }
        }
        let text = match e.code {
            ErrorCode::NotFound => "The gateway no longer knows that approval request.".to_string(),
            ErrorCode::BadRequest => "The gateway did not accept that answer.".to_string(),
            _ if !e.message.is_empty() => e.message,
            code => format!("The gateway reported an error ({code:?})."),
        };
        self.notify(text);
    }

    /// The socket closed: answers in flight may be lost, so each request
    /// can be answered again once the gateway re-sends it.
    pub(super) fn forget_answers(&mut self) {
        for c in self.channels.values_mut() {
            let id = c.meta.channel_id.clone();
            for key in c.waiting.clone() {
                if let Some(a) = approval_mut(c, &key) {
                    if a.state == (ApprovalState::Pending { answering: true }) {
                        a.state = ApprovalState::Pending { answering: false };
                        self.changes.push(Change::Row(id.clone(), key));
                    }
                }
            }
        }
    }
}

/// The turn ended: requests it left waiting can no longer be answered
/// (the gateway re-sends any that still wait, which makes them pending again).
pub(super) fn end_waiting(c: &mut ChannelState, changes: &mut Vec<Change>) {
    let id = c.meta.channel_id.clone();
    for key in std::mem::take(&mut c.waiting) {
        if let Some(a) = approval_mut(c, &key) {
            if a.is_pending() {
                a.state = ApprovalState::Unanswered;
                changes.push(Change::Row(id.clone(), key));
            }
        }
    }
}

/// The row of a resolved approval (live or from history), to take the
/// place of its request: the request no longer waits.
pub(super) fn resolved_row(
    c: &mut ChannelState,
    item: ApprovalItem,
    elsewhere: bool,
    changes: &mut Vec<Change>,
) -> Row {
    let key = RowKey::approval(&item.request_id);
    let id = c.meta.channel_id.clone();
    let row = Row::from_approval(item, elsewhere, c.timeline.get(&key));
    if c.waiting.contains(&key) {
        c.waiting.retain(|k| *k != key);
        changes.push(Change::Turn(id.clone()));
        changes.push(Change::Channels);
    }
    // Settled in place too: if another row shows its seq (a broken log),
    // the logged row cannot take the request's place.
    if let (Some(a), RowBody::Approval(settled)) = (approval_mut(c, &key), &row.body) {
        if a.is_pending() {
            a.state = settled.state.clone();
            changes.push(Change::Row(id, key));
        }
    }
    row
}

/// Whether another device answered (a gateway's own resolution has no device).
pub(super) fn answered_elsewhere(this_device: &str, item: &ApprovalItem) -> bool {
    item.device_id
        .as_deref()
        .is_some_and(|d| !d.is_empty() && d != this_device)
}

fn approval_mut<'a>(c: &'a mut ChannelState, key: &RowKey) -> Option<&'a mut Approval> {
    match c.timeline.get_mut(key) {
        Some(Row {
            body: RowBody::Approval(a),
            ..
        }) => Some(a),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
