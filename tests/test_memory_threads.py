"""The thread contract: one ``Memory`` shared by any number of threads, every verb at once.

The regression this file was written for: six threads calling ``recall`` on one ``Memory`` ended in
SIGSEGV or SIGBUS (the search index handed one SQLite connection to every thread, unguarded), and a
mixed load said "the index is busy (another process …)" when the other user was a thread. The
thread cases run in a process of their own (``support/threads_proc.py``) so a crash fails the test
instead of killing the test runner.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import reverie
from reverie.storage.history import HistoryEntry

PROC = Path(__file__).parent / "support" / "threads_proc.py"


def _workspace(root: Path, entries: int = 300) -> Path:
    with reverie.open(root) as memory:
        memory.init()
    with open(root / "memory" / "history.jsonl", "wb") as f:
        for c in range(1, entries + 1):
            text = f"User: fact {c} about Lisbon, Postgres and coffee {c % 7}"
            f.write(HistoryEntry(c, "2026-01-01 10:00", text, "t:1").to_json())
    return root


def _run(root: Path, mix: str, threads: int, rounds: int) -> dict:
    proc = subprocess.run(
        [sys.executable, str(PROC), str(root), mix, str(threads), str(rounds)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr[-3000:]}"
    assert "busy" not in proc.stderr and "rebuilding" not in proc.stderr, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_six_threads_recall_on_one_memory(tmp_path):
    """The issue's case: six threads searching one ``Memory`` (the first query of each builds or
    syncs the index) end without a crash or an error."""
    out = _run(_workspace(tmp_path / "ws"), "recall", 6, 40)
    assert out["errors"] == []


def test_six_threads_mixed_verbs_on_one_memory(tmp_path):
    """recall, remember, log, read, write, status, context and why from six threads at once: no
    crash, no error, no spurious "busy"; every acknowledged history entry is there exactly once and
    every acknowledged line is in MEMORY.md exactly once."""
    root = _workspace(tmp_path / "ws")
    out = _run(root, "mixed", 6, 48)
    assert out["errors"] == []
    with reverie.open(root) as memory:
        cursors = [e.cursor for e in memory.history()]
        text = memory.read("memory/MEMORY.md")
        assert len(cursors) == len(set(cursors)) == 300 + len(out["cursors"])
        assert set(out["cursors"]) <= set(cursors)
        assert len(out["lines"]) == 6 * 6
        for line in out["lines"]:
            assert text.count(line + "\n") == 1, line
        assert memory.runtime.git.dirty() == []
    fsck = subprocess.run(
        ["git", f"--git-dir={root / '.git'}", "fsck", "--strict"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr


def test_close_while_other_threads_query(tmp_path):
    """``close`` from one thread while others search: they finish (or reopen) without a crash, and
    the ``Memory`` works after."""
    root = _workspace(tmp_path / "ws", 200)
    memory = reverie.open(root)
    errors: list[BaseException] = []
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            try:
                memory.recall("Lisbon coffee")
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
                return

    workers = [threading.Thread(target=search) for _ in range(4)]
    for t in workers:
        t.start()
    try:
        for _ in range(30):
            memory.close()
    finally:
        stop.set()
        for t in workers:
            t.join()
    assert errors == []
    assert memory.recall("Lisbon coffee 3")
    memory.close()


def test_sibling_is_isolation_not_safety(tmp_path):
    """``sibling`` still gives a ``Memory`` with services of its own (isolation), and both answer
    the same."""
    root = _workspace(tmp_path / "ws", 50)
    with reverie.open(root) as memory, memory.sibling() as other:
        assert other.runtime is not memory.runtime
        assert [h.source for h in other.recall("coffee 2")] == [
            h.source for h in memory.recall("coffee 2")
        ]


@pytest.mark.parametrize("n", [8])
def test_services_are_built_once_across_threads(tmp_path, n):
    """Threads racing for a service the ``Runtime`` builds on first use all get the same one (two
    search indexes would leak a connection the ``Memory`` never closes)."""
    root = _workspace(tmp_path / "ws", 10)
    memory = reverie.open(root)
    seen: list[object] = []
    barrier = threading.Barrier(n)

    def touch() -> None:
        barrier.wait()
        seen.append(memory.runtime.recall)
        seen.append(memory.runtime.git)
        seen.append(memory.runtime.store)

    workers = [threading.Thread(target=touch) for _ in range(n)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert len({id(x) for x in seen}) == 3
    memory.close()
