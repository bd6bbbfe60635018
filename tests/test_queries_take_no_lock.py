"""Every query verb answers while another ``Memory`` holds every writer lock of the workspace (the
memory repo's writer lock, the history lock, Dream's run lock, each conversation's lock): a query
never waits for a writer, nor takes a writer's lock (``plan_purge`` waited for the repo's writer
lock, and could create the repo)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

import reverie
from reverie.dream.lock import dream_run_lock
from reverie.memory import Memory
from reverie.storage.sessions import SessionStore

QUERIES: dict[str, Callable[[Memory, str], Any]] = {
    "recall": lambda m, sha: m.recall("Lisbon"),
    "search": lambda m, sha: m.search("Lisbon"),
    "history": lambda m, sha: m.history(),
    "log": lambda m, sha: m.log(),
    "show": lambda m, sha: m.show(sha),
    "why": lambda m, sha: m.why("Lisbon"),
    "read": lambda m, sha: m.read("USER.md"),
    "files": lambda m, sha: m.files(),
    "context": lambda m, sha: m.context(),
    "status": lambda m, sha: m.status(),
    "pending": lambda m, sha: m.pending(),
    "messages": lambda m, sha: m.messages("chat1"),
    "get_all": lambda m, sha: m.get_all(),
    "plan_purge": lambda m, sha: m.plan_purge("Lisbon"),
    "plan_restore": lambda m, sha: m.plan_restore(sha),
    "committed": lambda m, sha: m.committed("USER.md"),
}


@contextmanager
def _every_writer_lock(ws: Path) -> Iterator[None]:
    with reverie.open(ws) as writer, ExitStack() as held:
        held.enter_context(writer.runtime.git.writing())
        held.enter_context(writer.runtime.store.history.locked())
        held.enter_context(dream_run_lock(writer.workspace.state_dir, "a test"))
        sessions = SessionStore(writer.workspace)
        for path in sorted((ws / "sessions").glob("*.jsonl")):
            held.enter_context(sessions.locked(path))
        yield


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    ws = tmp_path_factory.mktemp("held") / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.record("chat1", [{"role": "user", "content": "I like tea"}])
        memory.dream()
        memory.remember("User: I prefer Postgres.")
        sha = memory.log()[0].sha
    return ws, sha


@pytest.mark.parametrize("verb", sorted(QUERIES))
def test_a_query_answers_while_every_writer_lock_is_held(workspace, verb):
    ws, sha = workspace
    done: dict[str, Any] = {}
    with reverie.open(ws) as reader, _every_writer_lock(ws):

        def query() -> None:
            try:
                done["result"] = QUERIES[verb](reader, sha)
            except BaseException as exc:  # noqa: BLE001 - what the query met is the assertion
                done["error"] = exc

        worker = threading.Thread(target=query, daemon=True)
        worker.start()
        worker.join(120)  # a bound on a hang, not a speed: the locks are held until it ends
        assert not worker.is_alive(), f"{verb} waited for a writer's lock"
    assert "error" not in done, done.get("error")


def test_plan_purge_of_a_workspace_not_made_yet_makes_nothing(tmp_path):
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        plan = memory.plan_purge("Lisbon")
        assert not plan.found and plan.history.commits == 0
    assert not ws.exists()
