"""A line-based three-way merge (diff3), used by ``revert`` and by Dream to re-apply a run's edits over a
concurrent edit. Pure text in, text out: no git, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import MergeConflictError

__all__ = ["merge3", "MergeResult"]


@dataclass(frozen=True)
class MergeResult:
    text: str
    conflicts: list[tuple[int, int]]  # 1-based inclusive line ranges in ``ours`` that conflict


def merge3(base: str, ours: str, theirs: str, *, path: str = "") -> str:
    """Merge the change base→theirs into ours. Raises ``MergeConflictError(path, lines)`` when both sides
    changed the same region differently (``lines`` = 1-based inclusive range in ``ours``)."""
    raise NotImplementedError
