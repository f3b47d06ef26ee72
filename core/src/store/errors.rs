//! `error` frames: which request each one answers, and what it undoes.

use super::{Change, Effect, Store};
use crate::protocol::{ErrorCode, ErrorFrame};

impl Store {
    pub(super) fn on_error(&mut self, e: ErrorFrame) -> Vec<Effect> {
        // About a search: the field says so.
        if self.search.on_error(&e) {
            self.changes.push(Change::Search);
            return Vec::new();
        }
        if e.query.is_some() {
            // About a search no longer awaited.
            return Vec::new();
        }
        // About an approval, not the thread: the thread stays.
        if let Some(request_id) = e.request_id.clone() {
            self.on_approval_error(&request_id, e);
            return Vec::new();
        }
        if let Some(cmid) = &e.client_msg_id {
            if let Some(i) = self.pending_index(cmid) {
                let why = if e.message.is_empty() {
                    format!("The gateway refused this message ({:?}).", e.code)
                } else {
                    e.message.clone()
                };
                self.pending_sends[i].failed = Some(why);
                let entry = self.pending_sends[i].clone();
                self.show_pending(&entry);
                return vec![Effect::PersistPendingSends];
            }
        }
        if let Some(id) = &e.channel_id {
            if e.code == ErrorCode::NotFound {
                if let Some(effects) = self.around_refused(id) {
                    return effects;
                }
            }
            if self.branch_refused(id, &e.code, e.client_msg_id.is_some()) {
                let text = if e.message.is_empty() {
                    format!("The gateway refused to change this branch ({:?}).", e.code)
                } else {
                    e.message
                };
                if let Some(cmid) = &e.client_msg_id {
                    self.edit_refused(cmid, &text);
                }
                self.notify(text);
                return Vec::new();
            }
            if let Some(c) = self.channels.get_mut(id) {
                // A failed page request would otherwise spin forever.
                c.requests.clear();
            }
            if e.code == ErrorCode::NotFound {
                self.notify("That thread no longer exists.".into());
                return self.remove_channel(id);
            }
        }
        if !e.code.is_fatal() {
            let text = if e.message.is_empty() {
                format!("The gateway reported an error ({:?}).", e.code)
            } else {
                e.message
            };
            self.notify(text);
        }
        Vec::new()
    }
}
