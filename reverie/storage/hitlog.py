"""``memory/.reverie/recall-hits.jsonl``: which prompt-file lines Recall returned. This docstring is
the spec.

Dream's salience (``reverie.dream.salience``) counts how often a line of SOUL.md, USER.md or
memory/MEMORY.md was returned by a search. Queries must take no writer lock, so a query records its
hits with one ``O_APPEND`` write of one line (no lock, no fsync: a lost hit only makes a line look
slightly less used)::

    {"t": 1767225600.0, "path": "USER.md", "keys": ["lives in porto", "works at acme"]}

``t`` is epoch seconds, ``path`` the prompt file, ``keys`` the ``line_key`` of each line of the
returned section that holds a query term. Dream reads the log past the byte offset it last consumed
(kept in its salience record) under its run lock; a torn or unreadable line is skipped. When the log
passes ``ROTATE_BYTES`` Dream renames it to ``recall-hits.jsonl.1`` after folding it in (an append
racing the rename lands in the old file and is lost: hits are advisory).

``line_key`` (``reverie.text.memline``) is "the same line" for Recall (writer) and Dream (reader).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

from .fsutil import write_all

__all__ = [
    "HITS_NAME",
    "ROTATE_BYTES",
    "record_hits",
    "read_hits",
    "rotate_hits",
    "Hit",
]

log = logging.getLogger(__name__)

HITS_NAME = "recall-hits.jsonl"
ROTATE_BYTES = 1 << 20
_MAX_KEYS = 50


@dataclass(frozen=True, slots=True)
class Hit:
    time: float
    path: str
    keys: tuple[str, ...]


def record_hits(state_dir: Path, time: float, hits: Iterable[tuple[str, Iterable[str]]]) -> None:
    """Append one line per (path, keys) with keys; never raises (a query must not fail over a
    hint)."""
    lines = []
    for path, keys in hits:
        uniq = list(dict.fromkeys(k for k in keys if k))[:_MAX_KEYS]
        if uniq:
            lines.append(orjson.dumps({"t": round(time, 3), "path": path, "keys": uniq}) + b"\n")
    if not lines:
        return
    try:
        if not Path(state_dir).is_dir():
            return  # no Dream state yet: nothing will read the log
        fd = os.open(
            Path(state_dir) / HITS_NAME,
            os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW,
            0o644,
        )
        try:
            write_all(fd, b"".join(lines))
        finally:
            os.close(fd)
    except OSError as exc:
        log.debug("recall hits not recorded: %s", exc)


def read_hits(state_dir: Path, offset: int = 0) -> tuple[list[Hit], int]:
    """Hits past byte ``offset`` and the offset after the last complete line (a torn tail is left
    for later)."""
    path = Path(state_dir) / HITS_NAME
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if offset > size:
                offset = 0  # the log was rotated or replaced
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return [], 0
    except OSError as exc:
        log.warning("%s cannot be read (%s); recall hits ignored this run", path, exc.strerror)
        return [], offset
    end = data.rfind(b"\n") + 1
    out: list[Hit] = []
    for raw in data[:end].splitlines():
        try:
            obj = orjson.loads(raw)
            out.append(Hit(float(obj["t"]), str(obj["path"]), tuple(str(k) for k in obj["keys"])))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
    return out, offset + end


def rotate_hits(state_dir: Path) -> None:
    """Move a consumed log aside (see the module docstring); the caller then consumes from offset
    0."""
    path = Path(state_dir) / HITS_NAME
    try:
        os.replace(path, path.with_name(HITS_NAME + ".1"))
    except OSError as exc:
        log.debug("recall hits log not rotated: %s", exc)
