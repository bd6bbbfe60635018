"""MemoryStore: nanobot's documented interface, memory files, cursors, and Dream-cursor safety."""

from __future__ import annotations

import pytest

from reverie import MemoryStore, Workspace
from reverie.errors import CursorError, WorkspaceError


def test_nanobot_interface(store):
    assert store.get_memory_context() != ""  # the starter template
    store.write_long_term("")
    assert store.read_long_term() == "" and store.get_memory_context() == ""
    store.write_long_term("   \n")
    assert store.get_memory_context() == ""
    store.write_long_term("# Memory\n- ships Friday\n")
    assert store.read_long_term() == "# Memory\n- ships Friday\n"
    assert store.get_memory_context() == "## Long-term Memory\n# Memory\n- ships Friday\n"
    assert store.append_history("first") == 1
    assert store.append_history("second", session_key="cli:bob") == 2
    assert [(e.cursor, e.content, e.session_key) for e in store.read_unprocessed_history()] == [
        (1, "first", None),
        (2, "second", "cli:bob"),
    ]
    assert [e.cursor for e in store.read_unprocessed_history(1)] == [2]


def test_soul_and_user_accessors_write_the_nanobot_paths(store):
    store.write_soul("be brief")
    store.write_user("name: Ada")
    assert (store.root / "SOUL.md").read_text() == "be brief" and store.read_soul() == "be brief"
    assert (store.root / "USER.md").read_text() == "name: Ada" and store.read_user() == "name: Ada"
    assert (store.root / "memory" / "MEMORY.md").exists()


def test_cursors_and_pending(store):
    for i in range(5):
        store.append_history(f"e{i}")
    assert store.last_cursor() == 5 and store.dream_cursor() == 0 and store.pending_count() == 5
    store.set_dream_cursor(3)
    assert store.dream_cursor() == 3 and store.pending_count() == 2
    assert store.workspace.dream_cursor_path.read_text().strip() == "3"


@pytest.mark.parametrize("raw", [b"garbage", b" \n", b"-1", b"\xff"])
def test_corrupt_dream_cursor_is_a_clear_error_never_zero(store, raw):
    for i in range(4):
        store.append_history(f"e{i}")
    store.workspace.dream_cursor_path.write_bytes(raw)
    with pytest.raises(CursorError) as err:
        store.dream_cursor()
    msg = str(err.value)
    assert ".dream_cursor" in msg and "replay" in msg
    assert f"echo 4 > {store.workspace.dream_cursor_path}" in msg  # says exactly how to fix it
    with pytest.raises(CursorError):
        store.read_unprocessed_history()
    with pytest.raises(CursorError):
        store.compact_history(keep_last=0)
    assert len(store.history.read_since(0)) == 4  # nothing was dropped


def test_empty_dream_cursor_is_nanobot_035s_fresh_workspace_unless_reverie_moved_it(store, caplog):
    """nanobot 0.3.5's GitStore.init creates memory/.dream_cursor empty before any Dream: 0, as
    nanobot reads it (it was a 'corrupt' error that stopped Dream in every fresh nanobot 0.3.5
    workspace). Once Reverie has moved the cursor (its record), an empty file is a torn write: the
    recorded value, never 0."""
    for i in range(4):
        store.append_history(f"e{i}")
    store.workspace.dream_cursor_path.write_bytes(b"")
    assert store.dream_cursor() == 0 and len(store.read_unprocessed_history()) == 4
    store.set_dream_cursor(3)
    store.workspace.dream_cursor_path.write_bytes(b"")
    assert store.dream_cursor() == 3 and [
        e["cursor"] for e in store.read_unprocessed_history()
    ] == [4]
    assert "is empty; using 3" in caplog.text
    assert (
        store.settle_dream_cursor() == 3
        and store.workspace.dream_cursor_path.read_bytes() == b"3\n"
    )


def test_corrupt_dream_cursor_does_not_block_appends(store):
    store.append_history("a")
    store.workspace.dream_cursor_path.write_text("nope")
    assert store.append_history("b") == 2


def test_compact_history_uses_retention_and_keeps_undreamed(workspace):
    (workspace.root / "reverie.json").write_text('{"memory": {"history": {"retention": 100}}}')
    store = MemoryStore(workspace)
    for i in range(300):
        store.append_history(f"e{i}")
    store.set_dream_cursor(150)
    assert store.compact_history() == 150  # 151..300 are not dreamed: kept although over retention
    store.set_dream_cursor(300)
    assert store.compact_history() == 50
    assert [e.cursor for e in store.history.read_since(0)] == list(range(201, 301))
    assert store.append_history("next") == 301


def test_no_retention_keeps_everything(store):
    store.append_history("a")
    store.set_dream_cursor(1)
    assert store.compact_history() == 0


def test_config_from_workspace_applies_to_history(workspace):
    (workspace.root / "reverie.json").write_text(
        '{"memory": {"history": {"maxEntryChars": 1000, "fsync": false}}}'
    )
    store = MemoryStore(workspace)
    assert store.history.fsync is False
    store.append_history("z" * 1500)
    assert "truncated 500 characters" in store.history.read_since(0)[0].content


def test_store_on_a_missing_workspace_reads_empty(tmp_path):
    store = MemoryStore(Workspace(tmp_path / "absent"))
    assert store.read_long_term() == "" and store.last_cursor() == 0 and store.pending_count() == 0


def test_store_on_a_file_is_a_workspace_error(tmp_path):
    f = tmp_path / "f"
    f.write_text("")
    with pytest.raises(WorkspaceError):
        MemoryStore(f)
