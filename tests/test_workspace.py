"""Workspace layout, path safety, and atomic memory files that survive invalid UTF-8."""

from __future__ import annotations

import logging
import os

import pytest

from reverie.errors import UnsafePathError, WorkspaceError
from reverie.storage import fsutil
from reverie.storage.workspace import MEMORY_FILES, Workspace, default_workspace


def test_init_creates_the_nanobot_layout_once(tmp_path):
    ws = Workspace(tmp_path / "ws")
    assert ws.init() == list(MEMORY_FILES)
    for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        assert ws.read(rel).startswith("# ")
    assert ws.sessions_dir.is_dir()
    ws.write("USER.md", "mine")
    assert ws.init() == [] and ws.read("USER.md") == "mine"


def test_missing_files_read_as_empty(tmp_path):
    ws = Workspace(tmp_path / "nothing-here")
    assert all(ws.read(rel) == "" for rel in MEMORY_FILES)


def test_default_workspace_follows_environment(monkeypatch, tmp_path, _isolated_home):
    assert default_workspace() == _isolated_home / "workspace"
    monkeypatch.setenv("REVERIE_WORKSPACE", str(tmp_path / "elsewhere"))
    assert Workspace().root == tmp_path / "elsewhere"


def test_workspace_that_is_a_file_is_a_clear_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(WorkspaceError, match="not a directory"):
        Workspace(f).init()


@pytest.mark.parametrize(
    "rel", ["/etc/passwd", "../x", "memory/../../x", "a\x00b", "", "C:/x", "..\\x", "."]
)
def test_unsafe_paths_are_refused(tmp_path, rel):
    ws = Workspace(tmp_path / "ws")
    ws.init()
    with pytest.raises(UnsafePathError):
        ws.resolve(rel)


def test_symlinks_out_of_the_workspace_are_refused(tmp_path):
    ws = Workspace(tmp_path / "ws")
    ws.init()
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    (ws.root / "link.md").symlink_to(outside)
    (ws.root / "dir").symlink_to(tmp_path)
    with pytest.raises(UnsafePathError):
        ws.write("link.md", "x")
    with pytest.raises(UnsafePathError):
        ws.write("dir/outside.md", "x")
    assert outside.read_text() == "secret"


def test_write_is_atomic_when_the_rename_fails(tmp_path, monkeypatch):
    """A crash before the rename leaves the old content, never a mix, an empty file, or a stray
    temp file."""
    ws = Workspace(tmp_path / "ws")
    ws.init()
    ws.write("memory/MEMORY.md", "old content")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(WorkspaceError, match="No space left"):
        ws.write("memory/MEMORY.md", "new content " * 1000)
    monkeypatch.undo()
    assert ws.read("memory/MEMORY.md") == "old content"
    assert sorted(p.name for p in ws.memory_dir.iterdir()) == ["MEMORY.md"]


def test_atomic_write_keeps_file_mode(tmp_path):
    p = tmp_path / "f"
    p.write_text("a")
    p.chmod(0o600)
    fsutil.atomic_write(p, "b")
    assert p.read_text() == "b" and (p.stat().st_mode & 0o777) == 0o600


def test_invalid_utf8_reads_with_replacement_and_one_warning(tmp_path, caplog):
    ws = Workspace(tmp_path / "ws")
    ws.init()
    ws.resolve("USER.md").write_bytes(b"# User\nname: Jos\xe9 \xff\n")
    with caplog.at_level(logging.WARNING, logger="reverie.storage.fsutil"):
        first = ws.read("USER.md")
        second = ws.read("USER.md")
    assert first == second == "# User\nname: Jos\ufffd \ufffd\n"
    assert len(caplog.records) == 1 and "not valid UTF-8" in caplog.records[0].getMessage()
