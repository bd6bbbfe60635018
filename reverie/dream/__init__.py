"""Dream: scheduled two-phase memory editing under a hard budget, committed atomically through
GitStore.

Modules, one job each: ``batch`` (phase-1 input), ``analyze`` (phase 1), ``tools`` / ``edit_tools``
/ ``staging`` (typed tools, the staged copy and its path rule), ``agent`` (phase-2 loop), ``budget``
(caps), ``gate`` (checks before writing), ``transaction`` (commit, cursor, reconciliation, merge),
``deadletter``, ``records`` (status and attempts), ``lock`` (run lock), ``result`` (returned
values), ``runner`` (``Dream``: the sequence), ``proposal`` (a SOUL.md change staged for approval;
``pending`` is its first name). Its schedulers are ``reverie.schedule``'s.

Every name loads lazily (PEP 562), so ``reverie status``, which reads Dream's records and dead
letters, imports neither the runner nor the result types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .result import DreamResult, DreamStatus, Edit, Finding, Progress
    from .runner import Dream

__all__ = [
    "Dream",
    "DreamResult",
    "DreamStatus",
    "Edit",
    "Finding",
    "Progress",
]

_LAZY = {
    "Dream": "runner",
    **{name: "result" for name in ("DreamResult", "DreamStatus", "Edit", "Finding", "Progress")},
}

__getattr__ = lazy_exports(__name__, _LAZY, globals())
