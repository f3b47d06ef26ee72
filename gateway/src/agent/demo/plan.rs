//! `/demo plan`: a task list the turn works through (§14 `plan` frames,
//! each replacing the last, the final state logged right before the
//! answer), with a delegation whose sub-agent's calls nest under its card.

use aria_protocol::{PlanItem, PlanStatus};
use serde_json::json;

use super::{terminal, DemoAgent, ScriptedTool};
use crate::agent::{ToolCall, ToolOutcome, Turn, TurnError};

const STEPS: [&str; 3] = ["Read the README", "Delegate the test run", "Summarize"];

const ANSWER: &str = "All three steps are done: the README is read, the sub-agent ran \
the tests (all passed), and this is the summary.";

/// The plan with the first `done` steps completed and the next under way.
fn plan(done: usize) -> Vec<PlanItem> {
    STEPS
        .iter()
        .enumerate()
        .map(|(i, text)| PlanItem {
            id: (i + 1).to_string(),
            text: (*text).to_string(),
            status: match i.cmp(&done) {
                std::cmp::Ordering::Less => PlanStatus::Completed,
                std::cmp::Ordering::Equal => PlanStatus::InProgress,
                std::cmp::Ordering::Greater => PlanStatus::Pending,
            },
        })
        .collect()
}

impl DemoAgent {
    pub(super) async fn plan(&self, turn: &mut Turn, user_text: &str) -> Result<(), TurnError> {
        turn.plan(plan(0))?;
        let read = ScriptedTool {
            call: ToolCall {
                name: "read_file".into(),
                emoji: Some("📖".into()),
                preview: "README.md".into(),
                args: json!({"path": "README.md"}),
            },
            steps: 10,
            notes: &[],
            outcome: ToolOutcome {
                ok: true,
                output_preview: "13 lines".into(),
                output: Some(super::texts::README_OUTPUT.into()),
            },
        };
        self.run_tool(turn, read).await?;
        turn.plan(plan(1))?;
        let delegation = turn.tool_start(ToolCall {
            name: "delegate_task".into(),
            emoji: Some("🤝".into()),
            preview: "Run the tests and report".into(),
            args: json!({"goal": "Run the tests and report failures"}),
        })?;
        for command in ["cargo build", "cargo test"] {
            let sub = terminal(command, 10, true, "ok", "ok", &[]);
            let call = turn.tool_start_under(sub.call, Some(&delegation))?;
            turn.pause(self.step * sub.steps).await?;
            turn.tool_end(call, sub.outcome).await?;
        }
        let report = ToolOutcome {
            ok: true,
            output_preview: "all tests passed".into(),
            output: Some("The sub-agent ran 2 commands; all tests passed.".into()),
        };
        turn.tool_end(delegation, report).await?;
        turn.plan(plan(2))?;
        turn.pause(self.step * 10).await?;
        turn.plan(plan(STEPS.len()))?;
        turn.log_plan().await?;
        self.answer(turn, user_text, ANSWER, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_moves_one_step_at_a_time() {
        let statuses = |done| plan(done).iter().map(|i| i.status).collect::<Vec<_>>();
        use PlanStatus::*;
        assert_eq!(statuses(0), [InProgress, Pending, Pending]);
        assert_eq!(statuses(1), [Completed, InProgress, Pending]);
        assert_eq!(statuses(3), [Completed, Completed, Completed]);
    }
}
