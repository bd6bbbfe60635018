"""``memory/`` put back from an older copy (a backup restored, a sync conflict) while the memory
repo's last dream commit is ahead of it: the copy's ``.dream_cursor`` and ``history.jsonl`` are
older, so the entries written after it get cursors that commit already passed. Dream's start-up
reconcile used to take the commit's ``Reverie-Cursor`` as a crash between the commit and the cursor
write and advanced past them: the entries were never dreamed (silent loss of what was learned).
Each dream commit now names the entry at its cursor (``Reverie-Last-Entry``); the cursor advances
only when the log still holds that entry."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys

import reverie
from reverie.gitstore import trailers as tr
from reverie.storage.history import HistoryLog


def _dreamed_then_older_copy_put_back(tmp_path):
    ws = tmp_path / "ws"
    backup = tmp_path / "backup"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
    shutil.copytree(ws / "memory", backup)
    with reverie.open(ws) as memory:
        memory.remember("User: my dog is called Rex.")
        memory.remember("User: I work as a nurse.")
        memory.dream()  # the repo's dream commit: cursor 3
    shutil.rmtree(ws / "memory")
    shutil.copytree(backup, ws / "memory")  # history ends at 1, .dream_cursor 1
    return ws


def test_entries_written_after_an_older_copy_are_dreamed_not_skipped(tmp_path, caplog):
    ws = _dreamed_then_older_copy_put_back(tmp_path)
    with reverie.open(ws) as memory:
        for line in ("I play the cello.", "my sister is called Ana.", "I am allergic to peanuts."):
            memory.remember("User: " + line)  # cursors 2, 3, 4: 2 and 3 at or below the commit's
        with caplog.at_level(logging.WARNING):
            result = memory.dream()
        assert (result.first, result.last) == (2, 4)
        text = memory.read("USER.md")
        for learned in ("cello", "Ana", "peanuts", "Lisbon", "Rex"):
            assert learned in text
    assert any("is not the one it read" in r.getMessage() for r in caplog.records)


def test_a_crash_between_the_commit_and_the_cursor_still_advances(tmp_path):
    """The record does not stop the crash recovery it guards: the same log, the commit's entry
    there, and the cursor not yet written — the cursor moves on, the batch is not dreamed twice."""
    ws = tmp_path / "ws"
    script = (
        "import os, sys, reverie\n"
        "from reverie.dream import transaction\n"
        "with reverie.open(sys.argv[1]) as m:\n"
        "    m.remember('User: I live in Lisbon.')\n"
        "    m.remember('User: my dog is called Rex.')\n"
        "    transaction.fault = lambda p: os._exit(9) if p == 'committed' else None\n"
        "    m.dream()\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(ws)], timeout=300)
    assert done.returncode == 9
    cursor = ws / "memory" / ".dream_cursor"
    assert not cursor.exists() or cursor.read_text().strip() in ("", "0")
    with reverie.open(ws) as memory:
        head = memory.log()[0]
        assert head.kind == "dream" and head.trailers.get(tr.LAST_ENTRY)
        memory.remember("User: I work as a nurse.")
        result = memory.dream()
        assert (result.first, result.last) == (3, 3)
        assert memory.read("USER.md").count("Rex") == 1


def test_the_record_names_the_entry_at_the_cursor(tmp_path):
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.remember("User: my dog is called Rex.")
        memory.dream()
        trailers = memory.log()[0].trailers
        log = HistoryLog(ws / "memory" / "history.jsonl", ws / "memory" / ".cursor")
        entry = log.entry_at(int(trailers[tr.CURSOR]))
        assert entry is not None and entry.content == "User: my dog is called Rex."
        assert trailers[tr.LAST_ENTRY] == entry.digest()


def test_entries_the_older_copy_shares_with_a_dreamed_batch_are_not_dreamed_again(tmp_path):
    """The copy was taken with entries not yet dreamed (2, 3) that a run then consumed; two runs
    later it is put back. Its 2 and 3 are the entries that run read (its ``Reverie-Last-Entry``
    matches), so the cursor moves to 3: only what came after the copy is dreamed, once."""
    ws = tmp_path / "ws"
    backup = tmp_path / "backup"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        memory.remember("User: my dog is called Rex.")
        memory.remember("User: I work as a nurse.")
        shutil.copytree(ws / "memory", backup)  # 2 and 3 not dreamed yet
        assert (memory.dream().first, memory.runtime.store.dream_cursor()) == (2, 3)
        memory.remember("User: I play the cello.")
        memory.remember("User: my sister is called Ana.")
        memory.dream()  # cursor 5
    # moved aside, not deleted: a file made anew with a freed inode number would carry Dream's
    # read mark over (history.jsonl.dreamed) and requeue 2 and 3 (dreamed twice, never lost)
    (ws / "memory").rename(tmp_path / "aside")
    shutil.copytree(backup, ws / "memory")  # history ends at 3, .dream_cursor 1
    with reverie.open(ws) as memory:
        for line in ("I am allergic to peanuts.", "I drive a red car.", "I speak Greek."):
            memory.remember("User: " + line)  # cursors 4, 5, 6: 5 at the last commit's cursor
        result = memory.dream()
        assert (result.first, result.last) == (4, 6)
        assert "peanuts" in memory.read("USER.md")


def test_an_older_copy_written_in_place_is_not_dreamed_twice(tmp_path):
    """The same copy put back in place (a sync client rewriting each file: history.jsonl keeps its
    inode), Dream's read mark from the copy (``.reverie/history.jsonl.dreamed``) is still trusted
    and sat before 2 and 3; once the cursor moved past them they read as appended late and were
    requeued, dreamed a second time. The mark now moves with the cursor."""
    ws = tmp_path / "ws"
    backup = tmp_path / "backup"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        memory.remember("User: my dog is called Rex.")
        memory.remember("User: I work as a nurse.")
        shutil.copytree(ws / "memory", backup)
        memory.dream()  # 2-3
        memory.remember("User: I play the cello.")
        memory.remember("User: my sister is called Ana.")
        memory.dream()  # 4-5
    for saved in backup.rglob("*"):
        if saved.is_file():
            (ws / "memory" / saved.relative_to(backup)).write_bytes(saved.read_bytes())
    with reverie.open(ws) as memory:
        for line in ("I am allergic to peanuts.", "I drive a red car.", "I speak Greek."):
            memory.remember("User: " + line)
        result = memory.dream()
        assert (result.first, result.last) == (4, 6)
        log = HistoryLog(ws / "memory" / "history.jsonl", ws / "memory" / ".cursor")
        assert not [e for e in log.read_since(0) if "requeued_from" in e.extra]
