"""A history entry nanobot appended late (a stale ``.cursor``: ``100`` then ``5``) is dreamed, never
lost: Dream's read (``HistoryLog.read_pending``) requeues it with a fresh cursor, once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
