"""A person saving a memory file while Reverie commits it: the save is never overwritten.

Reverie reads the file, commits, moves HEAD and only then replaces the file; a save landing between
the read and the replace used to be overwritten (and was in no commit). The replace is now an
exchange that hands back what was on disk, so the save stays and is committed as the person's."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from reverie.gitstore import GitStore
from reverie.gitstore import writer as writer_module
from reverie.storage import fsutil
from reverie.storage.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git CLI not installed")

USER = "USER.md"
BASE = "# User\n- likes tea\n- lives in Lyon\n"
DREAMT = "# User\n- likes tea\n- lives in Lyon\n- works as a baker\n"


def save_by_rename(path: Path, text: str) -> None:
    """Save the way most editors do: a new file, renamed over the old one."""
    tmp = path.with_name(path.name + ".editor~")
    tmp.write_text(text)
    os.replace(tmp, path)


def save_in_place(path: Path, text: str) -> None:
    """Save the way some editors (and ``>>`` in a shell) do: the same file, rewritten."""
    with open(path, "r+") as f:
        f.truncate(0)
        f.write(text)


def git_log_p(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "log", "-p"], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def gs(workspace: Workspace) -> GitStore:
    (workspace.root / USER).write_text(BASE)
    g = GitStore(workspace)
    g.ensure()
    return g


@pytest.mark.parametrize("save", [save_by_rename, save_in_place], ids=["rename", "in-place"])
def test_save_between_commit_and_replace_is_kept_and_committed_as_manual(
    gs: GitStore,
    workspace: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    save: object,
) -> None:
    path = workspace.root / USER
    hand = BASE + "- typed by hand\n"
    real_swap = writer_module.compare_and_swap

    def move_head_then_save(*args: object, **kwargs: object) -> bool:
        # the exact point: Reverie has read the file and committed; HEAD moves, then the person
        # saves, before Reverie replaces the file
        moved = real_swap(*args, **kwargs)  # type: ignore[arg-type]
        assert callable(save)
        save(path, hand)
        monkeypatch.setattr(writer_module, "compare_and_swap", real_swap)  # once
        return moved

    monkeypatch.setattr(writer_module, "compare_and_swap", move_head_then_save)
    gs.commit("dream: learn a fact", kind="dream", files={USER: DREAMT}, base={USER: BASE})

    # the save is on disk, with Dream's change merged in (the two do not overlap)
    merged = BASE + "- typed by hand\n- works as a baker\n"
    assert path.read_text() == merged
    assert gs.file_at("HEAD", USER) == DREAMT  # Dream's commit is what it computed
    assert gs.dirty() == [USER]
    # the next write commits the save as the person's own edit, then its own change
    gs.commit("dream: another", kind="dream", files={"SOUL.md": "soul\n"})
    manual = gs.log(2)[1]
    assert manual.kind == "manual" and [f.path for f in manual.files] == [USER]
    assert gs.file_at(manual.sha, USER) == merged
    assert "+- typed by hand" in git_log_p(workspace.root)
    assert not list(path.parent.glob(".USER.md.swap-*"))  # nothing left behind


def test_overlapping_save_is_kept_as_saved(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = workspace.root / USER
    hand = "# User\n- likes coffee now\n- lives in Lyon\n"  # the same lines Dream changes
    dreamt = "# User\n- likes green tea\n- lives in Lyon\n"
    real_swap = writer_module.compare_and_swap

    def move_head_then_save(*args: object, **kwargs: object) -> bool:
        moved = real_swap(*args, **kwargs)  # type: ignore[arg-type]
        save_by_rename(path, hand)
        monkeypatch.setattr(writer_module, "compare_and_swap", real_swap)
        return moved

    monkeypatch.setattr(writer_module, "compare_and_swap", move_head_then_save)
    gs.commit("dream: change", kind="dream", files={USER: dreamt}, base={USER: BASE})
    assert path.read_text() == hand  # the person's version, as saved
    assert gs.file_at("HEAD", USER) == dreamt  # Dream's version, in history
    gs.commit("manual", kind="manual")
    assert gs.file_at("HEAD", USER) == hand and gs.log(1)[0].kind == "manual"


def test_save_during_the_exchange_round_is_kept(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saves keep landing while Reverie puts the first one back: the newest save wins, with
    the change merged in (the second save was made on top of the first, not of Reverie's), and
    every displaced file is cleaned up."""
    path = workspace.root / USER
    saves = [BASE + "- one\n", BASE + "- one\n- two\n"]
    real = fsutil._rename2

    def save_first(src: Path, dst: Path, flags: int) -> None:
        if saves and Path(dst) == path:
            save_by_rename(path, saves.pop(0))
        real(src, dst, flags)

    monkeypatch.setattr(fsutil, "_rename2", save_first)
    gs.commit("dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE})
    assert path.read_text() == BASE + "- one\n- two\n- works as a baker\n"
    assert gs.file_at("HEAD", USER) == DREAMT  # Dream's change is in its commit
    assert not list(path.parent.glob(".USER.md.swap-*"))


def test_swap_in_waits_for_an_in_place_writer(tmp_path: Path) -> None:
    """A program that opened the file before the replace and writes after it: its bytes come back
    from ``swap_in`` instead of landing in a file nobody reads."""
    path = tmp_path / "USER.md"
    path.write_text("old\n")
    f = open(path, "a")  # noqa: SIM115 (held open across the swap on purpose)
    gate = threading.Event()

    def finish() -> None:
        gate.wait()
        f.write("appended in place\n")
        f.close()

    t = threading.Thread(target=finish)
    t.start()
    real = fsutil._wait_for_writers

    def opened_then_wait(fd: int, timeout: float) -> None:
        gate.set()  # the writer goes on while swap_in waits for it
        real(fd, timeout)

    fsutil._wait_for_writers = opened_then_wait  # type: ignore[assignment]
    try:
        displaced = fsutil.swap_in(path, b"new\n")
    finally:
        fsutil._wait_for_writers = real  # type: ignore[assignment]
        t.join()
    if displaced.keep is None:
        pytest.skip("this file system cannot exchange files")
    assert displaced.data == b"old\nappended in place\n"
    assert path.read_bytes() == b"new\n"
    displaced.discard()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["USER.md"]


def test_deleting_keeps_a_save(gs: GitStore, workspace: Workspace) -> None:
    path = workspace.root / USER
    targets = writer_module.ResolvedPaths(workspace)
    targets.based_on = {USER: BASE.encode()}
    save_by_rename(path, BASE + "- mine\n")
    writer_module.write_workspace_file(targets, USER, None)
    assert path.read_text() == BASE + "- mine\n"
    path.write_text(BASE)  # unchanged since the read: deleted
    writer_module.write_workspace_file(targets, USER, None)
    assert not path.exists() and not list(path.parent.glob(".USER.md.swap-*"))
