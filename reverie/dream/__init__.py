"""Dream: scheduled two-phase memory editing under a hard budget, committed atomically through GitStore.

Modules, one job each: ``batch`` (phase-1 input), ``analyze`` (phase 1), ``tools`` / ``edit_tools`` /
``staging`` (typed tools, the staged copy and its path rule), ``agent`` (phase-2 loop), ``budget`` (caps),
``gate`` (checks before writing), ``transaction`` (commit, cursor, reconciliation, merge), ``deadletter``,
``records`` (status and attempts), ``lock`` (run lock), ``scheduler``, ``result`` (returned values),
``runner`` (``Dream``: the sequence), ``seams`` (the calls into ``reverie.security``).

``Dream``, ``DreamScheduler`` and ``serve`` load lazily, so ``reverie status`` (which reads Dream's records)
imports neither the runner nor APScheduler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .result import DreamResult, DreamStatus, Edit, Finding, Progress

if TYPE_CHECKING:
    from .runner import Dream
    from .scheduler import DreamScheduler, serve

__all__ = ["Dream", "DreamResult", "DreamStatus", "Edit", "Finding", "Progress", "DreamScheduler", "serve"]


def __getattr__(name: str) -> Any:
    if name == "Dream":
        from .runner import Dream

        return Dream
    if name in ("DreamScheduler", "serve"):
        from . import scheduler

        return getattr(scheduler, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
