"""What Hermes's calls and hooks become on the link: pure functions, no I/O.

Tool results, arguments and todo lists are untrusted data: they are passed
on as text or JSON values, never interpreted, and capped so one huge result
cannot flood the link.
"""

from __future__ import annotations

import json
from typing import Any, Optional

# The prefix Hermes puts before the answer with `show_reasoning` and
# `reasoning_style: code` (gateway/run.py), and the fence that closes it.
REASONING_PREFIX = "💭 **Reasoning:**\n```\n"
REASONING_CLOSE = "\n```\n\n"

# Most characters of a tool's full output sent to the gateway (protocol §5
# lets the gateway cap `output`; it keeps 256 KiB).
MAX_OUTPUT_CHARS = 256 * 1024
# Characters of the output's tail shown on the card.
PREVIEW_CHARS = 200
# Most characters of one argument value; longer strings are cut.
MAX_ARG_CHARS = 64 * 1024
# Most items and characters per item of a plan (Hermes caps at 256 / 4000).
MAX_PLAN_ITEMS = 256
MAX_PLAN_TEXT = 4000
# Characters of a call's one-line preview.
MAX_PREVIEW_LINE = 120
TRUNCATED = "\n… [truncated by aria]"

PLAN_STATUSES = {"pending", "in_progress", "completed", "cancelled"}


def split_reasoning(text: str) -> tuple[Optional[str], str]:
    """Splits Hermes's code-style reasoning prefix off an answer.

    Returns ``(reasoning, answer)``; a text without a well-formed prefix is
    all answer.
    """
    if not text.startswith(REASONING_PREFIX):
        return None, text
    close = text.find(REASONING_CLOSE, len(REASONING_PREFIX))
    if close < 0:
        return None, text
    reasoning = text[len(REASONING_PREFIX):close]
    return reasoning, text[close + len(REASONING_CLOSE):]


def reasoning_of(message: Any) -> Optional[str]:
    """The reasoning of an API call's assistant message (the fields Hermes's
    own ``extract_reasoning`` reads first), capped; `None` if it has none."""
    for field in ("reasoning", "reasoning_content"):
        value = getattr(message, field, None)
        if isinstance(value, str) and value.strip():
            return cap_text(value, MAX_OUTPUT_CHARS)[0]
    return None


def strip_cursor(text: str, cursor: str) -> str:
    """A snapshot without the streaming cursor Hermes appends to it (aria
    shows its own)."""
    if cursor and text.endswith(cursor):
        return text[: -len(cursor)]
    return text


def cap_text(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + TRUNCATED, True


def as_text(value: Any) -> str:
    """A hook value as text: strings stay, anything else is JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def capped_args(args: Any) -> dict:
    """The call's arguments with over-long string values cut."""
    if not isinstance(args, dict):
        return {}
    return {str(k): _capped_value(v) for k, v in args.items()}


def _capped_value(value: Any) -> Any:
    if isinstance(value, str):
        return cap_text(value, MAX_ARG_CHARS)[0]
    if isinstance(value, dict):
        return {str(k): _capped_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_capped_value(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return cap_text(str(value), MAX_ARG_CHARS)[0]


def preview(name: str, args: dict) -> str:
    """A one-line preview: the command, path or query the call is about."""
    for key in ("command", "path", "file_path", "query", "url", "goal", "code"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            line = value.strip().splitlines()[0]
            return cap_text(line, MAX_PREVIEW_LINE)[0]
    if name == "todo":
        return "update the plan" if args.get("todos") else "read the plan"
    return ""


def readable_output(result: str) -> str:
    """The part of a tool result a person reads.

    Hermes's terminal tool answers JSON like ``{"output": ..., "exit_code":
    ...}``; its `output` is what the command printed. A command that did not
    run (denied, blocked) has an empty `output` and says why in `error`,
    which the model reads too. Other results stay as they are.
    """
    try:
        parsed = json.loads(result)
    except (ValueError, RecursionError):
        return result
    if isinstance(parsed, dict):
        for key in ("output", "content", "result"):
            value = parsed.get(key)
            if isinstance(value, str):
                error = parsed.get("error")
                if not value.strip() and isinstance(error, str) and error.strip():
                    return error
                return value
    return result


def tool_ok(status: Any, error_type: Any, result: str) -> bool:
    """Whether a finished call succeeded, from the hook's status fields."""
    if status in ("error", "blocked", "cancelled", "failed"):
        return False
    if error_type:
        return False
    if status in ("ok", "success"):
        return True
    try:
        parsed = json.loads(result)
    except (ValueError, RecursionError):
        return True
    if isinstance(parsed, dict):
        if parsed.get("error"):
            return False
        code = parsed.get("exit_code")
        if isinstance(code, int) and code != 0:
            return False
    return True


def tool_end_fields(
    result: Any, status: Any, error_type: Any, error_message: Any, duration_ms: Any
) -> dict:
    """The `tool.end` fields of a finished call: ok, duration, preview, output."""
    raw = as_text(result)
    # Cap first: the rest of a 50 MiB result is never parsed or copied.
    capped, cut = cap_text(raw, MAX_OUTPUT_CHARS)
    if cut:
        readable = capped
        ok = tool_ok(status, error_type, "")
    else:
        readable = readable_output(raw)
        ok = tool_ok(status, error_type, raw)
    tail = readable.rstrip()[-PREVIEW_CHARS:]
    if not ok and isinstance(error_message, str) and error_message.strip():
        tail = cap_text(error_message.strip(), PREVIEW_CHARS)[0]
    duration = duration_ms if isinstance(duration_ms, (int, float)) else None
    return {
        "ok": ok,
        "duration_ms": duration,
        "output_preview": tail,
        "output": readable,
        "truncated": cut,
    }


def plan_items(result: Any) -> Optional[list[dict]]:
    """The todo list of a `todo` call's result, as §14 plan items; `None`
    when the result holds no list (an error)."""
    text = as_text(result)
    if len(text) > 2 * MAX_PLAN_ITEMS * MAX_PLAN_TEXT:
        return None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    todos = parsed.get("todos") if isinstance(parsed, dict) else None
    if not isinstance(todos, list):
        return None
    items = []
    for todo in todos[:MAX_PLAN_ITEMS]:
        if not isinstance(todo, dict):
            continue
        status = todo.get("status")
        items.append(
            {
                "id": cap_text(as_text(todo.get("id")), 200)[0],
                "text": cap_text(as_text(todo.get("content")), MAX_PLAN_TEXT)[0],
                "status": status if status in PLAN_STATUSES else "pending",
            }
        )
    return items


APPROVAL_CHOICES = ("once", "session", "always", "deny")


def approval_choices(allow_permanent: bool, smart_denied: bool) -> list[str]:
    """The answers Hermes accepts for a request, as its Telegram adapter
    offers them: `session` and `always` only when allowed."""
    choices = ["once"]
    if not smart_denied:
        choices.append("session")
        if allow_permanent:
            choices.append("always")
    choices.append("deny")
    return choices
