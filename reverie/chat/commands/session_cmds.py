"""``/new``: consolidate the conversation into history and start a fresh one (the Consolidator's
``new_session``)."""

from __future__ import annotations

from ...consolidator import ConsolidationResult
from ...errors import SessionError
from .render import consolidation_reply
from .router import Command, Invocation

__all__ = ["commands"]


async def new(inv: Invocation) -> str:
    """The caller's own session object when it holds one (an agent that keeps its messages in
    memory), else the session by its key: ``Memory.clear``, the one ``/new`` by key."""
    ctx = inv.context
    try:
        if ctx.session is not None:
            result: ConsolidationResult | None = await inv.memory.anew_session(ctx.session)
        else:
            result = await inv.memory.aclear(ctx.session_key)
    except SessionError as exc:
        return f"The session was kept: {exc}"
    return consolidation_reply(result) + " New session started."


def commands() -> list[Command]:
    return [
        Command("new", new, "consolidate this conversation into history and start a fresh session")
    ]
