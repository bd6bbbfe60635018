"""``/dream-approve`` and ``/dream-reject``: apply or drop the SOUL.md change Dream staged
(``dream.protectSoul``).

The same ``Memory`` verbs as ``reverie approve`` / ``reverie reject`` and the MCP tools, rendered as
Markdown. ``/dream-log`` shows the pending change (``render.pending_soul``).
"""

from __future__ import annotations

from ..errors import NothingPendingError
from .router import Command, Invocation

__all__ = ["commands"]


async def dream_approve(inv: Invocation) -> str:
    try:
        result = (
            await inv.memory.aapprove()
        )  # in a thread: it waits for a scheduled Dream on this loop
    except NothingPendingError:
        return "No SOUL.md change was pending."  # as /dream-reject says it
    if result.commit is None:
        return "SOUL.md already held the approved change; the pending record is cleared."
    how = " (merged with later edits)" if result.merged else ""
    return (
        f"Approved: SOUL.md +{result.added} -{result.removed}{how}, commit `{result.commit[:8]}`."
    )


async def dream_reject(inv: Invocation) -> str:
    dropped = inv.memory.reject()
    return "Dropped the pending SOUL.md change." if dropped else "No SOUL.md change was pending."


def commands() -> list[Command]:
    return [
        Command(
            "dream-approve",
            dream_approve,
            "apply the SOUL.md change Dream proposed",
            "/dream-approve",
        ),
        Command(
            "dream-reject", dream_reject, "drop the SOUL.md change Dream proposed", "/dream-reject"
        ),
    ]
