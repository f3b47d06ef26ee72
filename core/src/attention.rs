//! Getting the user's attention while they look elsewhere: what the page
//! title says and when a system notification is due. Pure; the browser
//! glue (visibility, `Notification`) is `ui::attention`.

use crate::render::truncate_line;
use crate::store::Alert;

/// The marker the title gets when something happened while the tab was hidden.
pub const AWAY_MARKER: &str = "● ";
/// Longest notification body, in characters.
const BODY_CHARS: usize = 120;

/// A system notification to show; a click opens `channel`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemNotice {
    pub title: String,
    pub body: String,
    pub channel: String,
}

/// What to do about an alert.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reaction {
    /// Put the away marker in the title.
    pub mark: bool,
    pub notify: Option<SystemNotice>,
}

/// How to react to `alert`: nothing while the user looks at the tab; the
/// title marker while it is hidden, and a notification too if the user
/// turned them on and the browser allows them.
pub fn react(alert: &Alert, hidden: bool, notifications: bool, thread_title: &str) -> Reaction {
    if !hidden {
        return Reaction::default();
    }
    let thread = if thread_title.trim().is_empty() {
        "Untitled"
    } else {
        thread_title.trim()
    };
    let notice = match alert {
        Alert::Approval { channel, title } => SystemNotice {
            title: format!("Approval needed · {thread}"),
            body: one_line(title),
            channel: channel.clone(),
        },
        Alert::TurnEnded { channel } => SystemNotice {
            title: "The agent finished".to_string(),
            body: one_line(thread),
            channel: channel.clone(),
        },
    };
    Reaction {
        mark: true,
        notify: notifications.then_some(notice),
    }
}

/// The page title: `● ` while something happened unseen, `(n) needs you · `
/// while requests wait for an answer, then the app's own title.
pub fn page_title(base: &str, needs_you: u32, marked: bool) -> String {
    let marker = if marked { AWAY_MARKER } else { "" };
    if needs_you > 0 {
        format!("{marker}({needs_you}) needs you · {base}")
    } else {
        format!("{marker}{base}")
    }
}

fn one_line(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_line(&collapsed, BODY_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approval() -> Alert {
        Alert::Approval {
            channel: "c1".into(),
            title: "Run a\nshell command?".into(),
        }
    }

    #[test]
    fn nothing_happens_while_the_user_looks() {
        for notifications in [false, true] {
            assert_eq!(
                react(&approval(), false, notifications, "T"),
                Reaction::default()
            );
            let ended = Alert::TurnEnded {
                channel: "c1".into(),
            };
            assert_eq!(
                react(&ended, false, notifications, "T"),
                Reaction::default()
            );
        }
    }

    #[test]
    fn a_hidden_tab_gets_the_marker_and_a_notification_only_when_allowed() {
        let quiet = react(&approval(), true, false, "Deploy");
        assert_eq!(
            quiet,
            Reaction {
                mark: true,
                notify: None
            }
        );
        let loud = react(&approval(), true, true, "Deploy");
        assert!(loud.mark);
        assert_eq!(
            loud.notify,
            Some(SystemNotice {
                title: "Approval needed · Deploy".into(),
                body: "Run a shell command?".into(),
                channel: "c1".into(),
            })
        );
        let ended = react(
            &Alert::TurnEnded {
                channel: "c2".into(),
            },
            true,
            true,
            "  ",
        );
        assert_eq!(
            ended.notify,
            Some(SystemNotice {
                title: "The agent finished".into(),
                body: "Untitled".into(),
                channel: "c2".into(),
            })
        );
    }

    #[test]
    fn long_titles_are_cut_in_the_notification() {
        let alert = Alert::Approval {
            channel: "c".into(),
            title: "x".repeat(500),
        };
        let body = react(&alert, true, true, "T").notify.map(|n| n.body);
        assert!(body.is_some_and(|b| b.chars().count() <= BODY_CHARS));
    }

    #[test]
    fn the_title_counts_waiting_requests_and_shows_the_marker() {
        assert_eq!(page_title("aria", 0, false), "aria");
        assert_eq!(page_title("aria", 0, true), "● aria");
        assert_eq!(page_title("aria", 2, false), "(2) needs you · aria");
        assert_eq!(page_title("aria", 1, true), "● (1) needs you · aria");
    }
}
