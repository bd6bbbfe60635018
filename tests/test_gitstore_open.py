"""How a GitStore opens and shares its repository: the repo kept open between calls (and when it
must be dropped), queries that take no writer lock, threads sharing one GitStore, and git's own lock
files (``index.lock``, ``<ref>.lock``) honoured by the commit path."""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import threading
import time

import pytest
from support.gitcli import git

from reverie import MemoryStore
from reverie.errors import GitStoreError, LockTimeoutError, UnknownRevisionError
from reverie.gitstore import GitStore
from reverie.gitstore import core as gitstore_core
from reverie.gitstore import trailers as T
from reverie.gitstore.writer import state_dir
from reverie.operations.purge import purge
from reverie.storage.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git CLI not installed")

MEM = "memory/MEMORY.md"


def dream(g: GitStore, text: str, cursor: int) -> str:
    sha = g.commit(
        "dream: update", kind="dream", trailers={T.CURSOR: str(cursor)}, files={MEM: text}
    )
    assert sha is not None
    return sha


def test_a_purge_elsewhere_drops_what_a_long_lived_store_has_cached(workspace: Workspace) -> None:
    """A serving process keeps its GitStore (and its object cache) for hours; a purge run by another
    process must not leave the purged text readable through it."""
    long_lived = GitStore(workspace)
    leaked = dream(long_lived, "# Memory\n- the door code is 4471-ALPHA\n", 1)
    assert "4471-ALPHA" in long_lived.show(leaked[:8]).diff  # now cached in memory
    purge(MemoryStore(workspace), GitStore(workspace), "4471-ALPHA")  # another process, in effect
    with pytest.raises(UnknownRevisionError):
        long_lived.show(leaked[:8])
    assert all("4471-ALPHA" not in long_lived.show(c.sha).diff for c in long_lived.log(50))
    assert "4471-ALPHA" not in (long_lived.file_at("HEAD", MEM) or "")


def test_commits_from_another_store_are_seen_by_a_long_lived_one(workspace: Workspace) -> None:
    a, b = GitStore(workspace), GitStore(workspace)
    dream(a, "# Memory\n- one\n", 1)
    two = dream(b, "# Memory\n- one\n- two\n", 2)
    b.gc()  # repacks under a's feet
    three = dream(a, "# Memory\n- one\n- two\n- three\n", 3)
    assert [c.sha for c in a.log(2)] == [three, two]
    assert a.file_at(two, MEM) == "# Memory\n- one\n- two\n"


def test_queries_on_a_healthy_repo_do_not_wait_for_the_writer_lock(
    workspace: Workspace, monkeypatch
) -> None:
    g = GitStore(workspace)
    dream(g, "# Memory\n- a\n", 1)
    monkeypatch.setattr(gitstore_core, "LOCK_TIMEOUT", 0.2)
    fd = os.open(state_dir(g.git_dir) / "lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a writer (another process, in effect) is mid-commit
    try:
        reader = GitStore(workspace)
        assert [c.kind for c in reader.log(5)] == ["dream", "init"]
        assert reader.head() == g.head()
        with pytest.raises(LockTimeoutError, match="busy"):
            reader.commit("dream: x", kind="dream", files={MEM: "# Memory\n- b\n"})
    finally:
        os.close(fd)


def test_a_query_after_an_interrupted_commit_writes_nothing_and_the_next_write_recovers(
    workspace: Workspace,
) -> None:
    """After a crash between the ref update and the file write, a query answers from HEAD (the new
    commit) and writes nothing; the first write finishes the commit before its own."""
    g = GitStore(workspace)
    old_text = workspace.read(MEM)
    new = dream(g, "# Memory\n- new\n", 1)
    old = git(g.git_dir, "rev-parse", "HEAD~1").strip()
    workspace.write(MEM, old_text)
    marker = state_dir(g.git_dir) / "pending"
    marker.write_text(f"{old} {new} {MEM} END\n")
    assert GitStore(workspace).log(1)[0].sha == new
    assert workspace.read(MEM) == old_text and not marker.read_text().startswith("#")
    GitStore(workspace).commit(
        "recall: notes", kind="recall", files={"memory/2026-01-01.md": "- x\n"}
    )
    assert workspace.read(MEM) == "# Memory\n- new\n" and marker.read_text().startswith("#")


def test_threads_sharing_one_store_lose_nothing(workspace: Workspace) -> None:
    g = GitStore(workspace)
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        try:
            for i in range(8):
                text = workspace.read(MEM)
                g.commit(f"dream: {k}.{i}", kind="dream", files={MEM: text + f"- {k}.{i}\n"})
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def reader() -> None:
        try:
            for _ in range(30):
                g.log(10)
                g.head()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(k,)) for k in (1, 2)] + [
        threading.Thread(target=reader)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(g.log(100)) == 1 + 16  # init + every commit of both writers
    assert git(g.git_dir, "fsck", "--full") is not None


def test_a_running_git_commands_index_lock_is_left_alone(workspace: Workspace, caplog) -> None:
    g = GitStore(workspace)
    dream(g, "# Memory\n- a\n", 1)
    lock = g.git_dir / "index.lock"
    lock.write_bytes(b"git is writing this")
    with caplog.at_level(logging.WARNING):
        sha = dream(g, "# Memory\n- b\n", 2)
    assert g.head() == sha and workspace.read(MEM) == "# Memory\n- b\n"
    assert lock.read_bytes() == b"git is writing this"
    assert "index.lock exists" in caplog.text
    lock.unlink()
    dream(g, "# Memory\n- c\n", 3)
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=workspace.root, capture_output=True, text=True
    )
    assert status.stdout == ""  # the index caught up with HEAD


def test_a_held_ref_lock_refuses_the_commit_cleanly(workspace: Workspace) -> None:
    g = GitStore(workspace)
    before = dream(g, "# Memory\n- a\n", 1)
    ref_lock = g.git_dir / "refs" / "heads" / "main.lock"
    ref_lock.write_text("held by git\n")
    with pytest.raises(GitStoreError, match="main.lock exists"):
        dream(g, "# Memory\n- b\n", 2)
    assert g.head() == before and workspace.read(MEM) == "# Memory\n- a\n"
    assert (
        ref_lock.exists()
    )  # not ours to remove: the refused commit left no pending recovery behind
    assert GitStore(workspace).head() == before and ref_lock.exists()
    ref_lock.unlink()
    assert dream(g, "# Memory\n- b\n", 2) != before


def test_recovery_removes_an_index_lock_an_interrupted_commit_left(workspace: Workspace) -> None:
    g = GitStore(workspace)
    new = dream(g, "# Memory\n- new\n", 1)
    old = git(g.git_dir, "rev-parse", "HEAD~1").strip()
    (g.git_dir / "index.lock").write_bytes(b"torn")
    dead = subprocess.Popen(["true"])
    dead.wait()  # the interrupted writer: its pid is recorded in the marker, and it is gone
    (state_dir(g.git_dir) / "pending").write_text(f"{old} {new} {MEM} END\npid {dead.pid} END\n")
    GitStore(workspace).ensure()
    assert not (g.git_dir / "index.lock").exists()


def test_every_fanout_directory_exists_after_reopening(workspace: Workspace) -> None:
    """So that no commit pays for a mkdir: a repo opened again (after `git gc` removed empty ones,
    say) has all 256 object directories."""
    g = GitStore(workspace)
    g.ensure()
    subprocess.run(["git", f"--git-dir={g.git_dir}", "gc", "-q", "--prune=now"], check=True)
    GitStore(workspace).ensure()
    names = {p.name for p in (g.git_dir / "objects").iterdir()}
    assert {f"{i:02x}" for i in range(256)} <= names
    git(g.git_dir, "fsck", "--full")


def test_reflog_lines_carry_the_local_utc_offset(workspace: Workspace) -> None:
    g = GitStore(workspace)
    dream(g, "# Memory\n- a\n", 1)
    line = (g.git_dir / "logs" / "refs" / "heads" / "main").read_text().splitlines()[-1]
    stamp = line.split("\t", 1)[0].rsplit(" ", 2)
    offset = int(stamp[2][1:3]) * 3600 + int(stamp[2][3:5]) * 60
    assert (-offset if stamp[2][0] == "-" else offset) == time.localtime(int(stamp[1])).tm_gmtoff
    assert "commit: dream: update" in line
    assert (
        git(g.git_dir, "reflog", "show", "-1", "--format=%gs", "main").strip()
        == "commit: dream: update"
    )
