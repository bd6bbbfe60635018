"""``/dream-approve`` and ``/dream-reject``: apply or drop the SOUL.md change Dream staged
(``dream.protectSoul``).

The same ``Memory`` verbs as ``reverie approve`` / ``reverie reject`` and the MCP tools, rendered as
Markdown. ``/dream-log`` shows the pending change (``render.pending_soul``).
"""

from __future__ import annotations

from ..errors import NothingPendingError, PendingChangedError
from .router import Command, Invocation

__all__ = ["commands"]


#: The shortest id prefix taken for a proposal (``PendingChange.id``), as ``reverie approve`` does.
MIN_ID = 8


async def _named(inv: Invocation) -> str | None:
    """The full id of the proposal ``/dream-approve <id>`` names (as ``/dream-log`` shows it); None
    when none is named. A proposal Dream widened since it was shown is refused, never applied."""
    given = (inv.args[0] if inv.args else "").strip().lower()
    if not given:
        return None
    change = await inv.memory.apending_soul()
    if change is None:
        return None
    if len(given) < MIN_ID or not change.id.startswith(given):
        raise PendingChangedError(
            f"the SOUL.md change pending now is {change.id[:12]}, not {given[:64]}",
            current_id=change.id,
        )
    return change.id


def _changed(exc: PendingChangedError) -> str:
    return (
        f"The SOUL.md change pending now is `{exc.current_id[:12]}`, not the one you named: "
        "see it with `/dream-log`. Nothing was applied or dropped."
    )


async def dream_approve(inv: Invocation) -> str:
    try:
        # in a thread: it waits for a scheduled Dream on this loop
        result = await inv.memory.aapprove(change=await _named(inv))
    except NothingPendingError:
        return "No SOUL.md change was pending."  # as /dream-reject says it
    except PendingChangedError as exc:
        return _changed(exc)
    if result.commit is None:
        return "SOUL.md already held the approved change; the pending record is cleared."
    how = " (merged with later edits)" if result.merged else ""
    return (
        f"Approved: SOUL.md +{result.added} -{result.removed}{how}, commit `{result.commit[:8]}`."
    )


async def dream_reject(inv: Invocation) -> str:
    try:
        dropped = await inv.memory.areject(change=await _named(inv))
    except PendingChangedError as exc:
        return _changed(exc)
    return "Dropped the pending SOUL.md change." if dropped else "No SOUL.md change was pending."


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
