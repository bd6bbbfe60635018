"""Crashes between Dream's write steps, then reconciliation; two processes running Dream at once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.dream_helpers import edit, make_env

from reverie.dream.deadletter import read_dead_letters
from reverie.dream.records import Attempts

HERE = Path(__file__).parent


def proc(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(HERE.parent), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, str(HERE / "support" / "dream_proc.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def dream_commits(env) -> int:
    return len(env.git.log(limit=50, kind="dream"))


@pytest.mark.parametrize("point", ["before-commit", "committed", "cursor-written"])
def test_crash_between_steps_never_replays_or_skips(tmp_path, point):
    root = tmp_path / "ws"
    env = make_env(root)
    env.add("- [durable] User lives in Berlin", "- [durable] x", "- [durable] y")
    out = proc(str(root), "crash", point)
    assert out.returncode == 77, out.stderr[-2000:]
    env = make_env(root)  # a fresh process's view: reopen everything
    committed = point != "before-commit"
    assert dream_commits(env) == (1 if committed else 0)
    assert ("- Lives in Berlin" in env.read("USER.md")) == committed
    if committed:
        result = asyncio.run(env.dream().run())
        assert result.status == "nothing-to-do"  # the committed batch is not replayed
        assert env.store.dream_cursor() == 3 and dream_commits(env) == 1
        assert env.fake.prompts == []
    else:
        assert env.store.dream_cursor() == 0
        env.fake.enqueue(
            "[USER] Lives in Berlin", [edit("USER.md", "", "- Lives in Berlin\n")], "done"
        )
        result = asyncio.run(env.dream().run())
        assert result.status == "ok" and (result.first, result.last) == (
            1,
            3,
        )  # the batch is not skipped
        assert env.store.dream_cursor() == 3 and dream_commits(env) == 1
    assert env.read("USER.md").count("- Lives in Berlin") == 1
    assert env.git_cli("status", "--porcelain").strip() == ""


def test_crash_between_dead_letter_and_cursor(tmp_path):
    root = tmp_path / "ws"
    env = make_env(root, max_attempts=1)
    env.add("- a", "- b")
    out = proc(str(root), "crash", "dead-lettered")
    assert out.returncode == 77, out.stderr[-2000:]
    env = make_env(root, max_attempts=1)
    assert (
        env.store.dream_cursor() == 0
        and len(read_dead_letters(root / "memory" / "dream-deadletter.jsonl")) == 1
    )
    assert asyncio.run(env.dream().run()).status == "nothing-to-do"
    assert env.store.dream_cursor() == 2
    assert len(read_dead_letters(root / "memory" / "dream-deadletter.jsonl")) == 1
    assert Attempts.load(env.ws.state_dir).count == 0


def test_two_processes_run_at_once(tmp_path):
    root = tmp_path / "ws"
    env = make_env(root)
    env.add("- [durable] fact")
    ready = tmp_path / "ready"
    ready.mkdir()
    pyenv = dict(os.environ)
    pyenv["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(HERE.parent), pyenv.get("PYTHONPATH", "")]
    )
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(HERE / "support" / "dream_proc.py"),
                str(root),
                "race",
                str(ready),
                "2",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=pyenv,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    statuses = sorted(o[0].strip() for o in outs)
    # the second waits a moment for the lock (lock.GRACE_SECONDS): it finds the first run still
    # going, or done and nothing left
    assert statuses in (["already-running", "ok"], ["nothing-to-do", "ok"]), [
        o[1][-1500:] for o in outs
    ]
    assert dream_commits(env) == 1 and env.store.dream_cursor() == 1
    assert env.read("memory/MEMORY.md").count("- fact") == 1
