"""Turns the plugin never recorded, put on the thread's path from the
path's user messages."""

from aria_hermes.splice import splice


def user(text):
    return {"role": "user", "content": text}


def bot(text):
    return {"role": "assistant", "content": text}


def call(name):
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": name, "function": {"name": name, "arguments": "{}"}}]}


def result(name):
    return {"role": "tool", "tool_call_id": name, "content": "out"}


A = [user("alpha"), call("c1"), result("c1"), bot("A")]
B = [user("bravo"), bot("B")]
B2 = [user("[Content of notes.txt]:\nx\n\nbravo edited"), bot("B2")]
C = [user("charlie"), bot("C")]


def test_a_discarded_branch_is_dropped_and_tool_calls_kept():
    # Before the plugin rewound sessions, an edit of "bravo" went on in
    # the same transcript: B is a discarded branch's turn.
    transcript = A + B + B2 + C
    assert splice(transcript, ["alpha", "bravo edited", "charlie"], True) == A + B2 + C
    # Back on B's branch, after its first two turns.
    assert splice(transcript, ["alpha", "bravo"], True) == A + B
    # Only the first turn.
    assert splice(transcript, ["alpha"], True) == A


def test_an_edited_first_message_drops_the_original():
    first = [user("hello"), bot("H")]
    edited = [user("hello again"), bot("H2")]
    assert splice(first + edited, ["hello again"], True) == edited


def test_a_path_without_its_start_keeps_the_older_turns():
    summary = [{"role": "system", "content": "summary of earlier turns"}]
    transcript = summary + A + B + B2
    assert splice(transcript, ["bravo edited"], False) == summary + A + B + B2
    assert splice(transcript, ["bravo"], False) == summary + A + B


def test_a_path_not_in_the_transcript_is_none():
    assert splice(A + B, ["alpha", "delta"], True) is None
    assert splice(A + B, ["zulu"], False) is None
    assert splice([], [], True) == []
