"""Files both ways (docs/hermes-link.md, "Files").

To Hermes: the bytes of the user's files come over the link in pieces
ahead of their turn; the turn's message then carries them the way
Hermes's Telegram adapter hands it photos and documents: cached with
Hermes's own helpers, their paths and types in the ``MessageEvent``, a
small text file's content put before the message's text.

From Hermes: a file its adapter is asked to send (an image or a document
of the answer) is read, capped, and sent to the gateway in pieces.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from typing import Dict, List, Optional, Tuple

from gateway.platforms.base import (
    _TEXT_INJECT_EXTENSIONS,
    MessageEvent,
    MessageType,
    cache_media_bytes,
)

# Bytes per piece: their base64 stays well under the gateway's longest
# line (4 MiB) and the plugin's (1 MiB).
CHUNK_BYTES = 512 * 1024
# Most bytes of one file either way, and of all files waiting for their
# turns (the gateway's own limit is usually lower).
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_PENDING_BYTES = 256 * 1024 * 1024
# Largest text file whose content goes into the message, as Telegram's.
MAX_TEXT_INJECT_BYTES = 100 * 1024


# Most bytes of a name given to Hermes's cache (file systems take 255 a
# name; the cache adds a prefix of its own).
MAX_NAME_BYTES = 150


def _cache_name(name: str) -> str:
    """The name, short enough for a cache file name, its extension kept."""
    name = os.path.basename(name.replace("\x00", "")) or "file"
    if len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    stem, ext = os.path.splitext(name)
    ext = ext[:16]
    room = MAX_NAME_BYTES - len(ext.encode("utf-8"))
    return stem.encode("utf-8")[:room].decode("utf-8", errors="ignore") + ext


def _display_name(name: str) -> str:
    """The file's name as Hermes's adapters show one to the model."""
    return re.sub(r"[^\w.\- ]", "_", os.path.basename(name) or "file")[:200]


class Inbox:
    """The pieces of files of each chat's next turn."""

    def __init__(self) -> None:
        # chat -> (turn, file -> bytes so far, or None once refused)
        self._chats: Dict[str, Tuple[str, Dict[str, Optional[bytearray]]]] = {}

    def _pending(self) -> int:
        return sum(len(b or b"") for _, files in self._chats.values() for b in files.values())

    def piece(self, chat_id: str, message: dict) -> None:
        """Takes a `file` piece; a piece that does not fit refuses its file."""
        turn_id = message.get("turn_id")
        file_id = message.get("file_id")
        offset = message.get("offset")
        data = message.get("data")
        if not all(isinstance(v, str) for v in (turn_id, file_id, data)) or not isinstance(offset, int):
            return
        turn, files = self._chats.get(chat_id, ("", {}))
        if turn != turn_id:
            # Pieces of another turn: that one never came, forget them.
            turn, files = turn_id, {}
            self._chats[chat_id] = (turn, files)
        got = files.setdefault(file_id, bytearray())
        if got is None:
            return
        try:
            chunk = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            files[file_id] = None
            return
        if (
            offset != len(got)
            or len(got) + len(chunk) > MAX_FILE_BYTES
            or self._pending() + len(chunk) > MAX_PENDING_BYTES
        ):
            files[file_id] = None
            return
        got.extend(chunk)

    def take(self, chat_id: str, turn_id: str, refs: list) -> List[Tuple[dict, Optional[bytes]]]:
        """The turn's files in order, with their bytes (`None`: they did not
        all arrive); whatever else waited for the chat is dropped."""
        turn, files = self._chats.pop(chat_id, ("", {}))
        if turn != turn_id:
            files = {}
        out: List[Tuple[dict, Optional[bytes]]] = []
        for ref in refs if isinstance(refs, list) else []:
            if not isinstance(ref, dict) or not isinstance(ref.get("file_id"), str):
                continue
            got = files.get(ref["file_id"])
            size = ref.get("size")
            complete = got is not None and isinstance(size, int) and len(got) == size
            out.append((ref, bytes(got) if complete else None))
        return out


def attach(event: MessageEvent, files: List[Tuple[dict, Optional[bytes]]]) -> None:
    """Puts the files on the event as Hermes's Telegram adapter does."""
    notes: List[str] = []
    injected: List[str] = []
    kinds: List[str] = []
    for ref, data in files:
        name = str(ref.get("name") or "file")
        mime = str(ref.get("mime") or "")
        shown = _display_name(name)
        if data is None:
            notes.append(f"[The file '{shown}' did not arrive]")
            continue
        try:
            cached = cache_media_bytes(data, filename=_cache_name(name), mime_type=mime)
        except (OSError, ValueError) as exc:
            notes.append(f"[The file '{shown}' could not be saved for you: {exc.__class__.__name__}]")
            continue
        if cached is None:
            notes.append(f"[The image '{shown}' could not be read as an image]")
            continue
        event.media_urls.append(cached.path)
        event.media_types.append(cached.media_type)
        kinds.append(cached.kind)
        if cached.kind == "document" and _is_text(name, mime) and len(data) <= MAX_TEXT_INJECT_BYTES:
            try:
                injected.append(f"[Content of {shown}]:\n{data.decode('utf-8')}")
            except UnicodeDecodeError:
                pass
    if kinds:
        event.message_type = MessageType.PHOTO if all(k == "image" for k in kinds) else MessageType.DOCUMENT
    before = "\n\n".join(notes + injected)
    if before:
        event.text = f"{before}\n\n{event.text}" if event.text else before


def _is_text(name: str, mime: str) -> bool:
    ext = os.path.splitext(name)[1].lower()
    return ext in _TEXT_INJECT_EXTENSIONS or mime.startswith("text/")


def read_outbound(path: str) -> Tuple[Optional[bytes], str]:
    """The bytes of a file Hermes sends, or why not (too big, unreadable)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, f"it cannot be read ({exc.strerror or exc})"
    if len(data) > MAX_FILE_BYTES:
        return None, f"it is over {MAX_FILE_BYTES} bytes"
    return data, ""


def pieces(chat_id: str, file_id: str, name: str, data: bytes) -> List[dict]:
    """The `file` events carrying `data` (at least one, the last `last`)."""
    events = []
    offsets = range(0, max(len(data), 1), CHUNK_BYTES)
    for i, offset in enumerate(offsets):
        events.append(
            {
                "type": "file",
                "chat_id": chat_id,
                "file_id": file_id,
                "name": name,
                "offset": offset,
                "data": base64.b64encode(data[offset : offset + CHUNK_BYTES]).decode("ascii"),
                "last": i == len(offsets) - 1,
            }
        )
    return events
