//! What an approval card says: its buttons, its choices' names on the
//! wire (for tests and styles), and how a resolved request ended.

use crate::protocol::Choice;
use crate::render::format::choice_label;
use crate::store::ApprovalState;

/// The label of the button that answers with `choice`.
pub fn button_label(choice: Choice) -> &'static str {
    match choice {
        Choice::Once => "Allow once",
        Choice::Session => "Allow for this thread",
        Choice::Always => "Always allow",
        _ => "Deny",
    }
}

/// The protocol's name of `choice` (§9).
pub fn wire_name(choice: Choice) -> &'static str {
    match choice {
        Choice::Once => "once",
        Choice::Session => "session",
        Choice::Always => "always",
        Choice::Deny => "deny",
        Choice::Timeout => "timeout",
        Choice::Cancelled => "cancelled",
        Choice::Other => "other",
    }
}

/// "Allowed once", "Denied", … plus "on another device" when it was.
pub fn outcome_text(state: &ApprovalState) -> String {
    let ApprovalState::Resolved { choice, elsewhere } = state else {
        return "Not answered".into();
    };
    let label = choice_label(*choice);
    if *elsewhere {
        format!("{label} on another device")
    } else {
        label.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_as_the_choice_and_say_where() {
        let said = |choice, elsewhere| outcome_text(&ApprovalState::Resolved { choice, elsewhere });
        assert_eq!(said(Choice::Once, false), "Allowed once");
        assert_eq!(said(Choice::Session, false), "Allowed for this thread");
        assert_eq!(said(Choice::Always, false), "Always allowed");
        assert_eq!(said(Choice::Deny, true), "Denied on another device");
        assert_eq!(said(Choice::Timeout, false), "Timed out");
        assert_eq!(said(Choice::Cancelled, false), "Cancelled");
        assert_eq!(outcome_text(&ApprovalState::Unanswered), "Not answered");
    }

    #[test]
    fn buttons_say_what_each_choice_does_and_names_match_the_wire() {
        for c in [Choice::Once, Choice::Session, Choice::Always, Choice::Deny] {
            let json = serde_json::to_string(&c).expect("a choice serializes");
            assert_eq!(json, format!("\"{}\"", wire_name(c)));
        }
        let labels: Vec<_> = [Choice::Once, Choice::Session, Choice::Always, Choice::Deny]
            .into_iter()
            .map(|c| (wire_name(c), button_label(c)))
            .collect();
        assert_eq!(
            labels,
            [
                ("once", "Allow once"),
                ("session", "Allow for this thread"),
                ("always", "Always allow"),
                ("deny", "Deny")
            ]
        );
    }
}
