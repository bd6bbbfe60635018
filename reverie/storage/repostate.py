"""Reverie's own state in a memory repo's git dir (``<git dir>/reverie/``) that readers below git
need: the repo's identity token (``REPO_ID``) and the record of tracked files a commit left
unwritten (``LEFT_BUSY``). The module imports no dulwich and nothing of ``gitstore``, so ``reverie
status`` and ``Memory``'s moved-workspace check read them without loading git.

The left-busy record, ``<git dir>/reverie/left-busy`` (this is its spec):

One line per file, ``<left> <wanted> <path>``: the blob id of the version the file was left at (what
a save on top of it was made on), and of the version the commit put in HEAD (``-``: none). Replaced
atomically; absent when there is none. A commit that could not write a file (another program held
it open for writing, or saves kept landing) records it (``writer.transact``); the next write
settles each (``GitStore._settle_left_busy``): rolled forward, or merged with a save, instead of
being committed back as a person's edit.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, cast

from .fsutil import atomic_write, read_bytes_or_none, read_seen, replace_if_unchanged

if TYPE_CHECKING:
    from dulwich.objects import ObjectID

__all__ = [
    "REPO_ID",
    "read_repo_id",
    "ensure_repo_id",
    "LEFT_BUSY",
    "LeftBusy",
    "state_dir",
    "read_left_busy",
    "write_left_busy",
    "left_unwritten",
    "UNWRITTEN",
    "UNWRITTEN_REMEDY",
]

log = logging.getLogger(__name__)

#: Reverie's own folder in a memory repo's git dir (``state_dir``).
STATE_DIR = "reverie"
#: A memory repo's identity, inside its git dir: a random token written once (``ensure_repo_id``).
#: A workspace deleted and made anew at the same path can get the same inode numbers (ext4 reuses
#: a freed inode at once); its new repo never has the same token, so ``Memory``'s moved-workspace
#: check (``reverie.memory.runtime.Identity``) tells the two apart.
REPO_ID = f"{STATE_DIR}/id"


def read_repo_id(git_dir: Path | str) -> str | None:
    """The repo's identity token (``REPO_ID``); None when it has none yet. ``OSError`` when it
    cannot be read now (too many open files, a permission): nothing to compare."""
    try:
        with open(os.path.join(git_dir, REPO_ID), "rb") as f:
            return _token(f.read(64))
    except (FileNotFoundError, NotADirectoryError):
        return None


def ensure_repo_id(git_dir: Path) -> None:
    """Give the repo its identity token when it has none (at the writer's start-up, which two
    processes can run at once). Written only where no token is (a file created where none is, or
    put over the empty one it read): a start-up that read none before another wrote one keeps that
    one, which an open ``Memory`` may already have taken as the repo's (its next verb was refused
    as on a replaced workspace). ``OSError`` when it cannot be written, or a non-file is there."""
    if read_repo_id(git_dir) is not None:
        return
    path = git_dir / REPO_ID
    seen = read_seen(path)
    if seen.stamp is not None and seen.data is None:
        raise OSError(f"{path} is not a regular file")
    if seen.data is not None and _token(seen.data) is not None:
        return  # another start-up wrote it since
    replace_if_unchanged(path, (secrets.token_hex(16) + "\n").encode(), seen)  # else: kept theirs


def _token(data: bytes) -> str | None:
    return data[:64].decode("ascii", errors="replace").strip() or None


LEFT_BUSY = "left-busy"
#: A file still left unwritten, as a problem says it (``GitStore.problems``, ``reverie status``).
UNWRITTEN = (
    "the last commit could not write it (another program held it open for writing): the file "
    "still shows the version before that commit"
)
UNWRITTEN_REMEDY = (
    "close the program holding it; the next change finishes the write (merged with any save "
    "made on it meanwhile)"
)

LeftBusy = dict[str, "tuple[ObjectID | None, ObjectID | None]"]


def state_dir(git_dir: Path) -> Path:
    """Reverie's own files in the memory repo's git dir."""
    return git_dir / STATE_DIR


def read_left_busy(git_dir: Path, *, drop: bool = True) -> LeftBusy:
    """The files the last commits left unwritten (``LEFT_BUSY``). A line that does not parse is
    skipped with a warning (its file is then committed from disk, as before the record); the
    others still hold, and the next rewrite of the record leaves the bad line out. ``drop``: a
    record none of whose lines parse is removed (only under the writer lock; a query passes
    False)."""
    path = state_dir(git_dir) / LEFT_BUSY
    raw = read_bytes_or_none(path)
    if raw is None:
        return {}
    out: LeftBusy = {}
    bad = 0
    for line in raw.split(b"\n"):
        parsed = _parse_line(line) if line.strip() else None
        if parsed is None:
            bad += bool(line.strip())
            continue
        out[parsed[0]] = parsed[1]
    if bad and drop:
        log.warning(
            "%s does not parse in %d line(s); skipped (their files are committed as on disk)",
            path,
            bad,
        )
        if not out:
            path.unlink(missing_ok=True)
    return out


def _parse_line(line: bytes) -> tuple[str, tuple[ObjectID | None, ObjectID | None]] | None:
    """One line as (path, (left, wanted)), or None when it does not parse."""
    try:
        left, wanted, rel = line.decode("utf-8").split(" ", 2)
    except (UnicodeDecodeError, ValueError):
        return None
    ids = [
        None if x == "-" else cast("ObjectID", x.encode("ascii", "replace")) for x in (left, wanted)
    ]
    if not rel or any(
        x is not None and (len(x) != 40 or x.strip(b"0123456789abcdef")) for x in ids
    ):
        return None
    return rel, (ids[0], ids[1])


def write_left_busy(git_dir: Path, records: LeftBusy) -> None:
    """Replace the ``LEFT_BUSY`` record (atomically; none left when ``records`` is empty)."""
    path = state_dir(git_dir) / LEFT_BUSY
    if not records:
        path.unlink(missing_ok=True)
        return
    lines = (
        f"{(left or b'-').decode()} {(wanted or b'-').decode()} {rel}\n"
        for rel, (left, wanted) in sorted(records.items())
    )
    atomic_write(path, "".join(lines))


def left_unwritten(git_dir: Path) -> list[str]:
    """The files named in the record, sorted (a query: reads only, warns of nothing)."""
    return sorted(read_left_busy(git_dir, drop=False))
