"""A history entry nanobot appended late (a stale ``.cursor``: ``100`` then ``5``) is dreamed, never
lost: Dream's read (``HistoryLog.read_pending``) requeues it with a fresh cursor, once.

``history.jsonl`` read past a cursor is right for any order of cursors: a writer that takes no
lock (nanobot, numbering from a stale ``.cursor``) leaves a low-cursor line among higher ones, and
the line stays there after Dream requeues a copy of it (``requeued_from``). ``read_since`` bisects
byte offsets; a probe landing on such a line must not skip the entries before it (a hostile tester
saw ``Memory.history(since=...)`` drop entries on a log over 8 KB)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import reverie
from reverie.storage.history import REQUEUED_FROM, HistoryLog


def _line(cursor: int, content: str) -> str:
    return json.dumps({"cursor": cursor, "timestamp": "2026-01-01 10:00", "content": content})


def _log(tmp_path: Path) -> HistoryLog:
    mem = tmp_path / "memory"
    mem.mkdir(exist_ok=True)
    return HistoryLog(mem / "history.jsonl", mem / ".cursor", mem / ".dream_cursor", fsync=False)


def _append_raw(log: HistoryLog, *lines: str) -> None:
    with open(log.path, "a") as f:
        f.write("".join(line + "\n" for line in lines))


def test_an_entry_appended_below_the_dream_cursor_is_read_once_with_a_new_cursor(tmp_path):
    log = _log(tmp_path)
    _append_raw(log, _line(1, "User: I live in Madrid"), _line(100, "User: I work at Initech"))
    assert [e.cursor for e in log.read_pending(0)] == [1, 100]  # Dream's read, then it moves to 100
    _append_raw(log, _line(5, "User: I prefer Rust over Go"))  # nanobot, from a stale .cursor
    assert log.count_since(100) == 1  # status counts it as pending (and writes nothing)
    pending = log.read_pending(100)
    assert [(e.cursor, e.content, e.extra.get(REQUEUED_FROM)) for e in pending] == [
        (101, "User: I prefer Rust over Go", 5)
    ]
    assert log.read_pending(101) == []  # once: the copy is read, the original not again
    assert log.count_since(101) == 0
    assert log.append("User: later") == 102  # cursors stay unique


def test_an_out_of_order_entry_above_the_dream_cursor_is_read_in_place_not_copied(tmp_path):
    log = _log(tmp_path)
    _append_raw(log, _line(1, "a"), _line(100, "b"), _line(5, "c"))  # all before Dream's first read
    assert [e.cursor for e in log.read_pending(0)] == [1, 5, 100]
    assert log.read_pending(100) == []  # 5 was read: never requeued (no twice-dreamed entry)
    assert "requeued_from" not in log.path.read_text()


def test_without_a_mark_a_late_entry_not_yet_requeued_is_requeued_once(tmp_path):
    """A log Dream read before this mark existed (or another tool rewrote): out-of-order entries at
    or below the cursor are requeued, each once, even if the mark is lost again."""
    log = _log(tmp_path)
    _append_raw(log, _line(1, "a"), _line(100, "b"), _line(5, "late"))
    assert [e.extra[REQUEUED_FROM] for e in log.read_pending(100)] == [5]
    log.dreamed_path.unlink()
    assert log.read_pending(101) == []


def test_compaction_keeps_a_late_entry_dreamable(tmp_path):
    log = _log(tmp_path)
    _append_raw(log, *(_line(n, f"e{n}") for n in range(1, 101)))
    log.read_pending(0)
    _append_raw(log, _line(3, "late three"))
    assert log.compact(keep_last=10, dream_cursor=100) > 0
    assert [(e.content, e.cursor) for e in log.read_pending(100)] == [("late three", 101)]


def test_reverie_dream_reads_an_entry_nanobot_appended_below_its_cursor(tmp_path):
    """The hostile report's case end to end: real `reverie dream` processes, offline engine."""
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    hist = ws / "memory" / "history.jsonl"
    hist.write_text(
        _line(1, "User: I live in Madrid") + "\n" + _line(100, "User: I work at Initech") + "\n"
    )
    (ws / "memory" / ".cursor").write_text("4")
    env = {**os.environ, "REVERIE_HOME": str(tmp_path / "home")}

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "reverie", "-w", str(ws), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    cli("dream")
    with open(hist, "a") as f:
        f.write(_line(5, "User: I prefer Rust over Go") + "\n")
    assert "1 entries pending" in cli("status")
    before = hist.read_bytes()
    cli("dream", "--dry-run")  # a dry run writes nothing, a requeue included
    assert hist.read_bytes() == before
    out = cli("dream")
    assert "appended again with new cursors" in out
    assert "Rust" in (ws / "USER.md").read_text()
    assert "0 entries pending" in cli("status")


# -- a late low-cursor line read past a cursor -----------------------------------------------------


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


def test_counting_pending_entries_builds_none_and_agrees_with_reading_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``count_since`` (status, ``Memory.pending``) reads only each line's cursor: 200,000 entries
    past the Dream cursor took 8 s when each was built. Its count is what reading gives, on a log
    with bad lines, a late line and a torn tail, from every cursor."""
    log = _log(tmp_path)
    lines = [_line(c, f"entry {c} " + "x" * 40) for c in range(1, 401)]
    lines[100] = "not json"
    lines[200] = json.dumps({"cursor": 201, "timestamp": 5, "content": "wrong field types"})
    lines[300] = _line(7, "a late line, below the ones before it")
    _append_raw(log, *lines)
    with open(log.path, "a") as f:
        f.write(_line(401, "torn")[:20])  # no newline: an append in flight
    expected = {c: len(log.read_since(c)) + log.count_late(c) for c in (0, 1, 6, 7, 150, 350, 400)}
    built = 0
    from reverie.storage import history as h

    parse = h.HistoryEntry.from_json.__func__  # type: ignore[attr-defined]

    def counting(cls: type[h.HistoryEntry], raw: bytes) -> h.HistoryEntry:
        nonlocal built
        built += 1
        return parse(cls, raw)  # type: ignore[no-any-return]

    monkeypatch.setattr(h.HistoryEntry, "from_json", classmethod(counting))
    got = {c: log.count_since(c) for c in expected}
    assert got == expected and expected[0] == 398
    # the bisection's probes build a few (21 here), not one per line (2,068 when each was built)
    assert built < 10 * len(expected)
