"""A workspace deleted and made anew at the same path while a ``Memory`` has it open: ext4 (and
others) hand a freed inode out again at once, so the new folder and its new memory repo can have
the very device and inode numbers the open ``Memory`` recorded, and the moved-workspace check
(hostile7: ``WorkspaceMovedError`` around every verb) passed — the verb wrote into the other
workspace. Each memory repo now carries an identity token (``storage.repostate.REPO_ID``) that a
repo made anew never shares."""

from __future__ import annotations

import os
import shutil

import pytest

import reverie
from reverie.errors import WorkspaceMovedError
from reverie.gitstore.location import choose
from reverie.storage.repostate import REPO_ID


def _made_anew_in_place(ws, tmp_path):
    """Another workspace at ``ws`` whose folder and memory repo folder have the inode numbers of the
    ones there before (what a deletion and a new ``reverie init`` give when the inodes are handed
    out again): their contents replaced by a new workspace's."""
    other = tmp_path / "other"
    with reverie.open(other) as made:
        made.remember("User: I live in Oslo.")
        made.dream()
    for folder, source in ((ws / ".git", other / ".git"), (ws, other)):
        for child in folder.iterdir():
            if child.name != ".git" or folder != ws:
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        for child in source.iterdir():
            if child.name != ".git" or source != other:
                shutil.move(str(child), str(folder / child.name))


def test_a_workspace_made_anew_at_the_path_is_not_taken_for_the_one_opened(tmp_path):
    ws = tmp_path / "ws"
    memory = reverie.open(ws)
    try:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        before = [os.stat(ws).st_ino, os.stat(ws / ".git").st_ino]
        _made_anew_in_place(ws, tmp_path)
        assert [os.stat(ws).st_ino, os.stat(ws / ".git").st_ino] == before
        with pytest.raises(WorkspaceMovedError):
            memory.remember("User: my dog is called Rex.")
        with reverie.open(ws) as other:
            assert "Oslo" in other.read("USER.md")
            assert not [e for e in other.history() if "Rex" in e.content]
    finally:
        memory.close()


def test_a_repo_older_than_its_token_is_not_taken_for_a_moved_one(tmp_path):
    """A repo made before the token existed gets one at its first write; the open ``Memory`` takes
    that one, not a move."""
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
    (choose(ws).git_dir / REPO_ID).unlink()
    with reverie.open(ws) as memory:
        memory.remember("User: my dog is called Rex.")
        memory.dream()
        memory.remember("User: I work as a nurse.")
        assert "Rex" in memory.read("USER.md")
