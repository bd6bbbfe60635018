"""One turn recorded: the one implementation behind ``Memory.record`` and the chat agent's turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..consolidator import ConsolidationResult, Consolidator
    from ..storage.sessions import Session

__all__ = ["record"]


async def record(
    consolidator: Consolidator, session: Session, messages: Sequence[dict[str, Any]]
) -> ConsolidationResult:
    """Append ``messages`` to ``session``, each durably as it comes, then let the Consolidator
    consolidate its oldest turns into history if the prompt is over its token budget (so the next
    prompt fits the model's window)."""
    for message in messages:
        consolidator.sessions.append(session, message)
    return await consolidator.maybe_consolidate(session)
