"""``reverie demo``: Reverie's main job, end to end, on a built-in conversation.

The conversation (``conversation.json``, package data: three sessions of one user, with preferences, a project
decision, a correction of an earlier fact and a standing rule for the agent) is replayed message by message into
real session files. A small context window makes the Consolidator archive under real token pressure; each
session ends with ``/new``. Dream then turns the archive into memory, ``/dream-log`` shows the change, and
``/dream-restore`` undoes it and then undoes the undo — every step through the same library calls and chat
commands an agent uses. The model is the configured one, else the offline engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from ..commands import CommandContext, CommandRouter
from ..commands.render import dream_result, fence
from ..errors import WorkspaceError
from ..fsutil import atomic_write
from ..runtime import Runtime
from ..workspace import MEMORY_FILES, Workspace

__all__ = ["DemoReport", "run_demo", "load_conversation", "DEMO_CONFIG"]

#: The demo workspace's reverie.json: a small context window, so consolidation triggers within a session.
DEMO_CONFIG = {"agents": {"defaults": {"contextWindowTokens": 2048, "maxTokens": 768}}}

Say = Callable[[str, str], None]


@dataclass
class DemoReport:
    """What the demo did, for the CLI's ``--json`` and for tests (assert on files and commits, not prose)."""

    workspace: str
    model: str
    sessions: int = 0
    messages: int = 0
    pressure_rounds: int = 0  # Consolidator rounds triggered by token pressure (not by /new)
    history_entries: int = 0
    dream: Any = None  # DreamResult
    dream_commits: list[str] = field(default_factory=list)
    restore_commit: str | None = None
    undo_commit: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def load_conversation() -> dict[str, Any]:
    data = resources.files("reverie.demo").joinpath("conversation.json").read_bytes()
    return orjson.loads(data)


def _prepare(root: Path) -> Workspace:
    if root.exists() and any(root.iterdir()):
        raise WorkspaceError(f"{root} is not empty; the demo needs a new or empty directory")
    ws = Workspace(root)
    ws.init()
    # Durable write (atomic_write): the demo workspace keeps its small window for later `reverie -w` commands.
    atomic_write(ws.config_path, orjson.dumps(DEMO_CONFIG, option=orjson.OPT_INDENT_2) + b"\n")
    return ws


async def run_demo(root: Path, say: Say = lambda title, text: None) -> DemoReport:
    """Run the demo in ``root`` (new or empty), reporting each step as ``say(title, markdown)``."""
    started = time.perf_counter()
    ws = _prepare(Path(root))
    rt = Runtime(ws)
    report = DemoReport(workspace=str(ws.root), model=rt.config.model)
    say("Workspace", f"`{ws.root}` · model: `{rt.config.model}`")
    router = CommandRouter(rt)
    rt.git  # open the memory repo now: its init commit predates everything the demo learns

    for number, spec in enumerate(load_conversation()["sessions"], 1):
        session = rt.sessions.get_or_create(spec["key"])
        clock = datetime.fromisoformat(spec["started"])
        for message in spec["messages"]:
            rt.sessions.append(session, {**message, "timestamp": clock.isoformat()})
            clock += timedelta(minutes=2)
            result = await rt.consolidator.maybe_consolidate(session)
            report.pressure_rounds += result.rounds
            report.messages += 1
        reply = await router.handle("/new", CommandContext(session_key=spec["key"], session=session))
        report.sessions += 1
        say(f"Session {number}: {len(spec['messages'])} messages, then /new", reply or "")

    report.history_entries = rt.store.last_cursor()
    say("History", f"{report.history_entries} entries archived ({report.pressure_rounds} of the archive rounds "
                   f"were forced by token pressure); {rt.store.pending_count()} pending for Dream.")

    dream = await rt.dream.run(drain=True)
    report.dream = dream
    say("Dream", dream_result(dream))
    report.dream_commits = [c.sha for c in rt.git.log(limit=50, kind="dream")]
    if report.dream_commits:
        say("/dream-log", await router.handle("/dream-log") or "")
        target = report.dream_commits[-1][:8]  # the first Dream change
        restored = await router.handle(f"/dream-restore {target}")
        report.restore_commit = rt.git.head()
        say(f"/dream-restore {target}", f"{restored}\n\nUSER.md now:\n\n{_quote(rt.store.read_user())}")
        undo = (report.restore_commit or "")[:8]
        undone = await router.handle(f"/dream-restore {undo}")
        report.undo_commit = rt.git.head()
        say(f"/dream-restore {undo} (undo the restore)", f"{undone}\n\nUSER.md again:\n\n{_quote(rt.store.read_user())}")
    report.files = {rel: ws.read(rel) for rel in MEMORY_FILES}
    report.seconds = time.perf_counter() - started
    return report


def _quote(text: str) -> str:
    return fence(text.strip() or "(empty)", "markdown")
