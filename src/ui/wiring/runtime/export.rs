//! A thread's export, page by page through the socket: started and
//! cancelled by the user, each `history` page it asked for taken before
//! the store sees it, the file saved at the end.

use leptos::prelude::*;

use super::Runtime;
use crate::export::{Format, Step};
use crate::protocol::ClientFrame;
use crate::ui::browser;

impl Runtime {
    /// Starts exporting a thread (one export at a time).
    pub fn export_thread(&self, channel: &str, format: Format) {
        let Some((title, total, online)) = self
            .read(|s| {
                let c = s.channel(channel)?;
                Some((c.meta.title.clone(), c.meta.last_seq, s.is_online()))
            })
            .flatten()
        else {
            return;
        };
        let now = browser::now_ms();
        let tz = browser::utc_offset_minutes();
        let first = self
            .core
            .try_update_value(|c| {
                c.exporter
                    .start(channel, &title, format, total, now as i64, tz, online, now)
            })
            .flatten();
        self.send_export(first);
    }

    pub fn cancel_export(&self) {
        self.core.update_value(|c| c.exporter.cancel());
        self.export.set(None);
    }

    /// Sends an export's page request, and shows where it stands.
    pub(super) fn send_export(&self, request: Option<crate::protocol::HistoryGet>) {
        if let Some(req) = request {
            let sent = self
                .socket()
                .is_some_and(|socket| socket.send(&ClientFrame::HistoryGet(req)));
            if !sent {
                // Not connected after all: asked again after `ready`.
                self.core.update_value(|c| c.exporter.connection_lost());
            }
        }
        let progress = self
            .core
            .try_with_value(|c| c.exporter.progress())
            .flatten();
        if self.export.get_untracked() != progress {
            self.export.set(progress);
        }
    }

    /// An export's page, taken before the store sees it (the store pairs
    /// its own replies with its requests in order). Not inlined into the
    /// socket's handler, so that the first-load split (docs/build.md) can
    /// leave the export out of the first load.
    #[inline(never)]
    pub(super) fn on_export_page(&self, h: crate::protocol::History) {
        let now = browser::now_ms();
        let step = self
            .core
            .try_update_value(|c| c.exporter.on_page(h, now, &mut browser::FileParts))
            .flatten();
        match step {
            Some(Step::Next(wait_ms)) => {
                self.send_export(None);
                let rt = *self;
                set_timeout(
                    move || {
                        let now = browser::now_ms();
                        let req = rt
                            .core
                            .try_update_value(|c| c.exporter.resume(now))
                            .flatten();
                        rt.send_export(req);
                    },
                    std::time::Duration::from_millis(wait_ms.ceil() as u64),
                );
            }
            Some(Step::Done(file)) => {
                browser::download(file);
                self.send_export(None);
            }
            None => {}
        }
    }
}
