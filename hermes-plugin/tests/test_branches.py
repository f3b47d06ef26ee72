"""The per-chat turn log that puts Hermes's session where the aria
thread's active path is after an edit, a regeneration or a switch."""

from aria_hermes.branches import UNKNOWN, TurnLog


def user(text):
    return {"role": "user", "content": text}


def bot(text):
    return {"role": "assistant", "content": text}


def test_a_thread_that_goes_on_is_left_alone(tmp_path):
    log = TurnLog(tmp_path)
    assert log.begin("c1", "t1", None, []) is None
    assert log.begin("c1", "t2", "t1", [user("a"), bot("A")]) is None


def test_an_edit_rewinds_to_the_turn_followed_and_a_switch_comes_back(tmp_path):
    log = TurnLog(tmp_path)
    log.begin("c1", "t1", None, [])
    after_t1 = [user("a"), bot("A")]
    log.begin("c1", "t2", "t1", after_t1)
    after_t2 = after_t1 + [user("b"), {"role": "tool", "content": "out"}, bot("B")]
    # The user edits b: the new turn t3 follows t1 again.
    assert log.begin("c1", "t3", "t1", after_t2) == after_t1
    after_t3 = after_t1 + [user("b edited"), bot("B2")]
    # A regeneration of the first answer: back to an empty session.
    assert log.begin("c1", "t4", None, after_t3) == []
    # A switch back to t2's branch, then a message after it.
    assert log.begin("c1", "t5", "t2", [user("a2"), bot("A2")]) == after_t2
    # And to t3's.
    assert log.begin("c1", "t6", "t3", after_t2 + [user("c"), bot("C")]) == after_t3


def test_a_turn_never_seen_is_unknown(tmp_path):
    log = TurnLog(tmp_path)
    # The thread's first turns ran before the plugin kept turns.
    assert log.begin("c1", "t9", "t8", [user("old"), bot("OLD")]) is UNKNOWN
    assert log.begin("c1", "t10", "t9", [user("old"), bot("OLD"), user("x"), bot("X")]) is None
    assert log.begin("c1", "t11", "t7", []) is UNKNOWN


def test_the_log_survives_a_restart_and_keeps_chats_apart(tmp_path):
    TurnLog(tmp_path).begin("c1", "t1", None, [])
    TurnLog(tmp_path).begin("../c2", "u1", None, [])
    log = TurnLog(tmp_path)
    after_t1 = [user("a"), bot("A")]
    log.begin("c1", "t2", "t1", after_t1)
    assert TurnLog(tmp_path).begin("c1", "t3", "t1", after_t1 + [user("b")]) == after_t1
    assert all(p.parent == tmp_path for p in tmp_path.iterdir())


def test_a_transcript_rewritten_under_a_turn_is_kept_whole(tmp_path):
    log = TurnLog(tmp_path)
    log.begin("c1", "t1", None, [])
    log.begin("c1", "t2", "t1", [user("a"), bot("A")])
    compressed = [{"role": "system", "content": "summary of a"}, user("b"), bot("B")]
    log.begin("c1", "t3", "t2", compressed)
    assert log.begin("c1", "t4", "t2", compressed + [user("c"), bot("C")]) == compressed


def test_a_damaged_log_is_started_over(tmp_path):
    log = TurnLog(tmp_path)
    log.begin("c1", "t1", None, [])
    for f in tmp_path.iterdir():
        f.write_text("{not json")
    assert log.begin("c1", "t2", "t1", [user("a")]) is UNKNOWN


def test_forgotten_messages_still_rewind_along_the_held_path(tmp_path, monkeypatch):
    import aria_hermes.branches as branches

    # Every turn's messages are forgotten as soon as they are recorded.
    monkeypatch.setattr(branches, "MAX_LOG_BYTES", 0)
    log = TurnLog(tmp_path)
    log.begin("c1", "t1", None, [])
    after_t1 = [user("a"), bot("A")]
    log.begin("c1", "t2", "t1", after_t1)
    after_t2 = after_t1 + [user("b"), bot("B")]
    log.begin("c1", "t3", "t2", after_t2)
    after_t3 = after_t2 + [user("c"), bot("C")]
    # An edit of c (t4 follows t2): the session is cut back to after t2.
    assert log.begin("c1", "t4", "t2", after_t3) == after_t2
    after_t4 = after_t2 + [user("c edited"), bot("C2")]
    # An edit of b (follows t1), from t4's branch: cut back to after t1.
    assert log.begin("c1", "t5", "t1", after_t4) == after_t1
    # Back to t3's branch: its messages are forgotten, it is not known.
    assert log.begin("c1", "t6", "t3", after_t1 + [user("b2"), bot("B2")]) is UNKNOWN
    # Regenerating the first answer always can.
    assert log.begin("c1", "t7", None, after_t1) == []


def test_a_rewritten_transcript_is_not_cut_by_length(tmp_path, monkeypatch):
    import aria_hermes.branches as branches

    monkeypatch.setattr(branches, "MAX_LOG_BYTES", 0)
    log = TurnLog(tmp_path)
    log.begin("c1", "t1", None, [])
    log.begin("c1", "t2", "t1", [user("a"), bot("A")])
    # Hermes compressed the session during t2: the start is not t1's any more.
    compressed = [{"role": "system", "content": "summary"}, user("b"), bot("B")]
    assert log.begin("c1", "t3", "t1", compressed) is UNKNOWN


def test_the_log_stays_within_its_bound(tmp_path, monkeypatch):
    import aria_hermes.branches as branches

    monkeypatch.setattr(branches, "MAX_LOG_BYTES", 64 * 1024)
    log = TurnLog(tmp_path)
    transcript = []
    previous = None
    for n in range(60):
        log.begin("c1", f"t{n}", previous, transcript)
        transcript = transcript + [user(f"q{n}"), bot("x" * 10_000)]
        previous = f"t{n}"
    (file,) = tmp_path.iterdir()
    assert file.stat().st_size < 64 * 1024 + 60 * 300
    # An edit of the last message still rewinds, by length and digest.
    assert log.begin("c1", "z", "t58", transcript) == transcript[:-2]
