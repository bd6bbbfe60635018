"""Shared setup for Dream tests: a real workspace, a real memory repo, the scripted model
(in-process, by name)."""

from __future__ import annotations

import itertools
import subprocess
from dataclasses import dataclass
from pathlib import Path

from reverie import MemoryStore
from reverie.dream import Dream
from reverie.gitstore import GitStore
from reverie.llm.client import ModelClient
from reverie.llm.scripted import ScriptedModel
from reverie.llm.types import ToolCall
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace

MEM = "memory/MEMORY.md"
_ids = itertools.count()


@dataclass
class Env:
    ws: Workspace
    store: MemoryStore
    git: GitStore
    fake: ScriptedModel
    config: Config

    def dream(self) -> Dream:
        return Dream(self.store, self.git, ModelClient(self.config), self.config)

    def add(self, *contents: str) -> None:
        for c in contents:
            self.store.append_history(c, "cli:test")

    def read(self, rel: str) -> str:
        return (self.ws.root / rel).read_text()

    def git_cli(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.ws.root), *args], capture_output=True, text=True, check=True
        ).stdout


def make_env(root: Path, *, name: str | None = None, **dream_cfg) -> Env:
    ws = Workspace(root)
    ws.init()
    fake = ScriptedModel.register(name or f"dream{next(_ids)}")
    config = Config()
    config.dream.model_override = fake.model
    config.memory.history.fsync = False
    config.llm.max_retries = 0
    for key, value in dream_cfg.items():
        setattr(config.dream, key, value)
    store = MemoryStore(ws, config=config)
    git = GitStore(ws, config.git)
    git.ensure()
    return Env(ws, store, git, fake, config)


def edit(path: str, old: str, new: str, call_id: str = "e1", **extra) -> ToolCall:
    return ToolCall(call_id, "edit_file", {"path": path, "old_text": old, "new_text": new, **extra})


def read(path: str, call_id: str = "r1") -> ToolCall:
    return ToolCall(call_id, "read_file", {"path": path})
