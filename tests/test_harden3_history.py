"""``history.jsonl`` read past a cursor is right for any order of cursors: a writer that takes no
lock (nanobot, numbering from a stale ``.cursor``) leaves a low-cursor line among higher ones, and
the line stays there after Dream requeues a copy of it (``requeued_from``). ``read_since`` bisects
byte offsets; a probe landing on such a line must not skip the entries before it (a hostile tester
saw ``Memory.history(since=...)`` drop entries on a log over 8 KB)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import reverie


def _nanobot_line(path: Path, cursor: int, text: str) -> None:
    line = {"cursor": cursor, "timestamp": "2026-01-01 10:05", "content": text}
    with open(path, "ab") as f:
        f.write(orjson.dumps(line) + b"\n")


@pytest.mark.parametrize("late_at", [5, 120, 170, 199])
def test_a_late_low_cursor_line_never_hides_the_entries_around_it(
    tmp_path: Path, late_at: int
) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        store = memory.runtime.store
        path = store.history.path
        for n in range(1, 201):
            store.append_history(f"User: fact number {n} about the garden, the bikes and tea")
            if n == late_at:
                _nanobot_line(path, 5, "User: I prefer Rust over Go")  # nanobot, stale .cursor
        assert path.stat().st_size > 2 * 8 * 1024  # bisected: more than one 8 KB linear window
        for since in (0, 3, 4, 5, 60, 120, 150, 190, 199):
            got = [e.cursor for e in memory.history(since=since)]
            want = sorted([*range(since + 1, 201), *([5] if 5 > since else [])])
            assert got == want, since
            assert [e.cursor for e in memory.history(since=since, limit=3)] == want[:3]
        # Dream requeues the late line as a new entry; the old one stays, and reads stay right
        store.history.requeue_late(200)
        assert [e.cursor for e in memory.history(since=150)][-1] == 201
        assert len(memory.history(since=150)) == 51
        # an append after the late line and another process's read (no in-memory state)
        store.append_history("User: the last word")
    with reverie.open(tmp_path / "ws") as again:
        assert [e.cursor for e in again.history(since=180)] == [*range(181, 203)]
