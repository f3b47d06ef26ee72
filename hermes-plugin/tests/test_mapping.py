"""The mapping of Hermes's results to link fields, with Hermes's own tools
producing the results where it has them."""

import json

from tools.todo_tool import TodoStore, todo_tool

from aria_hermes import mapping


def test_reasoning_prefix_is_split_off():
    text = "💭 **Reasoning:**\n```\nthink 1\nthink 2\n```\n\nThe answer."
    assert mapping.split_reasoning(text) == ("think 1\nthink 2", "The answer.")


def test_malformed_or_missing_prefix_is_all_answer():
    unclosed = "💭 **Reasoning:**\n```\nnever closed"
    assert mapping.split_reasoning(unclosed) == (None, unclosed)
    assert mapping.split_reasoning("plain") == (None, "plain")


def test_terminal_result_gives_its_output_and_ok():
    result = json.dumps({"output": "a.txt\nb.txt\n", "exit_code": 0, "error": None})
    fields = mapping.tool_end_fields(result, None, None, None, 420)
    assert fields["ok"] is True
    assert fields["output"] == "a.txt\nb.txt\n"
    assert fields["output_preview"] == "a.txt\nb.txt"
    assert fields["duration_ms"] == 420
    assert fields["truncated"] is False


def test_failed_command_is_not_ok():
    result = json.dumps({"output": "no such file", "exit_code": 2})
    assert mapping.tool_end_fields(result, None, None, None, 1)["ok"] is False
    blocked = mapping.tool_end_fields('{"error": "x"}', "blocked", "plugin_block", "denied", 0)
    assert blocked["ok"] is False
    assert blocked["output_preview"] == "denied"


def test_a_command_that_did_not_run_shows_why():
    # The shape of Hermes's terminal tool's answer to a denied command.
    why = "BLOCKED: Action denied by user. The user has NOT consented to this action."
    result = json.dumps({"output": "", "exit_code": -1, "error": why, "status": "blocked"})
    fields = mapping.tool_end_fields(result, None, None, None, 3)
    assert fields["ok"] is False
    assert fields["output"] == why
    assert fields["output_preview"] == why[-mapping.PREVIEW_CHARS:]
    # A command that ran and printed nothing keeps its empty output.
    quiet = json.dumps({"output": "", "exit_code": 0, "error": None})
    assert mapping.tool_end_fields(quiet, None, None, None, 3)["output"] == ""


def test_a_50_mib_result_is_capped():
    huge = "x" * (50 * 1024 * 1024)
    fields = mapping.tool_end_fields(huge, None, None, None, 5)
    assert fields["truncated"] is True
    assert len(fields["output"]) <= mapping.MAX_OUTPUT_CHARS + len(mapping.TRUNCATED)
    assert len(fields["output_preview"]) <= mapping.PREVIEW_CHARS


def test_markup_in_output_stays_text():
    markup = '<img src=x onerror="alert(1)"> **bold** $x$'
    fields = mapping.tool_end_fields(json.dumps({"output": markup}), None, None, None, 1)
    assert fields["output"] == markup


def test_long_arguments_are_cut_and_others_kept():
    args = {"command": "y" * (mapping.MAX_ARG_CHARS + 10), "timeout": 5, "nested": {"a": [1]}}
    capped = mapping.capped_args(args)
    assert capped["command"].endswith(mapping.TRUNCATED)
    assert capped["timeout"] == 5
    assert capped["nested"] == {"a": [1]}
    assert mapping.capped_args("not a dict") == {}


def test_preview_names_what_the_call_is_about():
    assert mapping.preview("terminal", {"command": "ls -la\nmore"}) == "ls -la"
    assert mapping.preview("todo", {"todos": [{}]}) == "update the plan"


def test_todo_tool_result_becomes_plan_items():
    store = TodoStore()
    result = todo_tool(
        todos=[
            {"id": "1", "content": "Read the code", "status": "completed"},
            {"id": "2", "content": "Write <b>tests</b>", "status": "in_progress"},
            {"id": "3", "content": "Ship", "status": "pending"},
        ],
        store=store,
    )
    assert mapping.plan_items(result) == [
        {"id": "1", "text": "Read the code", "status": "completed"},
        {"id": "2", "text": "Write <b>tests</b>", "status": "in_progress"},
        {"id": "3", "text": "Ship", "status": "pending"},
    ]


def test_a_todo_error_gives_no_plan():
    assert mapping.plan_items('{"error": "bad"}') is None
    assert mapping.plan_items("not json") is None


def test_approval_choices_follow_hermes():
    assert mapping.approval_choices(True, False) == ["once", "session", "always", "deny"]
    assert mapping.approval_choices(False, False) == ["once", "session", "deny"]
    assert mapping.approval_choices(True, True) == ["once", "deny"]
