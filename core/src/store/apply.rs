//! `Store::apply`: hands each server frame to the method of its kind
//! (`on_<frame>`), which returns its effects. Each area owns its frames in
//! its own file: the thread list (`channel_list.rs`), turns and streaming
//! (`streaming.rs`), tools (`tools.rs`), history (`history.rs`), errors
//! (`errors.rs`), approvals (`approval.rs`), search (`search.rs`) and
//! branches (`branch.rs`). Tolerant of frames out of order, repeated or
//! about unknown ids: the worst a bad frame can do is be ignored.

use super::{Effect, Store};
use crate::protocol::ServerFrame;

impl Store {
    /// Applies one decoded frame. `now_ms` is the client clock.
    pub fn apply(&mut self, frame: ServerFrame, now_ms: f64) -> Vec<Effect> {
        let mut effects = self.apply_frame(frame, now_ms);
        effects.extend(self.alerts.drain(..).map(Effect::Alert));
        effects
    }

    fn apply_frame(&mut self, frame: ServerFrame, now_ms: f64) -> Vec<Effect> {
        use ServerFrame as F;
        self.diagnostics.frames += 1;
        self.diagnostics_moved = true;
        self.note_live_branch(&frame);
        match frame {
            F::Ready(r) => self.on_ready(r),
            F::ChannelList(l) => self.on_channel_list(l),
            F::History(h) => self.on_history(h),
            F::Error(e) => self.apart(|s| s.on_error(e)),
            F::ChannelCreated(c) => self.apart(|s| s.on_channel_created(c)),
            F::ChannelRenamed(r) => self.apart(|s| s.on_channel_renamed(r)),
            F::ChannelDeleted(d) => self.apart(|s| s.remove_channel(&d.channel_id)),
            F::Typing(t) => self.apart(|s| s.on_typing(t, now_ms)),
            F::MessageStart(m) => self.apart(|s| s.on_message_start(m, now_ms)),
            F::MessageUpdate(u) => self.apart(|s| s.on_message_update(u, now_ms)),
            F::MessageStop(m) => self.apart(|s| s.on_message_stop(m)),
            F::Message(m) => self.apart(|s| s.on_message(m)),
            F::Commentary(c) => self.apart(|s| s.on_commentary(c, now_ms)),
            F::ToolStart(t) => self.apart(|s| s.on_tool_start(t, now_ms)),
            F::ToolProgress(p) => self.apart(|s| s.on_tool_progress(p, now_ms)),
            F::ToolEnd(e) => self.apart(|s| s.on_tool_end(e, now_ms)),
            F::ApprovalRequest(r) => self.apart(|s| s.on_approval_request(r, now_ms)),
            F::ApprovalResolved(r) => self.apart(|s| s.on_approval_resolved(&r.channel_id, r.item)),
            F::SearchResults(r) => self.apart(|s| s.on_search_results(r)),
            F::BranchSwitched(b) => self.apart(|s| s.on_branch_switched(b)),
            F::Plan(p) => self.apart(|s| s.on_plan(p, now_ms)),
            // File frames are taken by `files::Files::route` before the
            // store (§13); any that reach it change nothing here.
            F::Pong(_) | F::FileAccept(_) | F::FileStored(_) | F::FileData(_) | F::Unknown => {
                Vec::new()
            }
        }
    }

    /// Runs the handler of a frame that starting the app and showing a
    /// thread's history do not bring (turns, tools, everything else) as a
    /// function of its own rather than inlined into `apply_frame`, so that
    /// the first-load split (docs/build.md) can leave it out of the first
    /// load.
    #[inline(never)]
    fn apart(&mut self, handler: impl FnOnce(&mut Store) -> Vec<Effect>) -> Vec<Effect> {
        handler(self)
    }
}
