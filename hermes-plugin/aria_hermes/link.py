"""The plugin's end of the link to the aria gateway (docs/hermes-link.md).

The gateway listens on loopback; this side connects, proves it knows the
secret, then both sides exchange newline-delimited JSON objects. A lost
link is retried forever with a short backoff, so a restarted gateway is
joined again without restarting Hermes.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from pathlib import Path
from typing import Awaitable, Callable, Optional

# Hermes routes `hermes_plugins.*` records to its gateway.log.
logger = logging.getLogger("hermes_plugins.aria")

VERSION = 1
# Longest line accepted from the gateway (its messages are small).
MAX_LINE_BYTES = 1024 * 1024
# Events waiting to be written at most; more are dropped (the turn they
# belong to has fallen too far behind to matter).
MAX_QUEUED = 10_000
HANDSHAKE_TIMEOUT = 5.0
BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0)


class LinkError(ValueError):
    """A link address or secret that cannot be used."""


def parse_address(address: str) -> tuple[str, int]:
    """`host:port` of a loopback address; anything else is refused."""
    host, sep, port = (address or "").strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not port.isdigit():
        raise LinkError(f"the aria link address {address!r} is not host:port")
    if host == "localhost":
        host = "127.0.0.1"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError as exc:
        raise LinkError(f"the aria link host {host!r} is not an IP address") from exc
    if not ip.is_loopback:
        raise LinkError(f"the aria link must stay on loopback, not {host}")
    return host, int(port)


Handler = Callable[[dict], Awaitable[None]]
Ready = Callable[[], Awaitable[None]]


class LinkClient:
    def __init__(self, address: str, secret_file: str, on_message: Handler, ready: Ready) -> None:
        self._host, self._port = parse_address(address)
        # Read at each attempt: the gateway makes it on its first start,
        # which may come after Hermes's.
        self._secret_file = Path(secret_file)
        self._on_message = on_message
        self._ready = ready
        self._queue: Optional[asyncio.Queue] = None
        self._task: Optional[asyncio.Task] = None
        self.connected = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    def emit(self, event: dict) -> None:
        """Queues an event for the gateway; dropped while the link is down."""
        queue = self._queue
        if queue is None or not self.connected.is_set():
            logger.debug("[aria] link down, dropping %s", event.get("type"))
            return
        try:
            queue.put_nowait(event)
        except asyncio.QueueFull:
            logger.warning("[aria] link queue full, dropping %s", event.get("type"))

    async def _run(self) -> None:
        await self._ready()
        attempt = 0
        while True:
            try:
                await self._session()
                attempt = 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a refused or dropped link is retried
                logger.info("[aria] link to %s:%s: %s", self._host, self._port, exc)
            self.connected.clear()
            await asyncio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
            attempt += 1

    async def _session(self) -> None:
        secret = self._read_secret()
        reader, writer = await asyncio.open_connection(
            self._host, self._port, limit=MAX_LINE_BYTES
        )
        try:
            hello = {"type": "hello", "version": VERSION, "secret": secret}
            writer.write(json.dumps(hello).encode() + b"\n")
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT)
            answer = _decode(line)
            if answer is None or answer.get("type") != "welcome":
                raise ConnectionError(f"the gateway refused the link: {line[:200]!r}")
            self._queue = asyncio.Queue(MAX_QUEUED)
            self.connected.set()
            logger.info("[aria] linked to the gateway at %s:%s", self._host, self._port)
            sender = asyncio.create_task(self._send_all(writer, self._queue))
            try:
                await self._receive_all(reader)
            finally:
                sender.cancel()
        finally:
            self.connected.clear()
            writer.close()

    def _read_secret(self) -> str:
        try:
            secret = self._secret_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConnectionError(f"cannot read the link secret: {exc}") from exc
        if len(secret) < 16:
            raise ConnectionError(f"the link secret in {self._secret_file} is too short")
        return secret

    async def _send_all(self, writer: asyncio.StreamWriter, queue: asyncio.Queue) -> None:
        while True:
            event = await queue.get()
            writer.write(json.dumps(event, ensure_ascii=False).encode() + b"\n")
            await writer.drain()

    async def _receive_all(self, reader: asyncio.StreamReader) -> None:
        while True:
            line = await reader.readline()
            if not line:
                raise ConnectionError("the gateway closed the link")
            message = _decode(line)
            if message is None:
                logger.warning("[aria] ignoring a malformed line from the gateway")
                continue
            try:
                await self._on_message(message)
            except Exception:
                logger.exception("[aria] handling %s failed", message.get("type"))


def _decode(line: bytes) -> Optional[dict]:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
