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


def test_two_start_ups_that_both_find_no_token_keep_one(tmp_path, monkeypatch):
    """Two processes open a repo older than its token (the first start-ups after an upgrade: an
    agent and ``reverie mcp``) and both read no token before either writes one. The slower one
    wrote its own over the one the faster had already taken as the repo's, and the faster one's
    next verb was refused: the workspace "replaced" though nothing moved. The token is now created
    only where none is, so the second start-up keeps the first one's."""
    from reverie.storage import repostate

    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
    git_dir = choose(ws).git_dir
    (git_dir / REPO_ID).unlink()
    with reverie.open(ws) as memory:
        memory.remember("User: my dog is called Rex.")
        memory.dream()  # this process's start-up writes a token, and its Memory takes it
        first = repostate.read_repo_id(git_dir)
        assert first is not None
        # the other process read the file before this one wrote it
        read = repostate.read_repo_id
        monkeypatch.setattr(repostate, "read_repo_id", lambda d: None)
        repostate.ensure_repo_id(git_dir)
        monkeypatch.setattr(repostate, "read_repo_id", read)
        memory.remember("User: I work as a nurse.")  # was WorkspaceMovedError
        assert repostate.read_repo_id(git_dir) == first


@pytest.mark.parametrize("content", [b"", b"\n  \n"])
def test_an_empty_token_file_gets_a_token(tmp_path, content):
    from reverie.storage import repostate

    git_dir = tmp_path / "git"
    (git_dir / "reverie").mkdir(parents=True)
    (git_dir / REPO_ID).write_bytes(content)
    repostate.ensure_repo_id(git_dir)
    token = repostate.read_repo_id(git_dir)
    assert token is not None and len(token) == 32
    repostate.ensure_repo_id(git_dir)
    assert repostate.read_repo_id(git_dir) == token
