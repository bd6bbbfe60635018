"""`reverie demo`: asserted on the files and commits it leaves, not on its prose."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest

from conftest import run_cli
from reverie.demo import load_conversation, run_demo
from reverie.errors import WorkspaceError


def git_kinds(ws) -> list[str]:
    out = subprocess.run(["git", "-C", str(ws), "log", "--format=%(trailers:key=Reverie-Kind,valueonly)"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def test_the_conversation_has_what_the_demo_promises():
    sessions = load_conversation()["sessions"]
    assert len(sessions) >= 3
    assert sum(len(s["messages"]) for s in sessions) >= 40


def test_demo_learns_corrects_and_restores(tmp_path):
    ws = tmp_path / "demo"
    steps: list[str] = []
    report = asyncio.run(run_demo(ws, lambda title, text: steps.append(title)))
    assert report.sessions == 3 and report.messages >= 40
    assert report.pressure_rounds > 0  # the small window really forced consolidation mid-session
    assert report.dream.status == "ok" and report.dream_commits

    user = (ws / "USER.md").read_text()
    assert "Porto" in user and "Lisbon" not in user  # the correction replaced the fact
    memory = (ws / "memory" / "MEMORY.md").read_text()
    assert "PostgreSQL" in memory  # the project decision
    soul = (ws / "SOUL.md").read_text()
    pending = ws / "memory" / ".reverie" / "pending-soul.json"
    rule_in = "code block" in soul or (pending.exists() and "code block" in json.loads(pending.read_text())["proposed"])
    assert rule_in  # the rule for the agent: in SOUL.md, or staged for approval (protectSoul)

    kinds = git_kinds(ws)
    assert kinds[0] == "restore" and kinds[1] == "restore" and "dream" in kinds and kinds[-1] == "init"
    assert report.undo_commit and report.restore_commit and report.undo_commit != report.restore_commit
    assert any(t.startswith("/dream-restore") for t in steps) and "/dream-log" in steps


def test_demo_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "precious.txt").write_text("mine")
    with pytest.raises(WorkspaceError):
        asyncio.run(run_demo(tmp_path))
    assert (tmp_path / "precious.txt").read_text() == "mine"


def test_demo_cli_json(tmp_path):
    proc = run_cli("demo", str(tmp_path / "d"), "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["workspace"] == str(tmp_path / "d")
    assert report["dream"]["status"] == "ok" and report["model"] == "reverie/offline"
