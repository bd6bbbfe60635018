"""``memory/dream-deadletter.jsonl``: batches Dream set aside after repeated failures. This docstring is the spec.

One JSON object per line, UTF-8, ``\\n``-terminated, append-only::

    {"first": 31, "last": 50, "reason": "budget exhausted (loop): ...", "attempts": 3,
     "time": "2026-11-22T14:05:00+00:00"}

``first``/``last`` are the history cursors of the batch (inclusive); ``time`` is ISO 8601 with offset. Writers
hold Dream's run lock. An append is one ``write`` on an ``O_APPEND`` descriptor, fsynced; a torn last line
(a crash mid-append) is closed with a newline before the next append, and readers skip lines that do not parse,
with a warning. The entries stay in history.jsonl: ``reverie dream`` can be pointed back at them by hand.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import orjson

from ..fsutil import open_for_write

__all__ = ["DeadLetter", "append_dead_letter", "read_dead_letters", "deadletter_path"]

log = logging.getLogger(__name__)


def deadletter_path(memory_dir: Path) -> Path:
    return Path(memory_dir) / "dream-deadletter.jsonl"


@dataclass(frozen=True, slots=True)
class DeadLetter:
    first: int
    last: int
    reason: str
    attempts: int
    time: str

    def to_json(self) -> bytes:
        return orjson.dumps(
            {"first": self.first, "last": self.last, "reason": self.reason, "attempts": self.attempts,
             "time": self.time}
        ) + b"\n"


def append_dead_letter(path: Path, first: int, last: int, reason: str, attempts: int) -> DeadLetter:
    record = DeadLetter(first, last, reason, attempts, datetime.now(timezone.utc).isoformat(timespec="seconds"))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_for_write(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        size = os.fstat(fd).st_size
        prefix = b"\n" if size and os.pread(fd, 1, size - 1) != b"\n" else b""  # close a torn tail
        os.write(fd, prefix + record.to_json())
        os.fsync(fd)
    finally:
        os.close(fd)
    return record


def read_dead_letters(path: Path) -> list[DeadLetter]:
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    out: list[DeadLetter] = []
    bad = 0
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
            out.append(DeadLetter(int(obj["first"]), int(obj["last"]), str(obj["reason"]),
                                  int(obj.get("attempts", 0)), str(obj.get("time", ""))))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            bad += 1
    if bad:
        log.warning("%s: skipped %d unreadable line(s)", path, bad)
    return out
