"""Line statistics of a text change: the one counter behind every "+N -M" Reverie shows (commit bodies, Dream's
report, a staged SOUL.md change, approve), so a subject and a body can never disagree.

It counts lines the way ``git diff --numstat`` does: a removed line that reads ``--`` or a Markdown ``---`` is a
removed line like any other (counting from a unified diff's text, where ``---`` is also a file header, got that
wrong). No dulwich here: ``reverie status`` counts a pending change without loading git.
"""

from __future__ import annotations

from difflib import SequenceMatcher

__all__ = ["numstat", "numstat_text"]


def _lines(data: bytes | None) -> list[bytes]:
    return data.splitlines(keepends=True) if data else []


def numstat(old: bytes | None, new: bytes | None) -> tuple[int, int]:
    """(added, removed) lines from ``old`` to ``new``. Common head and tail are trimmed before matching, so a
    one-line edit of a long file costs a comparison, not a full sequence match."""
    a, b = _lines(old), _lines(new)
    start = 0
    limit = min(len(a), len(b))
    while start < limit and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    mid_a, mid_b = a[start:end_a], b[start:end_b]
    if not mid_a or not mid_b:
        return len(mid_b), len(mid_a)
    same = sum(block.size for block in SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_matching_blocks())
    return len(mid_b) - same, len(mid_a) - same


def numstat_text(old: str, new: str) -> tuple[int, int]:
    """``numstat`` of two texts."""
    return numstat(old.encode(), new.encode())
