"""``reverie serve --root``: a scope removed or moved while its run is in flight is one line saying
it went away, not an "unexpected error" retried with back-off."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.serve_root import dream_responder
from reverie.llm.scripted import ScriptedModel
from reverie.memory.runtime import Runtime
from reverie.schedule.root import RootScheduler
from reverie.storage.config import load_config
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore


@pytest.fixture
def fake(fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    fake.responder = dream_responder
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", fake.model)
    monkeypatch.setenv("REVERIE_MEMORY__HISTORY__FSYNC", "false")
    monkeypatch.setenv("REVERIE_LLM__MAX_RETRIES", "0")
    monkeypatch.setenv("REVERIE_SERVE__JITTER_SECONDS", "0")
    monkeypatch.setenv("REVERIE_SERVE__POLL_SECONDS", "0.05")
    monkeypatch.setenv("REVERIE_SERVE__RETRY_BACKOFF_SECONDS", "0.05")
    return fake


@pytest.mark.parametrize("when", ["at-open", "mid-run"])
@pytest.mark.parametrize("how", ["removed", "moved"])
def test_a_scope_that_goes_away_mid_run_is_one_line_and_skipped(
    tmp_path: Path, fake: ScriptedModel, caplog, how: str, when: str
) -> None:
    root = ScopeRoot(tmp_path / "root")
    for user in ("gone", "kept"):
        store = WorkspaceStore(root.ensure(Scope(user)))
        store.append_history(f"- [durable] {user} lives in Oslo", "cli:test")
    gone = root.workspace(Scope("gone")).root.parent
    went: list[bool] = []

    def go() -> None:
        went.append(True)
        if how == "removed":
            shutil.rmtree(gone)
        else:
            gone.rename(tmp_path / "elsewhere")

    def the_folder_goes_mid_run(prompt):  # while the model answers the scope's batch
        if when == "mid-run" and "gone lives in Oslo" in str(prompt.user) and not went:
            go()
        return dream_responder(prompt)

    def open_dream(ws):  # after the scheduler found the scope, as the run opens it
        if when == "at-open" and ws.root.parent == gone:
            go()
        return Runtime(ws).dream

    fake.responder = the_folder_goes_mid_run
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=1)
    caplog.set_level(logging.INFO)

    async def serve() -> None:
        stop = asyncio.Event()
        task = asyncio.ensure_future(sched.run(stop))
        deadline = time.monotonic() + 30
        while root.due_names() or sched._running:
            assert time.monotonic() < deadline and not task.done()
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)  # a retry would come within this
        stop.set()
        await task

    asyncio.run(serve())
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("serve:")]
    said = [line for line in lines if "went away while it ran" in line]
    assert len(said) == 1, (lines, gone.exists(), sched.stats)
    assert not [line for line in lines if "unexpected error" in line or "in a row" in line], lines
    assert sched.stats.errors == 0
    assert WorkspaceStore(root.workspace(Scope("kept"))).pending_count() == 0
    assert went and not gone.exists()  # nothing re-created it


def test_a_due_marker_for_a_scope_with_no_history_writes_nothing_into_it(
    tmp_path: Path, fake: ScriptedModel
) -> None:
    """An empty scope folder with a due marker (a stray marker, a half-made scope): serve removes
    the marker and never makes the folder a workspace (no repository, no init commit)."""
    root = ScopeRoot(tmp_path / "root")
    WorkspaceStore(root.ensure(Scope("real"))).append_history("- [durable] real fact", "cli:t")
    digest = "0123456789abcdef0123456789abcdef"
    empty = tmp_path / "root" / "users" / digest[:2] / digest[2:4] / digest / "workspace"
    empty.mkdir(parents=True)
    (tmp_path / "root" / "due" / digest[:2]).mkdir(parents=True, exist_ok=True)
    (tmp_path / "root" / "due" / digest[:2] / digest).touch()
    sched = RootScheduler(root, lambda ws: Runtime(ws).dream, config=load_config(), max_inflight=1)

    async def serve() -> None:
        stop = asyncio.Event()
        task = asyncio.ensure_future(sched.run(stop))
        deadline = time.monotonic() + 30
        while root.due_names() or sched._running:
            assert time.monotonic() < deadline and not task.done()
            await asyncio.sleep(0.02)
        stop.set()
        await task

    asyncio.run(serve())
    assert list(empty.iterdir()) == []
    assert WorkspaceStore(root.workspace(Scope("real"))).pending_count() == 0


def _serve_cmd(root: Path) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "REVERIE_HOME": str(root.parent / "home")}
    return [sys.executable, "-m", "reverie", "--root", str(root), "serve"], env


def test_serve_root_on_a_workspace_is_refused_in_one_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    env = {**os.environ, "REVERIE_HOME": str(tmp_path / "home")}
    subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "init"],
        env=env,
        check=True,
        capture_output=True,
    )
    before = sorted(p.name for p in ws.iterdir())
    cmd, env = _serve_cmd(ws)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode != 0
    assert f"{ws} is a workspace, not a root of scopes" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in ws.iterdir()) == before


def test_serve_root_on_a_missing_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    # a mistyped root would be served, empty, for ever: refused, and nothing is created
    for extra in ([], ["--rescan"]):
        cmd, env = _serve_cmd(tmp_path / "nothere")
        done = subprocess.run(cmd + extra, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1, done.stderr
        assert done.stderr.splitlines() == [
            f"reverie: error: {tmp_path / 'nothere'} does not exist: --root names a root of "
            "scopes (the first scope written there creates it: `reverie --root DIR --user ID init`)"
        ]
        assert not (tmp_path / "nothere").exists()
