"""Line statistics and git-style unified diffs of tracked files, and the commit body derived from
them.

The body of every Reverie commit is one line per changed file, ``<path> | +<added> -<removed>`` (no
colon, so it never reads as a trailer), computed here from the real contents — never from anyone's
account of the change.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from io import BytesIO

from dulwich.objects import ObjectID
from dulwich.patch import write_object_diff

from ..text.diff import numstat
from .objects import FILE_MODE, ObjectReader
from .types import FileChange

__all__ = ["file_changes", "stat_body", "parse_stat_body", "unified_diff", "text_diff"]

_STAT_RE = re.compile(r"^(.+) \| \+(\d+) -(\d+)$")


def file_changes(
    old: Mapping[str, bytes | None], new: Mapping[str, bytes | None]
) -> list[FileChange]:
    """A FileChange for every path whose content differs, in ``new``'s order."""
    out = []
    for path, data in new.items():
        before = old.get(path)
        if before != data:
            added, removed = numstat(before, data)
            out.append(FileChange(path, added, removed))
    return out


def stat_body(changes: Iterable[FileChange]) -> str:
    return "\n".join(f"{c.path} | +{c.added} -{c.removed}" for c in changes)


def parse_stat_body(body: str) -> list[FileChange] | None:
    """The FileChanges of a Reverie commit body (its first paragraph; a caller's notes may follow
    it); None when the body is not in that form."""
    lines = [ln for ln in re.split(r"\n[ \t]*\n", body.strip())[0].splitlines() if ln.strip()]
    out = []
    for line in lines:
        m = _STAT_RE.match(line.strip())
        if not m:
            return None
        out.append(FileChange(m.group(1), int(m.group(2)), int(m.group(3))))
    return out


def unified_diff(
    store: ObjectReader, path: str, old_sha: ObjectID | None, new_sha: ObjectID | None
) -> str:
    """git's ``diff --git`` text for one file between two blobs (None = absent), read through
    ``store`` (the GitStore's object cache: a ``show`` repeated in a long-lived process reads no
    blob from disk again)."""
    buf = BytesIO()
    name = path.encode()
    write_object_diff(
        buf,
        # dulwich 1.2 annotates this as a whole BaseObjectStore, but write_object_diff only reads
        # store[sha]
        store,  # type: ignore[arg-type]
        (name if old_sha else None, FILE_MODE if old_sha else None, old_sha),
        (name if new_sha else None, FILE_MODE if new_sha else None, new_sha),
    )
    return buf.getvalue().decode("utf-8", errors="replace")


def text_diff(path: str, old: bytes | None, new: bytes | None) -> str:
    """The same ``diff --git`` text for two contents not (yet) in the repo: a preview of an
    operation."""
    a = old.decode("utf-8", errors="replace").splitlines(keepends=True) if old is not None else []
    b = new.decode("utf-8", errors="replace").splitlines(keepends=True) if new is not None else []
    lines = difflib.unified_diff(
        a,
        b,
        f"a/{path}" if old is not None else "/dev/null",
        f"b/{path}" if new is not None else "/dev/null",
    )
    body = "".join(
        ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines
    )
    return f"diff --git a/{path} b/{path}\n{body}" if body else ""
