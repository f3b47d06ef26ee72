"""A session put on a thread's path from the path's user messages alone.

For a turn the turn log never recorded (one answered before the plugin
kept turns), the gateway says what the user wrote in each turn of the
thread's active path. Hermes's transcript holds those turns, each opening
with the user's message, in the order Hermes ran them, with any turns of
discarded branches in between (before the plugin rewound sessions, an
edit simply went on in the same transcript). Keeping the turns that match
the path, in order, and dropping the others puts the session on the path
with every kept turn's tool calls and results.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

Transcript = List[Dict[str, Any]]


def _text(message: Dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: their text
        return "\n".join(
            str(p.get("text") or "") for p in content if isinstance(p, dict)
        )
    return ""


def _turns(transcript: Transcript) -> List[Transcript]:
    """The transcript cut at each user message; what comes before the first
    one (a summary of compressed turns) is a turn of its own."""
    turns: List[Transcript] = [[]]
    for message in transcript:
        if message.get("role") == "user":
            turns.append([])
        turns[-1].append(message)
    return turns


def splice(transcript: Transcript, users: List[str], from_start: bool) -> Optional[Transcript]:
    """The transcript holding the path whose user messages are ``users``
    (oldest first, each possibly cut short), or ``None`` when a turn of the
    path is not in it. ``from_start``: ``users`` begins at the thread's
    first message; else older turns are left out.

    Hermes keeps a message as the user sent it, with notes of its own
    around it (attachments, a first-contact note), so a turn matches when
    its user message contains the path's text. Turns before the first
    match are the path's older turns when it does not start the thread
    (kept), else a discarded branch (dropped)."""
    opening, *turns = _turns(transcript)
    kept: Transcript = list(opening)
    at = 0
    for n, wanted in enumerate(users):
        wanted = wanted.strip()
        while at < len(turns) and wanted not in _text(turns[at][0]):
            if n == 0 and not from_start:
                kept.extend(turns[at])  # before the path's known start
            at += 1  # else a discarded branch's turn: dropped
        if at == len(turns):
            return None
        kept.extend(turns[at])
        at += 1
    return kept
