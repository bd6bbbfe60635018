"""Which slice each consolidated history entry came from, and resuming from it after a crash.

Every history entry the Consolidator appends carries the slice of the session it came from, under
the key ``"slice"`` (readers ignore keys they do not know, nanobot's too)::

    {"cursor": 43, "timestamp": "...", "content": "[RAW] 15 messages ...", "session_key": "big",
     "slice": {"from": 0, "to": 15, "digest": "9f2c...", "part": 1, "parts": 2}}

``from``/``to``: the messages ``messages[from:to]`` (file order, valid lines only, as
``last_consolidated`` counts them); ``digest``: a hash of those messages (so a slice of a session
cleared since, or one whose newest message was taken back, never matches new messages at the same
numbers); ``part``/``parts``: the entry's place among the entries of that slice.

The session's offset is saved after the history append (and, for a long run, not after every slice:
see ``Consolidator``). A run that ends between the two (a signal, a crash) leaves entries past the
offset. The next run first advances the offset over them (``resume_offset``): from
``last_consolidated``, each slice whose every part is in history and whose digest matches the
messages at its numbers, so no slice goes into history twice. A slice with a part missing (a crash
between two parts' appends) is consolidated again: some of its entries are then in history twice,
never lost.

The search reads history backward and stops at the first entry older than the minute of the
session's last metadata write (``updated_at``: the offset is saved with it, so every entry past the
offset was written after it): a run reads the entries of its own last interrupted run, not the log.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson

from ..storage.appendlog import iter_lines_backward
from ..storage.history import BadLine, HistoryEntry, HistoryLog, format_timestamp

__all__ = ["SLICE_KEY", "slice_digest", "slice_marks", "resume_offset"]

#: The history entry key naming the session slice an entry came from.
SLICE_KEY = "slice"


def slice_digest(messages: Sequence[Mapping[str, Any]]) -> str:
    """A hash of ``messages`` as stored (key order ignored)."""
    h = hashlib.blake2b(digest_size=12)
    for m in messages:
        h.update(orjson.dumps(m, option=orjson.OPT_SORT_KEYS))
        h.update(b"\n")
    return h.hexdigest()


def slice_marks(
    messages: Sequence[Mapping[str, Any]], start: int, end: int, parts: int
) -> list[dict[str, Any]]:
    """The ``slice`` value of each of the ``parts`` entries of ``messages[start:end]``."""
    digest = slice_digest(messages[start:end])
    return [
        {"from": start, "to": end, "digest": digest, "part": i, "parts": parts}
        for i in range(1, parts + 1)
    ]


def resume_offset(
    history: HistoryLog,
    key: str,
    messages: Sequence[Mapping[str, Any]],
    offset: int,
    since: datetime,
) -> int:
    """``offset`` advanced over the slices history already holds past it (see the module doc);
    ``since``: the session's last metadata write."""
    keys = {key}
    if history.redact is not None:
        keys.add(history.redact(key))
    bound = format_timestamp(since)
    # (from, to, digest) -> (parts, parts seen)
    found: dict[tuple[int, int, str], tuple[int, set[int]]] = {}
    try:
        fd = os.open(history.path, os.O_RDONLY)
    except OSError:
        return offset  # no history (or none readable): nothing to resume past
    try:
        entries = list(_entries_since(fd, bound))
    except OSError:
        return offset  # unreadable: the run's own append reports it
    finally:
        os.close(fd)
    for entry in entries:
        mark = entry.extra.get(SLICE_KEY)
        if entry.session_key not in keys or not isinstance(mark, dict):
            continue
        try:
            start, end, digest = int(mark["from"]), int(mark["to"]), str(mark["digest"])
            part, parts = int(mark["part"]), int(mark["parts"])
        except (KeyError, TypeError, ValueError):
            continue
        if end <= offset:
            break  # the offset already passed this slice, and every slice before it
        held = found.setdefault((start, end, digest), (parts, set()))
        held[1].add(part)
    while True:
        step = [
            end
            for (start, end, digest), (parts, seen) in found.items()
            if start == offset
            and end <= len(messages)
            and len(seen) >= parts
            and seen >= set(range(1, parts + 1))
            and digest == slice_digest(messages[start:end])
        ]
        if not step:
            return offset
        offset = max(step)


def _entries_since(fd: int, bound: str) -> Iterator[HistoryEntry]:
    """The log's entries, newest first, down to the first one stamped before ``bound``."""
    for _, raw in iter_lines_backward(fd, os.fstat(fd).st_size):
        if raw is None:
            continue
        try:
            entry = HistoryEntry.from_json(raw)
        except BadLine:
            continue
        if entry.timestamp < bound:
            return
        yield entry
