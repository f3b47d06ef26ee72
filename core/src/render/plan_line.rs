//! A plan (§14) at a glance: how many steps are done and the one under
//! way, for a checklist's count ("2/5") and the progress draft's line.

use super::progress::truncate_line;
use crate::protocol::{PlanItem, PlanStatus};

/// Where a plan stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanCount {
    pub done: usize,
    /// Steps that count: every one but the cancelled.
    pub total: usize,
    /// The step in progress, or else the first one still to do.
    pub current: Option<String>,
}

impl PlanCount {
    pub fn of(items: &[PlanItem]) -> PlanCount {
        let counted = || items.iter().filter(|i| i.status != PlanStatus::Cancelled);
        let step = |status: PlanStatus| {
            items
                .iter()
                .find(|i| i.status == status)
                .map(|i| i.text.clone())
        };
        PlanCount {
            done: counted()
                .filter(|i| i.status == PlanStatus::Completed)
                .count(),
            total: counted().count(),
            current: step(PlanStatus::InProgress)
                .or_else(|| step(PlanStatus::Pending))
                .or_else(|| step(PlanStatus::Unknown)),
        }
    }
}

/// The draft's line of a plan: `📋 Plan 2/5: <current step>`.
pub fn plan_line(items: &[PlanItem], max_chars: usize) -> String {
    let count = PlanCount::of(items);
    let head = format!("📋 Plan {}/{}", count.done, count.total);
    let line = match count.current {
        Some(step) => format!(
            "{head}: {}",
            step.split_whitespace().collect::<Vec<_>>().join(" ")
        ),
        None => head,
    };
    truncate_line(&line, max_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str, status: PlanStatus) -> PlanItem {
        PlanItem {
            id: text.into(),
            text: text.into(),
            status,
        }
    }

    #[test]
    fn the_count_skips_cancelled_steps_and_names_the_one_under_way() {
        let items = [
            step("read", PlanStatus::Completed),
            step("skip", PlanStatus::Cancelled),
            step("write", PlanStatus::Pending),
            step("test\n  it", PlanStatus::InProgress),
        ];
        let count = PlanCount::of(&items);
        assert_eq!((count.done, count.total), (1, 3));
        assert_eq!(count.current.as_deref(), Some("test\n  it"));
        assert_eq!(plan_line(&items, 80), "📋 Plan 1/3: test it");
        assert!(plan_line(&items, 12).chars().count() <= 12);
    }

    #[test]
    fn a_finished_or_empty_plan_has_no_current_step() {
        let done = [step("a", PlanStatus::Completed)];
        assert_eq!(plan_line(&done, 80), "📋 Plan 1/1");
        assert_eq!(plan_line(&[], 80), "📋 Plan 0/0");
        let pending = [
            step("a", PlanStatus::Pending),
            step("b", PlanStatus::Pending),
        ];
        assert_eq!(PlanCount::of(&pending).current.as_deref(), Some("a"));
    }
}
