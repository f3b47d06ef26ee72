//! Tool cards of the `hermes-api` agent: Hermes's run events name a
//! finished call by its tool only, and say no more than whether it failed.

use std::time::Duration;

use super::Run;
use crate::agent::llm_turn::stop_bubble;
use crate::agent::upstream::Failure;
use crate::agent::{ToolOutcome, Turn, TurnError};

/// The card of a call Hermes flags as failed: its run events say no more.
const FAILED_CALL: &str = "failed (Hermes's run events give no details)";

/// Ends the oldest running call of tool `name` with Hermes's duration.
pub(super) async fn end_tool(
    turn: &mut Turn,
    run: &mut Run,
    name: &str,
    duration: Option<f64>,
    failed: bool,
) -> Result<(), Failure> {
    let Some(position) = run.tools.iter().position(|(n, _)| n == name) else {
        tracing::warn!(tool = name, "Hermes ended a tool call that had not started");
        return Ok(());
    };
    let (_, tool) = run.tools.remove(position);
    let declined = run.declined.take();
    let output_preview = match (failed, declined) {
        (false, _) => String::new(),
        (true, Some(why)) => why,
        (true, None) => FAILED_CALL.to_string(),
    };
    let outcome = ToolOutcome {
        ok: !failed,
        output_preview,
        output: None,
    };
    match duration.and_then(|secs| Duration::try_from_secs_f64(secs).ok()) {
        Some(duration) => turn.tool_end_after(tool, outcome, duration).await?,
        None => turn.tool_end(tool, outcome).await?,
    }
    Ok(())
}

/// Ends the calls still running as failed, with `why`.
pub(super) async fn end_open_tools(
    turn: &mut Turn,
    run: &mut Run,
    why: &str,
) -> Result<(), TurnError> {
    for (_, tool) in run.tools.drain(..) {
        turn.tool_end(tool, ToolOutcome::failed(why)).await?;
    }
    Ok(())
}

/// A run stopped on Hermes's side (not by this turn): the turn ends with
/// what it has, and says why it ended early.
pub(super) async fn cancelled_by_hermes(turn: &mut Turn, run: &mut Run) -> Result<(), TurnError> {
    stop_bubble(turn, &mut run.live).await?;
    end_open_tools(turn, run, "Hermes stopped the run").await?;
    turn.commentary("Hermes stopped the run before it finished.")
        .await
}
