"""Kill a committing process at random instants: the repo stays valid and the files follow HEAD
after reopening."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from reverie.gitstore import GitStore
from reverie.storage.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git CLI not installed")

ROOT = Path(__file__).resolve().parent.parent

WRITER = textwrap.dedent("""
    import sys
    from reverie.gitstore import GitStore
    from reverie.storage.workspace import Workspace

    g = GitStore(Workspace(sys.argv[1]))
    g.ensure()
    print("ready", flush=True)
    i = int(sys.argv[2])
    while True:
        i += 1
        files = {
            "memory/MEMORY.md": f"# Memory\\n- fact {i}\\n" * (1 + i % 3),
            "SOUL.md": f"soul {i % 4}\\n",
        }
        if i % 5 == 0:
            files["USER.md"] = f"user {i}\\n"
        g.commit(
            f"dream: round {i}", kind="dream", trailers={"Reverie-Cursor": str(i)}, files=files
        )
    """)


def test_sigkill_during_commits_leaves_valid_repo(workspace: Workspace) -> None:
    GitStore(workspace).ensure()
    git_dir = workspace.root / ".git"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rng = random.Random(1234)
    heads: set[str] = set()
    for round_no in range(8):
        before = subprocess.run(
            ["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], capture_output=True, text=True
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(workspace.root), str(round_no * 10_000)],
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.01, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        fsck = subprocess.run(
            ["git", f"--git-dir={git_dir}", "fsck", "--full"], capture_output=True, text=True
        )
        assert fsck.returncode == 0, fsck.stdout + fsck.stderr
        assert "error" not in fsck.stderr.lower() and "missing" not in fsck.stdout.lower()
        head = subprocess.run(
            ["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], capture_output=True, text=True
        )
        assert head.returncode == 0
        # HEAD is a complete commit: git can read its whole tree
        subprocess.run(
            ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "HEAD"],
            check=True,
            capture_output=True,
        )
        assert before.returncode == 0
        heads.add(head.stdout.strip())
        g = GitStore(workspace)
        g.ensure()  # recovery: finish or discard the interrupted commit
        assert g.dirty() == [], f"round {round_no}: files do not match HEAD after recovery"
        assert g.head() == head.stdout.strip()
        marker = git_dir / "reverie" / "pending"
        assert not marker.exists() or marker.read_text().startswith("#")
    assert len(heads) >= 6  # the writer really made progress between kills
    # after all of it, a normal commit still works
    assert GitStore(workspace).commit("final", kind="manual", files={"SOUL.md": "final\n"})


CONCURRENT = textwrap.dedent("""
    import sys
    from reverie.gitstore import GitStore
    from reverie.storage.workspace import Workspace

    g = GitStore(Workspace(sys.argv[1]))
    path = sys.argv[2]
    for i in range(12):
        assert g.commit(f"dream: {path} {i}", kind="dream", files={path: f"{path} version {i}\\n"})
    """)


def test_two_processes_committing_at_once_lose_nothing(workspace: Workspace) -> None:
    g = GitStore(workspace)
    g.ensure()
    start = len(g.log(1000))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen([sys.executable, "-c", CONCURRENT, str(workspace.root), rel], env=env)
        for rel in ("USER.md", "memory/MEMORY.md")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    history = g.log(1000)
    assert len(history) == start + 24
    assert {c.kind for c in history[:24]} == {
        "dream"
    }  # neither saw the other's write as a person's edit
    assert workspace.read("USER.md") == "USER.md version 11\n"
    assert workspace.read("memory/MEMORY.md") == "memory/MEMORY.md version 11\n"
    fsck = subprocess.run(
        ["git", f"--git-dir={g.git_dir}", "fsck", "--full"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr


def test_status_does_not_import_dulwich(workspace: Workspace) -> None:
    GitStore(workspace).ensure()  # a memory repo exists
    code = (
        "import sys\n"
        "from reverie import MemoryStore\n"
        "from reverie.memory.status import collect_status\n"
        f"collect_status(MemoryStore({str(workspace.root)!r}))\n"
        "assert 'dulwich' not in sys.modules, 'status imported dulwich'\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
