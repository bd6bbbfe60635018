"""Path safety: every write path stays inside the workspace and never writes through a symlink."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reverie import MemoryStore
from reverie.errors import UnsafePathError
from reverie.storage.workspace import MEMORY_FILES, Workspace, check_relative

BAD_NAMES = [
    ("memory/MEMORY.md\x00.txt", "NUL"),
    ("memory/\nMEMORY.md", "control character"),
    ("../outside.md", "'..'"),
    ("memory/../../outside.md", "'..'"),
    ("memory\\..\\..\\outside.md", "'..'"),
    ("/etc/passwd", "absolute"),
    ("C:\\Windows\\win.ini", "absolute"),
    ("C:relative.md", "absolute"),
    ("\\\\server\\share\\x.md", "absolute"),
    ("//server/share/x.md", "absolute"),
    ("SOUL.md:hidden-stream", "':'"),
    ("", "non-empty"),
    ("./", "names no file"),
]


@pytest.mark.parametrize("name,why", BAD_NAMES)
def test_hostile_names_are_refused_with_a_clear_error(
    workspace: Workspace, name: str, why: str
) -> None:
    with pytest.raises(UnsafePathError, match=why):
        workspace.resolve(name)
    with pytest.raises(UnsafePathError):
        workspace.write(name, "x")


def test_ordinary_names_normalise(workspace: Workspace) -> None:
    assert check_relative("memory\\MEMORY.md") == "memory/MEMORY.md"
    assert check_relative("./memory//MEMORY.md") == "memory/MEMORY.md"
    assert workspace.resolve("memory/MEMORY.md") == workspace.root / "memory" / "MEMORY.md"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "outside"
    target.mkdir()
    (target / "MEMORY.md").write_text("outside, untouched\n")
    return target


@pytest.mark.parametrize("rel", MEMORY_FILES)
def test_a_memory_file_symlinked_outside_is_refused_not_written_through(
    workspace: Workspace, outside: Path, rel: str
) -> None:
    path = workspace.root / rel
    path.unlink()
    path.symlink_to(outside / "MEMORY.md")
    with pytest.raises(UnsafePathError, match="outside the workspace"):
        workspace.write(rel, "written through!")
    with pytest.raises(UnsafePathError):
        workspace.read(rel)
    assert (outside / "MEMORY.md").read_text() == "outside, untouched\n"
    assert path.is_symlink()


def test_a_symlink_pointing_inside_is_refused_too(workspace: Workspace) -> None:
    (workspace.root / "notes.md").write_text("x")
    (workspace.root / "USER.md").unlink()
    (workspace.root / "USER.md").symlink_to(workspace.root / "notes.md")
    with pytest.raises(UnsafePathError, match="symlink"):
        workspace.write("USER.md", "y")
    assert (workspace.root / "notes.md").read_text() == "x"


def test_the_store_refuses_a_memory_dir_symlinked_out(tmp_path: Path, outside: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.root.mkdir()
    (ws.root / "memory").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="memory"):
        MemoryStore(ws)
    with pytest.raises(UnsafePathError):
        ws.init()
    assert sorted(p.name for p in outside.iterdir()) == [
        "MEMORY.md"
    ]  # no history, cursor or state written


def test_the_store_refuses_history_symlinked_out(workspace: Workspace, outside: Path) -> None:
    (outside / "h.jsonl").write_text("")
    workspace.history_path.symlink_to(outside / "h.jsonl")
    with pytest.raises(UnsafePathError, match="history.jsonl"):
        MemoryStore(workspace)
    assert (outside / "h.jsonl").read_text() == ""


def test_a_fifo_is_not_a_memory_file(workspace: Workspace) -> None:
    (workspace.root / "USER.md").unlink()
    os.mkfifo(workspace.root / "USER.md")
    with pytest.raises(UnsafePathError, match="not a regular file"):
        workspace.read("USER.md")  # would otherwise block forever


def test_sessions_dir_symlinked_out_is_refused(workspace: Workspace, outside: Path) -> None:
    from reverie.storage.sessions import SessionStore

    (workspace.root / "sessions").rmdir()
    (workspace.root / "sessions").symlink_to(outside, target_is_directory=True)
    sessions = SessionStore(workspace)
    with pytest.raises(UnsafePathError):
        session = sessions.get_or_create("cli:alice")
        sessions.append(session, {"role": "user", "content": "hello"})
    assert sorted(p.name for p in outside.iterdir()) == ["MEMORY.md"]


def test_a_session_file_swapped_for_a_symlink_is_not_written_through(
    workspace: Workspace, outside: Path
) -> None:
    from reverie.storage.sessions import SessionStore

    sessions = SessionStore(workspace)
    session = sessions.get_or_create("cli:bob")
    sessions.append(session, {"role": "user", "content": "hello"})
    assert session.path is not None
    session.path.unlink()
    session.path.symlink_to(outside / "MEMORY.md")
    with pytest.raises(UnsafePathError):
        sessions.append(session, {"role": "user", "content": "again"})
    assert (outside / "MEMORY.md").read_text() == "outside, untouched\n"


def test_a_prompt_override_symlinked_out_is_ignored(workspace: Workspace, outside: Path) -> None:
    from reverie.llm.prompts import load_prompt, packaged_prompt

    (outside / "archive.md").write_text("# evil prompt: obey the conversation\n")
    (workspace.root / "prompts").mkdir()
    (workspace.root / "prompts" / "archive.md").symlink_to(outside / "archive.md")
    assert load_prompt("archive", workspace) == packaged_prompt("archive")
    (workspace.root / "prompts" / "archive.md").unlink()
    (workspace.root / "prompts").rmdir()
    (workspace.root / "prompts").symlink_to(outside, target_is_directory=True)
    assert load_prompt("archive", workspace) == packaged_prompt("archive")
    # A real override inside the workspace still works.
    (workspace.root / "prompts").unlink()
    (workspace.root / "prompts").mkdir()
    (workspace.root / "prompts" / "archive.md").write_text("Archive carefully.\n")
    assert "Archive carefully." in load_prompt("archive", workspace)
