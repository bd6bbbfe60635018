"""One-time migration of nanobot's legacy ``memory/HISTORY.md`` into ``memory/history.jsonl``.

Runs when HISTORY.md exists and history.jsonl is missing or empty. Entry boundaries are nanobot's
own (0.1.5), so both migrations of one file give the same entries and cursors: after line endings
are normalised and the text stripped, a new entry starts at a non-blank line that follows a blank
line, or at a line opening with a bracketed date (``[YYYY-MM-DD…]``), except that inside a ``[RAW] N
messages`` block a dated ``ROLE:`` line (``[2026-04-01 10:04] USER: hello``) stays part of the
block. A leading ``[YYYY-MM-DD HH:MM]`` becomes the timestamp and is removed from the content
(Reverie also reads ``HH:MM:SS`` and a ``T``); any other entry keeps its text whole and takes the
file's mtime. Invalid bytes survive as U+FFFD.

Crash-safe order: (1) both cursor files are set to the last migrated cursor, (2) history.jsonl is
written atomically, (3) HISTORY.md is renamed to HISTORY.md.bak (.bak.2, … if taken). A crash before
(2) re-runs the same migration on the next open (same cursors); a crash after (2) leaves a complete
log, and the leftover HISTORY.md is renamed on the next open because history.jsonl already holds its
entries (its first entry carries ``"migrated": "HISTORY.md"``). A HISTORY.md next to a history.jsonl
that this migration did not write is left untouched, with a warning.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import datetime
from pathlib import Path

from .cursors import write_cursor
from .fsutil import atomic_write, decode_lossy
from .history import HistoryEntry, HistoryLog, format_timestamp
from .workspace import Workspace

log = logging.getLogger(__name__)

__all__ = ["migrate_legacy_history", "split_legacy", "MIGRATED_KEY"]

#: Extra key on each migrated entry, naming its source (also how an interrupted migration is
#: recognised).
MIGRATED_KEY = "migrated"

# a bracketed date, with anything after it up to "]"
_DATED = re.compile(r"\[\d{4}-\d{2}-\d{2}[^\]]*\]")
_RAW_ROLE_LINE = re.compile(
    r"\[\d{4}-\d{2}-\d{2}[^\]]*\]\s+[A-Z][A-Z0-9_]*(?:\s+\[tools:\s*[^\]]+\])?:"
)
_LEADING_STAMP = re.compile(r"^\[(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(?::\d{2})?\]\s*")
# what nanobot writes (boundaries use only it)
_NANOBOT_STAMP = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\]\s*")
_RAW_MARK = "[RAW]"


def split_legacy(text: str, fallback_timestamp: str) -> list[tuple[str, str]]:
    """``(timestamp, content)`` pairs from HISTORY.md text, one per entry (boundaries as in the
    module doc)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    chunks: list[list[str]] = []
    after_blank = False
    for line in text.split("\n") if text else []:
        blank = not line.strip()
        if chunks and not blank and (after_blank or _starts_entry(line, chunks[-1])):
            chunks.append([line])
        elif chunks:
            chunks[-1].append(line)
        else:
            chunks.append([line])
        after_blank = blank
    out: list[tuple[str, str]] = []
    for chunk in chunks:
        body = "\n".join(chunk).strip()
        if not body:
            continue
        m = _LEADING_STAMP.match(body)
        if m:
            out.append((f"{m.group(1)} {m.group(2)}", body[m.end() :].strip() or body))
        else:
            out.append((fallback_timestamp, body))
    return out


def _starts_entry(line: str, current: list[str]) -> bool:
    if not _DATED.match(line):
        return False
    return not (_is_raw_block(current) and _RAW_ROLE_LINE.match(line))


def _is_raw_block(lines: list[str]) -> bool:
    """Whether the entry being built is a raw entry (``[date] [RAW] N messages`` then one line per
    message)."""
    first = next((ln for ln in lines if ln.strip()), "")
    m = _NANOBOT_STAMP.match(first)
    return m is not None and first[m.end() :].lstrip().startswith(_RAW_MARK)


def _backup_name(path: Path) -> Path:
    candidate = path.with_name(path.name + ".bak")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak.{n}")
        n += 1
    return candidate


def _has_entries(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return any(line.strip() for line in f)
    except FileNotFoundError:
        return False


def _first_entry_is_migrated(history: HistoryLog) -> bool:
    """Whether history.jsonl starts with this migration's output (so a leftover HISTORY.md is
    already in it)."""
    first = history.read_since(0, limit=1)
    return bool(first) and first[0].extra.get(MIGRATED_KEY) == "HISTORY.md"


def migrate_legacy_history(workspace: Workspace, history: HistoryLog) -> int | None:
    """Migrate HISTORY.md if needed; returns the number of entries migrated, or None when nothing
    was to do."""
    legacy = workspace.legacy_history_path
    if not legacy.is_file():
        return None
    with history.locked():
        if not legacy.is_file():
            return None
        if _has_entries(history.path):
            if not _first_entry_is_migrated(history):
                # Not ours: history.jsonl was started without this migration. Never guess; leave
                # both alone.
                log.warning(
                    "%s exists next to a non-empty %s and is not migrated; it is left as is",
                    legacy.name,
                    history.path.name,
                )
                return None
            backup = _backup_name(legacy)
            os.replace(legacy, backup)  # finishes a migration interrupted after step (2)
            log.warning(
                "legacy %s left over after migration; renamed to %s", legacy.name, backup.name
            )
            return None
        raw = legacy.read_bytes()
        fallback = format_timestamp(datetime.fromtimestamp(legacy.stat().st_mtime))
        pairs = split_legacy(decode_lossy(raw, origin=str(legacy)), fallback)
        lines = []
        for cursor, (stamp, content) in enumerate(pairs, start=1):
            entry = HistoryEntry(
                cursor, stamp, history.prepare_content(content), extra={MIGRATED_KEY: "HISTORY.md"}
            )
            lines.append(entry.to_json())
        last = len(lines)
        if last:
            write_cursor(workspace.cursor_path, last)
            write_cursor(workspace.dream_cursor_path, last)  # old history is not re-dreamed
            atomic_write(history.path, b"".join(lines))
        backup = _backup_name(legacy)
        os.replace(legacy, backup)
    log.warning(
        "migrated %d entries from %s to %s (original kept as %s)",
        last,
        legacy.name,
        history.path.name,
        backup.name,
    )
    return last
