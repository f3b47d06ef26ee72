"""Files both ways, with Hermes's own event class and media cache."""

import asyncio
import base64
from pathlib import Path

from gateway.platforms.base import MessageEvent, MessageType

from aria_hermes import files
from test_adapter import linked

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def pieces_of(turn_id, file_id, data, size=files.CHUNK_BYTES):
    return [
        {"type": "file", "turn_id": turn_id, "file_id": file_id, "offset": at,
         "data": base64.b64encode(data[at:at + size]).decode()}
        for at in range(0, len(data), size)
    ]


def test_pieces_make_the_turns_files_and_strays_are_dropped():
    inbox = files.Inbox()
    big = bytes(range(256)) * 5000  # over two pieces
    for piece in pieces_of("t1", "f1", big) + pieces_of("t1", "f2", b"hello"):
        inbox.piece("c1", piece)
    # Pieces of a turn that never came are forgotten by the next turn's.
    inbox.piece("c2", pieces_of("t0", "old", b"stale")[0])
    inbox.piece("c2", pieces_of("t9", "new", b"fresh")[0])
    refs = [{"file_id": "f1", "name": "a.bin", "size": len(big)},
            {"file_id": "f2", "name": "b.txt", "size": 5},
            {"file_id": "gone", "name": "c.txt", "size": 3}]
    taken = inbox.take("c1", "t1", refs)
    assert [data for _, data in taken] == [big, b"hello", None]
    assert inbox.take("c1", "t1", refs)[0][1] is None
    assert [d for _, d in inbox.take("c2", "t9", [{"file_id": "new", "size": 5}])] == [b"fresh"]
    assert inbox.take("c2", "t9", [{"file_id": "old", "size": 5}])[0][1] is None


def test_bad_pieces_refuse_their_file_not_the_others():
    inbox = files.Inbox()
    ok = pieces_of("t1", "ok", b"fine")
    out_of_order = pieces_of("t1", "skip", b"x" * 20, size=10)[1:]
    not_base64 = [{"type": "file", "turn_id": "t1", "file_id": "junk", "offset": 0, "data": "%%%"}]
    repeated = pieces_of("t1", "twice", b"abc") * 2
    for piece in ok + out_of_order + not_base64 + repeated + [{"turn_id": 5}]:
        inbox.piece("c1", piece)
    refs = [{"file_id": f, "size": s} for f, s in
            [("ok", 4), ("skip", 20), ("junk", 1), ("twice", 3)]]
    assert [d for _, d in inbox.take("c1", "t1", refs)] == [b"fine", None, None, None]


def test_attach_hands_hermes_photos_and_documents_like_telegram():
    event = MessageEvent(text="what is this?")
    notes = "line one\nline two\n"
    files.attach(event, [
        ({"name": "pixel.png", "mime": "image/png"}, PNG),
        ({"name": "../notes.txt", "mime": "text/plain"}, notes.encode()),
        ({"name": "fake.png", "mime": "image/png"}, b"<svg onload=alert(1)>"),
        ({"name": "lost.pdf", "mime": "application/pdf"}, None),
    ])
    assert event.message_type == MessageType.DOCUMENT
    assert event.media_types == ["image/png", "text/plain"]
    image, document = (Path(p) for p in event.media_urls)
    assert image.read_bytes() == PNG and image.suffix == ".png"
    # Cached under Hermes's document cache, never where the name points.
    assert document.read_bytes() == notes.encode()
    assert document.name.endswith("_notes.txt") and document.parent.name == "documents"
    assert event.text.endswith("\n\nwhat is this?")
    assert "[Content of notes.txt]:\nline one\nline two\n" in event.text
    assert "[The image 'fake.png' could not be read as an image]" in event.text
    assert "[The file 'lost.pdf' did not arrive]" in event.text

    photo = MessageEvent(text="")
    files.attach(photo, [({"name": "p.png", "mime": "image/png"}, PNG)])
    assert photo.message_type == MessageType.PHOTO and photo.text == ""


def test_the_turns_files_reach_the_message_hermes_gets(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        handled = []

        async def handle(event):
            handled.append(event)

        adapter.handle_message = handle
        for piece in pieces_of("t1", "f1", PNG):
            gateway.tell({**piece, "chat_id": "c1"})
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t1", "text": "look",
                      "files": [{"file_id": "f1", "name": "p.png", "mime": "image/png",
                                 "size": len(PNG)}]})
        await asyncio.sleep(0.3)
        (event,) = handled
        assert event.message_type == MessageType.PHOTO and event.text == "look"
        assert Path(event.media_urls[0]).read_bytes() == PNG
        await adapter.disconnect()

    asyncio.run(scenario())


def test_files_hermes_sends_go_to_the_gateway_in_pieces(tmp_path):
    async def scenario():
        gateway, adapter = await linked(tmp_path)
        report = tmp_path / "report.txt"
        report.write_bytes(b"r" * (files.CHUNK_BYTES + 10))
        sent = await adapter.send_document("c1", str(report))
        assert sent.success
        first, second = await gateway.next("file"), await gateway.next("file")
        assert first["name"] == "report.txt" and first["file_id"] == second["file_id"]
        assert (first["offset"], first["last"]) == (0, False)
        assert (second["offset"], second["last"]) == (files.CHUNK_BYTES, True)
        got = base64.b64decode(first["data"]) + base64.b64decode(second["data"])
        assert got == report.read_bytes()
        # Hermes's own guard: a credential or system file never leaves.
        refused = await adapter.send_image_file("c1", "/etc/passwd")
        assert not refused.success
        note = await gateway.next("file")
        assert note["error"] and "data" not in note
        await adapter.disconnect()

    asyncio.run(scenario())


def test_a_long_name_is_cut_for_the_cache_and_its_extension_kept():
    event = MessageEvent(text="")
    long_name = "\u6587" * 200 + ".md"  # 600 bytes of name
    files.attach(event, [({"name": long_name, "mime": "text/plain"}, b"# Title\n")])
    (path,) = event.media_urls
    cached = Path(path)
    assert cached.read_bytes() == b"# Title\n" and cached.suffix == ".md"
    assert len(cached.name.encode("utf-8")) <= 255
    assert "# Title" in event.text


def test_a_turn_the_plugin_cannot_start_ends_at_once(tmp_path, monkeypatch):
    def broken(event, taken):
        raise RuntimeError("the cache is gone")

    monkeypatch.setattr(files, "attach", broken)

    async def scenario():
        gateway, adapter = await linked(tmp_path)
        for piece in pieces_of("t1", "f1", PNG):
            gateway.tell({**piece, "chat_id": "c1"})
        gateway.tell({"type": "turn", "chat_id": "c1", "turn_id": "t1", "text": "look",
                      "files": [{"file_id": "f1", "name": "p.png", "mime": "image/png",
                                 "size": len(PNG)}]})
        done = await gateway.next("done")
        assert (done["turn_id"], done["outcome"]) == ("t1", "failure")
        await adapter.disconnect()

    asyncio.run(scenario())
