"""Legacy memory/HISTORY.md → history.jsonl: splitting, timestamps, cursors, backups, interrupted
runs."""

from __future__ import annotations

import logging
import os
from datetime import datetime

import orjson
import pytest

from reverie import MemoryStore
from reverie.storage.migrate import MIGRATED_KEY, migrate_legacy_history, split_legacy
from reverie.storage.workspace import Workspace

MTIME = datetime(2024, 5, 6, 7, 8).timestamp()


@pytest.fixture
def ws(tmp_path) -> Workspace:
    w = Workspace(tmp_path / "ws")
    w.init()
    return w


def legacy(ws: Workspace, raw: bytes) -> None:
    ws.legacy_history_path.write_bytes(raw)
    os.utime(ws.legacy_history_path, (MTIME, MTIME))


def rows(ws: Workspace) -> list[dict]:
    return [orjson.loads(line) for line in ws.history_path.read_bytes().splitlines()]


def test_split_at_dated_lines_with_timestamps():
    text = (
        "[2026-01-02 10:00] User asked about X\nand more\n\n[2026-01-03 11:30:59]"
        " Second\n[2026-01-04T09:15] Third\n"
    )
    assert split_legacy(text, "FALLBACK") == [
        ("2026-01-02 10:00", "User asked about X\nand more"),
        ("2026-01-03 11:30", "Second"),
        ("2026-01-04 09:15", "Third"),
    ]


def test_split_at_blank_lines_uses_fallback_timestamp():
    text = "first entry\ncontinues\n\n\n  \nsecond entry\n\nthird\n"
    assert split_legacy(text, "2024-05-06 07:08") == [
        ("2024-05-06 07:08", "first entry\ncontinues"),
        ("2024-05-06 07:08", "second entry"),
        ("2024-05-06 07:08", "third"),
    ]


def test_dated_style_keeps_a_preamble_and_date_only_stamps_use_the_fallback():
    text = "# History\n[2026-01-02 10:00] one\n[2026-01-05] date only\n"
    assert split_legacy(text, "FB") == [
        ("FB", "# History"),
        ("2026-01-02 10:00", "one"),
        ("FB", "[2026-01-05] date only"),
    ]


def test_migration_writes_entries_sets_both_cursors_and_keeps_a_backup(ws, caplog):
    legacy(ws, b"[2026-01-02 10:00] one\n[2026-01-03 11:00] two\nno stamp continues two\n")
    with caplog.at_level(logging.WARNING):
        store = MemoryStore(ws)
    assert [(r["cursor"], r["timestamp"], r["content"]) for r in rows(ws)] == [
        (1, "2026-01-02 10:00", "one"),
        (2, "2026-01-03 11:00", "two\nno stamp continues two"),
    ]
    assert all(r[MIGRATED_KEY] == "HISTORY.md" for r in rows(ws))
    assert store.dream_cursor() == 2 and ws.cursor_path.read_text().strip() == "2"
    assert store.pending_count() == 0  # old history is not re-dreamed
    assert not ws.legacy_history_path.exists()
    assert (
        ws.memory_dir.joinpath("HISTORY.md.bak").read_bytes().startswith(b"[2026-01-02 10:00] one")
    )
    assert "migrated 2 entries" in caplog.text
    assert store.append_history("new") == 3
    assert store.pending_count() == 1


def test_mtime_is_the_fallback_timestamp(ws):
    legacy(ws, b"alpha\n\nbeta\n")
    MemoryStore(ws)
    assert [r["timestamp"] for r in rows(ws)] == ["2024-05-06 07:08"] * 2


def test_invalid_bytes_survive_as_replacement_characters(ws, caplog):
    legacy(ws, b"[2026-01-02 10:00] caf\xe9 \xff\xfe ok\n")
    with caplog.at_level(logging.WARNING):
        MemoryStore(ws)
    (row,) = rows(ws)
    assert row["content"] == "caf\ufffd \ufffd\ufffd ok"
    assert "not valid UTF-8" in caplog.text


def test_existing_backup_is_not_overwritten(ws):
    (ws.memory_dir / "HISTORY.md.bak").write_text("older backup")
    (ws.memory_dir / "HISTORY.md.bak.2").write_text("even older")
    legacy(ws, b"entry\n")
    MemoryStore(ws)
    assert (ws.memory_dir / "HISTORY.md.bak").read_text() == "older backup"
    assert (ws.memory_dir / "HISTORY.md.bak.2").read_text() == "even older"
    assert (ws.memory_dir / "HISTORY.md.bak.3").read_text() == "entry\n"


def test_empty_history_jsonl_still_migrates(ws):
    ws.history_path.write_bytes(b"\n  \n")
    legacy(ws, b"x\n")
    MemoryStore(ws)
    assert [r["content"] for r in rows(ws)] == ["x"]


def test_empty_legacy_file_is_backed_up_without_entries(ws):
    legacy(ws, b"\n\n")
    store = MemoryStore(ws)
    assert store.history.read_since(0) == [] and store.dream_cursor() == 0
    assert (ws.memory_dir / "HISTORY.md.bak").exists()


def test_non_empty_history_jsonl_not_from_migration_leaves_history_md_alone(ws, caplog):
    ws.history_path.write_bytes(
        b'{"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "native"}\n'
    )
    legacy(ws, b"legacy entry\n")
    with caplog.at_level(logging.WARNING):
        store = MemoryStore(ws)
    assert [e.content for e in store.history.read_since(0)] == ["native"]
    assert ws.legacy_history_path.read_bytes() == b"legacy entry\n"
    assert "not migrated" in caplog.text


def test_interrupted_after_cursors_before_log_reruns_identically(ws):
    """Crash after step (1): cursor files are set, history.jsonl not yet written."""
    legacy(ws, b"a\n\nb\n\nc\n")
    ws.cursor_path.write_text("3")
    ws.dream_cursor_path.write_text("3")
    store = MemoryStore(ws)
    assert [(r["cursor"], r["content"]) for r in rows(ws)] == [(1, "a"), (2, "b"), (3, "c")]
    assert store.append_history("d") == 4


def test_interrupted_after_log_before_rename_finishes_the_rename(ws):
    """Crash after step (2): history.jsonl complete, HISTORY.md still there; it must not migrate
    twice."""
    legacy(ws, b"a\n\nb\n")
    MemoryStore(ws)
    os.replace(
        ws.memory_dir / "HISTORY.md.bak", ws.legacy_history_path
    )  # as if the rename never happened
    before = ws.history_path.read_bytes()
    MemoryStore(ws)
    assert ws.history_path.read_bytes() == before
    assert not ws.legacy_history_path.exists()
    assert (ws.memory_dir / "HISTORY.md.bak").exists()


def test_migration_runs_once(ws):
    legacy(ws, b"a\n")
    store = MemoryStore(ws)
    assert migrate_legacy_history(ws, store.history) is None
    assert len(rows(ws)) == 1


def test_huge_legacy_entry_is_capped(tmp_path):
    w = Workspace(tmp_path / "w")
    w.init()
    legacy(w, b"y" * 70_000 + b"\n")
    MemoryStore(w)
    (row,) = rows(w)
    assert len(row["content"]) < 65_000 and "truncated 6000 characters" in row["content"]
