"""The nanobot ``MemoryStore``'s path arguments (hostile report, adapt4 item 1): nanobot's
``read_file`` is the helper its store reads its own files with, so Reverie's reads the workspace's
files and nothing else — ``..``, an absolute path elsewhere and a symlink out are one
``UnsafePathError`` each, and the store's own paths read as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import MemoryStore
from reverie.errors import UnsafePathError


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    (tmp_path / "secret.txt").write_text("root:x:0:0\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    memory_store = MemoryStore(ws)
    memory_store.write_user("# User\n- lives in Oslo\n")
    return memory_store


def test_the_stores_own_paths_read_as_nanobot_reads_them(store: MemoryStore) -> None:
    assert "Oslo" in store.read_file(store.user_file)
    assert store.read_file(store.memory_file) == store.read_long_term()
    assert store.read_file("USER.md") == store.read_user()
    assert store.read_file(store.workspace.root / "memory" / "nothing.md") == ""


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "../../etc/passwd",
        "/etc/passwd",
        "memory/../../secret.txt",
        "{ws}/../secret.txt",
        "{ws}/link.md",
        "{ws}/linked/secret.txt",
        "{ws}",
    ],
)
def test_a_path_out_of_the_workspace_is_refused(store: MemoryStore, path: str) -> None:
    ws = store.workspace.root
    (ws / "link.md").symlink_to(ws.parent / "secret.txt")
    (ws / "linked").symlink_to(ws.parent)
    with pytest.raises(UnsafePathError) as caught:
        store.read_file(path.format(ws=ws))
    assert "\n" not in str(caught.value)
    assert "root:x" not in str(caught.value)


def test_bytes_and_other_types_are_refused(store: MemoryStore) -> None:
    for bad in (b"/etc/passwd", 3, None):
        with pytest.raises(UnsafePathError):
            store.read_file(bad)  # type: ignore[arg-type]
