"""Which aria thread a Hermes session belongs to, and under which call a
sub-agent runs.

Hermes's tool hooks name the agent's ``session_id``, not the chat: the
plugin learns the pairing where Hermes's session context is bound (the
agent's own thread) and from ``subagent_start``, whose child sessions
belong to their parent's thread, nested under the parent's running
``delegate_task`` call. Hooks run in agent and worker threads, so every
method takes the lock.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from typing import Optional

# Sessions remembered at most; the oldest are forgotten first.
MAX_SESSIONS = 4096
DELEGATE_TOOL = "delegate_task"


class Sessions:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._chat: "OrderedDict[str, str]" = OrderedDict()
        # Child session -> (parent session, its delegate_task call) it runs under.
        self._parent_call: "OrderedDict[str, tuple[str, str]]" = OrderedDict()
        # Session -> its calls started and not ended, oldest first.
        self._open: dict[str, list[tuple[str, str]]] = {}
        self._anonymous = itertools.count(1)

    def bind(self, session_id: str, chat_id: str) -> None:
        if not session_id or not chat_id:
            return
        with self._lock:
            self._chat[session_id] = chat_id
            self._chat.move_to_end(session_id)
            self._forget_oldest()

    def chat_of(self, session_id: str) -> Optional[str]:
        with self._lock:
            return self._chat.get(session_id or "")

    def parent_call(self, session_id: str) -> Optional[str]:
        with self._lock:
            parent = self._parent_call.get(session_id or "")
            return parent[1] if parent else None

    def parent_session(self, session_id: str) -> Optional[str]:
        with self._lock:
            parent = self._parent_call.get(session_id or "")
            return parent[0] if parent else None

    def adopt(self, parent_session: str, child_session: str) -> Optional[str]:
        """Binds a sub-agent's session to its parent's thread; returns that
        thread's chat id, or `None` when the parent is not an aria session."""
        with self._lock:
            chat_id = self._chat.get(parent_session or "")
            if chat_id is None or not child_session:
                return None
            self._chat[child_session] = chat_id
            delegations = [
                call for call, name in self._open.get(parent_session, []) if name == DELEGATE_TOOL
            ]
            if delegations:
                self._parent_call[child_session] = (parent_session, delegations[-1])
            self._forget_oldest()
            return chat_id

    def call_started(self, session_id: str, call_id: str, name: str) -> str:
        """Records a running call; returns its id (made up when Hermes gives
        none, so its end can still be paired)."""
        with self._lock:
            call = call_id or f"anon-{next(self._anonymous)}"
            self._open.setdefault(session_id, []).append((call, name))
            return call

    def call_ended(self, session_id: str, call_id: str, name: str) -> Optional[str]:
        """Forgets a finished call; returns the id its start was sent with,
        or `None` when it never started here."""
        with self._lock:
            calls = self._open.get(session_id, [])
            for i, (call, called) in enumerate(calls):
                if (call_id and call == call_id) or (not call_id and called == name):
                    del calls[i]
                    if not calls:
                        self._open.pop(session_id, None)
                    return call
            return None

    def _forget_oldest(self) -> None:
        while len(self._chat) > MAX_SESSIONS:
            old, _ = self._chat.popitem(last=False)
            self._parent_call.pop(old, None)
            self._open.pop(old, None)
        while len(self._parent_call) > MAX_SESSIONS:
            self._parent_call.popitem(last=False)
