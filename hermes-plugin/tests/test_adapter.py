"""The adapter with Hermes's own config, event and outcome classes, linked
to a small stand-in for the gateway's end of the link."""

import asyncio
import json

import pytest
from gateway.config import PlatformConfig
from gateway.platforms.base import ProcessingOutcome

import tools.approval
from aria_hermes.adapter import AriaAdapter
from aria_hermes.hooks import Hooks
from aria_hermes.link import LinkError, parse_address

SECRET = "s3cret-0123456789abcdef"


class FakeGateway:
    """Listens on loopback, checks the hello's secret, records lines."""

    def __init__(self):
        self.lines = asyncio.Queue()
        self.writers = []
        self.hellos = []

    async def start(self):
        # Lines as long as the gateway's (file pieces are ~700 KB).
        self.server = await asyncio.start_server(
            self._serve, "127.0.0.1", 0, limit=4 * 1024 * 1024
        )
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader, writer):
        hello = json.loads(await reader.readline())
        self.hellos.append(hello)
        if hello.get("secret") != SECRET:
            writer.write(b'{"type":"refused"}\n')
            writer.close()
            return
        writer.write(b'{"type":"welcome"}\n')
        self.writers.append(writer)
        while line := await reader.readline():
            await self.lines.put(json.loads(line))

    def tell(self, message):
        self.writers[-1].write(json.dumps(message).encode() + b"\n")

    async def next(self, kind):
        while True:
            line = await asyncio.wait_for(self.lines.get(), 5)
            if line["type"] == kind:
                return line


async def linked(tmp_path, secret=SECRET):
    gateway = FakeGateway()
    port = await gateway.start()
    secret_file = tmp_path / "secret"
    secret_file.write_text(secret)
    config = PlatformConfig(
        enabled=True,
        extra={"link_address": f"127.0.0.1:{port}", "link_secret_file": str(secret_file)},
    )
    adapter = AriaAdapter(config, Hooks())

    async def runner_handler(event):
        return None

    # Hermes's runner sets its handler before connecting its adapters.
    adapter.set_message_handler(runner_handler)
    assert await adapter.connect()
    if secret == SECRET:
        await asyncio.wait_for(adapter._link.connected.wait(), 5)
    return gateway, adapter


def test_the_link_stays_on_loopback():
    assert parse_address("127.0.0.1:9") == ("127.0.0.1", 9)
    assert parse_address("localhost:9") == ("127.0.0.1", 9)
    assert parse_address("[::1]:9") == ("::1", 9)
    for address in ("10.0.0.1:9", "0.0.0.0:9", "example.com:9", "127.0.0.1"):
        with pytest.raises(LinkError):
            parse_address(address)


def test_a_wrong_secret_is_refused_and_nothing_flows(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path, secret="wrong-secret-0123456789")
        await asyncio.sleep(0.5)
        assert gateway.hellos and not adapter._link.connected.is_set()
        await adapter.send("c1", "hello")
        assert gateway.lines.empty()
        await adapter.disconnect()

    asyncio.run(scenario())


def test_streamed_bubble_then_final_edit_and_done(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        started = []

        async def handle(event):
            started.append(event)

        adapter.handle_message = handle
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t1", "text": "hi"})
        await asyncio.sleep(0.2)
        assert started[0].text == "hi" and started[0].source.chat_id == "c1"
        # Hermes's own turn in the thread (resuming after a restart) ends
        # no turn of the gateway's.
        await adapter.on_processing_complete(adapter._event("c1", ""), ProcessingOutcome.SUCCESS)
        await asyncio.sleep(0.2)
        assert gateway.lines.empty()
        sent = await adapter.send("c1", "Hel ▉", metadata={"expect_edits": True})
        await adapter.edit_message(
            "c1", sent.message_id,
            "💭 **Reasoning:**\n```\nwhy\n```\n\nHello", finalize=True,
        )
        first = await gateway.next("send")
        assert first["streaming"] is True and first["turn_id"] == "t1"
        assert first["text"] == "Hel"
        edit = await gateway.next("edit")
        assert (edit["text"], edit["reasoning"], edit["final"]) == ("Hello", "why", True)
        await adapter.on_processing_complete(started[0], ProcessingOutcome.SUCCESS)
        done = await gateway.next("done")
        assert done["outcome"] == "success" and done["turn_id"] == "t1"
        await adapter.disconnect()

    asyncio.run(scenario())


def test_approval_goes_out_and_its_answer_resolves_hermes(tmp_path, monkeypatch):
    resolved = []
    monkeypatch.setattr(tools.approval, "resolve_gateway_approval",
                        lambda key, choice, **kw: resolved.append((key, choice)) or 1)

    async def scenario():
        gateway, adapter = await linked(tmp_path)
        await adapter.send_exec_approval("c1", "rm -rf x", "agent:main:aria:dm:c1",
                                         description="recursive delete")
        asked = await gateway.next("approval")
        assert asked["command"] == "rm -rf x"
        assert asked["choices"] == ["once", "session", "always", "deny"]
        # An answer for another thread, or an unknown choice, is ignored.
        gateway.tell({"type": "approve", "chat_id": "c2",
                      "approval_id": asked["approval_id"], "choice": "once"})
        gateway.tell({"type": "approve", "chat_id": "c1",
                      "approval_id": asked["approval_id"], "choice": "deny"})
        await asyncio.sleep(0.3)
        await adapter.disconnect()

    asyncio.run(scenario())
    # The first answer named the wrong thread and used up nothing.
    assert resolved == [("agent:main:aria:dm:c1", "deny")]


def test_cancel_sends_hermes_stop_and_drops_late_events(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        handled = []

        async def handle(event):
            handled.append(event.text)

        adapter.handle_message = handle
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t1", "text": "go"})
        await asyncio.sleep(0.2)
        gateway.tell({"type": "cancel", "chat_id": "c1"})
        await asyncio.sleep(0.2)
        assert handled == ["go", "/stop"]
        await adapter.send("c1", "Stopped.")
        late = await gateway.next("send")
        assert late["turn_id"] is None
        await adapter.disconnect()

    asyncio.run(scenario())


def test_the_secret_may_appear_after_hermes_starts(tmp_path):
    async def scenario():
        gateway = FakeGateway()
        port = await gateway.start()
        secret_file = tmp_path / "later.secret"
        config = PlatformConfig(
            enabled=True,
            extra={"link_address": f"127.0.0.1:{port}", "link_secret_file": str(secret_file)},
        )
        adapter = AriaAdapter(config, Hooks())

        async def runner_handler(event):
            return None

        adapter.set_message_handler(runner_handler)
        assert await adapter.connect()
        await asyncio.sleep(0.5)
        assert not adapter._link.connected.is_set()
        secret_file.write_text(SECRET + "\n")
        await asyncio.wait_for(adapter._link.connected.wait(), 10)
        await adapter.disconnect()

    asyncio.run(scenario())


def test_a_non_loopback_address_is_a_fatal_setup_error(tmp_path):
    async def scenario():
        config = PlatformConfig(
            enabled=True,
            extra={"link_address": "192.168.1.5:8644", "link_secret_file": str(tmp_path / "s")},
        )
        adapter = AriaAdapter(config, Hooks())
        assert not await adapter.connect()
        assert "loopback" in adapter.fatal_error_message

    asyncio.run(scenario())
