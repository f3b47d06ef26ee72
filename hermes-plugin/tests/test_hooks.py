"""Hook calls, with the keyword arguments Hermes 0.19.0 passes, become
paired tool events in the right thread, nested under delegations."""

import json

from aria_hermes.hooks import Hooks


def hooks_with_thread(session="s-main", chat="thread-1"):
    events = []
    hooks = Hooks()
    hooks.attach(events.append)
    hooks.sessions.bind(session, chat)
    return hooks, events


def call(hooks, session, call_id, name, args, result):
    hooks.pre_tool_call(tool_name=name, args=args, session_id=session, tool_call_id=call_id,
                        task_id="", turn_id="t", api_request_id="", middleware_trace=[])
    hooks.post_tool_call(tool_name=name, args=args, result=result, session_id=session,
                         tool_call_id=call_id, task_id="", turn_id="t", api_request_id="",
                         duration_ms=12, status=None, error_type=None, error_message=None,
                         middleware_trace=[])


def test_a_call_gives_start_with_full_args_and_end_with_output():
    hooks, events = hooks_with_thread()
    call(hooks, "s-main", "call_1", "terminal", {"command": "ls -la"},
         json.dumps({"output": "total 0\n", "exit_code": 0}))
    start, end = events
    assert start["type"] == "tool.start"
    assert start["chat_id"] == "thread-1"
    assert start["args"] == {"command": "ls -la"}
    assert start["preview"] == "ls -la"
    assert start["parent_call_id"] is None
    assert end["type"] == "tool.end"
    assert end["call_id"] == start["call_id"]
    assert end["ok"] is True
    assert end["output"] == "total 0\n"
    assert end["duration_ms"] == 12


def test_calls_of_other_platforms_are_ignored():
    hooks, events = hooks_with_thread()
    call(hooks, "s-telegram", "call_1", "terminal", {"command": "ls"}, "{}")
    assert events == []


def test_background_review_calls_are_not_the_turns():
    from hermes_cli.plugins import clear_thread_tool_whitelist, set_thread_tool_whitelist

    hooks, events = hooks_with_thread()
    set_thread_tool_whitelist({"memory"})
    try:
        call(hooks, "s-main", "call_1", "read_file", {"path": "x"}, '{"error": "denied"}')
    finally:
        clear_thread_tool_whitelist()
    assert events == []
    call(hooks, "s-main", "call_2", "read_file", {"path": "x"}, '{"content": "x"}')
    assert [e["type"] for e in events] == ["tool.start", "tool.end"]


def test_an_end_without_a_start_still_gives_a_card():
    hooks, events = hooks_with_thread()
    hooks.post_tool_call(tool_name="terminal", args={"command": "rm -rf /"},
                         result='{"error": "blocked"}', session_id="s-main",
                         tool_call_id="call_9", status="blocked", error_type="plugin_block",
                         error_message="blocked by policy", duration_ms=0)
    assert [e["type"] for e in events] == ["tool.start", "tool.end"]
    assert events[1]["ok"] is False


def test_todo_calls_give_the_whole_plan():
    hooks, events = hooks_with_thread()
    result = json.dumps({"todos": [{"id": "a", "content": "Plan", "status": "in_progress"}]})
    call(hooks, "s-main", "call_2", "todo", {"todos": []}, result)
    plan = events[-1]
    assert plan == {"type": "plan", "chat_id": "thread-1", "run": "",
                    "items": [{"id": "a", "text": "Plan", "status": "in_progress"}]}


def test_sub_agent_calls_nest_under_the_delegation():
    hooks, events = hooks_with_thread()
    hooks.pre_tool_call(tool_name="delegate_task", args={"goal": "look"}, session_id="s-main",
                        tool_call_id="call_d")
    delegation = events[-1]
    hooks.subagent_start(parent_session_id="s-main", child_session_id="s-child",
                         parent_turn_id="t", child_goal="look")
    # The model behind both sessions reuses call ids: they stay apart.
    call(hooks, "s-child", "call_d", "read_file", {"path": "a.txt"}, '{"content": "hi"}')
    child_start, child_end = events[-2:]
    assert child_start["chat_id"] == "thread-1"
    assert child_start["parent_call_id"] == delegation["call_id"]
    assert child_start["call_id"] != delegation["call_id"]
    assert child_end["call_id"] == child_start["call_id"]
    # A sub-agent's own todo list is not the thread's plan.
    call(hooks, "s-child", "call_t", "todo", {}, json.dumps({"todos": []}))
    assert all(e["type"] != "plan" for e in events)


def test_model_of_the_thread_comes_from_pre_llm_call():
    hooks, _ = hooks_with_thread()
    hooks.pre_llm_call(session_id="s-main", model="fake-tool", platform="aria")
    assert hooks.model_of("thread-1") == "fake-tool"


def test_hermes_loaded_the_platform_and_the_hooks():
    from gateway.config import Platform
    from gateway.platform_registry import platform_registry
    from hermes_cli.plugins import has_hook

    assert platform_registry.is_registered("aria")
    assert Platform("aria").value == "aria"
    for hook in ("pre_llm_call", "pre_tool_call", "post_tool_call", "subagent_start"):
        assert has_hook(hook), hook


def test_a_turns_tokens_and_its_answers_reasoning_come_from_its_api_calls():
    from types import SimpleNamespace

    hooks, _ = hooks_with_thread()
    hooks.pre_tool_call(tool_name="delegate_task", args={}, session_id="s-main",
                        tool_call_id="d1")
    hooks.subagent_start(parent_session_id="s-main", child_session_id="s-child")
    hooks.begin_turn("thread-1")
    assert hooks.tokens_of("thread-1") is None and hooks.reasoning_of("thread-1") is None

    def api_call(session, usage, reasoning=None):
        message = SimpleNamespace(role="assistant", content="x", reasoning_content=reasoning)
        hooks.post_api_request(session_id=session, usage=usage, assistant_message=message,
                               model="m", platform="aria")

    api_call("s-main", {"total_tokens": 18}, "first thoughts")
    api_call("s-child", {"total_tokens": 7}, "the sub-agent's")
    api_call("s-main", None)
    api_call("s-main", {"total_tokens": "9"}, "the answer's")
    api_call("s-telegram", {"total_tokens": 100}, "another platform's")
    assert hooks.tokens_of("thread-1") == 25
    assert hooks.reasoning_of("thread-1") == "the answer's"
    hooks.begin_turn("thread-1")
    assert hooks.tokens_of("thread-1") is None and hooks.reasoning_of("thread-1") is None
