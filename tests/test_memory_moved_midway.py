"""A workspace moved or deleted while a verb is under way (another process renames it between the
verb's start and its write): the verb is ``WorkspaceMovedError``, never a success whose write went
to a folder its writers made anew at the old path, nor the raw ``OSError`` the move caused. The
move is made at a fixed point inside the verb (the step named in each test), as another process
would at that instant."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import reverie
from reverie.errors import WorkspaceMovedError
from reverie.gitstore import GitStore
from reverie.storage.store import WorkspaceStore


def _history(ws: Path) -> list[str]:
    lines = (ws / "memory" / "history.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["content"] for line in lines]


def _move_before(monkeypatch: pytest.MonkeyPatch, cls: type, name: str, ws: Path) -> Path:
    """``cls.name`` renaming ``ws`` aside first (once), as another process would then."""
    moved = ws.with_name("moved")
    original = getattr(cls, name)

    def step(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ws.exists():
            ws.rename(moved)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, step)
    return moved


def test_a_write_after_the_move_is_not_a_success(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        moved = _move_before(monkeypatch, WorkspaceStore, "append_history", ws)
        with pytest.raises(WorkspaceMovedError, match="while a verb ran") as caught:
            memory.remember("User: I prefer tea.")
        assert str(ws) in str(caught.value) and "\n" not in str(caught.value)
        assert _history(moved) == ["User: I live in Lisbon."]  # the workspace: unchanged
        with pytest.raises(WorkspaceMovedError, match="after it was opened"):
            memory.history()  # and every verb after


def test_the_async_twin_says_the_same(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        _move_before(monkeypatch, WorkspaceStore, "append_history", ws)
        with pytest.raises(WorkspaceMovedError, match="while a verb ran"):
            asyncio.run(memory.aremember("User: I prefer tea."))


def test_a_dream_whose_commit_finds_the_repo_gone_is_the_move_not_an_os_error(
    tmp_path, monkeypatch
):
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        memory.remember("User: I prefer green tea.")
        moved = _move_before(monkeypatch, GitStore, "commit", ws)
        with pytest.raises(WorkspaceMovedError, match="while a verb ran"):
            memory.dream()
        assert "tea" not in (moved / "USER.md").read_text(encoding="utf-8")
