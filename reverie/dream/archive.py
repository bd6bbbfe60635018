"""Dream's curated archive: ``memory/archive/<file>.md``. This docstring is the format's spec.

Every line that leaves a prompt file (SOUL.md, USER.md, memory/MEMORY.md) is appended to the archive
file of its source — ``memory/archive/soul.md``, ``user.md``, ``memory.md`` — under a heading for
the day it left, each entry under its own heading (so each is one of Recall's sections, found by its
own words rather than diluted by its neighbours), the entry line ending with why and when::

    # Archive: USER.md

    Lines Dream moved out of USER.md, under the day they left. Each ends with why and when.

    ## 2027-03-02

    ### Lives in Lisbon
    - Lives in Lisbon · superseded 2027-03-02 by "Lives in Porto"

    ### Likes jazz
    - Likes jazz · archived 2027-03-02 (over budget, recalled 2×)

The files are ordinary Markdown: tracked by the memory repo (``git.trackedFiles`` has
``memory/archive/*.md``), indexed by Recall as evergreen memory (``reverie search``,
``memory_search`` and ``/recall`` find them), and a person may edit or delete them; Dream only ever
appends, and recreates a deleted file on its next archival. A file a hand edit damaged (invalid
UTF-8, its header gone, a directory in its place) is repaired before the run reads it, whatever it
held kept (``reverie.dream.archive_files``). ``entry_line`` / ``parse_entry`` are the one definition
of an entry line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from ..storage.workspace import ARCHIVE_DIR, MEMORY, SOUL, USER

__all__ = [
    "archive_path",
    "source_of",
    "entry_line",
    "parse_entry",
    "append_entries",
    "header",
    "with_opening",
    "SEPARATOR",
]

SEPARATOR = " · "
_NAMES = {SOUL: "soul.md", USER: "user.md", MEMORY: "memory.md"}
_DAY = re.compile(r"^## (\d{4}-\d{2}-\d{2})\s*$")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def archive_path(source: str) -> str:
    """The archive file of a prompt file (workspace-relative)."""
    return f"{ARCHIVE_DIR}/{_NAMES.get(source, source.rsplit('/', 1)[-1].lower())}"


def source_of(archive: str) -> str | None:
    """The prompt file an archive file belongs to, or None for another file in the directory."""
    name = archive.rsplit("/", 1)[-1]
    return next((src for src, n in _NAMES.items() if n == name), None)


def entry_line(text: str, note: str) -> str:
    """``- <line text> · <why and when>``; the text is one line (newlines folded)."""
    return f"- {' '.join(text.split())}{SEPARATOR}{note}"


def parse_entry(line: str) -> tuple[str, str] | None:
    """``(line text, note)`` of an archive entry line, else None."""
    if not line.startswith("- ") or SEPARATOR not in line:
        return None
    text, _, note = line[2:].rpartition(SEPARATOR)
    return (text, note) if text else None


def append_entries(current: str, source: str, entries: Sequence[str], today: date) -> str:
    """``current`` (the archive file's text, "" when missing) with ``entries`` appended under
    today's heading."""
    if not entries:
        return current
    day = today.isoformat()
    text = current
    if not text.strip():
        text = header(source)
    last_day = None
    for line in text.splitlines():
        m = _DAY.match(line)
        if m:
            last_day = m.group(1)
    if not text.endswith("\n"):
        text += "\n"
    if last_day != day:
        text += f"\n## {day}\n"
    return text + "".join(f"\n### {_title(e)}\n{e}\n" for e in entries)


def header(source: str) -> str:
    """The archive file's opening: its title and one line on what it holds."""
    return (
        f"# Archive: {source}\n\nLines Dream moved out of {source}, under the day they left. "
        "Each ends with why and when.\n"
    )


def with_opening(text: str, source: str) -> str:
    """``text`` (an archive file that lost its opening: a restore's merge kept later entries of a
    file it otherwise undid, or a hand edit) with the header put back on top and, when its first
    entry now sits under no day heading, that entry's day heading (the first date its entry line
    names) put back above it; nothing else changes. Text that starts with the header, or is blank,
    is returned as it is."""
    if not text.strip() or text.lstrip().startswith("# Archive:"):
        return text
    if text.lstrip("\n").startswith("### "):
        day = next(
            (m.group(1) for line in text.splitlines() if (m := _DATE.search(_note(line)))), None
        )
        if day is not None:
            text = f"## {day}\n" + ("" if text.startswith("\n") else "\n") + text
    return header(source) + "\n" + text


def _note(line: str) -> str:
    parsed = parse_entry(line)
    return parsed[1] if parsed else ""


def _title(entry: str) -> str:
    parsed = parse_entry(entry)
    title = (parsed[0] if parsed else entry).lstrip("#").strip()
    return title if len(title) <= 100 else title[:99] + "…"
