//! Keyboard shortcuts: which key press does what, and the table the help
//! dialog shows. Pure; `src/ui/hooks/shortcuts.rs` listens and carries them out.
//!
//! Chosen not to take browser keys: Alt+N, Alt+R, Alt+↑/↓ and Ctrl+/
//! have no default in Chromium or Firefox; ↑ in an empty message box
//! (edit the last message) is what chat apps do, and moves nothing there; Ctrl/Cmd+K (the address bar's search)
//! is the usual "search in this app" and is taken over only here.
//! Single keys (`?`, `/`) never fire while typing in a field.

/// Something a shortcut does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Help,
    Search,
    NewThread,
    FocusComposer,
    StopTurn,
    PreviousThread,
    NextThread,
    /// Edit the open thread's last own message.
    EditLast,
    /// Regenerate the open thread's last answer.
    Regenerate,
}

/// One key press, as the browser reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Press<'a> {
    /// `KeyboardEvent.key`: what the layout typed (`?`, `/`, `Escape`).
    pub key: &'a str,
    /// `KeyboardEvent.code`: the physical key (`KeyN`), for Alt+letter,
    /// which types another character on a Mac.
    pub code: &'a str,
    pub ctrl: bool,
    pub meta: bool,
    pub alt: bool,
    pub shift: bool,
    /// An IME is composing: the key belongs to it.
    pub composing: bool,
}

/// The `keyCode` of a key press an input method takes. Safari reports the
/// Enter that confirms a composition with it and `isComposing` false.
pub const IME_KEY_CODE: u32 = 229;

/// Whether a key press belongs to an input method (IME) and not to the
/// page: the Enter that picks a Chinese, Japanese or Korean candidate must
/// never send.
pub fn ime_owns(is_composing: bool, key_code: u32) -> bool {
    is_composing || key_code == IME_KEY_CODE
}

/// Where the press happened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    /// The focus is in a text field (input, textarea, contenteditable).
    pub typing: bool,
    /// The focus is in the composer.
    pub in_composer: bool,
    /// The composer holds no text.
    pub composer_empty: bool,
    /// The open thread's agent is working.
    pub busy: bool,
    /// A dialog or menu is open: it has the keyboard.
    pub modal: bool,
}

/// The action for a press, if any.
pub fn action(p: &Press, cx: Context) -> Option<Action> {
    if p.composing || cx.modal {
        return None;
    }
    let plain = !p.ctrl && !p.meta && !p.alt;
    let command = (p.ctrl || p.meta) && !p.alt;
    match p.key {
        "Escape" if plain && !p.shift && cx.in_composer && cx.busy => Some(Action::StopTurn),
        "." if command && !p.shift && cx.busy => Some(Action::StopTurn),
        "k" | "K" if command && !p.shift => Some(Action::Search),
        "/" if command => Some(Action::FocusComposer),
        "/" if plain && !cx.typing => Some(Action::Search),
        "?" if plain && !cx.typing => Some(Action::Help),
        "ArrowUp" if plain && !p.shift && cx.in_composer && cx.composer_empty && !cx.busy => {
            Some(Action::EditLast)
        }
        "ArrowUp" if alt_only(p) => Some(Action::PreviousThread),
        "ArrowDown" if alt_only(p) => Some(Action::NextThread),
        _ if alt_only(p) && p.code == "KeyN" => Some(Action::NewThread),
        _ if alt_only(p) && p.code == "KeyR" && !cx.busy => Some(Action::Regenerate),
        _ => None,
    }
}

fn alt_only(p: &Press) -> bool {
    p.alt && !p.ctrl && !p.meta && !p.shift
}

/// The help dialog's table: keys, then what they do.
pub const HELP: &[(&str, &str)] = &[
    ("?", "Show these shortcuts"),
    ("Ctrl+K / ⌘K, or /", "Search"),
    ("Alt+N", "New thread"),
    ("Ctrl+/ / ⌘/", "Focus the message box"),
    ("Esc in the message box, Ctrl+. / ⌘.", "Stop the agent"),
    ("Alt+↑ / Alt+↓", "Previous / next thread"),
    ("↑ in an empty message box", "Edit your last message"),
    ("Alt+R", "Regenerate the last answer"),
    ("Enter or Ctrl+C / ⌘C on a formula", "Copy its LaTeX"),
];

/// The thread `step` places from `current` in the list (`None`: from
/// outside it, the first or last), not wrapping around.
pub fn neighbour<'a>(list: &'a [String], current: Option<&str>, step: isize) -> Option<&'a str> {
    let at = current.and_then(|c| list.iter().position(|id| id == c));
    let next = match at {
        Some(i) => i.checked_add_signed(step)?,
        None if step > 0 => 0,
        None => list.len().checked_sub(1)?,
    };
    list.get(next).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(key: &str) -> Press<'_> {
        Press {
            key,
            ..Press::default()
        }
    }

    const IDLE: Context = Context {
        typing: false,
        in_composer: false,
        composer_empty: false,
        busy: false,
        modal: false,
    };
    const TYPING: Context = Context {
        typing: true,
        in_composer: true,
        ..IDLE
    };

    #[test]
    fn single_keys_only_outside_fields() {
        assert_eq!(action(&key("?"), IDLE), Some(Action::Help));
        assert_eq!(action(&key("/"), IDLE), Some(Action::Search));
        assert_eq!(action(&key("?"), TYPING), None);
        assert_eq!(action(&key("/"), TYPING), None);
        let field = Context {
            typing: true,
            ..IDLE
        };
        assert_eq!(action(&key("?"), field), None);
        assert_eq!(action(&key("a"), IDLE), None);
        // `?` is Shift+/ on most layouts: shift is allowed.
        let shifted = Press {
            shift: true,
            ..key("?")
        };
        assert_eq!(action(&shifted, IDLE), Some(Action::Help));
    }

    #[test]
    fn modified_keys_work_while_typing() {
        let ctrl_k = Press {
            ctrl: true,
            ..key("k")
        };
        let cmd_k = Press {
            meta: true,
            ..key("k")
        };
        assert_eq!(action(&ctrl_k, TYPING), Some(Action::Search));
        assert_eq!(action(&cmd_k, IDLE), Some(Action::Search));
        let ctrl_slash = Press {
            ctrl: true,
            ..key("/")
        };
        assert_eq!(action(&ctrl_slash, IDLE), Some(Action::FocusComposer));
        let alt_n = Press {
            alt: true,
            code: "KeyN",
            ..key("˜")
        };
        assert_eq!(action(&alt_n, TYPING), Some(Action::NewThread));
        let alt_up = Press {
            alt: true,
            ..key("ArrowUp")
        };
        let alt_down = Press {
            alt: true,
            ..key("ArrowDown")
        };
        assert_eq!(action(&alt_up, TYPING), Some(Action::PreviousThread));
        assert_eq!(action(&alt_down, IDLE), Some(Action::NextThread));
        // Not their neighbours: Ctrl+Shift+K, Ctrl+Alt+N, plain arrows, N.
        let ctrl_shift_k = Press {
            shift: true,
            ..ctrl_k.clone()
        };
        assert_eq!(action(&ctrl_shift_k, IDLE), None);
        let ctrl_alt_n = Press {
            ctrl: true,
            ..alt_n
        };
        assert_eq!(action(&ctrl_alt_n, IDLE), None);
        assert_eq!(action(&key("ArrowUp"), IDLE), None);
        assert_eq!(
            action(
                &Press {
                    code: "KeyN",
                    ..key("n")
                },
                IDLE
            ),
            None
        );
    }

    #[test]
    fn up_in_an_empty_composer_edits_and_alt_r_regenerates_while_idle() {
        let empty = Context {
            composer_empty: true,
            ..TYPING
        };
        let up = key("ArrowUp");
        assert_eq!(action(&up, empty), Some(Action::EditLast));
        // Text in the box: the arrow moves the caret.
        assert_eq!(action(&up, TYPING), None);
        // Elsewhere, or with a modifier, or while the agent works: not it.
        let outside = Context {
            composer_empty: true,
            in_composer: false,
            ..TYPING
        };
        assert_eq!(action(&up, outside), None);
        let shift_up = Press {
            shift: true,
            ..key("ArrowUp")
        };
        assert_eq!(action(&shift_up, empty), None);
        let busy = Context {
            busy: true,
            ..empty
        };
        assert_eq!(action(&up, busy), None);
        let alt_r = Press {
            alt: true,
            code: "KeyR",
            ..key("®")
        };
        assert_eq!(action(&alt_r, TYPING), Some(Action::Regenerate));
        assert_eq!(action(&alt_r, IDLE), Some(Action::Regenerate));
        assert_eq!(action(&alt_r, Context { busy: true, ..IDLE }), None);
        let plain_r = Press {
            code: "KeyR",
            ..key("r")
        };
        assert_eq!(action(&plain_r, IDLE), None);
        // Both are in the help dialog's table.
        assert!(HELP.iter().any(|(_, what)| what.contains("Edit your last")));
        assert!(HELP
            .iter()
            .any(|(k, what)| *k == "Alt+R" && what.contains("Regenerate")));
    }

    #[test]
    fn escape_stops_only_a_running_turn_from_the_composer() {
        let busy = Context {
            busy: true,
            ..TYPING
        };
        assert_eq!(action(&key("Escape"), busy), Some(Action::StopTurn));
        assert_eq!(action(&key("Escape"), TYPING), None);
        let elsewhere = Context { busy: true, ..IDLE };
        assert_eq!(action(&key("Escape"), elsewhere), None);
        let ctrl_dot = Press {
            ctrl: true,
            ..key(".")
        };
        assert_eq!(action(&ctrl_dot, elsewhere), Some(Action::StopTurn));
        assert_eq!(action(&ctrl_dot, IDLE), None);
    }

    #[test]
    fn dialogs_and_ime_keep_their_keys() {
        let modal = Context {
            modal: true,
            ..IDLE
        };
        assert_eq!(action(&key("?"), modal), None);
        assert_eq!(
            action(
                &Press {
                    ctrl: true,
                    ..key("k")
                },
                modal
            ),
            None
        );
        let composing = Press {
            composing: true,
            ..key("/")
        };
        assert_eq!(action(&composing, IDLE), None);
    }

    /// Chromium and Firefox flag a composing key with `isComposing`;
    /// Safari's confirming Enter only has `keyCode` 229.
    #[test]
    fn an_ime_owns_composing_keys_and_safaris_229() {
        assert!(ime_owns(true, 13));
        assert!(ime_owns(false, IME_KEY_CODE));
        assert!(ime_owns(true, IME_KEY_CODE));
        assert!(!ime_owns(false, 13), "a plain Enter is the page's");
    }

    #[test]
    fn neighbours_do_not_wrap() {
        let list: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(neighbour(&list, Some("b"), 1), Some("c"));
        assert_eq!(neighbour(&list, Some("b"), -1), Some("a"));
        assert_eq!(neighbour(&list, Some("c"), 1), None);
        assert_eq!(neighbour(&list, Some("a"), -1), None);
        assert_eq!(neighbour(&list, None, 1), Some("a"));
        assert_eq!(neighbour(&list, None, -1), Some("c"));
        assert_eq!(neighbour(&list, Some("gone"), 1), Some("a"));
        assert_eq!(neighbour(&[], None, -1), None);
    }
}
