"""``reverie demo``: Reverie's main job, end to end, on a built-in conversation.

The conversation (``conversation.json``, package data: three sessions of one user, with preferences,
a project decision, a correction of an earlier fact and a standing rule for the agent) is replayed
message by message into real session files. A small context window makes the Consolidator archive
under real token pressure; each session ends with ``/new``. Dream then turns the archive into
memory, ``/dream-log`` shows the change, and ``/dream-restore`` undoes it and then undoes the undo —
every step through the ``Memory`` verbs and chat commands an agent uses (``arecord``, ``/new``,
``adream``).

The model is the one configured for the workspace the demo is started from (``config``: its
reverie.json, the home config, ``REVERIE_MODEL``), else the offline engine. The demo never writes
into that workspace: it runs in its own new or empty directory, whose reverie.json gets the same
configuration without credentials (``apiKey``, ``extraHeaders``: the run itself uses them from
memory) and the demo's small context window.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

import orjson

from ...errors import WorkspaceError
from ...memory import wrap
from ...memory.runtime import Runtime
from ...storage.configdata import given_if_only
from ...storage.fsutil import atomic_write
from ...storage.workspace import MEMORY_FILES, Workspace
from ..commands import CommandContext, CommandRouter
from ..commands.render import dream_result, fence

if TYPE_CHECKING:
    from ...dream.result import DreamResult
    from ...llm.activity import ModelActivity
    from ...memory import Memory
    from ...storage.config import Config

__all__ = ["DemoReport", "run_demo", "load_conversation", "Conversation", "DEMO_CONFIG"]

#: The demo workspace's reverie.json: a small context window, so consolidation triggers within a
#: session.
DEMO_CONFIG = {"agents": {"defaults": {"contextWindowTokens": 2048, "maxTokens": 768}}}

Say = Callable[[str, str], None]


class DemoMessage(TypedDict):
    role: str
    content: str


class DemoSession(TypedDict):
    key: str  # the session key the messages are replayed into
    started: str  # ISO time of the first message; each next message is two minutes later
    messages: list[DemoMessage]


class Conversation(TypedDict):
    """The shape of ``conversation.json``."""

    about: str
    sessions: list[DemoSession]


@dataclass
class DemoReport:
    """What the demo did, for the CLI's ``--json`` and for tests (assert on files and commits, not
    prose)."""

    workspace: str
    model: str
    config_from: str | None = (
        None  # the workspace whose configuration (model, providers) the demo used
    )
    sessions: int = 0
    messages: int = 0
    pressure_rounds: int = 0  # Consolidator rounds triggered by token pressure (not by /new)
    history_entries: int = 0
    dream: DreamResult | None = None
    dream_commits: list[str] = field(default_factory=list)
    restore_commit: str | None = None
    undo_commit: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def load_conversation() -> Conversation:
    data = resources.files("reverie.chat.demo").joinpath("conversation.json").read_bytes()
    conversation: Conversation = orjson.loads(data)  # package data, checked by the demo's tests
    return conversation


def is_free(root: Path) -> bool:
    """True when ``root`` is missing or an empty directory: somewhere the demo may run."""
    return not root.exists() or (root.is_dir() and not any(root.iterdir()))


def _without_credentials(data: dict[str, Any]) -> dict[str, Any]:
    providers = data.get("providers")
    if isinstance(providers, dict):
        data = {
            **data,
            "providers": {
                name: {k: v for k, v in p.items() if k not in ("apiKey", "extraHeaders")}
                if isinstance(p, dict)
                else p
                for name, p in providers.items()
            },
        }
    return data


def _demo_config(config: Config) -> Config:
    """``config`` with the demo's small context window (the same values DEMO_CONFIG writes)."""
    demo = config.model_copy(deep=True)
    defaults = DEMO_CONFIG["agents"]["defaults"]
    demo.defaults.context_window_tokens = defaults["contextWindowTokens"]
    demo.defaults.max_tokens = defaults["maxTokens"]
    return demo


def _config_of(ws: Workspace, config: Config | None) -> Config | None:
    """The demo's config: ``config`` with its small window; else, when the home config and the
    environment set nothing, the models' defaults with DEMO_CONFIG's values as a plain view, with no
    pydantic import (with the models' build ≈ 0.3 s of a demo's CPU); else None: the runtime loads
    and validates the sources, with their errors."""
    if config is not None:
        return _demo_config(config)
    # the view holds exactly the values the models give for these sources (a test compares them
    # key for key), so every reader gets what it reads from a Config
    return cast("Config | None", given_if_only(ws.root, DEMO_CONFIG))


def _prepare(root: Path, config: Config | None) -> Workspace:
    if not is_free(root):
        raise WorkspaceError(f"{root} is not empty; the demo needs a new or empty directory")
    ws = Workspace(root)
    ws.init()
    data: dict[str, Any] = DEMO_CONFIG
    if config is not None:
        data = _without_credentials(config.dump())
        agents = data["agents"] = dict(data.get("agents") or {})
        agents["defaults"] = {**(agents.get("defaults") or {}), **DEMO_CONFIG["agents"]["defaults"]}
    # Durable write (atomic_write): the demo workspace keeps its model and small window for later
    # `reverie -w` commands; owner-only, like any file that names a provider's endpoint.
    atomic_write(ws.config_path, orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n", mode=0o600)
    return ws


async def run_demo(
    root: Path,
    say: Say = lambda title, text: None,
    *,
    config: Config | None = None,
    config_from: str | None = None,
    activity: ModelActivity | None = None,
) -> DemoReport:
    """Run the demo in ``root`` (new or empty), reporting each step as ``say(title, markdown)``.

    ``config`` (loaded from the workspace named by ``config_from``) gives the model and its provider
    settings; without it the demo workspace's own configuration applies (home config, environment,
    else offline). ``activity`` records the model calls for a front-end's status line.
    """
    started = time.perf_counter()
    ws = _prepare(Path(root), config)
    memory = wrap(Runtime(ws, config=_config_of(ws, config), activity=activity))
    async with memory:  # its worker threads leave with it
        return await _replay(memory, say, config_from, started)


async def _replay(memory: Memory, say: Say, config_from: str | None, started: float) -> DemoReport:
    rt, ws = memory.runtime, memory.workspace
    report = DemoReport(workspace=str(ws.root), model=rt.config.model, config_from=config_from)
    source = f" (configured in `{config_from}`)" if config_from else ""
    say("Workspace", f"`{ws.root}` · model: `{rt.config.model}`{source}")
    router = CommandRouter(memory)
    # create the memory repo now: its init commit predates everything the demo learns
    rt.git.ensure()

    for number, spec in enumerate(load_conversation()["sessions"], 1):
        clock = datetime.fromisoformat(spec["started"])
        for message in spec["messages"]:
            stamped = {**message, "timestamp": clock.isoformat()}
            result = await memory.arecord(spec["key"], [stamped])
            clock += timedelta(minutes=2)
            report.pressure_rounds += result.rounds
            report.messages += 1
        reply = await router.handle("/new", CommandContext(session_key=spec["key"]))
        report.sessions += 1
        say(f"Session {number}: {len(spec['messages'])} messages, then /new", reply or "")

    report.history_entries = rt.store.last_cursor()
    say(
        "History",
        f"{report.history_entries} entries consolidated ({report.pressure_rounds} of the "
        "Consolidator's rounds were forced by token pressure); "
        f"{memory.pending()} pending for Dream.",
    )

    dream = await memory.adream(all=True)
    report.dream = dream
    say("Dream", dream_result(dream))
    report.dream_commits = [c.sha for c in memory.log(limit=50, kind="dream")]
    if report.dream_commits:
        say("/dream-log", await router.handle("/dream-log") or "")
        target = report.dream_commits[-1][:8]  # the first Dream change
        restored = await router.handle(f"/dream-restore {target}")
        report.restore_commit = rt.git.head()
        say(
            f"/dream-restore {target}",
            f"{restored}\n\nUSER.md now:\n\n{_quote(rt.store.read_user())}",
        )
        undo = (report.restore_commit or "")[:8]
        undone = await router.handle(f"/dream-restore {undo}")
        report.undo_commit = rt.git.head()
        say(
            f"/dream-restore {undo} (undo the restore)",
            f"{undone}\n\nUSER.md again:\n\n{_quote(rt.store.read_user())}",
        )
    report.files = {rel: ws.read(rel) for rel in MEMORY_FILES}
    report.seconds = time.perf_counter() - started
    return report


def _quote(text: str) -> str:
    """USER.md as it is, in a plain fence: a ``markdown`` fence had a terminal load pygments'
    Markdown lexer, which imports the HTML, CSS, JavaScript, JVM, Ruby, Lisp and LilyPond lexers
    (≈ 25 ms of CPU in the demo) to colour six lines."""
    return fence(text.strip() or "(empty)")
