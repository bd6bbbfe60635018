"""Line statistics of a text change: the one counter behind every "+N -M" Reverie shows (commit
bodies, Dream's report, a staged SOUL.md change, approve), so a subject and a body can never
disagree. And the kinds of a unified diff's lines, which the CLI colours and the web UI styles (one
reading of the diff, two presentations).

It counts lines the way ``git diff --numstat`` does: a removed line that reads ``--`` or a Markdown
``---`` is a removed line like any other (counting from a unified diff's text, where ``---`` is also
a file header, got that wrong). No dulwich here: ``reverie status`` counts a SOUL.md proposal's
lines without loading git.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Literal

__all__ = ["DiffLineKind", "diff_line_kind", "diff_line_kinds", "numstat", "numstat_text"]

DiffLineKind = Literal["file", "meta", "hunk", "add", "del", "no-newline", "context"]
_META = ("index ", "--- ", "+++ ", "new file", "deleted file")
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _lines(data: bytes | None) -> list[bytes]:
    return data.splitlines(keepends=True) if data else []


def numstat(old: bytes | None, new: bytes | None) -> tuple[int, int]:
    """(added, removed) lines from ``old`` to ``new``. Common head and tail are trimmed before
    matching, so a one-line edit of a long file costs a comparison, not a full sequence match."""
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
    same = sum(
        block.size
        for block in SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_matching_blocks()
    )
    return len(mid_b) - same, len(mid_a) - same


def numstat_text(old: str, new: str) -> tuple[int, int]:
    """``numstat`` of two texts."""
    return numstat(old.encode(), new.encode())


def diff_line_kind(line: str) -> DiffLineKind:
    """What one line of a unified diff (as git prints it) is: a file's ``diff --git`` line, another
    header line (``meta``), a hunk header, an added or removed line, git's ``\\ No newline at end of
    file`` marker, or context. A removed ``-- …`` or added ``++ …`` line reads like a header and is
    taken for one (text alone cannot tell)."""
    if line.startswith("diff --git"):
        return "file"
    if line.startswith(_META):
        return "meta"
    if line.startswith("\\ "):
        return "no-newline"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return "context"


def diff_line_kinds(lines: list[str]) -> list[DiffLineKind]:
    """The kind of every line of a unified diff, read in order: inside a hunk (as many lines as its
    header counts) a line's first character says what it is, so a removed line reading ``-- x``
    is a removed line, not a header; outside one, ``diff_line_kind``. What the CLI colours and the
    web UI shows."""
    out: list[DiffLineKind] = []
    old = new = 0
    for line in lines:
        if old > 0 or new > 0:
            head = line[:1]
            if head == "-":
                out.append("del")
                old -= 1
                continue
            if head == "+":
                out.append("add")
                new -= 1
                continue
            if head == " " or line == "":
                out.append("context")
                old, new = old - 1, new - 1
                continue
            if head == "\\":
                out.append("no-newline")
                continue
            old = new = 0  # a hunk cut short: read the line as it stands
        kind = diff_line_kind(line)
        if kind == "hunk":
            found = _HUNK.match(line)
            if found:
                old = int(found.group(1)) if found.group(1) is not None else 1
                new = int(found.group(2)) if found.group(2) is not None else 1
        out.append(kind)
    return out
