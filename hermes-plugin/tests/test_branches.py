"""The per-chat turn log that puts Hermes's session where the aria
thread's active path is after an edit, a regeneration or a switch."""

from aria_hermes.branches import TurnLog


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


def test_a_turn_never_seen_leaves_the_session_as_it_is(tmp_path):
    log = TurnLog(tmp_path)
    # The thread's first turns ran before the plugin kept turns.
    assert log.begin("c1", "t9", "t8", [user("old"), bot("OLD")]) is None
    assert log.begin("c1", "t10", "t9", [user("old"), bot("OLD"), user("x"), bot("X")]) is None
    assert log.begin("c1", "t11", "t7", []) is None


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
    assert log.begin("c1", "t2", "t1", [user("a")]) is None
