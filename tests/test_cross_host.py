"""Workspaces on a shared file system, several hosts: stale-lock recovery that does not trust a pid
from another host (reverie.gitstore.writer), and Recall's index choosing a journal that works there
(reverie.recall.index).

No NFS kernel here: another host is simulated by what it writes (a marker naming another host, a
lock file of a given age); the file-system detection is checked against mount tables."""

from __future__ import annotations

import os
import socket
import subprocess
import time

from reverie.gitstore import GitStore
from reverie.gitstore.writer import STALE_LOCK_SECONDS, state_dir
from reverie.storage.workspace import Workspace

MEM = "memory/MEMORY.md"


def _interrupted(g: GitStore, ws: Workspace, owner: str) -> None:
    """A transaction cut short after its ref moved, with the given owner line."""
    new = g.commit("dream: new", kind="dream", files={MEM: "# Memory\n- new\n"})
    old = subprocess.run(
        ["git", "rev-parse", "HEAD~1"], cwd=ws.root, capture_output=True, text=True, check=True
    ).stdout.strip()
    (state_dir(g.git_dir) / "pending").write_text(f"{old} {new} {MEM} END\n{owner} END\n")


def _store(workspace: Workspace) -> GitStore:
    g = GitStore(workspace)
    g.ensure()
    return g


def test_the_marker_names_the_writers_host_boot_and_start(workspace: Workspace) -> None:
    g = _store(workspace)
    g.commit("dream: x", kind="dream", files={MEM: "# Memory\n- x\n"})
    owner = (state_dir(g.git_dir) / "pending").read_text().split("\n")[1].split()
    assert owner[:2] == ["pid", str(os.getpid())]
    fields = dict(zip(owner[2:8:2], owner[3:8:2], strict=True))
    assert fields["host"] == socket.gethostname()
    assert abs(int(fields["at"]) - time.time()) < 60
    assert len(fields["boot"]) >= 1


def test_another_hosts_fresh_lock_is_left_alone_and_an_old_one_removed(
    workspace: Workspace,
) -> None:
    g = _store(workspace)
    # pid 1 is alive here; on another host it says nothing, so it must not keep the lock forever
    _interrupted(g, workspace, "pid 1 host other-host boot b0 at 0")
    lock = g.git_dir / "index.lock"
    lock.write_bytes(b"x")
    GitStore(workspace).ensure()
    assert lock.exists()  # young: a git command on that host may be at work
    old = time.time() - STALE_LOCK_SECONDS - 5
    os.utime(lock, (old, old))
    _interrupted(g, workspace, "pid 1 host other-host boot b0 at 0")
    GitStore(workspace).ensure()
    assert not lock.exists()
    assert GitStore(workspace).commit(
        "dream: after", kind="dream", files={MEM: "# Memory\n- after\n"}
    )


def test_a_lock_from_before_this_hosts_reboot_is_removed_even_if_its_pid_is_reused(
    workspace: Workspace,
) -> None:
    g = _store(workspace)
    sleeper = subprocess.Popen(["sleep", "60"])  # a live process with the recorded pid
    try:
        _interrupted(
            g, workspace, f"pid {sleeper.pid} host {socket.gethostname()} boot earlier-boot at 0"
        )
        lock = g.git_dir / "refs" / "heads" / "main.lock"
        lock.write_bytes(b"x")
        GitStore(workspace).ensure()
        assert not lock.exists()
        # the same pid recorded in this boot: alive, so its lock stays
        _interrupted(g, workspace, f"pid {sleeper.pid} host {socket.gethostname()}")
        lock.write_bytes(b"x")
        GitStore(workspace).ensure()
        assert lock.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


# -- Recall's index on a shared file system --------------------------------------------------------
def test_the_index_uses_the_rollback_journal_unless_wal_is_asked_for() -> None:
    # the rollback journal works on a network file system, and queries read it without creating a
    # file (WAL's readers create its -shm file beside the database)
    from reverie.recall.index import journal_mode_for

    assert journal_mode_for("auto") == "DELETE"
    assert journal_mode_for("delete") == "DELETE"
    assert journal_mode_for("wal") == "WAL"


def test_the_index_can_live_on_local_disk_and_use_the_rollback_journal(
    tmp_path, monkeypatch
) -> None:
    import sqlite3

    from reverie.recall import Recall
    from reverie.recall.index import index_location
    from reverie.storage.store import WorkspaceStore

    local = tmp_path / "local-index"
    monkeypatch.setenv("REVERIE_MEMORY__SEARCH__INDEX_DIR", str(local))
    monkeypatch.setenv("REVERIE_MEMORY__SEARCH__JOURNAL_MODE", "delete")
    ws = Workspace(tmp_path / "ws")
    ws.init()
    store = WorkspaceStore(ws)
    store.append_history("User chose Postgres over SQLite.")
    recall = Recall.for_store(store)
    recall.sync()  # a writer's step: queries never create the index
    assert [h.snippet for h in recall.search("Postgres")]
    recall.close()
    path = index_location(ws, str(local))
    assert path.is_file() and path.is_relative_to(local)
    assert not (ws.memory_dir / ".index.sqlite").exists()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_forget_user_and_purge_remove_an_index_kept_outside(tmp_path, monkeypatch) -> None:
    from reverie.gitstore import GitStore
    from reverie.operations.forget import forget_user
    from reverie.operations.purge import purge
    from reverie.recall import Recall
    from reverie.recall.index import index_location
    from reverie.storage.scopes import Scope, ScopeRoot
    from reverie.storage.store import WorkspaceStore

    local = tmp_path / "local-index"
    monkeypatch.setenv("REVERIE_MEMORY__SEARCH__INDEX_DIR", str(local))
    root = ScopeRoot(tmp_path / "root")
    ws = root.ensure(Scope("alice"))
    store = WorkspaceStore(ws)
    store.append_history("token sk-live-abcdefghijklmnop and a plan")
    Recall.for_store(store).sync()
    index = index_location(ws, str(local))
    assert index.exists()
    purge(store, GitStore(ws), "a plan")
    assert not index.exists()
    Recall.for_store(store).sync()
    assert index.exists()
    forget_user(root, "alice")
    assert not index.exists() and not ws.root.exists()


# -- lock descriptors where flock is emulated with POSIX locks (NFS) -------------------------------
def test_a_dropped_lock_never_closes_a_descriptor_while_another_lock_of_the_process_holds_the_file(
    tmp_path,
) -> None:
    """On NFS, closing any descriptor of a file drops every POSIX lock the process has on it. So a
    `Lock` garbage collected while another `Lock` on the same file holds it must not close its idle
    descriptor then: the holder closes it when it releases."""
    import gc

    from reverie.storage.locking import Lock

    path = tmp_path / "history.jsonl.lock"
    idle = Lock(path, keep_open=True)
    idle.acquire()
    idle.release()  # keep_open: its descriptor stays open, idle
    idle_fd = idle._fd  # noqa: SLF001 - the descriptor itself is what is under test
    assert idle_fd is not None
    holder = Lock(path)
    holder.acquire()
    del idle
    gc.collect()
    os.fstat(idle_fd)  # still open: closing it now would drop holder's lock on NFS
    holder.release()
    try:
        os.fstat(idle_fd)
    except OSError:
        pass  # closed by the release, once nothing of this process held the file
    else:
        raise AssertionError("the idle descriptor was never closed")
    free = Lock(path, keep_open=True)  # with nobody holding, a dropped Lock closes at once
    free.acquire()
    free.release()
    free_fd = free._fd  # noqa: SLF001
    del free
    gc.collect()
    try:
        os.fstat(free_fd)
    except OSError:
        return
    raise AssertionError("an idle descriptor with no holder was not closed")
