"""A consolidation that ends between its history appends and its offset save (a signal, SIGKILL)
is resumed by the next run with no slice in history twice (reverie.consolidator.resume)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from asyncio import run
from pathlib import Path

import pytest

from reverie import MemoryStore
from reverie.consolidator import Consolidator, SessionStore
from reverie.llm.client import ModelClient
from reverie.llm.scripted import ScriptedModel
from reverie.storage.config import Config
from reverie.storage.history import HistoryLog
from reverie.storage.workspace import Workspace

TURNS = 12

_CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from asyncio import run
    from reverie import MemoryStore
    from reverie.consolidator import Consolidator, SessionStore
    from reverie.llm.client import ModelClient
    from reverie.llm.scripted import ScriptedModel
    from reverie.storage.config import Config
    from reverie.storage.history import HistoryLog

    ws, kill_after, where = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    model = ScriptedModel.register("resumechild")
    model.responder = lambda prompt: "- [durable] user turn fact"
    config = Config.model_validate({"agents": {"defaults": {
        "contextWindowTokens": 4096, "maxTokens": 1024, "model": model.model}}})
    store = MemoryStore(ws, config=config)
    cons = Consolidator(store, ModelClient(config), config)
    sessions = SessionStore(ws)
    seen = [0]
    original = HistoryLog.append_many
    def append(self, *args, **kwargs):
        cursor = original(self, *args, **kwargs)
        seen[0] += 1
        if where == "append" and seen[0] == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return cursor
    HistoryLog.append_many = append
    original_save = SessionStore.save_offset
    def save_offset(self, session, value):
        if where == "save" and seen[0] >= kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return original_save(self, session, value)
    SessionStore.save_offset = save_offset
    run(cons.consolidate_all(sessions.get_or_create("k")))
    """
)


def _config(model: str) -> Config:
    return Config.model_validate(
        {"agents": {"defaults": {"contextWindowTokens": 4096, "maxTokens": 1024, "model": model}}}
    )


@pytest.fixture
def model():
    m = ScriptedModel.register("resumechild")  # the child's name: runs in this process too
    m.responder = lambda prompt: "- [durable] user turn fact"
    yield m
    ScriptedModel.unregister(m.name)


def _workspace(root: Path) -> Path:
    ws = Workspace(root)
    ws.init()
    sessions = SessionStore(root)
    s = sessions.get_or_create("k")
    for t in range(TURNS):
        sessions.append(s, {"role": "user", "content": f"user turn {t} " + "u" * 900})
        sessions.append(s, {"role": "assistant", "content": f"assistant turn {t} " + "a" * 900})
    return root


def _consolidate(root: Path) -> None:
    config = _config("scripted/resumechild")
    store = MemoryStore(root, config=config)
    cons = Consolidator(store, ModelClient(config), config)
    run(cons.consolidate_all(SessionStore(root).get_or_create("k")))


def _entries(root: Path) -> int:
    return len(MemoryStore(root, config=_config("scripted/resumechild")).history.read_since(0))


def test_sigkill_at_every_point_leaves_each_slice_in_history_once(tmp_path, model):
    whole = _workspace(tmp_path / "whole")
    _consolidate(whole)
    slices = _entries(whole)
    assert slices >= 4  # several slices, so there are many points to kill at
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    points = [("append", k) for k in range(1, slices)] + [("save", 2)]
    for where, k in points:
        root = _workspace(tmp_path / f"{where}{k}")
        child = subprocess.run(
            [sys.executable, "-c", _CHILD, str(root), str(k), where], env=env, timeout=120
        )
        assert child.returncode == -signal.SIGKILL, (where, k)
        _consolidate(root)
        session = SessionStore(root).get_or_create("k")
        assert session.last_consolidated == len(session.messages) == 2 * TURNS
        assert _entries(root) == slices, (where, k)  # main: the killed run's slices again


class Stop(BaseException):
    """A signal's KeyboardInterrupt / a cancelled task, raised inside the run."""


def test_a_signal_during_a_run_leaves_history_and_offset_resumable(tmp_path, model, monkeypatch):
    root = _workspace(tmp_path / "ws")
    original = HistoryLog.append_many
    seen = [0]

    def append(self, *args, **kwargs):
        cursor = original(self, *args, **kwargs)
        seen[0] += 1
        if seen[0] == 3:
            raise Stop()
        return cursor

    monkeypatch.setattr(HistoryLog, "append_many", append)
    with pytest.raises(Stop):
        _consolidate(root)
    monkeypatch.setattr(HistoryLog, "append_many", original)
    # the third slice's entry is in history; the offset saved as the run ended covers two
    session = SessionStore(root).get_or_create("k")
    assert _entries(root) == 3 and 0 < session.last_consolidated < len(session.messages)
    _consolidate(root)
    whole = _workspace(tmp_path / "whole")
    _consolidate(whole)
    assert _entries(root) == _entries(whole)


def test_a_cleared_session_is_not_resumed_from_its_old_slices(tmp_path, model):
    root = _workspace(tmp_path / "ws")
    config = _config("scripted/resumechild")
    store = MemoryStore(root, config=config)
    cons = Consolidator(store, ModelClient(config), config)
    sessions = SessionStore(root)
    run(cons.new_session(sessions.get_or_create("k")))  # consolidated, then cleared
    before = _entries(root)
    s = sessions.get_or_create("k")
    assert s.messages == [] and s.last_consolidated == 0
    for t in range(TURNS):
        sessions.append(s, {"role": "user", "content": f"user turn {t} " + "u" * 900})
        sessions.append(s, {"role": "assistant", "content": f"assistant turn {t} " + "a" * 900})
    _consolidate(root)  # same numbers, same words, later timestamps: consolidated, not skipped
    assert _entries(root) == 2 * before


def test_a_long_run_saves_the_offset_once_not_per_slice(tmp_path, model, monkeypatch):
    # each save rewrites the session file: one per slice made a big session's run quadratic
    root = _workspace(tmp_path / "ws")
    saves: list[int] = []
    original = SessionStore.save_offset

    def save_offset(self, session, value):
        saves.append(value)
        return original(self, session, value)

    monkeypatch.setattr(SessionStore, "save_offset", save_offset)
    _consolidate(root)
    assert _entries(root) >= 4 and saves == [2 * TURNS]


def test_a_slices_entries_are_appended_in_one_write(tmp_path, monkeypatch):
    # a signal between two entries of one slice left part of it in history, consolidated again
    history = MemoryStore(tmp_path / "ws").history
    writes: list[bytes] = []
    real_write = os.write

    def write(fd, data):  # type: ignore[no-untyped-def]
        if os.path.realpath(f"/proc/self/fd/{fd}") == os.path.realpath(history.path):
            writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    cursors = history.append_many(
        ["one", "two", "three"], "k", extras=[{"part": i} for i in (1, 2, 3)]
    )
    monkeypatch.setattr(os, "write", real_write)
    assert cursors == [1, 2, 3] and len(writes) == 1 and writes[0].count(b"\n") == 3
    got = history.read_since(0)
    assert [(e.cursor, e.content, e.get("part")) for e in got] == [
        (1, "one", 1),
        (2, "two", 2),
        (3, "three", 3),
    ]
