"""A memory commit cut by a signal at any point leaves the workspace before or after the change,
never half-staged: SIGINT and SIGTERM (to a program that embeds Reverie, with Python's own handlers)
are held from the commit's intent marker until it is done, so the commit ends whole and git's index
is HEAD's at once; after SIGKILL, the next writer's recovery finishes the commit and puts git's
index back to HEAD. Each signal is sent before every one of the commit's changes to the disk in
turn (``support/commit_proc.py``)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import ROOT

import reverie
from reverie.memory.runtime import Runtime

PROC = Path(__file__).parent / "support" / "commit_proc.py"
BEES = "- Keeps bees on the roof\n"


def _proc(ws: Path, sig: str, k: int) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'tests'}")
    return subprocess.run(
        [sys.executable, str(PROC), str(ws), sig, str(k)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _git(ws: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(ws), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    ws = tmp_path_factory.mktemp("commit") / "ws"
    with reverie.open(ws) as memory:
        memory.init()
        memory.write("USER.md", memory.read("USER.md") + "- Lives in Lisbon\n")
    probe = ws.parent / "probe"
    shutil.copytree(ws, probe)
    done = _proc(probe, "SIGKILL", 0)
    assert done.returncode == 0, done.stderr
    return ws, int(done.stdout)


def _either_before_or_after(ws: Path, head_before: str) -> None:
    head = _git(ws, "rev-parse", "HEAD").strip()
    user = (ws / "USER.md").read_text(encoding="utf-8")
    assert user == _git(ws, "show", "HEAD:USER.md")  # the file is HEAD's
    assert (head != head_before) == user.endswith(BEES)  # after the change, or before it
    assert _git(ws, "diff", "--cached", "--name-only") == ""  # nothing staged
    assert _git(ws, "status", "--porcelain", "--untracked-files=no") == ""


@pytest.mark.slow
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_a_commit_cut_by_a_signal_anywhere_is_before_or_after(
    base: tuple[Path, int], tmp_path: Path, sig: str
) -> None:
    ws, changes = base
    assert changes >= 5  # the commit's marker, objects, ref, file and index at least
    head_before = _git(ws, "rev-parse", "HEAD").strip()
    copies = [tmp_path / f"k{k}" for k in range(1, changes + 1)]
    for copy in copies:
        shutil.copytree(ws, copy)
    # one process, a child forked for each cut (``commit_proc.py --each``)
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'tests'}")
    done = subprocess.run(
        [sys.executable, str(PROC), "--each", sig, *map(str, copies)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    codes = [int(line) for line in done.stdout.split()]
    assert len(codes) == changes, done.stdout
    if sig == "SIGKILL":  # every cut was reached: the forked edit makes the probe's changes
        assert codes == [-signal.SIGKILL] * changes
    for k, (copy, code) in enumerate(zip(copies, codes, strict=True), 1):
        stderr = Path(f"{copy}.stderr").read_text(encoding="utf-8")
        assert code in (0, 1, -getattr(signal, sig)), (k, stderr[-2000:])
        assert "Traceback" not in stderr or "KeyboardInterrupt" in stderr, stderr
        if sig == "SIGKILL":  # the next writer recovers first
            Runtime(copy).git.ensure()
        _either_before_or_after(copy, head_before)
