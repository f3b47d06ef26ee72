"""Which run of Hermes a turn of the gateway's is: a run Hermes starts by
itself (resuming a session a restart cut short) is stopped and its output
is no turn's; and a turn that follows another turn than the one Hermes
ran last puts the session back there first (a branch, §12)."""

import asyncio
from types import SimpleNamespace

from gateway.platforms.base import ProcessingOutcome

from test_adapter import linked


def test_a_run_hermes_resumed_by_itself_is_stopped_and_leaks_into_no_turn(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        handled = []

        async def handle(event):
            handled.append(event)

        adapter.handle_message = handle
        # Resuming the session it was killed in, from the thread's old message.
        resumed = adapter._event("c1", "")
        old_run = resumed.message_id
        await adapter.on_processing_start(resumed)
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t1", "text": "next"})
        await asyncio.sleep(0.2)
        # Stopped first; the turn's message waits for that run to end.
        assert [e.text for e in handled] == ["/stop"]
        await adapter.send("c1", "Session restored.")
        assert (await gateway.next("send"))["turn_id"] is None
        await adapter.on_processing_complete(resumed, ProcessingOutcome.CANCELLED)
        await asyncio.sleep(0.2)
        mine = handled[-1]
        assert mine.text == "next"
        # A call the stopped run still makes is not the turn's, even once
        # the turn's own run has started; the turn's own run's are.
        await adapter.on_processing_start(mine)
        adapter._emit({"type": "tool.start", "chat_id": "c1", "run": old_run})
        assert (await gateway.next("tool.start"))["turn_id"] is None
        adapter._emit({"type": "tool.start", "chat_id": "c1", "run": mine.message_id})
        started = await gateway.next("tool.start")
        assert started["turn_id"] == "t1" and "run" not in started
        await adapter.send("c1", "Answer.")
        assert (await gateway.next("send"))["turn_id"] == "t1"
        await adapter.disconnect()

    asyncio.run(scenario())


def test_a_stopped_turns_queued_message_answers_the_next_turn(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        handled = []

        async def handle(event):
            handled.append(event)

        adapter.handle_message = handle
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t1", "text": "first"})
        await asyncio.sleep(0.2)
        gateway.tell({"type": "cancel", "chat_id": "c1"})
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t2", "text": "second"})
        await asyncio.sleep(0.2)
        # Hermes runs the two joined, under the first message's id.
        first = handled[0]
        assert first.text == "first" and handled[-1].text == "second"
        await adapter.on_processing_start(first)
        adapter._emit({"type": "tool.start", "chat_id": "c1", "run": first.message_id})
        assert (await gateway.next("tool.start"))["turn_id"] == "t2"
        await adapter.on_processing_complete(first, ProcessingOutcome.SUCCESS)
        done = await gateway.next("done")
        assert done["turn_id"] == "t2"
        await adapter.disconnect()

    asyncio.run(scenario())


class FakeRunner:
    """The parts of Hermes's GatewayRunner a branch touches."""

    def __init__(self):
        self.transcript = []
        self.rewritten = []
        self.evicted = []
        entry = SimpleNamespace(session_id="s1", last_prompt_tokens=99)
        self.session_store = SimpleNamespace(
            get_or_create_session=lambda source: entry,
            load_transcript=lambda sid: list(self.transcript),
            rewrite_transcript=self._rewrite,
        )
        self.entry = entry

    def _rewrite(self, session_id, messages):
        self.rewritten.append((session_id, messages))
        self.transcript = list(messages)
        return True

    def _evict_cached_agent(self, key):
        self.evicted.append(key)

    async def handle(self, event):
        return None


def test_an_edited_thread_rewinds_hermess_session_before_the_turn(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        runner = FakeRunner()
        adapter.set_message_handler(runner.handle)
        seen = []

        async def handle(event):
            # What the session holds when Hermes gets the message.
            seen.append((event.text, list(runner.transcript)))
            runner.transcript += [
                {"role": "user", "content": event.text},
                {"role": "assistant", "content": event.text.upper()},
            ]

        adapter.handle_message = handle
        for turn, follows, text in [("t1", None, "a"), ("t2", "t1", "b"), ("t3", "t1", "b2")]:
            gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": turn,
                          "text": text, "follows": follows})
            await asyncio.sleep(0.3)
        after_a = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "A"}]
        assert seen[2] == ("b2", after_a)
        assert runner.rewritten == [("s1", after_a)]
        assert len(runner.evicted) == 1 and runner.entry.last_prompt_tokens == 0
        await adapter.disconnect()

    asyncio.run(scenario())


def test_hermess_session_title_goes_to_the_gateway_once(tmp_path, monkeypatch):
    import aria_hermes.adapter as adapter_module

    monkeypatch.setattr(adapter_module, "TITLE_POLL_SECS", 0.05)

    async def scenario():
        gateway, adapter = await linked(tmp_path)
        runner = FakeRunner()
        looked = []

        def get_session_title(session_id):
            looked.append(session_id)
            # Hermes's background titler is done at the third look.
            return "Reading the note" if len(looked) >= 3 else None

        runner.session_store._db = SimpleNamespace(get_session_title=get_session_title)
        adapter.set_message_handler(runner.handle)
        handled = []

        async def handle(event):
            handled.append(event)

        adapter.handle_message = handle
        async def answer(turn):
            gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": turn, "text": "hi"})
            await asyncio.sleep(0.2)
            await adapter.on_processing_start(handled[-1])
            await adapter.on_processing_complete(handled[-1], ProcessingOutcome.SUCCESS)
            await gateway.next("done")

        await answer("t1")
        title = await gateway.next("title")
        assert title["chat_id"] == "c1" and title["title"] == "Reading the note"
        await answer("t2")
        await asyncio.sleep(0.3)
        # Looked for after the chat's first answer only.
        assert looked == ["s1"] * 3
        await adapter.disconnect()

    asyncio.run(scenario())


def test_a_turn_the_log_never_saw_is_spliced_from_the_gateways_path(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        runner = FakeRunner()
        # A session from before the plugin kept turns: "b" was edited to
        # "b2" then, and Hermes went on in the same transcript.
        turn_a = [{"role": "user", "content": "a"},
                  {"role": "assistant", "tool_calls": [{"id": "c"}]},
                  {"role": "tool", "content": "out"}, {"role": "assistant", "content": "A"}]
        turn_b = [{"role": "user", "content": "b"}, {"role": "assistant", "content": "B"}]
        turn_b2 = [{"role": "user", "content": "b2"}, {"role": "assistant", "content": "B2"}]
        runner.transcript = turn_a + turn_b + turn_b2
        adapter.set_message_handler(runner.handle)
        seen = []

        async def handle(event):
            seen.append((event.source.chat_id, event.text, list(runner.transcript)))

        adapter.handle_message = handle
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t9", "text": "c",
                      "follows": "t8"})
        asked = await gateway.next("path.need")
        assert (asked["chat_id"], asked["turn_id"]) == ("c1", "t9")
        # The link's reader goes on meanwhile: another thread's turn runs.
        gateway.tell({"type": "turn", "chat_id": "c2", "turn_id": "u1", "text": "hi",
                      "follows": None})
        await asyncio.sleep(0.3)
        assert [s[0] for s in seen] == ["c2"]
        gateway.tell({"type": "path", "chat_id": "c1", "turn_id": "t9",
                      "users": ["a", "b2"], "from_start": True})
        await asyncio.sleep(0.3)
        assert seen[-1] == ("c1", "c", turn_a + turn_b2)
        assert runner.rewritten == [("s1", turn_a + turn_b2)]
        await adapter.disconnect()

    asyncio.run(scenario())
