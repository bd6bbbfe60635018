"""Reading the archive files (``memory/archive/*.md``) for a Dream run, repairing what a hand edit
damaged.

The archive is documented as fine to edit by hand, so a run must never fail on it: before the
lifecycle step reads an archive file, a damaged one is put right — and whatever it held is kept — so
the run goes on. Each repair is written the way every memory-file writer writes: through ``save``
(Dream's: ``GitStore.commit`` of that one file, under the writer lock, merged over a change made
since it was read), so it is committed at once, whether the run then commits anything or not (it
was written to disk alone and left uncommitted when the run had nothing to do):

- **invalid UTF-8**: the original bytes are set apart as ``<file>.damaged-<UTC stamp>`` (fsynced
  first), then the file is rewritten with each invalid byte as U+FFFD;
- **a missing header** (text that does not start with ``# Archive:``): the header is put back on
  top, and the day heading above a first entry left under none (``archive.with_opening``);
- **a directory (or another non-file) in the file's place**: it is moved aside to
  ``<file>.damaged-<stamp>`` with everything in it, and the file comes back with its text as last
  committed (at HEAD, or as the last commit that had it, should a commit made meanwhile have
  recorded it deleted).

Each repair is one warning naming the file and what was done (``ArchiveFiles.notes``, shown with the
run's result). A set-apart copy is left out of git (it does not end in ``.md``) and out of Recall;
the person decides.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import ReverieError
from ..storage.fsutil import atomic_write, fsync_dir
from ..storage.workspace import MEMORY_FILES, Workspace
from .archive import archive_path, with_opening

__all__ = ["REPAIR_MODEL", "ArchiveFiles", "read_archives"]

log = logging.getLogger(__name__)

#: ``committed(path)``: the file's text at HEAD, or None (``GitStore.file_at``), to bring back a
#: replaced file.
Committed = Callable[[str], str | None]
#: The ``Reverie-Model`` trailer of a repair's own ``dream`` commit: not a run, so never the "newest
#: Dream commit" ``Memory.restore()`` undoes.
REPAIR_MODEL = "archive-repair"
#: ``save(path, text, base, note)``: write and commit the repaired ``text`` of one archive file;
#: ``base`` is the text it was repaired from (a change made since is merged), None to replace it.
Save = Callable[[str, str, str | None, str], None]


@dataclass
class ArchiveFiles:
    """The archive files' texts for this run (``texts``) and one message per repair (``notes``);
    ``unreadable`` names a file that could be neither read nor repaired (nothing is archived into it
    this run)."""

    texts: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


def read_archives(workspace: Workspace, committed: Committed, save: Save | None) -> ArchiveFiles:
    """Every prompt file's archive file, each damaged one repaired first through ``save``; with
    ``save`` None (a dry run, which writes nothing) the repaired text is only read."""
    out = ArchiveFiles()
    for source in MEMORY_FILES:
        rel = archive_path(source)
        try:
            out.texts[rel] = _read_one(workspace, rel, source, committed, out.notes, save)
        except (ReverieError, OSError) as exc:
            out.unreadable.append(rel)
            message = (
                f"{rel} cannot be read or repaired ({exc}); nothing is archived into it this run"
            )
            out.notes.append(message)
            log.warning("dream: %s", message)
    return out


def _read_one(
    workspace: Workspace,
    rel: str,
    source: str,
    committed: Committed,
    notes: list[str],
    save: Save | None,
) -> str:
    path = workspace.resolve(rel)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ""
    if not stat.S_ISREG(st.st_mode):
        text = committed(rel) or ""
        if save is not None:
            aside = _set_apart(path)
            atomic_write(path, text)  # the committed text: committed only where HEAD lacks it
            note = (
                f"{rel} was not a file: moved aside to {_rel(workspace, aside)}, "
                "and the file is back with its committed text"
            )
            save(rel, text, text, note)
            _note(notes, note)
        return text
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        if save is not None:
            aside = _set_apart(path, raw)
            note = (
                f"{rel} had invalid UTF-8: the original bytes are set apart in "
                f"{_rel(workspace, aside)}; the file keeps its text with U+FFFD for each bad byte"
            )
            save(rel, with_opening(text, source), None, note)
            _note(notes, note)
        return with_opening(text, source)
    if text.strip() and not text.lstrip().startswith("# Archive:"):
        read, text = text, with_opening(text, source)
        if save is not None:
            note = f"{rel} had lost its header: put back on top, nothing else changed"
            if text.count("\n## ") > read.count("\n## "):
                note = f"{rel} had lost its header and day heading: put back, nothing else changed"
            save(rel, text, read, note)
            _note(notes, note)
    return text


def _set_apart(path: Path, data: bytes | None = None) -> Path:
    """Keep what is at ``path`` beside it under a new name: a copy of ``data`` (fsynced before the
    caller rewrites the file), or the entry itself moved when ``data`` is None."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    if data is None:
        os.rename(path, aside)
        fsync_dir(path.parent)
    else:
        atomic_write(aside, data)
    return aside


def _rel(workspace: Workspace, path: Path) -> str:
    return path.relative_to(workspace.root).as_posix()


def _note(notes: list[str], message: str) -> None:
    notes.append(message)
    log.warning("dream: %s", message)
