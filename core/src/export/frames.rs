//! What each server frame means for the export, decided before the store
//! sees the frame: the export's own pages are taken out, a thread that is
//! gone or a refusal that may be the export's ends it, and a new `ready`
//! asks for the page that the lost connection never answered.

use super::Exporter;
use crate::protocol::{ErrorCode, ErrorFrame, HistoryGet, ServerFrame};

/// Where a frame goes, and what the export needs after it.
#[derive(Debug, PartialEq)]
pub enum Routed {
    /// A page the export asked for: for [`Exporter::on_page`], never for
    /// the store.
    Page(crate::protocol::History),
    /// For the store. Then, when `refresh`, the caller shows the export's
    /// progress anew (it ended, or resumed) and sends `request` if any.
    Store {
        frame: ServerFrame,
        refresh: bool,
        request: Option<HistoryGet>,
    },
}

impl<P> Exporter<P> {
    /// Routes one frame (see [`Routed`]).
    pub fn route(&mut self, frame: ServerFrame, now_ms: f64) -> Routed {
        let frame = match frame {
            ServerFrame::History(h) if self.claims(&h) => return Routed::Page(h),
            other => other,
        };
        let (refresh, request) = match &frame {
            ServerFrame::Error(e) => match self.refused_thread(e) {
                Some(id) => (self.abort(&id), None),
                None => (false, None),
            },
            ServerFrame::ChannelDeleted(d) => (self.abort(&d.channel_id), None),
            ServerFrame::Ready(_) => (true, self.resume(now_ms)),
            _ => (false, None),
        };
        Routed::Store {
            frame,
            refresh,
            request,
        }
    }

    /// The thread an error may stop the export of. Errors that answer a
    /// send, an approval or a search are not the export's; one that names
    /// a thread is about that thread; `rate_limited` does not say which
    /// frame it refused, so it may be the export's page request.
    fn refused_thread(&self, e: &ErrorFrame) -> Option<String> {
        if e.client_msg_id.is_some() || e.request_id.is_some() || e.query.is_some() {
            return None;
        }
        e.channel_id.clone().or_else(|| {
            (e.code == ErrorCode::RateLimited)
                .then(|| self.job.as_ref().map(|j| j.channel_id.clone()))
                .flatten()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Exporter, Format};
    use super::Routed;
    use crate::protocol::{HistoryGet, ServerFrame};

    fn frame(json: &str) -> ServerFrame {
        ServerFrame::decode(json).expect("a valid frame")
    }

    /// An exporter of thread `c1` with its first page request in flight.
    fn exporting() -> (Exporter<String>, HistoryGet) {
        let mut ex = Exporter::default();
        let first = ex
            .start("c1", "Notes", Format::Markdown, 500, 0, 0, true, 0.0)
            .expect("a first request");
        (ex, first)
    }

    fn history(channel: &str, before: u64) -> ServerFrame {
        frame(&format!(
            r#"{{"type":"history","channel_id":"{channel}","items":[],"has_more":true,"before":{before}}}"#
        ))
    }

    fn is_running(ex: &Exporter<String>) -> bool {
        ex.progress().is_some()
    }

    #[test]
    fn the_exports_own_page_is_taken_and_other_pages_go_to_the_store() {
        let (mut ex, first) = exporting();
        let before = first.before.expect("asks for a page before");
        assert!(matches!(
            ex.route(history("c1", before), 1.0),
            Routed::Page(h) if h.channel_id == "c1"
        ));
        // Another thread's page, or another `before`, is the timeline's.
        for other in [history("c2", before), history("c1", 7)] {
            assert!(matches!(
                ex.route(other, 1.0),
                Routed::Store {
                    refresh: false,
                    request: None,
                    ..
                }
            ));
        }
        assert!(is_running(&ex));
    }

    #[test]
    fn an_error_naming_the_thread_ends_the_export_and_refreshes() {
        let (mut ex, _) = exporting();
        let routed = ex.route(
            frame(r#"{"type":"error","code":"not_found","message":"gone","channel_id":"c1"}"#),
            1.0,
        );
        assert!(matches!(
            routed,
            Routed::Store {
                refresh: true,
                request: None,
                frame: ServerFrame::Error(_)
            }
        ));
        assert!(!is_running(&ex));
    }

    #[test]
    fn errors_answering_a_send_an_approval_or_a_search_leave_the_export_alone() {
        for json in [
            r#"{"type":"error","code":"bad_request","message":"x","channel_id":"c1","client_msg_id":"k1"}"#,
            r#"{"type":"error","code":"not_found","message":"x","channel_id":"c1","request_id":"a1"}"#,
            r#"{"type":"error","code":"bad_request","message":"x","channel_id":"c1","query":"q"}"#,
            r#"{"type":"error","code":"not_found","message":"x","channel_id":"c2"}"#,
        ] {
            let (mut ex, _) = exporting();
            assert!(
                matches!(
                    ex.route(frame(json), 1.0),
                    Routed::Store { refresh: false, .. }
                ),
                "{json}"
            );
            assert!(is_running(&ex), "{json}");
        }
    }

    #[test]
    fn rate_limited_without_a_thread_may_be_the_exports_and_ends_it() {
        let (mut ex, _) = exporting();
        let limited = r#"{"type":"error","code":"rate_limited","message":"slow down"}"#;
        assert!(matches!(
            ex.route(frame(limited), 1.0),
            Routed::Store { refresh: true, .. }
        ));
        assert!(!is_running(&ex));
        // With no export running it is only the store's.
        assert!(matches!(
            ex.route(frame(limited), 2.0),
            Routed::Store { refresh: false, .. }
        ));
        // Rate limiting that answers a send is the send's.
        let (mut ex, _) = exporting();
        let send = r#"{"type":"error","code":"rate_limited","message":"x","client_msg_id":"k1"}"#;
        assert!(matches!(
            ex.route(frame(send), 1.0),
            Routed::Store { refresh: false, .. }
        ));
        assert!(is_running(&ex));
    }

    #[test]
    fn a_deleted_thread_ends_its_export_only() {
        let (mut ex, _) = exporting();
        let other = frame(r#"{"type":"channel.deleted","channel_id":"c2"}"#);
        assert!(matches!(
            ex.route(other, 1.0),
            Routed::Store { refresh: false, .. }
        ));
        assert!(is_running(&ex));
        let own = frame(r#"{"type":"channel.deleted","channel_id":"c1"}"#);
        assert!(matches!(
            ex.route(own, 1.0),
            Routed::Store { refresh: true, .. }
        ));
        assert!(!is_running(&ex));
    }

    #[test]
    fn ready_after_a_lost_connection_asks_again_for_the_unanswered_page() {
        let ready = || frame(r#"{"type":"ready","protocol":1,"channels":[]}"#);
        let (mut ex, first) = exporting();
        // The request in flight is not answered twice: nothing to resume.
        assert!(matches!(
            ex.route(ready(), 1.0),
            Routed::Store {
                refresh: true,
                request: None,
                ..
            }
        ));
        ex.connection_lost();
        let Routed::Store { request, .. } = ex.route(ready(), 2.0) else {
            panic!("ready is the store's");
        };
        assert_eq!(request.and_then(|r| r.before), first.before);
        // Without an export, ready only refreshes (to nothing).
        let mut idle = Exporter::<String>::default();
        assert!(matches!(
            idle.route(ready(), 1.0),
            Routed::Store {
                refresh: true,
                request: None,
                ..
            }
        ));
    }
}
