"""Chat commands (``/dream``, ``/dream-log``, ``/dream-restore``, ``/new``, ``/help``, ...),
transport-agnostic.

Embed them in any agent::

    router = CommandRouter(reverie.open(workspace))
    reply = await router.handle(text, CommandContext(session_key="telegram:42", notify=send))
    if reply is not None:   # it was a command; reply is Markdown
        await send(reply)

Each capability contributes its commands through a module exposing ``commands() -> list[Command]``,
listed in ``COMMAND_MODULES``; a third party calls ``router.register(Command(...))``.
"""

from __future__ import annotations

from .router import (
    COMMAND_MODULES,
    Command,
    CommandContext,
    CommandRouter,
    Handler,
    Invocation,
    default_commands,
    parse_command,
)

__all__ = [
    "COMMAND_MODULES",
    "Command",
    "CommandContext",
    "CommandRouter",
    "Handler",
    "Invocation",
    "parse_command",
    "default_commands",
]
