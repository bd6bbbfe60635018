"""Faults found by adversarial testing of the memory repo and the Dream cursor (issue 19), each
reproduced first: the Dream cursor's recovery, restore/approve racing a Dream run, queries that
wrote, lock files of a running git command, a corrupt loose object, a lost HEAD, a killed gc's temp
pack, shallow clones, a worktree root."""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.dream_helpers import edit, make_env
from support.gitcli import git

from reverie import MemoryStore
from reverie.dream import transaction
from reverie.dream.lock import RunLock
from reverie.errors import CursorError, LockTimeoutError
from reverie.gitstore import GitStore
from reverie.gitstore import core as gitstore_core
from reverie.gitstore import trailers as T
from reverie.gitstore.writer import state_dir
from reverie.storage.workspace import Workspace

MEM = "memory/MEMORY.md"


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and directory under ``root`` with its size and mtime: a query must change none
    of them."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.lstat(os.path.join(dirpath, name))
            out[os.path.relpath(os.path.join(dirpath, name), root)] = (st.st_size, st.st_mtime_ns)
    return out


# -- item 2: the Dream cursor's recovery -----------------------------------------------------------
def test_a_corrupt_dream_cursor_comes_back_as_the_value_last_written_not_the_last_commits(tmp_path):
    """A run that changed nothing moved the cursor past the last Dream commit; a corrupt file must
    come back as that value (never the commit's older one, which would replay consumed history), and
    status writes nothing."""
    from reverie.memory.status import collect_status

    env = make_env(tmp_path / "ws")
    env.add("- [durable] User lives in Berlin", "- x", "- y")
    env.fake.enqueue("[USER] Lives in Berlin", [edit("USER.md", "", "- Lives in Berlin\n")], "done")
    assert asyncio.run(env.dream().run()).status == "ok"  # a commit with Reverie-Cursor: 3
    env.add("- small talk", "- more small talk")
    env.fake.enqueue("[SKIP]")
    assert asyncio.run(env.dream().run()).status == "no-change"  # cursor 5, no commit
    env.ws.dream_cursor_path.write_text("oops")

    store = MemoryStore(env.ws, config=env.config)
    assert store.dream_cursor() == 5
    assert collect_status(store).dream_cursor == 5
    assert env.ws.dream_cursor_path.read_text() == "oops"  # a query never writes the cursor
    asked = len(env.fake.prompts)
    result = asyncio.run(env.dream().run())
    assert result.status == "nothing-to-do" and len(env.fake.prompts) == asked  # nothing replayed
    assert env.ws.dream_cursor_path.read_text() == "5\n"  # the run (under its lock) wrote it back


def test_a_corrupt_dream_cursor_without_a_record_is_the_documented_error(gs_ws):
    """No record of Reverie's own (a workspace older than it, or a cursor only another tool moved):
    the clear error, not a guess from git, and the file is left for the person to fix."""
    ws, g = gs_ws
    g.commit(
        "dream: x",
        kind="dream",
        trailers={T.CURSOR: "17", T.BATCH: "3-17"},
        files={MEM: "# Memory\n- a\n"},
    )
    ws.dream_cursor_path.write_text("garbage!")
    with pytest.raises(CursorError, match="echo"):
        MemoryStore(ws).dream_cursor()
    assert ws.dream_cursor_path.read_text() == "garbage!"


def test_a_cursor_another_tool_wrote_becomes_the_record_at_the_next_run(tmp_path):
    env = make_env(tmp_path / "ws")
    env.add("- a", "- b", "- c")
    env.fake.enqueue("[SKIP]")
    assert asyncio.run(env.dream().run()).status == "no-change"
    env.ws.dream_cursor_path.write_text("2")  # nanobot, or a person, moved it
    env.fake.enqueue("[SKIP]")
    asyncio.run(env.dream().run())  # reconcile adopts 2 as the record, then dreams entry 3
    env.ws.dream_cursor_path.write_text("oops")
    assert MemoryStore(env.ws, config=env.config).dream_cursor() == 3


@pytest.fixture
def gs_ws(workspace: Workspace) -> tuple[Workspace, GitStore]:
    g = GitStore(workspace)
    g.ensure()
    return workspace, g


# -- item 4: restore --replay and approve racing a Dream run ---------------------------------------
def test_restore_replay_during_a_dream_run_is_not_lost(tmp_path, monkeypatch):
    """``restore --replay`` issued while a Dream run is between its analysis and its commit: the
    restore waits for the run, so its rewind is the last cursor write and the restored batch is
    dreamed again."""
    from reverie.operations.restore import restore_memory

    env = make_env(tmp_path / "ws")
    env.add("- [durable] User lives in Berlin", "- x", "- y")
    env.fake.enqueue("[USER] Lives in Berlin", [edit("USER.md", "", "- Lives in Berlin\n")], "done")
    first = asyncio.run(env.dream().run())
    assert first.status == "ok" and first.commit
    env.add("- [durable] User likes tea", "- z")
    env.fake.enqueue("[MEMORY] Likes tea", [edit(MEM, "", "- Likes tea\n")], "done")

    done: list[object] = []

    def restore() -> None:
        other = MemoryStore(env.ws, config=env.config)
        done.append(
            restore_memory(other, GitStore(env.ws, env.config.git), first.commit, replay=True)
        )

    worker = threading.Thread(target=restore)

    def at(point: str) -> None:
        if point == "before-commit" and not worker.is_alive() and not done:
            worker.start()
            worker.join(1.0)  # without the lock the restore finishes here, before the run commits

    monkeypatch.setattr(transaction, "fault", at)
    assert asyncio.run(env.dream().run()).status == "ok"
    worker.join(30)
    assert done and done[0].cursor_rewound_to == 0
    assert env.store.dream_cursor() == 0  # the rewind survived: batch 1-3 will be dreamed again
    assert env.git.log(1)[0].kind == "restore"


def test_restore_and_approve_wait_for_dream_then_give_up_cleanly(gs_ws, monkeypatch):
    from reverie.dream import lock as lock_mod
    from reverie.operations.approve import approve
    from reverie.operations.restore import restore_memory

    ws, g = gs_ws
    sha = g.commit(
        "dream: x",
        kind="dream",
        trailers={T.CURSOR: "3", T.BATCH: "1-3"},
        files={MEM: "# Memory\n- a\n"},
    )
    monkeypatch.setattr(lock_mod, "WAIT_SECONDS", 0.3)
    held = RunLock(ws.state_dir)
    assert held.try_acquire()  # a Dream run in flight
    try:
        with pytest.raises(LockTimeoutError, match="Dream is running; restore"):
            restore_memory(MemoryStore(ws), g, sha, replay=True, timeout=0.3)
        with pytest.raises(LockTimeoutError, match="Dream is running; approve"):
            approve(MemoryStore(ws), g)
    finally:
        held.release()
    assert g.head() == sha and ws.read(MEM) == "# Memory\n- a\n"


# -- item 7: queries take no lock and write nothing ------------------------------------------------
def test_queries_on_a_workspace_without_a_repo_create_nothing(workspace: Workspace):
    from reverie.memory.runtime import Runtime

    before = snapshot(workspace.root)
    git_store = Runtime(workspace).git
    assert git_store.log() == [] and git_store.why("x") == [] and git_store.head() is None
    assert not git_store.exists
    assert snapshot(workspace.root) == before and not (workspace.root / ".git").exists()


@pytest.mark.parametrize("argv", [["log"], ["why", "a"], ["status"], ["show", "HEAD"]])
def test_cli_queries_create_no_repo(tmp_path, argv):
    from support.cli import invoke

    ws = tmp_path / "ws"
    Workspace(ws).init()
    before = snapshot(ws)
    proc = invoke("-w", str(ws), *argv)
    assert "Traceback" not in proc.stderr
    if argv[0] == "show":
        assert proc.returncode == 1 and "no memory repo" in proc.stderr
    elif argv[0] == "why":  # no line holds the text: a user error, one line
        assert proc.returncode == 1 and "no memory line contains 'a'" in proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
    if argv[0] == "log":
        assert "no memory repo yet" in proc.stdout
    assert snapshot(ws) == before and not (ws / ".git").exists()


def test_queries_do_not_wait_for_the_writer_lock_through_the_runtime(gs_ws, monkeypatch):
    from reverie.memory.runtime import Runtime

    ws, g = gs_ws
    g.commit("dream: x", kind="dream", files={MEM: "# Memory\n- a\n"})
    monkeypatch.setattr(gitstore_core, "LOCK_TIMEOUT", 0.2)
    fd = os.open(state_dir(g.git_dir) / "lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a writer is mid-commit
    try:
        rt = Runtime(ws)
        assert [c.kind for c in rt.git.log(5)] == ["dream", "init"]
        assert rt.git.show("HEAD").info.kind == "dream"
        assert [p.line for p in rt.git.why("- a")] == ["- a"]
    finally:
        os.close(fd)


def test_a_query_on_a_nanobot_repo_reads_it_and_adopts_nothing(workspace: Workspace):
    """nanobot's repo is read as it is; adoption (the config mark, the tightened .gitignore, the
    init commit) waits for the first write."""
    root = workspace.root
    (root / ".gitignore").write_text("/*\n!SOUL.md\n!USER.md\n!memory/\n!memory/MEMORY.md\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(
        root,
        "-c",
        "user.name=n",
        "-c",
        "user.email=n@x",
        "commit",
        "-qm",
        "init: nanobot memory store",
    )
    before = snapshot(root)
    g = GitStore(workspace)
    assert [c.subject for c in g.log()] == ["init: nanobot memory store"]
    assert snapshot(root) == before
    g.commit("dream: x", kind="dream", files={MEM: "# Memory\n- a\n"})  # the first write adopts
    assert "memoryrepo = true" in (root / ".git" / "config").read_text()


# -- item 8: lock files of a running git command ---------------------------------------------------
def _interrupted(g: GitStore, ws: Workspace, pid: int) -> None:
    """A transaction cut short after its ref moved, recorded by writer ``pid``."""
    new = g.commit("dream: new", kind="dream", files={MEM: "# Memory\n- new\n"})
    old = git(ws.root, "rev-parse", "HEAD~1").strip()
    (state_dir(g.git_dir) / "pending").write_text(f"{old} {new} {MEM} END\npid {pid} END\n")


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_recovery_leaves_a_lock_a_live_git_command_holds_open(gs_ws):
    ws, g = gs_ws
    _interrupted(g, ws, _dead_pid())
    lock = g.git_dir / "index.lock"
    holder = subprocess.Popen(  # a git command holding index.lock open
        [
            sys.executable,
            "-c",
            "import sys, time; f = open(sys.argv[1], 'w'); print('ok', flush=True); time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ok"
        GitStore(ws).ensure()  # recovery runs
        assert lock.exists()
    finally:
        holder.kill()
        holder.wait()
    assert (
        (state_dir(g.git_dir) / "pending").read_text().startswith("#")
    )  # the transaction itself was finished


def test_recovery_leaves_locks_while_the_recorded_writer_lives_or_without_a_record(gs_ws):
    ws, g = gs_ws
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        _interrupted(g, ws, sleeper.pid)
        (g.git_dir / "index.lock").write_bytes(b"x")
        GitStore(ws).ensure()
        assert (g.git_dir / "index.lock").exists()
    finally:
        sleeper.kill()
        sleeper.wait()
    (g.git_dir / "index.lock").unlink()
    new = g.commit("dream: newer", kind="dream", files={MEM: "# Memory\n- newer\n"})
    old = git(ws.root, "rev-parse", "HEAD~1").strip()
    (state_dir(g.git_dir) / "pending").write_text(
        f"{old} {new} {MEM} END\n"
    )  # no owner line (older format)
    (g.git_dir / "index.lock").write_bytes(b"x")
    GitStore(ws).ensure()
    assert (g.git_dir / "index.lock").exists()


def test_recovery_removes_the_locks_a_dead_writer_recorded(gs_ws):
    ws, g = gs_ws
    _interrupted(g, ws, _dead_pid())
    for lock in (g.git_dir / "index.lock", g.git_dir / "refs" / "heads" / "main.lock"):
        lock.write_bytes(b"x")
    GitStore(ws).ensure()
    assert (
        not (g.git_dir / "index.lock").exists()
        and not (g.git_dir / "refs" / "heads" / "main.lock").exists()
    )
    assert GitStore(ws).commit("dream: after", kind="dream", files={MEM: "# Memory\n- after\n"})


def test_a_config_lock_is_never_removed(workspace: Workspace):
    g = GitStore(workspace)
    g.ensure()
    (g.git_dir / "config.lock").write_text("git config is writing")
    GitStore(workspace).commit("dream: x", kind="dream", files={MEM: "# Memory\n- a\n"})
    assert (g.git_dir / "config.lock").read_text() == "git config is writing"


# -- item 9: a corrupt loose object ----------------------------------------------------------------
def _plant_corrupt_objects(git_dir: Path) -> list[Path]:
    import zlib

    bad = [git_dir / "objects" / "ab" / ("cd" * 19), git_dir / "objects" / "ef" / ("01" * 19)]
    for path in bad:
        path.parent.mkdir(exist_ok=True)
    bad[0].write_bytes(zlib.compress(b"\x96\x00garbage"))  # not a known type
    bad[1].write_bytes(b"not even zlib")
    return bad


def test_a_corrupt_loose_object_is_moved_aside_and_gc_and_commits_keep_working(
    workspace: Workspace, caplog
):
    from reverie.storage.config import GitConfig

    g = GitStore(workspace, GitConfig(gc_every=3))
    g.commit("dream: a", kind="dream", files={MEM: "# Memory\n- a\n"})
    bad = _plant_corrupt_objects(g.git_dir)
    with caplog.at_level(logging.WARNING):
        for i in range(4):  # crosses the automatic pack's threshold
            assert g.commit(f"dream: {i}", kind="dream", files={MEM: f"# Memory\n- {i}\n"})
        g.gc()
    assert not any(p.exists() for p in bad)
    lost = state_dir(g.git_dir) / "lost-found"
    assert sorted(p.name for p in lost.iterdir()) == sorted(p.parent.name + p.name for p in bad)
    assert "is corrupt; moved to" in caplog.text
    assert g.commit("dream: after", kind="dream", files={MEM: "# Memory\n- after\n"})
    fsck = subprocess.run(
        ["git", f"--git-dir={g.git_dir}", "fsck", "--full"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr


# -- item 10: a lost HEAD file ---------------------------------------------------------------------
def test_a_lost_head_is_read_by_queries_and_recreated_by_the_next_write(gs_ws, caplog):
    ws, g = gs_ws
    sha = g.commit("dream: a", kind="dream", files={MEM: "# Memory\n- a\n"})
    (g.git_dir / "HEAD").unlink()
    with caplog.at_level(logging.WARNING):
        reader = GitStore(ws)
        assert reader.head() == sha and [c.kind for c in reader.log()] == ["dream", "init"]
        assert not (g.git_dir / "HEAD").exists()  # a query writes nothing
        after = GitStore(ws).commit("dream: b", kind="dream", files={MEM: "# Memory\n- b\n"})
    assert (g.git_dir / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert "HEAD was missing; recreated it pointing at refs/heads/main" in caplog.text
    assert (
        git(ws.root, "rev-parse", "HEAD").strip() == after
        and git(ws.root, "rev-parse", "HEAD~1").strip() == sha
    )


def test_cli_dream_runs_again_after_head_is_lost(tmp_path):
    from support.cli import invoke

    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    assert invoke("-w", str(ws), "history", "append", "hello").returncode == 0
    GitStore(Workspace(ws)).commit("dream: a", kind="dream", files={MEM: "# Memory\n- a\n"})
    (ws / ".git" / "HEAD").unlink()
    proc = invoke("-w", str(ws), "dream")
    assert proc.returncode == 0, proc.stderr
    assert (ws / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"


# -- smaller ones ----------------------------------------------------------------------------------
def test_a_killed_packs_temp_files_are_removed_by_the_next_pack(gs_ws):
    ws, g = gs_ws
    pack_dir = g.git_dir / "objects" / "pack"
    pack_dir.mkdir(exist_ok=True)
    old = [pack_dir / "tmp_pack_abc123", pack_dir / "tmpq1w2e3.pack"]
    fresh = pack_dir / "tmp_pack_beingwritten"
    for path in [*old, fresh]:
        path.write_bytes(b"PACK partial")
    an_hour_ago = time.time() - 3600
    for path in old:
        os.utime(path, (an_hour_ago, an_hour_ago))
    g.gc()
    assert not any(p.exists() for p in old) and fresh.exists()


def test_a_shallow_clone_of_a_memory_repo_is_adopted_and_warnings_are_readable(tmp_path, caplog):
    src = Workspace(tmp_path / "src")
    src.init()
    g = GitStore(src)
    for i in range(3):
        g.commit(f"dream: {i}", kind="dream", files={MEM: f"# Memory\n- {i}\n"})
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{src.root}", str(clone)], check=True
    )
    (clone / ".gitignore").unlink()  # only the history can tell now
    with caplog.at_level(logging.WARNING):
        copy = GitStore(Workspace(clone))
        assert [c.subject for c in copy.log()] == ["dream: 2"]
        copy.commit("dream: more", kind="dream", files={MEM: "# Memory\n- more\n"})
    assert copy.git_dir == clone / ".git" and not (clone / ".reverie-git").exists()
    assert "b'" not in caplog.text


def test_a_workspace_at_the_root_of_a_git_worktree_keeps_its_state_out_of_that_project(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    (project / "code.py").write_text("x = 1\n")
    git(project, "add", "-A")
    git(project, "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-qm", "code")
    git(project, "worktree", "add", "-q", str(tmp_path / "wt"))
    ws = Workspace(tmp_path / "wt")
    ws.init()
    store = MemoryStore(ws)
    store.append_history("hello")
    store.set_dream_cursor(1)
    GitStore(ws).commit("dream: a", kind="dream", files={MEM: "# Memory\n- a\n"})
    assert (
        ws.root / ".gitignore"
    ).exists() is False  # the project's own root .gitignore is not Reverie's
    git(ws.root, "add", "-A")
    staged = set(git(ws.root, "diff", "--cached", "--name-only").split())
    assert staged == {"SOUL.md", "USER.md", MEM}
    assert (
        git(ws.root, "--git-dir", str(ws.root / ".reverie-git"), "status", "--porcelain").strip()
        == ""
    )


def test_queries_work_on_a_read_only_mount(gs_ws, tmp_path):
    """Needs a bind mount (root in a container); skipped where mounting is not allowed."""
    from support.cli import invoke

    ws, g = gs_ws
    g.commit("dream: a", kind="dream", files={MEM: "# Memory\n- green tea\n"})
    ro = tmp_path / "ro"
    ro.mkdir()
    if (
        subprocess.run(["mount", "--bind", str(ws.root), str(ro)], capture_output=True).returncode
        != 0
    ):
        pytest.skip("bind mounts are not allowed here")
    try:
        if (
            subprocess.run(
                ["mount", "-o", "remount,ro,bind", str(ro)], capture_output=True
            ).returncode
            != 0
        ):
            pytest.skip("read-only remounts are not allowed here")
        for argv in (["log"], ["show", "HEAD"], ["why", "green tea"], ["status"]):
            proc = invoke("-w", str(ro), *argv)
            assert proc.returncode == 0, (argv, proc.stderr)
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)
