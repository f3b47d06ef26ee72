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
turn of its chat starts (by then Hermes has written all of it), with the
transcript's length then.

The log is bounded: past ``MAX_LOG_BYTES`` of messages per chat, the
oldest turns' messages are forgotten; each turn keeps the transcript's
length and digest right after it. A turn on the path the session holds
needs no messages: the session is cut back to that length when its start
still has that digest. Only a switch to another branch through a
forgotten turn is not known here (the adapter then asks the gateway for
the path, see splice.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

logger = logging.getLogger("hermes_plugins.aria")

# Turns remembered per chat, and bytes of their messages (as JSON); the
# oldest recorded are forgotten first.
MAX_TURNS = 2000
MAX_LOG_BYTES = 32 * 1024 * 1024

Transcript = List[Dict[str, Any]]


class Unknown:
    """What `TurnLog.begin` returns when it cannot know the transcript."""


UNKNOWN = Unknown()


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
            if not isinstance(node, dict) or turn_id in seen or node.get("messages") is None:
                return None
            seen.add(turn_id)
            parts.append(node["messages"])
            if node.get("whole"):
                break
            turn_id = node.get("follows")
        return [m for part in reversed(parts) for m in part]

    @staticmethod
    def _cut(
        state: Dict[str, Any], turn_id: Optional[str], transcript: Transcript
    ) -> Optional[Transcript]:
        """The transcript right after ``turn_id`` when ``transcript`` (the
        session's) still starts with it: as many of its first messages as
        there were after that turn, if they hash as they did then."""
        if turn_id is None:
            return []
        node = state["turns"].get(turn_id)
        if not isinstance(node, dict):
            return None
        length = node.get("length")
        if not isinstance(length, int) or length > len(transcript):
            return None
        kept = transcript[:length]
        return kept if _digest(kept) == node.get("digest") else None

    @staticmethod
    def _forget(state: Dict[str, Any]) -> None:
        """Bounds the log: the oldest turns' messages go past
        ``MAX_LOG_BYTES``, the oldest turns past ``MAX_TURNS``."""
        turns = state["turns"]
        while len(turns) > MAX_TURNS:
            turns.pop(next(iter(turns)))
        total = sum(n.get("bytes", 0) for n in turns.values() if isinstance(n, dict))
        for node in turns.values():
            if total <= MAX_LOG_BYTES:
                break
            if isinstance(node, dict) and node.get("messages") is not None:
                total -= node.get("bytes", 0)
                node["messages"], node["bytes"] = None, 0

    def begin(
        self, chat_id: str, turn_id: str, follows: Optional[str], transcript: Transcript
    ) -> Union[Transcript, None, Unknown]:
        """A turn starts; ``transcript`` is the session's as it stands.
        Records it as what the chat's last turn left, and returns the
        transcript the session must hold for this turn: ``None`` when it
        holds it already, ``UNKNOWN`` when it cannot be known here (a turn
        on the way was never recorded, or its messages were forgotten)."""
        with self._lock:
            state = self._load(chat_id)
            head = state.get("head")
            if head is not None:
                before = state.get("follows")
                base = self._path(state, before)
                if base is None:
                    # Its messages were forgotten: the transcript's start.
                    base = self._cut(state, before, transcript)
                node = {"follows": before, "length": len(transcript), "digest": _digest(transcript)}
                if base is not None and transcript[: len(base)] == base:
                    node["messages"] = transcript[len(base) :]
                else:
                    # Rewritten under the turn (Hermes compressed it): whole.
                    node["messages"], node["whole"] = transcript, True
                node["bytes"] = len(json.dumps(node["messages"], ensure_ascii=False))
                state["turns"].pop(head, None)
                state["turns"][head] = node
            target = None
            if follows != head:
                target = self._path(state, follows)
                if target is None:
                    target = self._cut(state, follows, transcript)
            self._forget(state)
            state["head"], state["follows"] = turn_id, follows
            self._save(chat_id, state)
            if follows != head and target is None:
                return UNKNOWN
            return target


def _digest(transcript: Transcript) -> str:
    """A transcript's fingerprint: equal transcripts, equal digests."""
    text = json.dumps(transcript, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
