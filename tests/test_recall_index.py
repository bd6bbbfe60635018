"""Recall's index: incremental sync, back-references, rebuild after corruption."""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from reverie.recall import Recall, SearchFilters
from reverie.recall.index import SCHEMA_VERSION
from reverie.storage.config import Config


def write_session(ws, key: str, messages: list[tuple[str, str, str]]) -> Path:
    """A nanobot-format session file: metadata line, then one message per line."""
    path = ws.sessions_dir / (key.replace(":", "_") + ".jsonl")
    meta = {
        "_type": "metadata",
        "key": key,
        "created_at": "2026-01-01T00:00:00",
        "updated_at": "2026-01-01T00:00:00",
        "metadata": {},
        "last_consolidated": 0,
    }
    lines = [orjson.dumps(meta)] + [
        orjson.dumps({"role": r, "content": c, "timestamp": t}) for r, c, t in messages
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def chunk_ids(recall: Recall, path: str) -> set[int]:
    with recall.index.connection() as conn:
        return {r[0] for r in conn.execute("SELECT id FROM chunks WHERE path = ?", (path,))}


@pytest.fixture
def recall(store):
    r = Recall.for_store(store)
    yield r
    r.close()


def test_memory_file_sections_have_line_ranges(store, recall):
    store.write_long_term(
        "# Memory\n\n## Pets\n- Alice has a cat named Miso\n\n## Work\n- Alice works at Acme\n"
    )
    recall.sync()
    hit = recall.search("Miso", k=1)[0]
    assert hit.source.kind == "memory" and hit.source.path == "memory/MEMORY.md"
    assert hit.source.section == "Memory > Pets"
    assert (hit.source.line_start, hit.source.line_end) == (4, 4)
    assert hit.timestamp is None
    assert str(hit.source) == "memory/MEMORY.md#L4-L4"


def test_add_change_delete_files(workspace, store, recall):
    (workspace.memory_dir / "2026-03-01-trip.md").write_text(
        "# Trip\nWe planned the Lisbon trip.\n"
    )
    recall.sync()
    assert [h.source.path for h in recall.search("Lisbon")] == ["memory/2026-03-01-trip.md"]
    before_memory = chunk_ids(recall, "memory/MEMORY.md")

    (workspace.memory_dir / "2026-03-01-trip.md").write_text(
        "# Trip\nWe planned the Porto trip instead.\n"
    )
    stats = recall.sync()
    assert stats.files_changed == ["memory/2026-03-01-trip.md"]
    assert recall.search("Lisbon") == []
    assert recall.search("Porto")[0].source.kind == "dated"
    assert chunk_ids(recall, "memory/MEMORY.md") == before_memory  # untouched file, untouched rows

    (workspace.memory_dir / "2026-03-01-trip.md").unlink()
    stats = recall.sync()
    assert stats.removed == 1 and recall.search("Porto") == []


def test_new_history_entries_do_not_reindex_the_rest(store, recall):
    for i in range(200):
        store.append_history(f"entry {i} about the garden", session_key="cli:a")
    recall.sync()
    old = chunk_ids(recall, "memory/history.jsonl")
    for i in range(20):
        store.append_history(f"fresh note {i} about zucchini")
    stats = recall.sync()
    assert (stats.added, stats.removed, stats.history_entries) == (20, 0, 20)
    assert old <= chunk_ids(recall, "memory/history.jsonl")
    hit = recall.search("zucchini", k=1)[0]
    assert (
        hit.source.kind == "history" and hit.source.cursor is not None and hit.source.cursor > 200
    )
    assert recall.sync().changed is False


def test_history_compaction_drops_entries(store, recall):
    for i in range(150):
        store.append_history(f"note {i} marmalade" if i < 10 else f"note {i}")
    recall.sync()
    assert len(recall.search("marmalade", k=50)) == 10
    store.history.compact(keep_last=100, dream_cursor=150)
    recall.sync()
    assert recall.search("marmalade", k=50) == []


def test_sessions_by_key_and_index_and_switch(workspace, store):
    write_session(
        workspace,
        "cli:bob",
        [
            ("user", "what about the saxophone lesson?", "2026-02-01T10:00:00"),
            ("assistant", "It moved to Thursday.", "2026-02-01T10:00:05"),
            ("tool", "saxophone tool output", "2026-02-01T10:00:06"),
        ],
    )
    r = Recall.for_store(store)
    r.sync()
    hits = r.search("saxophone", k=5)
    # The message itself first; its reply next, found through the neighbour's words (low-weight
    # context); the tool output is not indexed.
    assert [(h.source.session_key, h.source.message_index) for h in hits] == [
        ("cli:bob", 0),
        ("cli:bob", 1),
    ]
    assert str(hits[0].source) == "sessions/cli_bob.jsonl#message=0"
    r.close()

    off = Config.model_validate({"memory": {"search": {"includeSessions": False}}})
    r2 = Recall(workspace, off)
    r2.sync()
    assert r2.search("saxophone") == []
    r2.close()


def test_corrupt_index_is_rebuilt_with_a_warning(store, recall, caplog):
    store.append_history("the quokka photo")
    recall.sync()
    recall.close()
    recall.index.path.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(recall.index.path) + suffix).unlink(missing_ok=True)
    with caplog.at_level(logging.WARNING, logger="reverie.recall"):
        stats = recall.sync()
    assert stats.rebuilt
    assert "rebuilding" in caplog.text
    assert recall.search("quokka")[0].source.cursor == 1


def test_version_mismatch_is_rebuilt(store, recall, caplog):
    store.append_history("the quokka photo")
    recall.sync()
    with recall.index.connection() as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    recall.close()
    with caplog.at_level(logging.WARNING, logger="reverie.recall"):
        assert recall.sync().rebuilt
    assert "schema version" in caplog.text
    with recall.index.connection() as conn:
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    assert row[0] == SCHEMA_VERSION
    assert len(recall.search("quokka")) == 1


def test_rebuild_command_equivalent(store, recall):
    store.append_history("alpha beta")
    recall.sync()
    stats = recall.rebuild()
    assert stats.rebuilt and stats.added >= 1
    assert recall.search("alpha")[0].snippet == "alpha beta"


def test_hostile_content_is_indexed_not_fatal(workspace, store, recall):
    (workspace.memory_dir / "2026-13-45-bad.md").write_bytes(
        b"\xff\xfe bad date, invalid utf-8 \xc3"
    )
    (workspace.sessions_dir / "broken.jsonl").write_bytes(
        b'{"_type": "metadata", "key": "x"}\nnot json\n[1,2]\n'
        b'{"role": "user", "content": [{"type": "text", "text": "pancake"}]}\n'
    )
    store.append_history('SELECT "quoted" AND OR NEAR( * ^')
    recall.sync()
    assert recall.search('"quoted" NEAR(') and recall.search("pancake")[0].source.message_index == 0
    assert recall.search("invalid")[0].timestamp is None  # an impossible date is kept, undated


def test_filters(workspace, store, recall):
    store.history.append("kiwi in history", timestamp="2026-01-10 09:00")
    store.history.append("kiwi in history later", session_key="cli:z", timestamp="2026-03-10 09:00")
    write_session(workspace, "cli:z", [("user", "kiwi chat", "2026-02-01T10:00:00")])
    recall.sync()
    kinds = {h.source.kind for h in recall.search("kiwi", filters={"kinds": ["session"]})}
    assert kinds == {"session"}
    assert {
        h.source.session_key for h in recall.search("kiwi", filters=SearchFilters(session="cli:z"))
    } == {"cli:z"}
    dated = recall.search("kiwi", filters={"since": "2026-01-15", "until": "2026-03-01"})
    assert [h.snippet for h in dated] == ["kiwi chat"]


_CREATE_INDEX = """
import sys
from reverie.storage.config import Config
from reverie.recall import Recall
print("ready", flush=True)
sys.stdin.readline()  # every process is loaded: all of them create the index at once
r = Recall(sys.argv[1], Config())
print(r.search("concurrent")[0].source.cursor, flush=True)
r.close()
"""


def test_two_processes_creating_the_index_at_once(workspace, store):
    """Four real processes (separate SQLite connections, separate file locks) released together
    on a pipe."""
    import subprocess
    import sys

    store.append_history("concurrent creation works")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CREATE_INDEX, str(workspace.root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline() == "ready\n", (
                p.stderr and p.stderr.read()
            )
        assert not (workspace.memory_dir / ".index.sqlite").exists()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [(p.returncode, out.strip()) for p, (out, _) in zip(procs, results, strict=True)] == [
        (0, "1")
    ] * 4, results
    assert not list(workspace.memory_dir.glob(".index.sqlite.corrupt*"))
