"""Chat commands (``/dream``, ``/dream-log``, ``/dream-restore``, ``/new``, ``/help``, ...), transport-agnostic.

Embed them in any agent::

    router = CommandRouter(reverie.open(workspace))
    reply = await router.handle(text, CommandContext(session_key="telegram:42", notify=send))
    if reply is not None:   # it was a command; reply is Markdown
        await send(reply)

Each capability contributes its commands through a module exposing ``commands() -> list[Command]``, listed in
``COMMAND_MODULES``; a third party calls ``router.register(Command(...))``.
"""

from __future__ import annotations

import importlib

from .router import Command, CommandContext, CommandRouter, Handler, Invocation, parse_command

__all__ = ["Command", "CommandContext", "CommandRouter", "Handler", "Invocation", "parse_command", "default_commands"]

#: Modules whose ``commands()`` make up the default command set (add yours here).
COMMAND_MODULES = [
    "reverie.commands.memory_cmds",
    "reverie.commands.dream_cmds",
    "reverie.commands.session_cmds",
    "reverie.commands.soul_cmds",  # security: /dream-approve, /dream-reject
    "reverie.commands.recall_cmds",
]


def default_commands() -> list[Command]:
    """The commands every router gets unless it is given its own list."""
    out: list[Command] = []
    for name in COMMAND_MODULES:
        out.extend(importlib.import_module(name).commands())
    return out
