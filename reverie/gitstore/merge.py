"""The line-based three-way merge used by ``revert``, by Dream to re-apply a run's edits over a
concurrent edit and by ``approve`` over a later SOUL.md edit. Pure text in, text out: no git, no
I/O.

dulwich's merge (``dulwich.merge.make_merge3``, the ``merge3`` package) aligns the three texts and
classifies every region: unchanged, changed by one side, changed identically by both, or in
conflict. This module is a thin adapter around it, for two things dulwich's merge does not do:

- **Conflicts are an error, not markers.** ``merge3`` writes ``<<<<<<<`` markers into the text;
  Reverie's callers never write a half-merged memory file, so a conflict raises
  ``MergeConflictError`` naming the path and the lines in ``ours`` instead.
- **Edits to adjacent lines merge.** ``merge3``, like git, makes one conflict of two edits with no
  line between them that both sides left alone (ours changes line 4, theirs line 5). Memory files
  are lists of one-line facts, where a person editing one bullet while Dream edits the next is
  common, and failing the run (or the approval) for it would lose work; the old merge applied both,
  and its callers and tests rely on that. So a conflict region is split into each side's hunks (base
  range → side lines): hunks that do not overlap are applied both. An insertion at the edge of the
  other side's change (a line appended after a line the other side edited or removed: a new fact
  at the end of a list while a person edits its last line) has one place only, so both apply too.
  Two insertions at the same place (Dream and a person both appending to USER.md) change no line
  of the base: both are kept, ours first, then the lines of theirs that ours did not insert too
  (the same fact added by both is kept once; in a list of facts the order carries no meaning). Any
  overlap of changed lines with different results stays a conflict.

Lines are split as dulwich splits a blob (``bytes.splitlines(keepends=True)``) on the UTF-8 text;
lone surrogates (a file read with ``surrogateescape``) pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from ..errors import MergeConflictError

__all__ = ["merge3"]

_ENCODING = ("utf-8", "surrogatepass")


class _Matcher(SequenceMatcher[bytes]):
    """difflib's matcher without its "popular line" heuristic: in a file past 200 lines a line
    repeated in more than 1% of it (a blank line, ``---``) would otherwise be ignored for alignment
    and make spurious conflicts."""

    def __init__(
        self,
        isjunk: Callable[[bytes], bool] | None = None,
        a: Sequence[bytes] = (),
        b: Sequence[bytes] = (),
        autojunk: bool = True,
    ) -> None:
        super().__init__(isjunk, a, b, autojunk=False)


@dataclass(frozen=True)
class _Hunk:
    """One side's change against base: base lines [start, end) become that side's lines [lo, hi)."""

    side: int  # 0 = ours, 1 = theirs
    start: int
    end: int
    lo: int
    hi: int


def merge3(base: str, ours: str, theirs: str, *, path: str = "") -> str:
    """Merge the change base→theirs into ours (line-based).

    Raises ``MergeConflictError`` (``.path`` = ``path``, ``.lines`` = 1-based inclusive range in
    ``ours``) when both sides changed the same lines differently (or one inserted lines at the edge
    of the other's change).
    """
    if ours == base or ours == theirs:
        return theirs
    if theirs == base:
        return ours
    # dulwich's merge module (and the merge3 package) only where a merge is done: most commands,
    # the demo's whole run among them, never merge (≈ 15 ms of import).
    from dulwich.merge import make_merge3

    b, o, t = (text.encode(*_ENCODING).splitlines(keepends=True) for text in (base, ours, theirs))
    out: list[bytes] = []
    hunks: list[_Hunk] = []
    # merge3's matcher protocol wants get_matching_blocks() -> list[tuple[int, int, int]]; difflib's
    # returns list[Match], a NamedTuple of those three ints, which mypy rejects only because list is
    # invariant.
    matcher = make_merge3(b, o, t, sequence_matcher=_Matcher)  # type: ignore[arg-type]
    for region in matcher.merge_regions():
        kind = region[0]
        if kind == "unchanged":
            out.extend(b[region[1] : region[2]])
        elif kind in ("a", "same"):
            out.extend(o[region[1] : region[2]])
        elif kind == "b":
            out.extend(t[region[1] : region[2]])
        else:  # "conflict", z_start, z_end, a_start, a_end, b_start, b_end
            hunks = hunks or _hunks(b, (o, t))
            out.extend(_split_conflict(region[1:], hunks, b, (o, t), path))
    return b"".join(out).decode(*_ENCODING)


def _hunks(base: list[bytes], sides: tuple[list[bytes], list[bytes]]) -> list[_Hunk]:
    """Both sides' changes against base, from the same alignment ``merge3`` used, in base order."""
    found = [
        _Hunk(side, i1, i2, j1, j2)
        for side in (0, 1)
        for tag, i1, i2, j1, j2 in _Matcher(None, base, sides[side]).get_opcodes()
        if tag != "equal"
    ]
    return sorted(found, key=lambda h: (h.start, h.end, h.side))


def _split_conflict(
    region: tuple[int, ...],
    hunks: list[_Hunk],
    base: list[bytes],
    sides: tuple[list[bytes], list[bytes]],
    path: str,
) -> list[bytes]:
    """A conflict region of ``merge3`` (base, ours, theirs ranges) merged hunk by hunk, or
    ``MergeConflictError`` for the first group of hunks in it that really clash (overlap, or touch
    through an insertion, with different results)."""
    z0, z1, a0, a1, b0, b1 = region
    inside = _hunks_inside(hunks, (z0, z1), ((a0, a1), (b0, b1)))
    out: list[bytes] = []
    pos = z0
    shift = [a0 - z0, b0 - z0]  # side position - base position after the hunks applied so far
    i = 0
    while i < len(inside):
        group, hi = _group_at(inside, i)
        i += len(group)
        lo = group[0].start
        out.extend(base[pos:lo])
        if _separable(group):  # touching through an insertion only: each hunk in base order
            out.extend(_in_base_order(group, base, sides, lo, hi))
            for h in group:
                shift[h.side] += (h.hi - h.lo) - (h.end - h.start)
        else:
            out.extend(_one_side(group, sides, shift, (lo, hi), path))
        pos = hi
    out.extend(base[pos:z1])
    return out


def _hunks_inside(
    hunks: list[_Hunk], span: tuple[int, int], bounds: tuple[tuple[int, int], tuple[int, int]]
) -> list[_Hunk]:
    """The hunks within a conflict region: its base range ``span`` and each side's ``bounds``."""
    z0, z1 = span
    return [
        h
        for h in hunks
        if z0 <= h.start and h.end <= z1 and bounds[h.side][0] <= h.lo and h.hi <= bounds[h.side][1]
    ]


def _group_at(inside: list[_Hunk], i: int) -> tuple[list[_Hunk], int]:
    """The group of hunks starting at ``inside[i]`` and the base position where it ends: a hunk
    joins the group when it overlaps it, or touches its end through an insertion (either side's)."""
    group = [inside[i]]
    hi, insertion_at_hi = inside[i].end, inside[i].start == inside[i].end
    i += 1
    while i < len(inside) and (
        inside[i].start < hi
        or (inside[i].start == hi and (insertion_at_hi or inside[i].start == inside[i].end))
    ):
        h = inside[i]
        if h.end > hi or (h.end == hi and h.start == h.end):
            insertion_at_hi = h.start == h.end
        hi = max(hi, h.end)
        group.append(h)
        i += 1
    return group, hi


def _in_base_order(
    group: list[_Hunk],
    base: list[bytes],
    sides: tuple[list[bytes], list[bytes]],
    lo: int,
    hi: int,
) -> list[bytes]:
    """A separable group applied hunk by hunk in base order (lines both sides inserted at the same
    place, once)."""
    out: list[bytes] = []
    at = lo
    inserted: tuple[int, list[bytes]] | None = None  # the last insertion: (place, lines)
    for h in sorted(group, key=lambda h: (h.start, h.end, h.side)):
        out.extend(base[at : h.start])
        lines = sides[h.side][h.lo : h.hi]
        if h.start == h.end and inserted is not None and inserted[0] == h.start:
            lines = [ln for ln in lines if ln not in inserted[1]]  # both added it: once
        out.extend(lines)
        if h.start == h.end:
            inserted = (h.start, sides[h.side][h.lo : h.hi])
        at = h.end
    out.extend(base[at:hi])
    return out


def _one_side(
    group: list[_Hunk],
    sides: tuple[list[bytes], list[bytes]],
    shift: list[int],
    span: tuple[int, int],
    path: str,
) -> list[bytes]:
    """The lines of the one side that changed the group's base range ``span`` (or of both, when
    they changed it alike); ``MergeConflictError`` when both changed it differently. Advances
    ``shift`` past the group."""
    lo, hi = span
    spans = []
    for side in (0, 1):
        own = [h for h in group if h.side == side]
        delta = sum((h.hi - h.lo) - (h.end - h.start) for h in own)
        spans.append((lo + shift[side], hi + shift[side] + delta, bool(own)))
        shift[side] += delta
    (o_lo, o_hi, o_changed), (t_lo, t_hi, t_changed) = spans
    mine, other = sides[0][o_lo:o_hi], sides[1][t_lo:t_hi]
    if o_changed and t_changed and mine != other:
        first = o_lo + 1
        last = max(o_hi, first)
        where = f"{path} " if path else ""
        raise MergeConflictError(
            f"conflict in {where}lines {first}-{last}: both sides changed them",
            path=path,
            lines=(first, last),
        )
    return mine if o_changed else other


def _separable(group: list[_Hunk]) -> bool:
    """Whether the two sides' hunks of a group only touch (never overlap), so applying each in base
    order is the result: an insertion at either end of the other side's range (not strictly inside
    it), two insertions (at the same place: ours first), or ranges that merely meet. Not any
    overlap of changed lines."""
    for a in group:
        for b in group:
            if a.side != 0 or b.side != 1:
                continue
            a_ins, b_ins = a.start == a.end, b.start == b.end
            if a_ins and b_ins:
                continue  # at the same place or not: both apply, in order (see _split_conflict)
            if a_ins:
                if b.start < a.start < b.end:
                    return False
            elif b_ins:
                if a.start < b.start < a.end:
                    return False
            elif a.start < b.end and b.start < a.end:
                return False
    return True
