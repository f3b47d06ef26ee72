"""The `aria` platform adapter: Hermes's gateway sees aria threads as chats.

Each aria thread is one Hermes chat (``chat_id`` = the thread's id), so
Hermes keeps one session per thread with its own transcript, tool calls
and todo list. What Hermes sends is forwarded as link events; what the
gateway asks (a user's message, Stop, an approval's answer) enters Hermes
the way its own platforms' input does.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from typing import Any, Dict, Optional

from gateway.config import Platform, PlatformConfig
from gateway.platforms.base import (
    BasePlatformAdapter,
    MessageEvent,
    MessageType,
    ProcessingOutcome,
    SendResult,
)

from . import files, mapping
from .hooks import PLATFORM, Hooks
from .link import LinkClient, LinkError
from .rewind import Rewind

# Hermes routes `hermes_plugins.*` records to its gateway.log.
logger = logging.getLogger("hermes_plugins.aria")

ADDRESS_ENV = "ARIA_LINK_ADDRESS"
SECRET_FILE_ENV = "ARIA_LINK_SECRET_FILE"
# Longest user message accepted from the link (the gateway caps its own).
MAX_INPUT_CHARS = 1024 * 1024
# How long a turn waits for a run it stopped (one Hermes started by itself).
STOP_WAIT_SECS = 15.0
# How long after a chat's first answer Hermes's title of its session is
# looked for (Hermes makes it in the background, with a model call), and
# how often.
TITLE_WAIT_SECS = 60.0
TITLE_POLL_SECS = 1.0


def link_settings(config: PlatformConfig) -> tuple[str, str]:
    """The link's address and secret file, from the platform's `extra`
    settings or the environment; `LinkError` says what is missing."""
    extra = config.extra or {}
    address = str(extra.get("link_address") or os.getenv(ADDRESS_ENV) or "")
    secret_file = str(extra.get("link_secret_file") or os.getenv(SECRET_FILE_ENV) or "")
    if not address or not secret_file:
        raise LinkError(
            f"set platforms.aria.extra.link_address and link_secret_file "
            f"(or {ADDRESS_ENV} and {SECRET_FILE_ENV})"
        )
    return address, secret_file


def _streaming_cursor() -> str:
    """The cursor Hermes's stream consumer appends while a reply streams."""
    try:
        from gateway.config import load_gateway_config

        return load_gateway_config().streaming.cursor or ""
    except Exception:  # no readable config: Hermes uses its default
        from gateway.config import DEFAULT_STREAMING_CURSOR

        return DEFAULT_STREAMING_CURSOR


def _hermes_home():
    from hermes_constants import get_hermes_home

    return get_hermes_home()


class AriaAdapter(BasePlatformAdapter):
    # aria renders markdown and code blocks itself.
    supports_code_blocks = True
    # A turn of aria's is a message and its answer: what would come back
    # after it (a background delegation's result, a watched command's
    # end) would land in no turn. Hermes then runs those within the turn,
    # so a delegation's sub-agent works under its card (§14).
    supports_async_delivery = False

    def __init__(self, config: PlatformConfig, hooks: Hooks) -> None:
        super().__init__(config, Platform(PLATFORM))
        self._hooks = hooks
        self._rewind = Rewind(_hermes_home() / "aria" / "turns", self._ask_path)
        # Each chat's turns and Stops, handled in order off the link's reader
        # (a turn may wait for the gateway's answer to a path request).
        self._in_order: Dict[str, asyncio.Lock] = {}
        self._tasks: set = set()
        self._link: Optional[LinkClient] = None
        # The gateway's turn each chat is answering; events carry it so a
        # late event of a stopped turn never lands in the next one.
        self._turns: Dict[str, str] = {}
        # The gateway's messages being processed: event id -> turn. Only
        # their completion ends a turn (Hermes also runs turns of its own,
        # e.g. resuming a session a restart interrupted).
        self._inbound: Dict[str, str] = {}
        # Those not started yet, by chat. Hermes joins a message still
        # queued when its turn was stopped to the next one, under the older
        # message's id: that message then answers the new turn.
        self._queued: Dict[str, str] = {}
        # Chats where a run Hermes started by itself (resuming a session a
        # restart cut short) came after the gateway's last one: what they
        # say belongs to no turn. The event is set when that run ends.
        self._foreign: Dict[str, asyncio.Event] = {}
        # Chats whose session title was looked for since Hermes started.
        self._titled: set = set()
        # The pieces of the files of each chat's next turn.
        self._inbox = files.Inbox()
        # Approval requests waiting for an answer: id -> (chat, session key).
        self._approvals: Dict[str, tuple[str, str]] = {}
        # The stream consumer's cursor, which an unfinished snapshot ends with.
        self._cursor = _streaming_cursor()

    @property
    def authorization_is_upstream(self) -> bool:
        # The aria gateway authenticates its users and the link is
        # authenticated by its secret: there is no Hermes-side allowlist.
        return True

    # -- lifecycle ----------------------------------------------------------

    async def connect(self, *, is_reconnect: bool = False) -> bool:
        try:
            address, secret_file = link_settings(self.config)
            self._link = LinkClient(address, secret_file, self.on_link_message, self._started)
        except LinkError as exc:
            self._set_fatal_error("aria_link", str(exc), retryable=False)
            logger.error("[aria] %s", exc)
            return False
        self._link.start()
        loop = asyncio.get_running_loop()
        # Hooks run in agent threads: their events join the loop's order.
        self._hooks.attach(lambda event: loop.call_soon_threadsafe(self._emit, event))
        self._mark_connected()
        return True

    async def _started(self) -> None:
        """Waits until Hermes's gateway takes messages: while it starts up
        (restoring interrupted sessions) it queues them and reports them
        processed at once, which would end a turn before it ran."""
        while True:
            runner = getattr(self._message_handler, "__self__", None)
            if self._message_handler is not None and not getattr(
                runner, "_startup_restore_in_progress", False
            ):
                return
            await asyncio.sleep(0.1)

    async def disconnect(self) -> None:
        self._hooks.attach(None)
        if self._link is not None:
            await self._link.stop()
        self._mark_disconnected()

    async def get_chat_info(self, chat_id: str) -> Dict[str, Any]:
        return {"name": f"aria/{chat_id}", "type": "dm"}

    # -- Hermes -> gateway ----------------------------------------------------

    def _emit(self, event: dict) -> None:
        chat_id = event.get("chat_id", "")
        turn_id = self._turns.get(chat_id)
        # The run a hook's event comes from, when Hermes's context names it:
        # only the run of the turn's own message speaks for the turn.
        run = event.pop("run", "")
        if run:
            if self._inbound.get(run) != turn_id:
                turn_id = None
        elif chat_id in self._foreign:
            turn_id = None
        event["turn_id"] = turn_id
        if self._link is not None:
            self._link.emit(event)

    async def send(
        self,
        chat_id: str,
        content: str,
        reply_to: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
    ) -> SendResult:
        message_id = f"h-{uuid.uuid4().hex[:16]}"
        reasoning, text = mapping.split_reasoning(mapping.strip_cursor(content or "", self._cursor))
        self._emit(
            {
                "type": "send",
                "chat_id": chat_id,
                "message_id": message_id,
                "text": text,
                "reasoning": reasoning,
                # The stream consumer's first send of a bubble it will edit.
                "streaming": bool(metadata and metadata.get("expect_edits")),
            }
        )
        return SendResult(success=True, message_id=message_id)

    async def edit_message(
        self, chat_id: str, message_id: str, content: str, *, finalize: bool = False
    ) -> SendResult:
        reasoning, text = mapping.split_reasoning(mapping.strip_cursor(content or "", self._cursor))
        self._emit(
            {
                "type": "edit",
                "chat_id": chat_id,
                "message_id": message_id,
                "text": text,
                "reasoning": reasoning,
                "final": bool(finalize),
            }
        )
        return SendResult(success=True, message_id=message_id)

    async def send_typing(self, chat_id: str, metadata=None) -> None:
        self._emit({"type": "typing", "chat_id": chat_id, "on": True})

    async def stop_typing(self, chat_id: str) -> None:
        self._emit({"type": "typing", "chat_id": chat_id, "on": False})

    async def send_exec_approval(
        self,
        chat_id: str,
        command: str,
        session_key: str,
        description: str = "dangerous command",
        metadata: Optional[Dict[str, Any]] = None,
        allow_permanent: bool = True,
        smart_denied: bool = False,
    ) -> SendResult:
        approval_id = f"a-{uuid.uuid4().hex[:16]}"
        self._approvals[approval_id] = (chat_id, session_key)
        self._emit(
            {
                "type": "approval",
                "chat_id": chat_id,
                "approval_id": approval_id,
                "command": command,
                "description": description,
                "choices": mapping.approval_choices(allow_permanent, smart_denied),
            }
        )
        return SendResult(success=True, message_id=approval_id)

    # Files Hermes delivers with an answer (MEDIA tags, local paths it
    # names) come here: they go to the gateway, which attaches them to the
    # answer. Audio and video too: the gateway says when it takes no such
    # file, rather than Hermes's fallback posting a message of its own.

    async def send_image_file(
        self, chat_id: str, image_path: str, caption=None, reply_to=None, metadata=None, **kwargs
    ) -> SendResult:
        return await self._send_file(chat_id, image_path)

    async def send_document(
        self, chat_id: str, file_path: str, caption=None, file_name=None, reply_to=None, metadata=None, **kwargs
    ) -> SendResult:
        return await self._send_file(chat_id, file_path, file_name)

    async def send_video(
        self, chat_id: str, video_path: str, caption=None, reply_to=None, metadata=None, **kwargs
    ) -> SendResult:
        return await self._send_file(chat_id, video_path)

    async def send_voice(
        self, chat_id: str, audio_path: str, caption=None, reply_to=None, metadata=None, **kwargs
    ) -> SendResult:
        return await self._send_file(chat_id, audio_path)

    async def _send_file(self, chat_id: str, path: str, name: Optional[str] = None) -> SendResult:
        file_id = f"f-{uuid.uuid4().hex[:16]}"
        shown = name or os.path.basename(str(path)) or "file"
        # Hermes's own guard: no credential or system file leaves.
        safe = self.validate_media_delivery_path(str(path))
        if safe is None:
            data, why = None, "Hermes does not deliver that path"
        else:
            data, why = await asyncio.to_thread(files.read_outbound, safe)
        if data is None:
            self._emit({"type": "file", "chat_id": chat_id, "file_id": file_id, "name": shown, "error": why})
            return SendResult(success=False, error=why)
        for piece in files.pieces(chat_id, file_id, shown, data):
            self._emit(piece)
        return SendResult(success=True, message_id=file_id)

    async def on_processing_start(self, event: MessageEvent) -> None:
        chat_id = event.source.chat_id if event.source else ""
        if not chat_id:
            return
        if (event.message_id or "") in self._inbound:
            self._queued.pop(event.message_id or "", None)
            self._foreign.pop(chat_id, None)
            return
        running = self._foreign.get(chat_id)
        if running is None or running.is_set():
            logger.info("[aria] thread %s: a run of Hermes's own starts", chat_id)
            self._foreign[chat_id] = asyncio.Event()

    async def on_processing_complete(self, event: MessageEvent, outcome: ProcessingOutcome) -> None:
        self._queued.pop(event.message_id or "", None)
        turn_id = self._inbound.pop(event.message_id or "", None)
        chat_id = event.source.chat_id if event.source else ""
        if turn_id is None:
            foreign = self._foreign.get(chat_id)
            if foreign is not None:
                foreign.set()
        if turn_id is None or self._turns.get(chat_id) != turn_id:
            return
        self._emit(
            {
                "type": "done",
                "chat_id": chat_id,
                "outcome": outcome.value,
                "model": self._hooks.model_of(chat_id),
                "tokens": self._hooks.tokens_of(chat_id),
                "reasoning": self._hooks.reasoning_of(chat_id),
            }
        )
        self._turns.pop(chat_id, None)
        if chat_id not in self._titled and event.source is not None:
            self._titled.add(chat_id)
            asyncio.get_running_loop().create_task(self._send_title(event.source))

    async def _send_title(self, source) -> None:
        """Hermes titles a session in the background after its first
        exchange and tells only Telegram and Discord threads: the title is
        read back from its session store and sent to the gateway."""
        runner = getattr(self._message_handler, "__self__", None)
        store = getattr(runner, "session_store", None)
        db = getattr(store, "_db", None)
        if db is None:
            return

        def title() -> str:
            entry = store.get_or_create_session(source)
            return db.get_session_title(entry.session_id) or ""

        waited = 0.0
        while waited < TITLE_WAIT_SECS:
            try:
                found = await asyncio.to_thread(title)
            except Exception:
                logger.debug("[aria] cannot read the session title", exc_info=True)
                return
            if found:
                self._emit({"type": "title", "chat_id": source.chat_id, "title": found})
                return
            await asyncio.sleep(TITLE_POLL_SECS)
            waited += TITLE_POLL_SECS

    # -- gateway -> Hermes ----------------------------------------------------

    async def on_link_message(self, message: dict) -> None:
        kind = message.get("type")
        chat_id = message.get("chat_id")
        if not isinstance(chat_id, str) or not chat_id:
            return
        if kind == "turn":
            # The files' pieces came before the turn: taken now, in order.
            turn_id = str(message.get("turn_id"))
            taken = self._inbox.take(chat_id, turn_id, message.get("files"))
            self._later(chat_id, self._start_turn(chat_id, message, taken), turn_id)
        elif kind == "cancel":
            self._later(chat_id, self._cancel(chat_id))
        elif kind == "path":
            self._rewind.path_arrived(chat_id, message)
        elif kind == "approve":
            self._answer(chat_id, message)
        elif kind == "file":
            self._inbox.piece(chat_id, message)

    def _later(self, chat_id: str, work, turn_id: Optional[str] = None) -> None:
        """Runs ``work`` after the chat's earlier turns and Stops; if it
        fails, the turn ``turn_id`` (never handed to Hermes) ends at once."""
        lock = self._in_order.setdefault(chat_id, asyncio.Lock())

        async def in_order() -> None:
            async with lock:
                try:
                    await work
                except Exception:
                    logger.exception("[aria] thread %s: handling the gateway's message failed", chat_id)
                    if turn_id is not None and self._link is not None:
                        self._link.emit(
                            {"type": "done", "chat_id": chat_id, "turn_id": turn_id,
                             "outcome": "failure"}
                        )

        # The loop keeps only weak references to its tasks.
        task = asyncio.get_running_loop().create_task(in_order())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _ask_path(self, chat_id: str, turn_id: str) -> None:
        if self._link is not None:
            self._link.emit({"type": "path.need", "chat_id": chat_id, "turn_id": turn_id})

    def _event(self, chat_id: str, text: str) -> MessageEvent:
        message_id = f"u-{uuid.uuid4().hex[:16]}"
        # The source names the message too: Hermes puts it in the run's
        # context, where the hooks read which run they are part of.
        source = self.build_source(
            chat_id=chat_id,
            chat_name=f"aria thread {chat_id}",
            chat_type="dm",
            user_id="aria-user",
            user_name="aria",
            message_id=message_id,
        )
        return MessageEvent(
            text=text,
            message_type=MessageType.TEXT,
            source=source,
            message_id=message_id,
        )

    async def _start_turn(self, chat_id: str, message: dict, taken: list) -> None:
        text = message.get("text")
        turn_id = message.get("turn_id")
        if not isinstance(text, str) or not isinstance(turn_id, str):
            return
        self._turns[chat_id] = turn_id
        self._hooks.begin_turn(chat_id)
        event = self._event(chat_id, text[:MAX_INPUT_CHARS])
        if taken:
            await asyncio.to_thread(files.attach, event, taken)
        await self._stop_foreign_run(chat_id)
        follows = message.get("follows")
        if "follows" in message and (follows is None or isinstance(follows, str)):
            runner = getattr(self._message_handler, "__self__", None)
            await self._rewind.follow(runner, event.source, turn_id, follows)
        for queued, chat in self._queued.items():
            if chat == chat_id:
                self._inbound[queued] = turn_id
        self._inbound[event.message_id] = turn_id
        self._queued[event.message_id] = chat_id
        await self.handle_message(event)

    async def _stop_foreign_run(self, chat_id: str) -> None:
        """A run Hermes started by itself in this chat (resuming one a
        restart cut short) is stopped before the turn: the user asks anew."""
        foreign = self._foreign.get(chat_id)
        if foreign is None or foreign.is_set():
            return
        await self.handle_message(self._event(chat_id, "/stop"))
        try:
            await asyncio.wait_for(foreign.wait(), STOP_WAIT_SECS)
        except asyncio.TimeoutError:
            logger.warning("[aria] thread %s: Hermes's own run did not stop", chat_id)

    async def _cancel(self, chat_id: str) -> None:
        """Stop, the way a user of Hermes's own platforms stops a run."""
        self._turns.pop(chat_id, None)
        for approval_id, (chat, _) in list(self._approvals.items()):
            if chat == chat_id:
                self._approvals.pop(approval_id, None)
        await self.handle_message(self._event(chat_id, "/stop"))

    def _answer(self, chat_id: str, message: dict) -> None:
        """An approval's answer, resolved as Hermes's Telegram buttons do."""
        approval_id = message.get("approval_id")
        choice = message.get("choice")
        waiting = self._approvals.get(approval_id) if isinstance(approval_id, str) else None
        if waiting is None or waiting[0] != chat_id or choice not in mapping.APPROVAL_CHOICES:
            return
        del self._approvals[approval_id]
        from tools.approval import resolve_gateway_approval

        resolve_gateway_approval(waiting[1], choice)
        self.resume_typing_for_chat(chat_id)
