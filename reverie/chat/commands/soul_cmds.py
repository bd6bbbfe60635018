"""``/dream-approve`` and ``/dream-reject``: apply or drop the SOUL.md change Dream staged
(``dream.protectSoul``).

The same ``Memory`` verbs as ``reverie approve`` / ``reverie reject`` and the MCP tools, rendered as
Markdown. ``/dream-log`` shows the proposal (``render.pending_soul``).
"""

from __future__ import annotations

from ...errors import NothingPendingError, PendingChangedError
from .router import Command, Invocation

__all__ = ["commands"]


def _named(inv: Invocation) -> str | None:
    """The proposal ``/dream-approve <id>`` names (its id or a prefix, as ``/dream-log`` shows it;
    the verb checks it under its lock); None when none is named."""
    return inv.args[0] if inv.args else None


def _changed(exc: PendingChangedError) -> str:
    return (
        f"The SOUL.md proposal waiting now is `{exc.current_id[:12]}`, not the one you named: "
        "see it with `/dream-log`. Nothing was applied or dropped."
    )


async def dream_approve(inv: Invocation) -> str:
    try:
        # in a thread: it waits for a scheduled Dream on this loop
        result = await inv.memory.aapprove(change=_named(inv))
    except NothingPendingError:
        return "No SOUL.md proposal was waiting."  # as /dream-reject says it
    except PendingChangedError as exc:
        return _changed(exc)
    if result.commit is None:
        return "SOUL.md already held the approved change; the proposal's record is cleared."
    how = " (merged with later edits)" if result.merged else ""
    return (
        f"Approved: SOUL.md +{result.added} -{result.removed}{how}, commit `{result.commit[:8]}`."
    )


async def dream_reject(inv: Invocation) -> str:
    try:
        dropped = await inv.memory.areject(change=_named(inv))
    except PendingChangedError as exc:
        return _changed(exc)
    return "Dropped the SOUL.md proposal." if dropped else "No SOUL.md proposal was waiting."


def commands() -> list[Command]:
    return [
        Command(
            "dream-approve",
            dream_approve,
            "apply the SOUL.md change Dream proposed",
            "/dream-approve [id]",
            takes_args=True,
        ),
        Command(
            "dream-reject",
            dream_reject,
            "drop the SOUL.md change Dream proposed",
            "/dream-reject [id]",
            takes_args=True,
        ),
    ]
