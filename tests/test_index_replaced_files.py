"""The search index after a file under it was replaced rather than appended to: a purge (the index
deleted, history.jsonl rewritten with the same cursors) seen by another open ``Memory`` — a server,
the UI, another process — and a history log redacted in place. A query never returns text that is no
longer in the files, and the purger's own sync warns of nothing."""

from __future__ import annotations

import logging
import os

import reverie
from reverie.storage.fsutil import atomic_write

SECRET = "Zanzibar7731"


def _texts(hits: list[reverie.Hit]) -> str:
    return "\n".join(h.snippet for h in hits)


def test_a_purge_is_not_found_by_another_open_memory(tmp_path, caplog):
    ws = tmp_path / "ws"
    with reverie.open(ws) as purger, reverie.open(ws) as server:
        purger.remember(f"User: my locker code is {SECRET}.")
        purger.remember("User: I live in Lisbon.")
        purger.dream()
        server.remember("User: I work at Acme.")
        server.reindex()  # the server's writer connection is open on the index, and its reader
        assert SECRET in _texts(server.recall(SECRET))
        assert SECRET in _texts(purger.recall(SECRET))
        with caplog.at_level(logging.WARNING):
            purger.purge(SECRET)
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        for memory in (server, purger):
            assert SECRET not in _texts(memory.recall(SECRET))
            assert SECRET not in _texts(memory.recall("locker code"))
            assert "Lisbon" in _texts(memory.recall("Lisbon"))  # the rest still found
        server.remember("User: I drink green tea.")  # the server writes and syncs: no warning
        with caplog.at_level(logging.WARNING):
            server.reindex()
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert "green tea" in _texts(purger.recall("green tea"))


def test_a_history_log_rewritten_with_the_same_cursors_is_read_again(tmp_path):
    """history.jsonl replaced (a purge or an operator's redaction in another process: new file, same
    cursors, one entry's text changed): the index re-reads it, whether a query or a writer syncs."""
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember(f"User: my locker code is {SECRET}.")
        memory.remember("User: I live in Lisbon.")
        memory.reindex()
        assert SECRET in _texts(memory.recall(SECRET))
        log = ws / "memory" / "history.jsonl"
        before = os.stat(log)
        atomic_write(log, log.read_bytes().replace(SECRET.encode(), b"[REDACTED]"))
        assert os.stat(log).st_ino != before.st_ino
        assert SECRET not in _texts(memory.recall(SECRET))  # a query's private copy
        memory.reindex()  # the file itself
        assert SECRET not in _texts(memory.recall(SECRET))
        assert "Lisbon" in _texts(memory.recall("Lisbon"))
    with reverie.open(ws) as again:
        assert SECRET not in _texts(again.recall(SECRET))
