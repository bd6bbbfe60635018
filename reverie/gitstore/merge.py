"""A line-based three-way merge (diff3), used by ``revert`` and by Dream to re-apply a run's edits over a
concurrent edit. Pure text in, text out: no git, no I/O.

``merge3(base, ours, theirs)`` applies the change base→theirs to ours. Each side's change is a list of hunks
(base range replaced by side lines). Hunks of the two sides that overlap — or an insertion that touches the
other side's hunk — form one region; a region changed by one side takes that side's lines, a region changed
identically by both takes them once, and anything else is a conflict. Changes to adjacent but disjoint lines
merge cleanly.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from ..errors import MergeConflictError

__all__ = ["merge3"]


@dataclass(frozen=True)
class _Hunk:
    side: int  # 0 = ours, 1 = theirs
    start: int  # base range [start, end)
    end: int
    delta: int  # side length - base length over this hunk


def _hunks(base: list[str], other: list[str], side: int) -> list[_Hunk]:
    ops = SequenceMatcher(None, base, other, autojunk=False).get_opcodes()
    return [_Hunk(side, i1, i2, (j2 - j1) - (i2 - i1)) for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def _touches(hunk: _Hunk, lo: int, hi: int, has_empty_at_hi: bool) -> bool:
    if hunk.start < hi:
        return True
    if hunk.start == hi:
        return hunk.start == hunk.end or has_empty_at_hi
    return False


def merge3(base: str, ours: str, theirs: str, *, path: str = "") -> str:
    """Merge the change base→theirs into ours (line-based).

    Raises ``MergeConflictError`` (``.path`` = ``path``, ``.lines`` = 1-based inclusive range in ``ours``) when
    both sides changed the same region differently.
    """
    b = base.splitlines(keepends=True)
    sides = (ours.splitlines(keepends=True), theirs.splitlines(keepends=True))
    if sides[0] == b:
        return theirs
    if sides[1] == b or sides[0] == sides[1]:
        return ours
    hunks = sorted(_hunks(b, sides[0], 0) + _hunks(b, sides[1], 1), key=lambda h: (h.start, h.end, h.side))
    offset = [0, 0]  # side position - base position, before the current region
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(hunks):
        group = [hunks[i]]
        lo, hi = hunks[i].start, hunks[i].end
        empty_at_hi = hunks[i].start == hunks[i].end
        i += 1
        while i < len(hunks) and _touches(hunks[i], lo, hi, empty_at_hi):
            h = hunks[i]
            if h.end > hi:
                hi, empty_at_hi = h.end, h.start == h.end
            elif h.end == hi and h.start == h.end:
                empty_at_hi = True
            group.append(h)
            i += 1
        out.extend(b[pos:lo])
        spans = []
        for side in (0, 1):
            delta = sum(h.delta for h in group if h.side == side)
            s_lo = lo + offset[side]
            spans.append((s_lo, hi + offset[side] + delta, any(h.side == side for h in group)))
        changed = [s for s in (0, 1) if spans[s][2]]
        if len(changed) == 1:
            side = changed[0]
            out.extend(sides[side][spans[side][0] : spans[side][1]])
        else:
            mine = sides[0][spans[0][0] : spans[0][1]]
            other = sides[1][spans[1][0] : spans[1][1]]
            if mine != other:
                first = spans[0][0] + 1
                last = max(spans[0][1], first)
                where = f"{path} " if path else ""
                raise MergeConflictError(
                    f"conflict in {where}lines {first}-{last}: both sides changed them", path=path, lines=(first, last)
                )
            out.extend(mine)
        for side in (0, 1):
            offset[side] += sum(h.delta for h in group if h.side == side)
        pos = hi
    out.extend(b[pos:])
    return "".join(out)
