"""Branches of an aria thread in Hermes's one session per chat.

An aria thread is a tree (edit, regenerate, switch: the protocol's §12);
Hermes keeps one transcript per chat. Every turn the gateway sends names
the turn it ``follows`` on the thread's active path. When that is not the
turn Hermes ran last in the chat, the thread branched, and the session's
transcript is put back to what it held right after the turn followed, so
the agent never sees a discarded branch (the way Hermes's own ``/retry``
rewrites it).

What each turn added to the transcript is kept per chat, after the
messages of the turn it followed, in a JSON file under Hermes's home, so
a restart of Hermes loses none of it. A turn is recorded when the next
turn of its chat starts (by then Hermes has written all of it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

logger = logging.getLogger("hermes_plugins.aria")

# Turns remembered per chat; the oldest recorded are forgotten first.
MAX_TURNS = 2000

Transcript = List[Dict[str, Any]]


class TurnLog:
    def __init__(self, directory: Path) -> None:
        self._dir = directory
        self._lock = threading.Lock()

    def _file(self, chat_id: str) -> Path:
        # Chat ids are the gateway's thread ids: hashed, never a path.
        name = hashlib.sha256(chat_id.encode("utf-8")).hexdigest()[:32]
        return self._dir / f"{name}.json"

    def _load(self, chat_id: str) -> Dict[str, Any]:
        try:
            state = json.loads(self._file(chat_id).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            state = None
        if not isinstance(state, dict) or not isinstance(state.get("turns"), dict):
            state = {"head": None, "follows": None, "turns": {}}
        return state

    def _save(self, chat_id: str, state: Dict[str, Any]) -> None:
        self._dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self._dir, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(state, out, ensure_ascii=False)
            os.replace(tmp, self._file(chat_id))
        except OSError:
            logger.warning("[aria] cannot keep the thread's turns in %s", self._dir, exc_info=True)
            try:
                os.unlink(tmp)
            except OSError:
                pass

    @staticmethod
    def _path(state: Dict[str, Any], turn_id: Optional[str]) -> Optional[Transcript]:
        """The transcript right after ``turn_id`` (empty before the first
        turn), or ``None`` when a turn on the way there is not recorded."""
        parts: List[Transcript] = []
        seen = set()
        while turn_id is not None:
            node = state["turns"].get(turn_id)
            if not isinstance(node, dict) or turn_id in seen:
                return None
            seen.add(turn_id)
            parts.append(node.get("messages") or [])
            if node.get("whole"):
                break
            turn_id = node.get("follows")
        return [m for part in reversed(parts) for m in part]

    def begin(
        self, chat_id: str, turn_id: str, follows: Optional[str], transcript: Transcript
    ) -> Optional[Transcript]:
        """A turn starts; ``transcript`` is the session's as it stands.
        Records it as what the chat's last turn left, and returns the
        transcript the session must hold for this turn: ``None`` when it
        holds it already, or when it cannot be known (a turn on the way
        was never recorded here: the session is left as it is)."""
        with self._lock:
            state = self._load(chat_id)
            head = state.get("head")
            if head is not None:
                base = self._path(state, state.get("follows")) or []
                if transcript[: len(base)] == base:
                    node = {"follows": state.get("follows"), "messages": transcript[len(base) :]}
                else:
                    # Rewritten under the turn (Hermes compressed it): whole.
                    node = {"follows": state.get("follows"), "messages": transcript, "whole": True}
                state["turns"].pop(head, None)
                state["turns"][head] = node
            target = None
            if follows != head:
                target = self._path(state, follows)
                if target is None:
                    logger.warning(
                        "[aria] thread %s: the turn followed was never seen here; "
                        "the session stays as it is",
                        chat_id,
                    )
            while len(state["turns"]) > MAX_TURNS:
                state["turns"].pop(next(iter(state["turns"])))
            state["head"], state["follows"] = turn_id, follows
            self._save(chat_id, state)
            return target
