"""``/new``: archive the conversation and start a fresh one (the Consolidator's ``new_session``)."""

from __future__ import annotations

from ..errors import SessionError
from .render import consolidation_reply
from .router import Command, Invocation

__all__ = ["commands"]


async def new(inv: Invocation) -> str:
    rt, ctx = inv.runtime, inv.context
    session = ctx.session if ctx.session is not None else rt.sessions.get_or_create(ctx.session_key)
    try:
        result = await rt.consolidator.new_session(session)
    except SessionError as exc:
        return f"The session was kept: {exc}"
    return consolidation_reply(result) + " New session started."


def commands() -> list[Command]:
    return [Command("new", new, "archive this conversation into history and start a fresh session")]
