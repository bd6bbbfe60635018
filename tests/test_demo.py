"""`reverie demo`: asserted on the files and commits it leaves, not on its prose."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from support.cli import invoke

from reverie.chat.demo import load_conversation, run_demo
from reverie.errors import WorkspaceError


def git_kinds(ws) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(ws), "log", "--format=%(trailers:key=Reverie-Kind,valueonly)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
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
    rule_in = "code block" in soul or (
        pending.exists() and "code block" in json.loads(pending.read_text())["proposed"]
    )
    assert rule_in  # the rule for the agent: in SOUL.md, or staged for approval (protectSoul)

    kinds = git_kinds(ws)
    assert (
        kinds[0] == "restore" and kinds[1] == "restore" and "dream" in kinds and kinds[-1] == "init"
    )
    assert (
        report.undo_commit and report.restore_commit and report.undo_commit != report.restore_commit
    )
    assert any(t.startswith("/dream-restore") for t in steps) and "/dream-log" in steps


def test_demo_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "precious.txt").write_text("mine")
    with pytest.raises(WorkspaceError):
        asyncio.run(run_demo(tmp_path))
    assert (tmp_path / "precious.txt").read_text() == "mine"


def test_demo_cli_json(tmp_path):
    proc = invoke("demo", str(tmp_path / "d"), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["workspace"] == str(tmp_path / "d")
    assert report["dream"]["status"] == "ok" and report["model"] == "reverie/offline"


def test_demo_honours_w_and_its_configured_model(tmp_path, monkeypatch, capsys):
    import os
    import tempfile

    from reverie.cli import main
    from reverie.llm import protocol
    from reverie.llm.scripted import ScriptedModel
    from reverie.storage.workspace import Workspace

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    fake = ScriptedModel.register(
        "demo-w",
        direct=True,
        responder=lambda p: "(nothing)" if protocol.task_of(p.system) == "archive" else "[SKIP]",
    )
    try:
        mine = Workspace(tmp_path / "mine")
        mine.init()
        mine.config_path.write_text(
            json.dumps(
                {
                    "agents": {"defaults": {"model": fake.model}},
                    "providers": {
                        "openai": {
                            "apiKey": "sk-test-not-copied",
                            "apiBase": "http://127.0.0.1:9/v1",
                        }
                    },
                }
            )
        )
        before = {p: p.read_bytes() for p in mine.root.rglob("*") if p.is_file()}
        assert main(["-w", str(mine.root), "demo", "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["model"] == fake.model and report["config_from"] == str(mine.root)
        demo = Path(report["workspace"])
        assert demo.is_relative_to(tmp_path / "tmp")  # a workspace with content is never the demo's
        written = json.loads((demo / "reverie.json").read_text())
        assert written["agents"]["defaults"]["model"] == fake.model
        assert written["agents"]["defaults"]["contextWindowTokens"] == 2048
        assert written["providers"]["openai"] == {
            "apiBase": "http://127.0.0.1:9/v1"
        }  # no key copied
        assert os.stat(demo / "reverie.json").st_mode & 0o077 == 0
        assert {
            p: p.read_bytes() for p in mine.root.rglob("*") if p.is_file()
        } == before  # untouched

        # -w naming a new directory: the demo runs there (the model from the environment, as for any
        # command)
        monkeypatch.setenv("REVERIE_MODEL", fake.model)
        fresh = tmp_path / "fresh"
        assert main(["-w", str(fresh), "demo", "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert (
            report["workspace"] == str(fresh)
            and report["model"] == fake.model
            and report["config_from"] is None
        )
    finally:
        ScriptedModel.unregister(fake.name)
