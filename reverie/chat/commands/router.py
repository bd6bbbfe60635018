"""``CommandRouter``: turns a chat message into a command reply, whatever the transport.

A message is a command when it starts with ``/`` followed by a name (letters, digits, ``-`` or
``_``), optionally addressed Telegram-style (``/cmd@botname``). ``_`` and ``-`` are interchangeable
(Telegram allows no ``-``), and names are case-insensitive. Anything else — including ``/usr/bin``
or a message addressed to another bot — is not a command and ``handle`` returns ``None`` so the
agent treats it as conversation.

Commands register through one API, the same one the built-ins use::

    router.register(Command("recall", recall_handler, "search memory", usage="/recall QUERY",
    takes_args=True))

A handler is ``async (Invocation) -> str`` returning Markdown. It raises ``CommandError`` for
misuse; any ``ReverieError`` becomes a one-line reply; anything else is logged with its traceback
and reported as an internal error, so ``handle`` never raises for a command's failure.
"""

from __future__ import annotations

import asyncio
import difflib
import importlib
import logging
import re
import shlex
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import CommandError, ReverieError
from ...memory import Memory, wrap

if TYPE_CHECKING:
    from ...memory.runtime import Runtime
    from ...storage.sessions import Session

log = logging.getLogger(__name__)
_T = TypeVar("_T")

__all__ = ["Command", "CommandContext", "CommandRouter", "Handler", "Invocation", "parse_command"]

_COMMAND_RE = re.compile(r"^/([A-Za-z0-9][A-Za-z0-9_-]*)(?:@([A-Za-z0-9_]+))?(?=\s|$)")

Notify = Callable[[str], Awaitable[None]]


@dataclass
class CommandContext:
    """Who is talking, and how to reach them later.

    ``session_key`` names the conversation (``/new`` consolidates it); ``session`` may carry the
    live session object an agent holds, so ``/new`` clears that very object. ``notify`` delivers a
    later message (``/dream`` reports its result when the background run ends); without it the
    result is only logged.
    """

    session_key: str = "cli:direct"
    session: Session | None = None
    notify: Notify | None = None


@dataclass(frozen=True)
class Invocation:
    """One parsed command call, handed to its handler."""

    name: str
    args: list[str]
    raw_args: str
    context: CommandContext
    router: CommandRouter

    @property
    def memory(self) -> Memory:
        """The verbs every command calls (the same ``Memory`` the CLI and the MCP server call)."""
        return self.router.memory

    @property
    def runtime(self) -> Runtime:
        return self.router.memory.runtime


Handler = Callable[[Invocation], Awaitable[str]]


@dataclass(frozen=True)
class Command:
    """A registered command. ``takes_args=False`` makes the router refuse arguments with a clear
    message."""

    name: str
    handler: Handler
    summary: str
    usage: str = ""
    takes_args: bool = False
    aliases: tuple[str, ...] = ()

    def usage_line(self) -> str:
        return self.usage or f"/{self.name}"


#: Longest error message a reply carries.
ERROR_CHARS = 600


def clip(text: str, limit: int = 80) -> str:
    """User input echoed in a reply, cut so a huge message cannot make a reply a chat channel
    refuses to send."""
    return text if len(text) <= limit else f"{text[:limit]}… (+{len(text) - limit} chars)"


def _canon(name: str) -> str:
    return name.lower().replace("_", "-")


def parse_command(text: str, bot_name: str | None = None) -> tuple[str, str] | None:
    """``(name, raw_args)`` for a command message, else ``None``.

    A command addressed to another bot (``/cmd@otherbot``) is not ours: ``None``.
    """
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    m = _COMMAND_RE.match(stripped)
    if not m:
        return None
    target = m.group(2)
    if target and bot_name and target.lower() != bot_name.lstrip("@").lower():
        return None
    return _canon(m.group(1)), stripped[m.end() :].strip()


def _split_args(raw: str) -> list[str]:
    try:
        return shlex.split(raw)
    except (
        ValueError
    ):  # an unbalanced quote: fall back to plain words rather than refusing the command
        return raw.split()


class CommandRouter:
    """Routes slash commands to their handlers and renders every reply as Markdown."""

    def __init__(
        self,
        memory: Memory | Runtime,
        *,
        bot_name: str | None = None,
        commands: Iterable[Command] | None = None,
    ) -> None:
        """``memory``: ``reverie.open(path)`` (a ``Runtime`` is wrapped in one). ``commands``
        defaults to the built-in set plus every registered command module."""
        self.memory = memory if isinstance(memory, Memory) else wrap(memory)
        self.bot_name = bot_name
        self._commands: dict[str, Command] = {}
        self._aliases: dict[str, str] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._adopted: dict[str, asyncio.Task[Any]] = {}
        self._claimed: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
        self.register(
            Command(
                "help", _help, "list the commands, or show how to use one", "/help [command]", True
            )
        )
        if commands is None:
            commands = default_commands()
        for command in commands:
            self.register(command)

    @property
    def runtime(self) -> Runtime:
        return self.memory.runtime

    # -- registration ------------------------------------------------------------------------------
    def register(self, command: Command) -> None:
        """Add a command (replacing one of the same name, so an embedding agent can override a
        built-in)."""
        name = _canon(command.name)
        self._commands[name] = command
        for alias in command.aliases:
            self._aliases[_canon(alias)] = name

    def commands(self) -> list[Command]:
        return list(self._commands.values())

    def get(self, name: str) -> Command | None:
        key = _canon(name.lstrip("/"))
        return self._commands.get(self._aliases.get(key, key))

    # -- dispatch ----------------------------------------------------------------------------------
    def is_command(self, text: str) -> bool:
        return parse_command(text, self.bot_name) is not None

    async def handle(self, text: str, context: CommandContext | None = None) -> str | None:
        """The Markdown reply to a command message, or ``None`` when ``text`` is not a command."""
        parsed = parse_command(text, self.bot_name)
        if parsed is None:
            return None
        name, raw_args = parsed
        command = self.get(name)
        if command is None:
            return self._unknown(name)
        args = _split_args(raw_args)
        if args and not command.takes_args:
            return (
                f"`/{command.name}` takes no arguments (got `{clip(raw_args)}`). "
                f"Usage: `{command.usage_line()}`"
            )
        inv = Invocation(command.name, args, raw_args, context or CommandContext(), self)
        try:
            return await command.handler(inv)
        except CommandError as exc:
            return f"{clip(str(exc), ERROR_CHARS)}\nUsage: `{command.usage_line()}`"
        except ReverieError as exc:  # its message may quote the (huge) argument
            return f"`/{command.name}` failed: {clip(str(exc), ERROR_CHARS)}"
        except (
            Exception
        ) as exc:  # the front-end boundary: a bug is logged in full, the chat gets one line
            log.exception("/%s failed", command.name)
            return (
                f"`/{command.name}` failed with an internal error ({type(exc).__name__}); "
                "see the log."
            )

    def _unknown(self, name: str) -> str:
        names = sorted([*self._commands, *self._aliases])
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        hint = f" Did you mean `/{self._aliases.get(close[0], close[0])}`?" if close else ""
        return f"Unknown command `/{clip(name)}`.{hint} Send `/help` for the list."

    # -- background work ---------------------------------------------------------------------------
    def spawn(self, coro: Awaitable[_T], *, name: str) -> asyncio.Task[_T]:
        """Run ``coro`` in the background, keeping a reference so it is neither collected nor
        forgotten."""
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def adopt(self, task: asyncio.Task[Any], *, name: str) -> None:
        """Make work started elsewhere in this process (a scheduled Dream run) visible to commands
        as ``name``, so ``/dream`` can wait for it. Unlike ``spawn``, ``wait_idle`` does not wait
        for it: its owner stops it."""
        self._adopted[name] = task
        task.add_done_callback(
            lambda t: self._adopted.pop(name, None) if self._adopted.get(name) is t else None
        )

    def task(self, name: str) -> asyncio.Task[Any] | None:
        """The unfinished background task called ``name`` (spawned or adopted), if any."""
        adopted = self._adopted.get(name)
        if adopted is not None and not adopted.done():
            return adopted
        return next((t for t in self._tasks if t.get_name() == name and not t.done()), None)

    def running(self, name: str) -> bool:
        return self.task(name) is not None

    def claim(self, task: asyncio.Task[Any], claimed: bool = True) -> None:
        """Mark ``task``'s result as reported by a command's reply, so the background notice about
        it is skipped (``claimed=False`` undoes that: the reply did not wait to the end)."""
        if claimed:
            self._claimed.add(task)
        else:
            self._claimed.discard(task)

    def claimed(self, task: asyncio.Task[Any] | None) -> bool:
        return task is not None and task in self._claimed

    async def wait_idle(self, timeout: float | None = None) -> None:
        """Wait for background work started by commands (tests, and a REPL before it exits)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)


async def _help(inv: Invocation) -> str:
    router = inv.router
    if inv.args:
        command = router.get(inv.args[0])
        if command is None:
            return router._unknown(_canon(inv.args[0].lstrip("/")))
        return f"`{command.usage_line()}` — {command.summary}"
    lines = ["**Commands**"]
    for command in sorted(router.commands(), key=lambda c: c.name):
        lines.append(f"- `{command.usage_line()}` — {command.summary}")
    return "\n".join(lines)


#: Modules whose ``commands()`` make up the default command set (add yours here).
COMMAND_MODULES = [
    "reverie.chat.commands.memory_cmds",
    "reverie.chat.commands.dream_cmds",
    "reverie.chat.commands.session_cmds",
    "reverie.chat.commands.soul_cmds",  # security: /dream-approve, /dream-reject
    "reverie.chat.commands.recall_cmds",
]


def default_commands() -> list[Command]:
    """The commands every router gets unless it is given its own list."""
    out: list[Command] = []
    for name in COMMAND_MODULES:
        out.extend(importlib.import_module(name).commands())
    return out
