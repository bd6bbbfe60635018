"""One turn recorded: the one implementation behind ``Memory.record`` (what the chat agent, the demo
and the framework adapters call)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..consolidator import ConsolidationResult, Consolidator
    from ..storage.sessions import Session

__all__ = ["append", "record", "unconsolidated", "NOT_ASKED"]

#: ``ConsolidationResult.stop`` of a record that only appended (``consolidate=False``).
NOT_ASKED = "not-asked"


def append(
    consolidator: Consolidator, session: Session, messages: Sequence[dict[str, Any]]
) -> None:
    """Append ``messages`` to ``session``, each durably as it comes."""
    for message in messages:
        consolidator.sessions.append(session, message)


def unconsolidated(consolidator: Consolidator, session: Session) -> ConsolidationResult:
    """The result of a record that consolidated nothing: ``stop`` is ``NOT_ASKED``, the estimate
    the prompt's now."""
    from ..consolidator import ConsolidationResult

    estimate = consolidator.estimate_tokens(session)
    return ConsolidationResult(
        session.key, consolidator.budget, consolidator.target, estimate, estimate, stop=NOT_ASKED
    )


async def record(
    consolidator: Consolidator,
    session: Session,
    messages: Sequence[dict[str, Any]],
    *,
    consolidate: bool = True,
) -> ConsolidationResult:
    """Append ``messages`` to ``session``, each durably as it comes, then let the Consolidator
    consolidate its oldest turns into history if the prompt is over its token budget (so the next
    prompt fits the model's window); ``consolidate=False``: only append."""
    append(consolidator, session, messages)
    if not consolidate:
        return unconsolidated(consolidator, session)
    return await consolidator.maybe_consolidate(session)
