"""``/new``: consolidate the conversation into history and start a fresh one (the Consolidator's ``new_session``)."""

from __future__ import annotations

from ..errors import SessionError
from .render import consolidation_reply
from .router import Command, Invocation

__all__ = ["commands"]


async def new(inv: Invocation) -> str:
    ctx = inv.context
    session = (
        ctx.session
        if ctx.session is not None
        else inv.runtime.sessions.get_or_create(ctx.session_key)
    )
    try:
        result = await inv.memory.anew_session(session)
    except SessionError as exc:
        return f"The session was kept: {exc}"
    return consolidation_reply(result) + " New session started."


def commands() -> list[Command]:
    return [
        Command("new", new, "consolidate this conversation into history and start a fresh session")
    ]
