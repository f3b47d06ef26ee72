"""Hermes's tool and sub-agent hooks, turned into link events.

The hooks run in the agent's thread (or a tool worker's) with the call's
full arguments and result; events go to the live adapter's link through
its event loop. Calls of sessions that are not aria threads are ignored.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

from . import mapping
from .sessions import Sessions

PLATFORM = "aria"
TODO_TOOL = "todo"

Emit = Callable[[dict], None]


class Hooks:
    def __init__(self, sessions: Optional[Sessions] = None) -> None:
        self.sessions = sessions or Sessions()
        self._lock = threading.Lock()
        self._emit: Optional[Emit] = None
        # The model of each thread's latest LLM call, for its answer's footer.
        self._models: dict[str, str] = {}
        # Tokens of each thread's API calls since its turn began.
        self._tokens: dict[str, int] = {}
        # The reasoning of each thread's latest main-agent API call: the
        # answer's, also when the answer streamed (Hermes then sends no
        # reasoning prefix).
        self._reasoning: dict[str, str] = {}

    def attach(self, emit: Optional[Emit]) -> None:
        """Where events go (the adapter's thread-safe emit), or nowhere."""
        with self._lock:
            self._emit = emit

    def model_of(self, chat_id: str) -> Optional[str]:
        with self._lock:
            return self._models.get(chat_id)

    def begin_turn(self, chat_id: str) -> None:
        """A turn of the thread begins: no tokens, no reasoning yet."""
        with self._lock:
            self._tokens.pop(chat_id, None)
            self._reasoning.pop(chat_id, None)

    def reasoning_of(self, chat_id: str) -> Optional[str]:
        with self._lock:
            return self._reasoning.get(chat_id)

    def tokens_of(self, chat_id: str) -> Optional[int]:
        """Tokens of the thread's API calls since its turn began (its
        sub-agents' included), `None` when no call reported usage."""
        with self._lock:
            return self._tokens.get(chat_id)

    def _send(self, event: dict) -> None:
        with self._lock:
            emit = self._emit
        if emit is not None:
            emit(event)

    @staticmethod
    def _run() -> str:
        """The message whose run this hook runs in, when Hermes's context
        for an aria run names it (a sub-agent's worker thread does not)."""
        try:
            from gateway.session_context import get_session_env

            if get_session_env("HERMES_SESSION_PLATFORM", "") == PLATFORM:
                return get_session_env("HERMES_SESSION_MESSAGE_ID", "")
        except Exception:  # outside a gateway (tests, CLI)
            pass
        return ""

    def _chat(self, session_id: str) -> Optional[str]:
        """The aria thread of a session: from Hermes's session context when
        the hook runs in the agent's own context, else as learnt before."""
        try:
            from gateway.session_context import get_session_env

            if get_session_env("HERMES_SESSION_PLATFORM", "") == PLATFORM:
                chat_id = get_session_env("HERMES_SESSION_CHAT_ID", "")
                if chat_id and not self.sessions.parent_call(session_id):
                    self.sessions.bind(session_id, chat_id)
        except Exception:  # outside a gateway (tests, CLI): learnt bindings only
            pass
        return self.sessions.chat_of(session_id)

    # -- hooks (keyword arguments as Hermes 0.19.0 passes them) -------------

    def pre_llm_call(self, **kw: Any) -> None:
        chat_id = self._chat(str(kw.get("session_id") or ""))
        model = kw.get("model")
        if chat_id and isinstance(model, str) and model:
            with self._lock:
                self._models[chat_id] = model

    def post_api_request(self, **kw: Any) -> None:
        if _in_background_review():
            return
        session_id = str(kw.get("session_id") or "")
        chat_id = self._chat(session_id)
        if chat_id is None:
            return
        usage = kw.get("usage")
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        counted = isinstance(total, int) and not isinstance(total, bool) and total >= 0
        reasoning = mapping.reasoning_of(kw.get("assistant_message"))
        with self._lock:
            if counted:
                self._tokens[chat_id] = self._tokens.get(chat_id, 0) + total
            if self.sessions.parent_call(session_id):
                return  # a sub-agent's reasoning stays inside its card
            if reasoning:
                self._reasoning[chat_id] = reasoning
            else:
                self._reasoning.pop(chat_id, None)

    def pre_tool_call(self, **kw: Any) -> None:
        if _in_background_review():
            return None
        session_id = str(kw.get("session_id") or "")
        chat_id = self._chat(session_id)
        if chat_id is None:
            return None
        name = str(kw.get("tool_name") or "")
        call = self.sessions.call_started(session_id, str(kw.get("tool_call_id") or ""), name)
        self._send(self._start_event(chat_id, session_id, call, name, kw.get("args")))
        return None  # an observer: never blocks or asks

    def post_tool_call(self, **kw: Any) -> None:
        if _in_background_review():
            return
        session_id = str(kw.get("session_id") or "")
        chat_id = self._chat(session_id)
        if chat_id is None:
            return
        name = str(kw.get("tool_name") or "")
        call = self.sessions.call_ended(session_id, str(kw.get("tool_call_id") or ""), name)
        if call is None:
            # Ended without a start seen here (blocked before pre_tool_call).
            call = self.sessions.call_started(session_id, str(kw.get("tool_call_id") or ""), name)
            self.sessions.call_ended(session_id, call, name)
            self._send(self._start_event(chat_id, session_id, call, name, kw.get("args")))
        fields = mapping.tool_end_fields(
            kw.get("result"),
            kw.get("status"),
            kw.get("error_type"),
            kw.get("error_message"),
            kw.get("duration_ms"),
        )
        self._send(
            {"type": "tool.end", "chat_id": chat_id, "call_id": _call_key(session_id, call),
             "name": name, "run": self._run(), **fields}
        )
        # The thread's plan is the main agent's list; a sub-agent's own todo
        # list stays inside its card.
        if name == TODO_TOOL and not self.sessions.parent_call(session_id):
            items = mapping.plan_items(kw.get("result"))
            if items is not None:
                self._send(
                    {"type": "plan", "chat_id": chat_id, "items": items, "run": self._run()}
                )

    def subagent_start(self, **kw: Any) -> None:
        self.sessions.adopt(
            str(kw.get("parent_session_id") or ""), str(kw.get("child_session_id") or "")
        )

    def _start_event(
        self, chat_id: str, session_id: str, call: str, name: str, args: Any
    ) -> dict:
        capped = mapping.capped_args(args)
        parent = self.sessions.parent_call(session_id)
        parent_session = self.sessions.parent_session(session_id)
        return {
            "type": "tool.start",
            "run": self._run(),
            "chat_id": chat_id,
            "call_id": _call_key(session_id, call),
            "parent_call_id": _call_key(parent_session, parent) if parent else None,
            "name": name,
            "args": capped,
            "preview": mapping.preview(name, capped),
        }


def _in_background_review() -> bool:
    """Whether this runs in Hermes's background review (memory and skill
    upkeep after a turn), which shares the thread's session id but is no
    part of the turn. Hermes 0.19.0 marks that thread, and only that one,
    with a thread-local tool whitelist."""
    try:
        from hermes_cli.plugins import _thread_tool_whitelist
    except ImportError:
        return False
    return getattr(_thread_tool_whitelist, "allowed", None) is not None


def _call_key(session_id: Optional[str], call: str) -> str:
    """A call id unique in the thread: models reuse ids across sessions."""
    return f"{session_id or ''}/{call}"
