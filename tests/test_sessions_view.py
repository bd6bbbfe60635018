"""The web UI's conversation page reads a session a page at a time (``Memory.session_view``): never
the whole file for a page, in bounded memory whatever the file's size, the same messages at the
same numbers as the whole-file loader, and appends, replacements and rewrites in place seen
correctly. Speed is in bench/session_pages.py (not timed here)."""

from __future__ import annotations

import os
import tracemalloc

import orjson
import pytest

import reverie
from reverie.storage import sessions_view


def _line(i: int, size: int = 60) -> bytes:
    role = "user" if i % 2 == 0 else "assistant"
    return orjson.dumps({"role": role, "content": f"message {i} " + "x" * size}) + b"\n"


def _write(ws, n: int, size: int = 60, offset: int = 0) -> None:
    path = ws / "sessions" / "cli_big.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"_type": "metadata", "key": "cli:big", "last_consolidated": offset}
    with open(path, "wb") as f:
        f.write(orjson.dumps(meta) + b"\n")
        f.writelines(_line(i, size) for i in range(n))


@pytest.fixture(autouse=True)
def _fresh_scans():
    sessions_view._SCANS.clear()
    yield
    sessions_view._SCANS.clear()


def test_a_view_holds_the_same_messages_as_the_loader(tmp_path):
    ws = tmp_path / "ws"
    _write(ws, 5_000, size=400, offset=1234)  # ~2.3 MB: several blocks and checkpoints
    with reverie.open(ws) as memory:
        whole = memory.session("cli:big")
        view = memory.session_view("cli:big")
        assert view is not None and whole is not None
        try:
            assert len(view.messages) == len(whole.messages) == 5_000
            assert view.last_consolidated == whole.last_consolidated == 1234
            for i in (0, 1, 2_499, 2_500, 4_899, 4_999, -1):
                assert view.messages[i] == whole.messages[i]
            assert view.messages[4_900:] == whole.messages[4_900:]
            assert list(view.messages)[::997] == whole.messages[::997]
        finally:
            view.messages.close()
        assert memory.session_view("nobody:here") is None


def test_a_page_of_a_big_session_never_reads_it_whole(tmp_path, monkeypatch):
    """A 64 MB session: Python's peak for the newest page stays near one block (1 MiB), and no
    read asks for more than a block."""
    ws = tmp_path / "ws"
    _write(ws, 64 * 1024, size=1000)
    biggest = []
    real = os.pread

    def pread(fd: int, n: int, offset: int) -> bytes:
        biggest.append(n)
        return real(fd, n, offset)

    monkeypatch.setattr(sessions_view.os, "pread", pread)
    with reverie.open(ws) as memory:
        size = (ws / "sessions" / "cli_big.jsonl").stat().st_size
        assert size > 64_000_000
        tracemalloc.start()
        try:
            view = memory.session_view("cli:big")
            n = len(view.messages)
            page = [view.messages[i] for i in range(n - 100, n)]
            view.messages.close()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert page[-1]["content"].startswith(f"message {n - 1} ")
    assert max(biggest) <= sessions_view.BLOCK
    assert peak < 8 * sessions_view.BLOCK, f"peak {peak / 2**20:.1f} MiB for a page"


def test_appends_are_counted_and_a_replaced_or_rewritten_file_is_scanned_again(tmp_path):
    ws = tmp_path / "ws"
    _write(ws, 3_000, size=500)
    path = ws / "sessions" / "cli_big.jsonl"
    with reverie.open(ws) as memory:
        memory.session_view("cli:big").messages.close()  # scanned once
        with open(path, "ab") as f:  # appended in place (what Reverie and nanobot's appends do)
            f.writelines(_line(i) for i in range(3_000, 3_010))
            f.write(b'{"role": "user", "content": "in fli')  # an append in flight: not counted
        view = memory.session_view("cli:big")
        assert len(view.messages) == 3_010
        assert view.messages[-1]["content"].startswith("message 3009 ")
        view.messages.close()

        _write(ws, 10)  # rewritten in place, shorter (the same inode)
        view = memory.session_view("cli:big")
        assert len(view.messages) == 10 and view.messages[9]["content"].startswith("message 9 ")
        view.messages.close()

        with open(path, "r+b") as f:  # rewritten in place, longer, different first messages
            f.write(b'{"_type": "metadata", "key": "cli:big", "last_consolidated": 0}\n')
            f.writelines(_line(i + 100, 80) for i in range(4_000))
        view = memory.session_view("cli:big")
        assert len(view.messages) == 4_000
        assert view.messages[0]["content"].startswith("message 100 ")
        view.messages.close()


def test_damaged_lines_keep_their_numbers_and_say_so(tmp_path):
    ws = tmp_path / "ws"
    _write(ws, 10)
    path = ws / "sessions" / "cli_big.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[4] = b"\xff\xfe not json"
    path.write_bytes(b"\n".join(lines))
    with reverie.open(ws) as memory:
        view = memory.session_view("cli:big")
        try:
            assert len(view.messages) == 10
            assert view.messages[3]["role"] == "unreadable"
            assert "line 5 of the file" in view.messages[3]["content"]
            assert view.messages[4]["content"].startswith("message 4 ")
        finally:
            view.messages.close()


def test_the_ui_page_of_a_big_session_shows_its_newest_messages(tmp_path):
    """Through the web app, as a browser asks: the newest page, then a page by message number."""
    from support.ui_app import signed_in

    token = "t0k3n-" + "x" * 30
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.init()
    _write(ws, 20_000, size=200)
    with reverie.open(ws) as memory:
        with signed_in(memory, token, "server-id-" + "x" * 12) as c:
            page = c.get("/session", params={"key": "cli:big"})
            assert page.status_code == 200
            assert "message 19999 " in page.text and "message 19899 " not in page.text
            hit = c.get("/session", params={"key": "cli:big", "message": "12345"})
            assert hit.status_code == 200 and "message 12345 " in hit.text


def test_threads_sharing_one_memory_page_through_a_session_being_appended_to(tmp_path):
    """Six threads open views of two sessions at once while a seventh appends to one of them
    (through Memory.record, as a chat does): every view reads whole messages, in order, and its
    count only grows."""
    import threading

    ws = tmp_path / "ws"
    _write(ws, 2_000, size=300)
    with reverie.open(ws) as memory:
        memory.record("cli:other", [{"role": "user", "content": f"other {i}"} for i in range(50)])
        stop = threading.Event()
        errors: list[BaseException] = []

        def append() -> None:
            i = 0
            while not stop.is_set():
                memory.record(
                    "cli:big", [{"role": "user", "content": f"late {i}"}], consolidate=False
                )
                i += 1

        def read(key: str) -> None:
            seen = 0
            try:
                for _ in range(20):
                    view = memory.session_view(key)
                    try:
                        n = len(view.messages)
                        assert n >= seen
                        seen = n
                        page = [view.messages[i] for i in range(max(0, n - 100), n)]
                        assert all(m["role"] in ("user", "assistant") for m in page)
                    finally:
                        view.messages.close()
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        writer = threading.Thread(target=append)
        writer.start()
        readers = [
            threading.Thread(target=read, args=("cli:big" if i % 2 else "cli:other",))
            for i in range(6)
        ]
        for t in readers:
            t.start()
        for t in readers:
            t.join(120)
        stop.set()
        writer.join(60)
        assert not errors, errors
        whole = memory.session("cli:big")
        view = memory.session_view("cli:big")
        try:
            assert len(view.messages) == len(whole.messages)
            assert view.messages[-1] == whole.messages[-1]
        finally:
            view.messages.close()


def test_an_event_loop_awaits_the_view_and_a_symlink_is_not_followed(tmp_path):
    import asyncio

    from reverie.errors import SessionError

    ws = tmp_path / "ws"
    _write(ws, 300)
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b'{"role": "user", "content": "a secret from elsewhere"}\n')
    with reverie.open(ws) as memory:

        async def page() -> int:
            view = await memory.asession_view("cli:big")
            try:
                return len(view.messages)
            finally:
                view.messages.close()

        assert asyncio.run(page()) == 300
        path = memory.runtime.sessions.path_for("cli:big")
        path.unlink()
        path.symlink_to(outside)  # swapped in after the path was checked: open_view refuses it
        with pytest.raises(SessionError, match="symbolic link"):
            sessions_view.open_view(path)


def test_a_view_sent_to_another_process_opens_the_file_again(tmp_path):
    """A view pickled (an async verb run in a worker process sends its result back) reopens the
    file where it lands; it never carries a descriptor number that would close another file."""
    import pickle

    ws = tmp_path / "ws"
    _write(ws, 50)
    with reverie.open(ws) as memory:
        view = memory.session_view("cli:big")
        other = os.open(os.devnull, os.O_RDONLY)
        try:
            copy = pickle.loads(pickle.dumps(view))
            assert len(copy.messages) == 50 and copy.messages[7] == view.messages[7]
            copy.messages.close()
            del copy
            os.fstat(other)  # still open
        finally:
            view.messages.close()
            os.close(other)
