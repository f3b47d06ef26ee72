"""Puts a chat's Hermes session where the aria thread's active path is
before a turn (see branches.py), the way Hermes's own ``/retry`` and
``/undo`` rewrite it. For a turn the turn log does not know, the gateway
is asked for the path's user messages and the session is spliced from
them (splice.py).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .branches import UNKNOWN, TurnLog
from .splice import splice

logger = logging.getLogger("hermes_plugins.aria")

# How long a turn waits for the gateway's path.
PATH_WAIT_SECS = 10.0
# Most user messages of a path taken from the gateway.
MAX_PATH_USERS = 5000

Ask = Callable[[str, str], None]


class Rewind:
    def __init__(self, directory: Path, ask: Ask) -> None:
        self._log = TurnLog(directory)
        # Sends the gateway a path request for (chat, turn).
        self._ask = ask
        # Path requests waiting for their answer, by (chat, turn).
        self._waiting: Dict[Tuple[str, str], asyncio.Future] = {}

    def path_arrived(self, chat_id: str, message: dict) -> None:
        """The gateway's answer to a path request."""
        waiting = self._waiting.get((chat_id, str(message.get("turn_id"))))
        users = message.get("users")
        if waiting is None or waiting.done() or not isinstance(users, list):
            return
        texts = [u for u in users[-MAX_PATH_USERS:] if isinstance(u, str)]
        waiting.set_result((texts, message.get("from_start") is True))

    async def _path(self, chat_id: str, turn_id: str) -> Optional[Tuple[List[str], bool]]:
        future = asyncio.get_running_loop().create_future()
        self._waiting[(chat_id, turn_id)] = future
        try:
            self._ask(chat_id, turn_id)
            return await asyncio.wait_for(future, PATH_WAIT_SECS)
        except asyncio.TimeoutError:
            return None
        finally:
            self._waiting.pop((chat_id, turn_id), None)

    async def follow(self, runner: Any, source: Any, turn_id: str, follows: Optional[str]) -> None:
        """Puts the session of ``source``'s chat right after the turn
        ``follows``; then the next run starts from it."""
        store = getattr(runner, "session_store", None)
        if store is None:
            return
        chat_id = source.chat_id

        def load() -> Tuple[str, list]:
            entry = store.get_or_create_session(source)
            return entry.session_id, store.load_transcript(entry.session_id)

        def rewrite(session_id: str, target: list) -> None:
            store.rewrite_transcript(session_id, target)
            entry = store.get_or_create_session(source)
            entry.last_prompt_tokens = 0

        try:
            session_id, transcript = await asyncio.to_thread(load)
            target = await asyncio.to_thread(self._log.begin, chat_id, turn_id, follows, transcript)
            if target is UNKNOWN:
                path = await self._path(chat_id, turn_id)
                target = splice(transcript, *path) if path is not None else None
                if target is None:
                    logger.warning(
                        "[aria] thread %s: the turn followed is not in the session; "
                        "the session stays as it is",
                        chat_id,
                    )
                elif target == transcript:
                    target = None
            if target is None:
                return
            await asyncio.to_thread(rewrite, session_id, target)
            from gateway.session import build_session_key

            # As Hermes's /undo does: the next run starts from the
            # rewritten transcript.
            runner._evict_cached_agent(build_session_key(source))
        except Exception:
            logger.warning("[aria] cannot rewind the session of %s", chat_id, exc_info=True)

