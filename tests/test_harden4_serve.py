"""``reverie serve --root`` writes nothing into a scope with nothing to dream: a scope made by
``ScopeRoot.ensure`` whose ``history.jsonl`` exists but never held an entry, with a due marker, is
left as it was (no repository, no init commit, no lock or state file) and its marker removed."""

from __future__ import annotations

import asyncio
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
    monkeypatch.setenv("REVERIE_SERVE__JITTER_SECONDS", "0")
    return fake


def _files(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")}


@pytest.mark.parametrize("history", ["empty", "blank lines"])
def test_a_scope_whose_history_never_held_an_entry_is_left_as_it_was(
    tmp_path: Path, fake: ScriptedModel, history: str
) -> None:
    root = ScopeRoot(tmp_path / "root")
    WorkspaceStore(root.ensure(Scope("real"))).append_history("- [durable] real fact", "cli:t")
    empty = root.ensure(Scope("empty"))
    empty.history_path.parent.mkdir(parents=True, exist_ok=True)
    empty.history_path.write_text("" if history == "empty" else "\n\n", "utf-8")
    root.mark_due(Scope("empty"))
    before = _files(empty.root)
    sched = RootScheduler(root, lambda ws: Runtime(ws).dream, config=load_config(), max_inflight=1)

    async def serve() -> None:
        stop = asyncio.Event()
        task = asyncio.ensure_future(sched.run(stop))
        deadline = time.monotonic() + 60
        while root.due_names() or sched._running:
            assert time.monotonic() < deadline and not task.done()
            await asyncio.sleep(0.02)
        stop.set()
        await task

    asyncio.run(serve())
    assert _files(empty.root) == before
    assert not (empty.root / ".git").exists()
    assert WorkspaceStore(root.workspace(Scope("real"))).pending_count() == 0  # served all the same
