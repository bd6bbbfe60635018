"""Consolidation as jobs (reverie.memory.session_jobs): ``/new`` and idle archiving run outside
the chat
process, under the session's archiver lock, through the Memory verbs; in a scope, their history
appends mark it due."""

from __future__ import annotations

import asyncio
import itertools
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from reverie.consolidator import SessionStore
from reverie.errors import SessionError
from reverie.llm.scripted import ScriptedModel
from reverie.memory.session_jobs import consolidate_idle_sessions, end_session
from reverie.storage.locking import Lock, lock_path
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch):
    counter = itertools.count(1)
    fake = ScriptedModel.register(
        "session-jobs", responder=lambda prompt: f"- [durable] fact number {next(counter)}"
    )
    monkeypatch.setenv("REVERIE_MODEL", fake.model)
    monkeypatch.setenv("REVERIE_MEMORY__FLUSH__ENABLED", "false")
    monkeypatch.setenv("REVERIE_MEMORY__SESSION_FILES__ENABLED", "false")
    yield fake
    ScriptedModel.unregister("session-jobs")


def _chat(ws_root: Path, key: str, turns: int) -> SessionStore:
    sessions = SessionStore(ws_root)
    s = sessions.get_or_create(key)
    for t in range(turns):
        sessions.append(s, {"role": "user", "content": f"user turn {t}"})
        sessions.append(s, {"role": "assistant", "content": f"assistant turn {t}"})
    return sessions


def test_end_session_archives_then_clears_and_marks_the_scope_due(
    tmp_path: Path, model: ScriptedModel
) -> None:
    root = ScopeRoot(tmp_path / "root")
    ws = root.ensure(Scope("alice"))
    sessions = _chat(ws.root, "tg:alice", 3)
    result = asyncio.run(end_session(ws, "tg:alice"))
    assert result.cleared
    assert [e.content for e in WorkspaceStore(ws).history.read_since(0)] == [
        "- [durable] fact number 1"
    ]
    assert sessions.get_or_create("tg:alice").messages == []
    assert root.due_names() == [Scope("alice").name]
    with pytest.raises(SessionError, match="no session"):
        asyncio.run(end_session(ws, "tg:nobody"))


def test_idle_archiving_takes_only_idle_sessions_and_waits_for_the_session_lock(
    tmp_path: Path, model: ScriptedModel
) -> None:
    root = ScopeRoot(tmp_path / "root")
    ws = root.ensure(Scope("bob"))
    sessions = _chat(ws.root, "tg:old", 2)
    _chat(ws.root, "tg:fresh", 2)
    later = datetime.now() + timedelta(minutes=30)
    assert (
        asyncio.run(consolidate_idle_sessions(ws, idle_minutes=60, now=later)) == []
    )  # nothing idle for an hour
    much_later = datetime.now() + timedelta(hours=2)
    # the chat process is archiving tg:old right now: the job waits for its lock instead of
    # archiving twice
    lock = Lock(lock_path(sessions.path_for("tg:old"), "consolidate"))
    lock.acquire()

    async def job():
        task = asyncio.ensure_future(consolidate_idle_sessions(ws, idle_minutes=60, now=much_later))
        await asyncio.sleep(0.3)
        assert not task.done()
        lock.release()
        return await task

    results = asyncio.run(job())
    assert sorted(r.session_key for r in results) == ["tg:fresh", "tg:old"]
    assert len(WorkspaceStore(ws).history.read_since(0)) == 2
    assert (
        asyncio.run(consolidate_idle_sessions(ws, idle_minutes=60, now=much_later)) == []
    )  # all archived now
    assert SessionStore(ws.root).get_or_create("tg:old").messages  # archived, not cleared
